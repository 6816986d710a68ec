//! The `yarn-site.xml` keys of container preemption, checked so that none is silently ignored.

use yarn_conf::{ConfError, Configuration, KeyKind, keys};
use yarn_scheduler::SchedulerError;
use yarn_scheduler::preemption::PreemptionSettings;

/// Hadoop's class of the proportional preemption policy, the only scheduling edit policy
/// yarn-ha knows.
pub(crate) const PROPORTIONAL_POLICY_CLASS: &str = "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy";

/// Refuses `yarn.resourcemanager.scheduler.monitor.enable=true`, so that enabling preemption
/// is not silently ignored: the leader does not run the policy yet, and a Hadoop operator who
/// enabled it must not believe queue guarantees are enforced when they are not. With the
/// monitor enabled, the other keys are checked first, so their mistakes are named before the
/// refusal; with it off, they are not read, as in Hadoop.
///
/// # Errors
///
/// With the monitor enabled, a [`ConfError`] naming the key, its value and where it was set: a
/// policy class other than the proportional policy, an interval or wait that is not positive,
/// a factor out of its range (see [`PreemptionSettings::validate`]), or else the monitor key.
pub(crate) fn check_preemption_keys(conf: &Configuration) -> Result<(), ConfError> {
    if !conf.get_bool(&keys::RM_SCHEDULER_ENABLE_MONITORS)? {
        return Ok(());
    }
    let policies = &keys::RM_SCHEDULER_MONITOR_POLICIES;
    if let Some(other) = conf
        .get_list(policies)?
        .into_iter()
        .find(|class| class != PROPORTIONAL_POLICY_CLASS)
    {
        return Err(conf.invalid_value(
            policies,
            other,
            format!("{PROPORTIONAL_POLICY_CLASS}, the only scheduling edit policy yarn-ha has"),
        ));
    }
    for key in [
        &keys::PREEMPTION_MONITORING_INTERVAL,
        &keys::PREEMPTION_WAIT_TIME_BEFORE_KILL,
    ] {
        let millis = conf.get_i64(key)?;
        if millis <= 0 {
            return Err(conf.invalid_value(key, millis, "a positive number of milliseconds"));
        }
    }
    let settings = PreemptionSettings {
        total_preemption_per_round: conf.get_f64(&keys::PREEMPTION_TOTAL_PREEMPTION_PER_ROUND)?,
        max_ignored_over_capacity: conf.get_f64(&keys::PREEMPTION_MAX_IGNORED_OVER_CAPACITY)?,
        natural_termination_factor: conf.get_f64(&keys::PREEMPTION_NATURAL_TERMINATION_FACTOR)?,
    };
    if let Err(SchedulerError::InvalidValue {
        key,
        value,
        expected,
    }) = settings.validate()
    {
        return Err(ConfError::InvalidValue {
            location: conf.source(&key).cloned(),
            key,
            value,
            kind: KeyKind::Float,
            expected: expected.to_owned(),
        });
    }
    let observe_only = conf.get_bool(&keys::PREEMPTION_OBSERVE_ONLY)?;
    let expected = if observe_only {
        "false: yarn-ha does not run the preemption policy yet, not even to observe it"
    } else {
        "false: yarn-ha does not run the preemption policy yet, so queue guarantees are not \
         enforced by preemption"
    };
    Err(conf.invalid_value(&keys::RM_SCHEDULER_ENABLE_MONITORS, true, expected))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(pairs: &[(&str, &str)]) -> ConfError {
        let mut conf = Configuration::new();
        for (key, value) in pairs {
            conf.set(key, value);
        }
        check_preemption_keys(&conf).expect_err("refused")
    }

    fn named(err: &ConfError) -> &str {
        match err {
            ConfError::InvalidValue { key, .. } => key,
            other => panic!("expected a named value, got {other}"),
        }
    }

    #[test]
    fn with_the_monitor_off_nothing_is_read_and_on_each_bad_value_is_named_first() {
        let enable = "yarn.resourcemanager.scheduler.monitor.enable";
        check_preemption_keys(&Configuration::new()).expect("off by default");
        let cases = [
            (
                "yarn.resourcemanager.scheduler.monitor.policies",
                "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueManagementDynamicEditPolicy",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval",
                "0",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill",
                "-5",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round",
                "1.5",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity",
                "-0.1",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor",
                "0",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.observe_only",
                "sometimes",
            ),
        ];
        for (key, value) in cases {
            let mut off = Configuration::new();
            off.set(key, value);
            check_preemption_keys(&off).expect("not read while the monitor is off, as in Hadoop");
            let err = refusal(&[(enable, "true"), (key, value)]);
            assert_eq!(named(&err), key, "{err}");
        }
        let err = refusal(&[(enable, "true")]);
        assert_eq!(named(&err), enable);
        assert!(
            err.to_string()
                .contains("does not run the preemption policy"),
            "{err}"
        );
        let err = refusal(&[
            (enable, "true"),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.observe_only",
                "true",
            ),
        ]);
        assert!(err.to_string().contains("not even to observe"), "{err}");
    }
}
