//! [`Resources`]: what a container asks for and what a node offers.

use std::fmt;

use yarn_proto::pb;

use crate::Error;

/// Memory in MB and virtual cores, the two dimensions the container scheduler accounts for.
///
/// A request fits within a limit only when it fits in both dimensions. Arithmetic saturates, so
/// absurd amounts can never wrap around and make a full node look empty.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Resources {
    /// Memory in MB.
    pub memory_mb: u64,
    /// Virtual cores.
    pub vcores: u32,
}

impl Resources {
    /// No memory and no vcores.
    pub const ZERO: Self = Self::new(0, 0);

    /// `memory_mb` MB of memory and `vcores` virtual cores.
    pub const fn new(memory_mb: u64, vcores: u32) -> Self {
        Self { memory_mb, vcores }
    }

    /// Whether `self` fits within `limit` in both memory and vcores.
    pub const fn fits_within(&self, limit: &Self) -> bool {
        self.memory_mb <= limit.memory_mb && self.vcores <= limit.vcores
    }

    /// The sum per dimension, saturating at the largest representable amount.
    pub const fn saturating_add(self, other: Self) -> Self {
        Self::new(
            self.memory_mb.saturating_add(other.memory_mb),
            self.vcores.saturating_add(other.vcores),
        )
    }

    /// The difference per dimension, saturating at zero.
    pub const fn saturating_sub(self, other: Self) -> Self {
        Self::new(
            self.memory_mb.saturating_sub(other.memory_mb),
            self.vcores.saturating_sub(other.vcores),
        )
    }
}

/// Hadoop's form, `<memory:2048, vCores:2>`, so logs and diagnostics read as in YARN.
impl fmt::Display for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<memory:{}, vCores:{}>", self.memory_mb, self.vcores)
    }
}

/// Reads memory (MB) and vcores; resource types beyond those two are not scheduled by the NM and
/// are ignored.
impl TryFrom<&pb::ResourceProto> for Resources {
    type Error = Error;

    /// Fails with [`Error::NegativeResource`] naming the field when an amount is negative.
    fn try_from(proto: &pb::ResourceProto) -> Result<Self, Self::Error> {
        let memory_mb = u64::try_from(proto.memory).map_err(|_| Error::NegativeResource {
            field: "memory",
            value: proto.memory,
        })?;
        let vcores = u32::try_from(proto.virtual_cores).map_err(|_| Error::NegativeResource {
            field: "virtual_cores",
            value: i64::from(proto.virtual_cores),
        })?;
        Ok(Self::new(memory_mb, vcores))
    }
}

/// Amounts beyond the protobuf field's range are clamped to its maximum rather than wrapped.
impl From<Resources> for pb::ResourceProto {
    fn from(resources: Resources) -> Self {
        Self {
            memory: i64::try_from(resources.memory_mb).unwrap_or(i64::MAX),
            virtual_cores: i32::try_from(resources.vcores).unwrap_or(i32::MAX),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_only_when_both_dimensions_fit() {
        let limit = Resources::new(4096, 4);
        assert!(Resources::new(4096, 4).fits_within(&limit));
        assert!(!Resources::new(4097, 1).fits_within(&limit));
        assert!(!Resources::new(1, 5).fits_within(&limit));
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        let big = Resources::new(u64::MAX, u32::MAX);
        assert_eq!(big.saturating_add(Resources::new(1, 1)), big);
        assert_eq!(
            Resources::new(1, 1).saturating_sub(Resources::new(2, 2)),
            Resources::ZERO
        );
    }

    #[test]
    fn prints_like_hadoop() {
        assert_eq!(
            Resources::new(2048, 2).to_string(),
            "<memory:2048, vCores:2>"
        );
    }

    #[test]
    fn protobuf_round_trip_and_negative_amounts_are_refused() {
        let proto = pb::ResourceProto::from(Resources::new(1024, 3));
        assert_eq!(Resources::try_from(&proto), Ok(Resources::new(1024, 3)));

        let negative_memory = pb::ResourceProto {
            memory: -1,
            ..proto.clone()
        };
        assert_eq!(
            Resources::try_from(&negative_memory),
            Err(Error::NegativeResource {
                field: "memory",
                value: -1
            })
        );
        let negative_vcores = pb::ResourceProto {
            virtual_cores: -2,
            ..proto
        };
        assert_eq!(
            Resources::try_from(&negative_vcores),
            Err(Error::NegativeResource {
                field: "virtual_cores",
                value: -2
            })
        );
    }
}
