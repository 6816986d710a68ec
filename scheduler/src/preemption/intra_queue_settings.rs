//! [`IntraQueueSettings`]: whether and how far a round preempts within a leaf, from Hadoop's
//! `intra-queue-preemption.*` keys.

use crate::error::SchedulerError;

/// `yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.minimum-threshold`.
pub const MINIMUM_THRESHOLD_KEY: &str =
    "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.minimum-threshold";
/// `yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.max-allowable-limit`.
pub const MAX_ALLOWABLE_LIMIT_KEY: &str =
    "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.max-allowable-limit";
/// `yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.preemption-order-policy`.
pub const PREEMPTION_ORDER_POLICY_KEY: &str = "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.preemption-order-policy";

/// Which applications of a leaf give first when the leaf preempts for its own applications.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IntraQueueOrder {
    /// `userlimit_first`, Hadoop's default: applications of users above their user limit give
    /// first, and a user's containers are taken only while the user stays above its limit.
    #[default]
    UserLimitFirst,
    /// `priority_first`: the least important applications give first, whatever their users
    /// hold.
    PriorityFirst,
}

impl IntraQueueOrder {
    /// Parses Hadoop's value, in any case.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] naming the key and both accepted values.
    pub fn parse(value: &str) -> Result<Self, SchedulerError> {
        if value.trim().eq_ignore_ascii_case("userlimit_first") {
            Ok(Self::UserLimitFirst)
        } else if value.trim().eq_ignore_ascii_case("priority_first") {
            Ok(Self::PriorityFirst)
        } else {
            Err(SchedulerError::InvalidValue {
                key: PREEMPTION_ORDER_POLICY_KEY.to_owned(),
                value: value.to_owned(),
                expected: "userlimit_first or priority_first",
            })
        }
    }
}

/// The factors of intra-queue preemption, with Hadoop's defaults.
///
/// Invariant after [`validate`](Self::validate): `minimum_threshold` lies in `[0, 1]` and
/// `max_allowable_limit` in `(0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntraQueueSettings {
    /// A leaf preempts for its own applications only once it uses at least this fraction of
    /// its guarantee. Hadoop's default 0.5.
    pub minimum_threshold: f64,
    /// The most a leaf takes back from its own applications in one round, as a fraction of its
    /// guarantee. Hadoop's default 0.2.
    pub max_allowable_limit: f64,
    /// Who gives first.
    pub order: IntraQueueOrder,
}

impl Default for IntraQueueSettings {
    fn default() -> Self {
        Self {
            minimum_threshold: 0.5,
            max_allowable_limit: 0.2,
            order: IntraQueueOrder::default(),
        }
    }
}

impl IntraQueueSettings {
    /// Checks the invariant.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] naming the first factor out of range.
    pub fn validate(&self) -> Result<(), SchedulerError> {
        let (threshold, limit) = (self.minimum_threshold, self.max_allowable_limit);
        if !(0.0..=1.0).contains(&threshold) {
            return Err(SchedulerError::InvalidValue {
                key: MINIMUM_THRESHOLD_KEY.to_owned(),
                value: threshold.to_string(),
                expected: "a number from 0 to 1",
            });
        }
        if !(limit > 0.0 && limit <= 1.0) {
            return Err(SchedulerError::InvalidValue {
                key: MAX_ALLOWABLE_LIMIT_KEY.to_owned(),
                value: limit.to_string(),
                expected: "a number greater than 0 and at most 1",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused_key(settings: IntraQueueSettings) -> String {
        match settings.validate() {
            Err(SchedulerError::InvalidValue { key, .. }) => key,
            other => panic!("{settings:?}: expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn hadoops_defaults_are_valid_and_each_factor_out_of_range_is_named() {
        assert!(IntraQueueSettings::default().validate().is_ok());
        let threshold = |minimum_threshold| IntraQueueSettings {
            minimum_threshold,
            ..IntraQueueSettings::default()
        };
        let limit = |max_allowable_limit| IntraQueueSettings {
            max_allowable_limit,
            ..IntraQueueSettings::default()
        };
        assert!(threshold(0.0).validate().is_ok());
        assert!(limit(1.0).validate().is_ok());
        for bad in [-0.1, 1.5, f64::NAN] {
            assert_eq!(refused_key(threshold(bad)), MINIMUM_THRESHOLD_KEY);
        }
        for bad in [0.0, 1.01, f64::NAN] {
            assert_eq!(refused_key(limit(bad)), MAX_ALLOWABLE_LIMIT_KEY);
        }
    }

    #[test]
    fn the_order_policy_reads_hadoops_two_values_in_any_case() {
        assert_eq!(
            IntraQueueOrder::parse("userlimit_first").unwrap(),
            IntraQueueOrder::UserLimitFirst
        );
        assert_eq!(
            IntraQueueOrder::parse(" PRIORITY_FIRST ").unwrap(),
            IntraQueueOrder::PriorityFirst
        );
        match IntraQueueOrder::parse("fairness") {
            Err(SchedulerError::InvalidValue { key, expected, .. }) => {
                assert_eq!(key, PREEMPTION_ORDER_POLICY_KEY);
                assert!(expected.contains("priority_first"), "{expected}");
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}
