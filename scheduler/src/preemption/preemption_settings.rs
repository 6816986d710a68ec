//! [`PreemptionSettings`]: how hard one preemption round pushes towards the ideal assignment.

use crate::Resource;
use crate::error::SchedulerError;
use crate::preemption::IntraQueueSettings;

/// `yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round`.
pub const TOTAL_PREEMPTION_PER_ROUND_KEY: &str =
    "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round";
/// `yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity`.
pub const MAX_IGNORED_OVER_CAPACITY_KEY: &str =
    "yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity";
/// `yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor`.
pub const NATURAL_TERMINATION_FACTOR_KEY: &str =
    "yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor";

/// The factors of one round of the proportional policy, with Hadoop's defaults.
///
/// Invariant after [`validate`](Self::validate): every factor is finite,
/// `total_preemption_per_round` and `natural_termination_factor` lie in `(0, 1]` and
/// `max_ignored_over_capacity` is at least 0, and the intra-queue settings, if any, are valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreemptionSettings {
    /// The most a round reclaims at one level of the queue tree, as a fraction of the cluster:
    /// when the queues are over-served by more, every queue's share is scaled down alike.
    /// Hadoop's default 0.1.
    pub total_preemption_per_round: f64,
    /// The dead zone: a leaf using no more than `guarantee * (1 + this)` loses nothing, however
    /// far above its ideal share it is. Hadoop's default 0.1.
    pub max_ignored_over_capacity: f64,
    /// The fraction of a leaf's over-served amount one round asks back, the rest being left to
    /// containers that end on their own. Hadoop's default 0.2.
    pub natural_termination_factor: f64,
    /// How leaves preempt among their own applications, when they do
    /// (`intra-queue-preemption.enabled`; off by default, as in Hadoop).
    pub intra_queue: Option<IntraQueueSettings>,
}

impl Default for PreemptionSettings {
    fn default() -> Self {
        Self {
            total_preemption_per_round: 0.1,
            max_ignored_over_capacity: 0.1,
            natural_termination_factor: 0.2,
            intra_queue: None,
        }
    }
}

impl PreemptionSettings {
    /// The most one round takes back at one level of the queue tree:
    /// `total_preemption_per_round` of `cluster`, rounded down.
    pub fn allowance(&self, cluster: Resource) -> Resource {
        cluster.multiply_and_round_down(self.total_preemption_per_round)
    }

    /// Checks the invariant.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] naming the first factor out of range.
    pub fn validate(&self) -> Result<(), SchedulerError> {
        let fraction = "a number greater than 0 and at most 1";
        let checks = [
            (
                TOTAL_PREEMPTION_PER_ROUND_KEY,
                self.total_preemption_per_round,
                self.total_preemption_per_round > 0.0 && self.total_preemption_per_round <= 1.0,
                fraction,
            ),
            (
                MAX_IGNORED_OVER_CAPACITY_KEY,
                self.max_ignored_over_capacity,
                self.max_ignored_over_capacity >= 0.0 && self.max_ignored_over_capacity.is_finite(),
                "a number of at least 0",
            ),
            (
                NATURAL_TERMINATION_FACTOR_KEY,
                self.natural_termination_factor,
                self.natural_termination_factor > 0.0 && self.natural_termination_factor <= 1.0,
                fraction,
            ),
        ];
        match checks.into_iter().find(|(_, _, valid, _)| !valid) {
            Some((key, value, _, expected)) => Err(SchedulerError::InvalidValue {
                key: key.to_owned(),
                value: value.to_string(),
                expected,
            }),
            None => self
                .intra_queue
                .as_ref()
                .map_or(Ok(()), IntraQueueSettings::validate),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hadoops_defaults_are_valid_and_each_factor_out_of_range_is_named() {
        assert!(PreemptionSettings::default().validate().is_ok());
        let cases = [
            (
                PreemptionSettings {
                    total_preemption_per_round: 0.0,
                    ..PreemptionSettings::default()
                },
                TOTAL_PREEMPTION_PER_ROUND_KEY,
            ),
            (
                PreemptionSettings {
                    max_ignored_over_capacity: -0.5,
                    ..PreemptionSettings::default()
                },
                MAX_IGNORED_OVER_CAPACITY_KEY,
            ),
            (
                PreemptionSettings {
                    natural_termination_factor: f64::NAN,
                    ..PreemptionSettings::default()
                },
                NATURAL_TERMINATION_FACTOR_KEY,
            ),
            (
                PreemptionSettings {
                    natural_termination_factor: 1.5,
                    ..PreemptionSettings::default()
                },
                NATURAL_TERMINATION_FACTOR_KEY,
            ),
        ];
        for (settings, named) in cases {
            match settings.validate() {
                Err(SchedulerError::InvalidValue { key, .. }) => assert_eq!(key, named),
                other => panic!("{settings:?}: expected {named} to be refused, got {other:?}"),
            }
        }
    }
}
