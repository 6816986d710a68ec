//! [`ResourceCalculator`]: how the scheduler compares, divides and rounds [`Resource`]s.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::Resource;
use crate::error::SchedulerError;

/// The key that selects the calculator in `capacity-scheduler.xml`.
pub const RESOURCE_CALCULATOR_KEY: &str = "yarn.scheduler.capacity.resource-calculator";

/// How multi-dimensional resources are compared, as YARN's `ResourceCalculator` classes do.
///
/// - [`Default`](Self::Default) (`DefaultResourceCalculator`) looks at memory only: comparisons,
///   ratios and "fits in" ignore virtual cores, and a normalized ask always gets one virtual
///   core, exactly as YARN does. Nodes and queues are therefore never limited by cores.
/// - [`DominantResource`](Self::DominantResource) (`DominantResourceCalculator`) uses dominant
///   resource fairness: a resource's weight is its largest share of the cluster, and "fits in"
///   requires every dimension to fit.
///
/// Every method is total: divisions by zero give `0` for a zero numerator and `+inf` otherwise,
/// so callers never see NaN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ResourceCalculator {
    /// Memory only (`org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator`).
    #[default]
    Default,
    /// Dominant resource fairness over memory and virtual cores
    /// (`org.apache.hadoop.yarn.util.resource.DominantResourceCalculator`).
    DominantResource,
}

impl ResourceCalculator {
    /// Hadoop's class name of the memory-only calculator.
    pub const DEFAULT_CLASS: &'static str =
        "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator";
    /// Hadoop's class name of the dominant-resource calculator.
    pub const DOMINANT_RESOURCE_CLASS: &'static str =
        "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator";

    /// Reads the value of [`RESOURCE_CALCULATOR_KEY`]: one of Hadoop's two class names
    /// (surrounding whitespace ignored).
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownResourceCalculator`] naming the key and value for any other
    /// class.
    pub fn from_class_name(value: &str) -> Result<Self, SchedulerError> {
        match value.trim() {
            Self::DEFAULT_CLASS => Ok(Self::Default),
            Self::DOMINANT_RESOURCE_CLASS => Ok(Self::DominantResource),
            other => Err(SchedulerError::UnknownResourceCalculator {
                key: RESOURCE_CALCULATOR_KEY,
                value: other.to_string(),
            }),
        }
    }

    /// Hadoop's class name for this calculator.
    pub const fn class_name(&self) -> &'static str {
        match self {
            Self::Default => Self::DEFAULT_CLASS,
            Self::DominantResource => Self::DOMINANT_RESOURCE_CLASS,
        }
    }

    /// Orders `lhs` against `rhs` within a cluster of size `cluster`.
    ///
    /// Memory only for [`Default`](Self::Default). For
    /// [`DominantResource`](Self::DominantResource), the larger dominant share wins and ties are
    /// broken by the other share; with an empty cluster it falls back to memory, then cores.
    pub fn compare(&self, cluster: Resource, lhs: Resource, rhs: Resource) -> Ordering {
        match self {
            Self::Default => lhs.memory_mb.cmp(&rhs.memory_mb),
            Self::DominantResource => {
                if cluster.is_zero() {
                    return (lhs.memory_mb, lhs.vcores).cmp(&(rhs.memory_mb, rhs.vcores));
                }
                let (l_major, l_minor) = sorted_shares(cluster, lhs);
                let (r_major, r_minor) = sorted_shares(cluster, rhs);
                l_major
                    .total_cmp(&r_major)
                    .then_with(|| l_minor.total_cmp(&r_minor))
            }
        }
    }

    /// The calculator-aware smaller of `a` and `b` (the whole resource, as YARN's
    /// `Resources.min`); `a` on ties.
    pub fn min(&self, cluster: Resource, a: Resource, b: Resource) -> Resource {
        if self.compare(cluster, a, b) == Ordering::Greater {
            b
        } else {
            a
        }
    }

    /// The calculator-aware larger of `a` and `b`; `a` on ties.
    pub fn max(&self, cluster: Resource, a: Resource, b: Resource) -> Resource {
        if self.compare(cluster, a, b) == Ordering::Less {
            b
        } else {
            a
        }
    }

    /// Whether `smaller` fits in `bigger`: memory only for [`Default`](Self::Default), every
    /// dimension for [`DominantResource`](Self::DominantResource).
    pub fn fits_in(&self, smaller: Resource, bigger: Resource) -> bool {
        match self {
            Self::Default => smaller.memory_mb <= bigger.memory_mb,
            Self::DominantResource => smaller.fits_in_every_dimension(&bigger),
        }
    }

    /// `a / b` without a cluster: memory ratio, or the largest per-dimension ratio for DRF
    /// (YARN's `ratio`).
    pub fn ratio(&self, a: Resource, b: Resource) -> f64 {
        let memory = safe_div(a.memory_mb as f64, b.memory_mb as f64);
        match self {
            Self::Default => memory,
            Self::DominantResource => {
                memory.max(safe_div(f64::from(a.vcores), f64::from(b.vcores)))
            }
        }
    }

    /// `numerator / denominator` within `cluster` (YARN's `divide`): the memory ratio, or the
    /// ratio of the two dominant shares for DRF. This is how used capacity is computed.
    pub fn divide(&self, cluster: Resource, numerator: Resource, denominator: Resource) -> f64 {
        match self {
            Self::Default => safe_div(numerator.memory_mb as f64, denominator.memory_mb as f64),
            Self::DominantResource => safe_div(
                self.dominant_share(cluster, numerator),
                self.dominant_share(cluster, denominator),
            ),
        }
    }

    /// The share of `cluster` that `r` takes: memory share for [`Default`](Self::Default), the
    /// largest share for DRF. Zero for an empty cluster.
    pub fn dominant_share(&self, cluster: Resource, r: Resource) -> f64 {
        let memory = share(r.memory_mb as f64, cluster.memory_mb as f64);
        match self {
            Self::Default => memory,
            Self::DominantResource => {
                memory.max(share(f64::from(r.vcores), f64::from(cluster.vcores)))
            }
        }
    }

    /// Normalizes an ask as YARN's scheduler does: each dimension is raised to the minimum
    /// allocation, rounded up to a multiple of `step` (the minimum allocation) and capped at
    /// `maximum`. The memory-only calculator drops the requested cores and grants one core (none
    /// for a zero-memory ask), as YARN's `DefaultResourceCalculator` does.
    pub fn normalize(
        &self,
        ask: Resource,
        minimum: Resource,
        maximum: Resource,
        step: Resource,
    ) -> Resource {
        let memory =
            round_up(ask.memory_mb.max(minimum.memory_mb), step.memory_mb).min(maximum.memory_mb);
        match self {
            Self::Default => Resource::new(memory, u32::from(memory > 0)),
            Self::DominantResource => {
                let vcores = round_up(
                    u64::from(ask.vcores.max(minimum.vcores)),
                    u64::from(step.vcores),
                )
                .min(u64::from(maximum.vcores));
                Resource::new(memory, clamp_u32(vcores))
            }
        }
    }

    /// `r * by`, rounded to the nearest unit (memory-only) or up (DRF), then up to a multiple
    /// of `step` in each dimension (YARN's `multiplyAndNormalizeUp`).
    pub fn multiply_and_normalize_up(&self, r: Resource, by: f64, step: Resource) -> Resource {
        let scale = |value: f64| -> u64 {
            let scaled = match self {
                Self::Default => (value * by + 0.5).floor(),
                Self::DominantResource => (value * by).ceil(),
            };
            non_negative(scaled) as u64
        };
        Resource::new(
            round_up(scale(r.memory_mb as f64), step.memory_mb),
            clamp_u32(round_up(scale(f64::from(r.vcores)), u64::from(step.vcores))),
        )
    }

    /// `r * by` rounded down, then down to a multiple of `step` in each dimension (YARN's
    /// `multiplyAndNormalizeDown`).
    pub fn multiply_and_normalize_down(&self, r: Resource, by: f64, step: Resource) -> Resource {
        let scaled = r.multiply_and_round_down(by);
        Resource::new(
            round_down(scaled.memory_mb, step.memory_mb),
            clamp_u32(round_down(u64::from(scaled.vcores), u64::from(step.vcores))),
        )
    }

    /// Each dimension rounded up to a multiple of `step` (unchanged where the step is zero).
    pub fn round_up(&self, r: Resource, step: Resource) -> Resource {
        Resource::new(
            round_up(r.memory_mb, step.memory_mb),
            clamp_u32(round_up(u64::from(r.vcores), u64::from(step.vcores))),
        )
    }

    /// Each dimension rounded down to a multiple of `step` (unchanged where the step is zero).
    pub fn round_down(&self, r: Resource, step: Resource) -> Resource {
        Resource::new(
            round_down(r.memory_mb, step.memory_mb),
            clamp_u32(round_down(u64::from(r.vcores), u64::from(step.vcores))),
        )
    }

    /// Each dimension divided by `by` and rounded up; zero when `by` is not positive (YARN's
    /// `divideAndCeil`).
    pub fn divide_and_ceil(&self, r: Resource, by: f64) -> Resource {
        if by <= 0.0 || by.is_nan() {
            return Resource::ZERO;
        }
        let divide = |value: f64| non_negative((value / by).ceil());
        Resource::new(
            divide(r.memory_mb as f64) as u64,
            divide(f64::from(r.vcores)).min(f64::from(u32::MAX)) as u32,
        )
    }
}

/// Both shares of `r` in `cluster`, larger first.
fn sorted_shares(cluster: Resource, r: Resource) -> (f64, f64) {
    let memory = share(r.memory_mb as f64, cluster.memory_mb as f64);
    let vcores = share(f64::from(r.vcores), f64::from(cluster.vcores));
    if memory >= vcores {
        (memory, vcores)
    } else {
        (vcores, memory)
    }
}

/// `value / total` where an absent dimension (total zero) counts as no share at all when the
/// value is zero and as the whole cluster otherwise.
fn share(value: f64, total: f64) -> f64 {
    if total == 0.0 {
        if value == 0.0 { 0.0 } else { 1.0 }
    } else {
        value / total
    }
}

/// `a / b`, with `0/0 = 0` and `x/0 = +inf`.
fn safe_div(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        if a == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        a / b
    }
}

fn non_negative(value: f64) -> f64 {
    if value.is_nan() || value < 0.0 {
        0.0
    } else {
        value
    }
}

fn round_up(value: u64, step: u64) -> u64 {
    if step == 0 {
        value
    } else {
        value.div_ceil(step).saturating_mul(step)
    }
}

fn round_down(value: u64, step: u64) -> u64 {
    value.checked_div(step).map_or(value, |steps| steps * step)
}

fn clamp_u32(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLUSTER: Resource = Resource::new(100 * 1024, 100);

    #[test]
    fn accepts_hadoop_class_names_and_rejects_others_naming_key_and_value() {
        assert_eq!(
            ResourceCalculator::from_class_name(ResourceCalculator::DEFAULT_CLASS).unwrap(),
            ResourceCalculator::Default
        );
        assert_eq!(
            ResourceCalculator::from_class_name(
                " org.apache.hadoop.yarn.util.resource.DominantResourceCalculator "
            )
            .unwrap(),
            ResourceCalculator::DominantResource
        );
        let err = ResourceCalculator::from_class_name("com.example.Fancy").unwrap_err();
        let message = err.to_string();
        assert!(message.contains(RESOURCE_CALCULATOR_KEY), "{message}");
        assert!(message.contains("com.example.Fancy"), "{message}");
    }

    #[test]
    fn default_compares_memory_only_and_drf_compares_dominant_shares() {
        let cpu_heavy = Resource::new(1024, 50);
        let memory_heavy = Resource::new(10 * 1024, 1);
        let default = ResourceCalculator::Default;
        let drf = ResourceCalculator::DominantResource;
        assert_eq!(
            default.compare(CLUSTER, cpu_heavy, memory_heavy),
            Ordering::Less
        );
        assert_eq!(
            drf.compare(CLUSTER, cpu_heavy, memory_heavy),
            Ordering::Greater
        );
        assert!(default.fits_in(Resource::new(1024, 500), Resource::new(1024, 1)));
        assert!(!drf.fits_in(Resource::new(1024, 500), Resource::new(1024, 1)));
        assert!((drf.dominant_share(CLUSTER, cpu_heavy) - 0.5).abs() < 1e-12);
        assert!((default.dominant_share(CLUSTER, cpu_heavy) - 0.01).abs() < 1e-12);
    }

    #[test]
    fn normalize_rounds_up_to_the_minimum_allocation_per_calculator() {
        let min = Resource::new(1024, 1);
        let max = Resource::new(8192, 4);
        let default = ResourceCalculator::Default;
        let drf = ResourceCalculator::DominantResource;
        assert_eq!(
            default.normalize(Resource::new(1500, 3), min, max, min),
            Resource::new(2048, 1)
        );
        assert_eq!(
            drf.normalize(Resource::new(1500, 3), min, max, min),
            Resource::new(2048, 3)
        );
        assert_eq!(
            drf.normalize(Resource::new(0, 0), min, max, min),
            Resource::new(1024, 1)
        );
        assert_eq!(
            drf.normalize(
                Resource::new(3000, 2),
                Resource::new(512, 2),
                max,
                Resource::new(512, 2)
            ),
            Resource::new(3072, 2)
        );
    }

    #[test]
    fn divisions_by_zero_are_defined() {
        let drf = ResourceCalculator::DominantResource;
        assert_eq!(drf.divide(CLUSTER, Resource::ZERO, Resource::ZERO), 0.0);
        assert_eq!(
            drf.divide(CLUSTER, Resource::new(1, 1), Resource::ZERO),
            f64::INFINITY
        );
        assert_eq!(
            drf.divide_and_ceil(Resource::new(10, 3), 0.0),
            Resource::ZERO
        );
        assert_eq!(
            drf.divide_and_ceil(Resource::new(10, 3), 2.0),
            Resource::new(5, 2)
        );
    }

    #[test]
    fn multiply_and_normalize_rounds_to_steps() {
        let step = Resource::new(1024, 1);
        let default = ResourceCalculator::Default;
        assert_eq!(
            default.multiply_and_normalize_up(Resource::new(10_240, 10), 0.1, step),
            Resource::new(1024, 1)
        );
        assert_eq!(
            default.multiply_and_normalize_up(Resource::new(10_240, 10), 0.15, step),
            Resource::new(2048, 2)
        );
        assert_eq!(
            default.multiply_and_normalize_down(Resource::new(10_240, 10), 0.15, step),
            Resource::new(1024, 1)
        );
    }
}
