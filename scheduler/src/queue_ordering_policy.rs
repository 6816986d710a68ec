//! [`QueueOrderingPolicy`]: how a parent queue orders its children when it offers them
//! resources (`ordering-policy` of a parent: `utilization` or `priority-utilization`).

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::Resource;
use crate::error::SchedulerError;
use crate::property_reader::invalid;

const PARENT: &str = "utilization or priority-utilization on a parent queue (fifo and fair \
                      order a leaf's applications)";

/// The order in which a parent offers resources to its children, Hadoop's
/// `PriorityUtilizationQueueOrderingPolicy`.
///
/// Under both, a child with a guarantee goes before one without; two children with the same
/// priority go by used capacity, the less used first (children without a guarantee by their
/// share of the cluster); ties go to the larger configured minimum resource when both have one,
/// otherwise to the larger absolute capacity, then to configuration order. `PriorityUtilization` also weighs each child's
/// `priority`: of two children that are both below their guarantee, or both at or above it, the
/// higher priority goes first; one below its guarantee always goes before one that is not.
/// `Utilization` takes every priority as 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum QueueOrderingPolicy {
    /// `utilization` (Hadoop's default).
    #[default]
    Utilization,
    /// `priority-utilization`.
    PriorityUtilization,
}

/// What a parent's ordering looks at in one child at the time of a decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ChildStanding {
    /// Its share of the cluster it is guaranteed (0 to 1, or percent: only compared).
    pub(crate) absolute_capacity: f64,
    /// What it uses over its guarantee, counted as at least one minimum allocation (Hadoop's
    /// used capacity).
    pub(crate) used_capacity: f64,
    /// What it uses over the cluster (Hadoop's absolute used capacity).
    pub(crate) absolute_used_capacity: f64,
    /// Its `priority`.
    pub(crate) priority: i32,
    /// Its configured absolute minimum (zero unless its capacity is an amount).
    pub(crate) configured_minimum: Resource,
}

impl QueueOrderingPolicy {
    /// Parses the trimmed `value` of the `ordering-policy` key `key` of a parent queue.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] for anything but Hadoop's two parent policies.
    pub(crate) fn parse_parent(key: &str, value: &str) -> Result<Self, SchedulerError> {
        match value {
            "utilization" => Ok(Self::Utilization),
            "priority-utilization" => Ok(Self::PriorityUtilization),
            _ => Err(invalid(key, value, PARENT)),
        }
    }

    /// Hadoop's name of the policy, as the REST API reports it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Utilization => "utilization",
            Self::PriorityUtilization => "priority-utilization",
        }
    }

    /// Whether the children's priorities count.
    pub fn respects_priority(self) -> bool {
        self == Self::PriorityUtilization
    }

    /// Which of two children goes first (`Less`: `a`); `Equal` leaves them in configuration
    /// order. Inlined: the pass compares children for every container it places.
    #[inline]
    pub(crate) fn compare(self, a: &ChildStanding, b: &ChildStanding) -> Ordering {
        let (a_guaranteed, b_guaranteed) = (a.absolute_capacity > 0.0, b.absolute_capacity > 0.0);
        if a_guaranteed != b_guaranteed {
            return if a_guaranteed {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (a_used, b_used) = if a_guaranteed {
            (a.used_capacity, b.used_capacity)
        } else {
            (a.absolute_used_capacity, b.absolute_used_capacity)
        };
        let (a_priority, b_priority) = if self.respects_priority() {
            (a.priority, b.priority)
        } else {
            (0, 0)
        };
        compare_by_priority_and_use(a_used, b_used, a_priority, b_priority).then_with(|| {
            let (a_min, b_min) = (a.configured_minimum, b.configured_minimum);
            if !a_min.is_zero() && !b_min.is_zero() {
                // Hadoop compares two resources by memory, then by cores.
                b_min
                    .memory_mb
                    .cmp(&a_min.memory_mb)
                    .then(b_min.vcores.cmp(&a_min.vcores))
            } else {
                b.absolute_capacity.total_cmp(&a.absolute_capacity)
            }
        })
    }
}

/// Hadoop's `PriorityUtilizationQueueOrderingPolicy.compare`, which preemption shares: of two
/// queues holding `used_a` and `used_b` of their guarantees, with priorities `priority_a` and
/// `priority_b`, which goes first (`Less`: the first). Equal priorities go by use, the less
/// used first; otherwise the higher priority goes first when both are below their guarantees
/// or both are at or above them, and the one below its guarantee when only one is.
///
/// Written as the order of `(at or above the guarantee, higher priority, use)`, which decides
/// every case as Hadoop's rules do and, unlike a comparator of those rules, is plainly a total
/// order, so sorting by it is sound.
pub(crate) fn compare_by_priority_and_use(
    used_a: f64,
    used_b: f64,
    priority_a: i32,
    priority_b: i32,
) -> Ordering {
    (used_a >= 1.0)
        .cmp(&(used_b >= 1.0))
        .then(priority_b.cmp(&priority_a))
        .then(used_a.total_cmp(&used_b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "yarn.scheduler.capacity.root.ordering-policy";

    fn child(absolute_capacity: f64, used_capacity: f64, priority: i32) -> ChildStanding {
        ChildStanding {
            absolute_capacity,
            used_capacity,
            absolute_used_capacity: used_capacity * absolute_capacity,
            priority,
            configured_minimum: Resource::ZERO,
        }
    }

    /// Hadoop's rules, case by case, against the order used.
    #[test]
    fn the_order_decides_as_hadoops_rules() {
        let hadoop = |used_a: f64, used_b: f64, priority_a: i32, priority_b: i32| {
            if priority_a == priority_b || (used_a < 1.0) != (used_b < 1.0) {
                used_a.total_cmp(&used_b)
            } else {
                priority_b.cmp(&priority_a)
            }
        };
        let uses = [0.0, 0.3, 0.99, 1.0, 1.7, f64::from(i32::MAX), f64::INFINITY];
        for used_a in uses {
            for used_b in uses {
                for priority_a in 0..3 {
                    for priority_b in 0..3 {
                        assert_eq!(
                            compare_by_priority_and_use(used_a, used_b, priority_a, priority_b),
                            hadoop(used_a, used_b, priority_a, priority_b),
                            "{used_a} {used_b} {priority_a} {priority_b}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn parents_take_hadoops_two_policies() {
        assert_eq!(
            QueueOrderingPolicy::parse_parent(KEY, "utilization").unwrap(),
            QueueOrderingPolicy::Utilization
        );
        assert_eq!(
            QueueOrderingPolicy::parse_parent(KEY, "priority-utilization").unwrap(),
            QueueOrderingPolicy::PriorityUtilization
        );
        let message = QueueOrderingPolicy::parse_parent(KEY, "fair")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("utilization or priority-utilization"),
            "{message}"
        );
    }

    /// The cases of Hadoop's class comment.
    #[test]
    fn priority_counts_unless_only_one_child_is_below_its_guarantee() {
        use Ordering::{Greater, Less};
        let policy = QueueOrderingPolicy::PriorityUtilization;
        let cmp = |a: ChildStanding, b: ChildStanding| policy.compare(&a, &b);
        // Same priority: the less used first.
        assert_eq!(cmp(child(0.5, 0.2, 1), child(0.5, 0.4, 1)), Less);
        // Both below, or both at or above, their guarantees: the higher priority first.
        assert_eq!(cmp(child(0.5, 0.8, 2), child(0.5, 0.1, 1)), Less);
        assert_eq!(cmp(child(0.5, 1.5, 2), child(0.5, 1.0, 1)), Less);
        // One below: it goes first, whatever the priorities.
        assert_eq!(cmp(child(0.5, 1.0, 9), child(0.5, 0.9, 1)), Greater);
        // Under utilization, priorities do not count.
        let utilization = QueueOrderingPolicy::Utilization;
        assert_eq!(
            utilization.compare(&child(0.5, 0.8, 2), &child(0.5, 0.1, 1)),
            Greater
        );
    }

    #[test]
    fn a_guaranteed_child_first_then_the_larger_guarantee_on_ties() {
        use Ordering::{Greater, Less};
        for policy in [
            QueueOrderingPolicy::Utilization,
            QueueOrderingPolicy::PriorityUtilization,
        ] {
            let cmp = |a: ChildStanding, b: ChildStanding| policy.compare(&a, &b);
            assert_eq!(cmp(child(0.1, 5.0, 0), child(0.0, 0.0, 9)), Less);
            // Without guarantees, by share of the cluster.
            let mut idle = child(0.0, 0.0, 0);
            let mut busy = child(0.0, 0.0, 0);
            busy.absolute_used_capacity = 0.3;
            idle.absolute_used_capacity = 0.1;
            assert_eq!(cmp(idle, busy), Less);
            assert_eq!(cmp(child(0.2, 0.5, 0), child(0.6, 0.5, 0)), Greater);
            let mut small = child(0.5, 0.5, 0);
            let mut large = child(0.5, 0.5, 0);
            small.configured_minimum = Resource::new(1024, 1);
            large.configured_minimum = Resource::new(2048, 1);
            assert_eq!(cmp(large, small), Less);
        }
    }
}
