//! [`Resource`]: an amount of memory and virtual cores.

use std::fmt;

use crate::pb;
use serde::{Deserialize, Serialize};

/// An amount of cluster resources: memory in MiB and virtual cores, YARN's two standard resource
/// types.
///
/// Arithmetic never wraps or panics: subtraction saturates at zero in each dimension and
/// addition saturates at the type's maximum, so usage accounting stays well defined even if a
/// caller releases more than it charged. Which dimensions matter in a comparison is decided by
/// the scheduler's resource calculator, not by this type.
///
/// The one home of this record for every crate: the CapacityScheduler, the opportunistic
/// allocator and the daemons share it.
///
/// Prints as YARN does: `<memory:1024, vCores:1>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Resource {
    /// Memory in MiB.
    pub memory_mb: u64,
    /// Virtual cores.
    pub vcores: u32,
}

impl Resource {
    /// No resources at all.
    pub const ZERO: Resource = Resource {
        memory_mb: 0,
        vcores: 0,
    };

    /// Builds a resource from its two dimensions.
    pub const fn new(memory_mb: u64, vcores: u32) -> Self {
        Self { memory_mb, vcores }
    }

    /// Whether both dimensions are zero.
    pub const fn is_zero(&self) -> bool {
        self.memory_mb == 0 && self.vcores == 0
    }

    /// The sum, saturating in each dimension.
    #[must_use]
    pub const fn saturating_add(self, other: Resource) -> Resource {
        Resource {
            memory_mb: self.memory_mb.saturating_add(other.memory_mb),
            vcores: self.vcores.saturating_add(other.vcores),
        }
    }

    /// The difference, floored at zero in each dimension.
    #[must_use]
    pub const fn saturating_sub(self, other: Resource) -> Resource {
        Resource {
            memory_mb: self.memory_mb.saturating_sub(other.memory_mb),
            vcores: self.vcores.saturating_sub(other.vcores),
        }
    }

    /// The resource times `count`, saturating in each dimension.
    #[must_use]
    pub fn saturating_mul(self, count: u32) -> Resource {
        Resource {
            memory_mb: self.memory_mb.saturating_mul(u64::from(count)),
            vcores: self.vcores.saturating_mul(count),
        }
    }

    /// The smaller value in each dimension (not a calculator-aware minimum).
    #[must_use]
    pub fn component_min(self, other: Resource) -> Resource {
        Resource {
            memory_mb: self.memory_mb.min(other.memory_mb),
            vcores: self.vcores.min(other.vcores),
        }
    }

    /// The larger value in each dimension (not a calculator-aware maximum).
    #[must_use]
    pub fn component_max(self, other: Resource) -> Resource {
        Resource {
            memory_mb: self.memory_mb.max(other.memory_mb),
            vcores: self.vcores.max(other.vcores),
        }
    }

    /// Whether every dimension of `self` is at most the same dimension of `other`.
    pub const fn fits_in_every_dimension(&self, other: &Resource) -> bool {
        self.memory_mb <= other.memory_mb && self.vcores <= other.vcores
    }

    /// Each dimension multiplied by `factor` and rounded down, as YARN's
    /// `Resources.multiplyAndRoundDown`. Negative or non-finite factors give zero.
    #[must_use]
    pub fn multiply_and_round_down(self, factor: f64) -> Resource {
        Resource {
            memory_mb: scale_down(self.memory_mb as f64, factor) as u64,
            vcores: scale_down(f64::from(self.vcores), factor).min(f64::from(u32::MAX)) as u32,
        }
    }
}

/// `value * factor` rounded down, with negative, NaN and infinite results mapped into range
/// (the `as` casts that follow saturate). A tolerance far below one unit keeps products such
/// as `102400 * 0.28` from losing a unit to binary floating point.
fn scale_down(value: f64, factor: f64) -> f64 {
    let scaled = (value * factor + 1e-6).floor();
    if scaled.is_nan() || scaled < 0.0 {
        0.0
    } else {
        scaled
    }
}

/// The wire form's memory and vcores; negative figures (which no valid peer sends) count as 0.
impl From<&pb::ResourceProto> for Resource {
    fn from(proto: &pb::ResourceProto) -> Self {
        Self::new(
            u64::try_from(proto.memory).unwrap_or(0),
            u32::try_from(proto.virtual_cores).unwrap_or(0),
        )
    }
}

/// The wire form: memory and vcores in fields 1 and 2, no other type.
impl From<Resource> for pb::ResourceProto {
    fn from(resource: Resource) -> Self {
        Self {
            memory: i64::try_from(resource.memory_mb).unwrap_or(i64::MAX),
            virtual_cores: i32::try_from(resource.vcores).unwrap_or(i32::MAX),
            ..Self::default()
        }
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<memory:{}, vCores:{}>", self.memory_mb, self.vcores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        let a = Resource::new(1024, 1);
        let b = Resource::new(2048, 4);
        assert_eq!(a.saturating_sub(b), Resource::ZERO);
        assert_eq!(a.saturating_add(b), Resource::new(3072, 5));
        assert_eq!(
            Resource::new(u64::MAX, u32::MAX).saturating_add(a),
            Resource::new(u64::MAX, u32::MAX)
        );
        assert_eq!(a.saturating_mul(3), Resource::new(3072, 3));
    }

    #[test]
    fn multiply_and_round_down_floors_each_dimension() {
        let r = Resource::new(10_000, 10);
        assert_eq!(r.multiply_and_round_down(0.333), Resource::new(3330, 3));
        assert_eq!(r.multiply_and_round_down(-1.0), Resource::ZERO);
    }

    #[test]
    fn prints_like_yarn() {
        assert_eq!(
            Resource::new(2048, 2).to_string(),
            "<memory:2048, vCores:2>"
        );
    }
}
