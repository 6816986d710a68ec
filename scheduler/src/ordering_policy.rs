//! [`OrderingPolicy`]: how a leaf queue orders its applications (`ordering-policy`).

use serde::{Deserialize, Serialize};

use crate::Resource;
use crate::error::SchedulerError;
use crate::property_reader::invalid;

const LEAF: &str = "fifo, fifo-with-partitions or fair on a leaf queue (or Hadoop's \
                    FifoOrderingPolicy or FairOrderingPolicy class); utilization and \
                    priority-utilization order a parent's children";
/// Hadoop's package of ordering policy classes, which a value may name in full.
const POLICY_PACKAGE: &str = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.";

/// The order in which a leaf queue offers containers to its active applications.
///
/// Both policies serve a higher application priority first (Hadoop's fair policy ignores it; in
/// yarn-ha `application -updatePriority` means the same in every queue); among equal
/// priorities, `Fifo` serves the earliest submitted, and `Fair` the one using the least
/// memory, so that concurrent applications converge on equal shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OrderingPolicy {
    /// `fifo` (Hadoop's default).
    #[default]
    Fifo,
    /// `fair`.
    Fair {
        /// `ordering-policy.fair.enable-size-based-weight`: usage is divided by
        /// `log2(1 + demand)` (memory), so that a large application is not starved by a stream
        /// of small ones.
        size_based_weight: bool,
    },
}

impl OrderingPolicy {
    /// Parses the trimmed `value` of the `ordering-policy` key `key` of a leaf queue, with
    /// `size_based_weight` from its `fair.enable-size-based-weight` key.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] for anything but Hadoop's leaf policies.
    pub(crate) fn parse_leaf(
        key: &str,
        value: &str,
        size_based_weight: bool,
    ) -> Result<Self, SchedulerError> {
        let name = value.strip_prefix(POLICY_PACKAGE).unwrap_or(value);
        match name {
            "fifo"
            | "fifo-with-partitions"
            | "FifoOrderingPolicy"
            | "FifoOrderingPolicyWithExclusivePartitions" => Ok(Self::Fifo),
            "fair" | "FairOrderingPolicy" => Ok(Self::Fair { size_based_weight }),
            _ => Err(invalid(key, value, LEAF)),
        }
    }

    /// Hadoop's name of the policy, as the REST API reports it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fifo => "fifo",
            Self::Fair { .. } => "fair",
        }
    }

    /// How far along an application is under this policy, smaller served first among equal
    /// priorities (then by submission): nothing under `Fifo`; under `Fair` the memory it uses,
    /// divided by `log2(1 + demand)` with size-based weight, `demand` being what it holds and
    /// still asks for.
    pub(crate) fn magnitude(self, used: Resource, demand: Resource) -> f64 {
        match self {
            Self::Fifo => 0.0,
            Self::Fair { size_based_weight } => {
                let used = used.memory_mb as f64;
                if size_based_weight {
                    used / ((demand.memory_mb as f64).ln_1p() / std::f64::consts::LN_2)
                } else {
                    used
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "yarn.scheduler.capacity.root.a.ordering-policy";

    #[test]
    fn leaves_take_hadoops_names_and_classes() {
        for (value, policy) in [
            ("fifo", OrderingPolicy::Fifo),
            ("fifo-with-partitions", OrderingPolicy::Fifo),
            (
                "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FairOrderingPolicy",
                OrderingPolicy::Fair {
                    size_based_weight: true,
                },
            ),
            (
                "fair",
                OrderingPolicy::Fair {
                    size_based_weight: true,
                },
            ),
        ] {
            assert_eq!(
                OrderingPolicy::parse_leaf(KEY, value, true).unwrap(),
                policy
            );
        }
        for value in ["utilization", "Fair", "lifo"] {
            let message = OrderingPolicy::parse_leaf(KEY, value, false)
                .unwrap_err()
                .to_string();
            assert!(
                message.contains("fifo, fifo-with-partitions or fair"),
                "{message}"
            );
        }
    }

    #[test]
    fn fair_serves_the_least_used_and_size_based_weight_favours_large_demand() {
        let gib = |n: u64| Resource::new(n * 1024, n as u32);
        let fair = OrderingPolicy::Fair {
            size_based_weight: false,
        };
        assert!(fair.magnitude(gib(2), gib(3)) < fair.magnitude(gib(3), gib(100)));
        let weighted = OrderingPolicy::Fair {
            size_based_weight: true,
        };
        // 2048 / log2(3073) ~ 176 against 3072 / log2(102401) ~ 184: small still first; with
        // more demand the large one goes first (3072 / log2(102400001) ~ 115).
        let small = weighted.magnitude(gib(2), gib(3));
        assert!(small < weighted.magnitude(gib(3), gib(100)));
        assert!(small > weighted.magnitude(gib(3), gib(100_000)));
        assert_eq!(OrderingPolicy::Fifo.magnitude(gib(9), gib(9)), 0.0);
    }
}
