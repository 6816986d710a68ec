//! [`PreemptionConfig`]: whether and how the leader preempts containers, from the
//! `yarn-site.xml` keys of Hadoop's scheduling monitor.

use std::time::Duration;

use yarn_conf::{ConfError, Configuration, KeyKind, keys};
use yarn_scheduler::SchedulerError;
use yarn_scheduler::preemption::{IntraQueueOrder, IntraQueueSettings, PreemptionSettings};

use super::MonitorPolicies;
use super::monitor_policies::positive_millis;

/// The proportional preemption policy as the leader runs it.
///
/// Invariant: when `enabled`, the interval and the wait are positive and `settings` is valid.
/// With the monitor off, the other keys are not read, as in Hadoop, and hold their defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreemptionConfig {
    /// `yarn.resourcemanager.scheduler.monitor.enable`: whether the leader runs rounds.
    pub enabled: bool,
    /// `...preemption.monitoring_interval`: between two rounds.
    pub monitoring_interval: Duration,
    /// `...preemption.max_wait_before_kill`: between telling an ApplicationMaster a container
    /// will be preempted and killing it.
    pub max_wait_before_kill: Duration,
    /// `...preemption.observe_only`: rounds are computed and logged, nothing is committed.
    pub observe_only: bool,
    /// The factors of each round.
    pub settings: PreemptionSettings,
}

impl Default for PreemptionConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            monitoring_interval: Duration::from_millis(3_000),
            max_wait_before_kill: Duration::from_millis(15_000),
            observe_only: false,
            settings: PreemptionSettings::default(),
        }
    }
}

impl PreemptionConfig {
    /// Reads and checks the keys; unless the monitor runs the proportional policy, only the
    /// monitor keys are read.
    ///
    /// # Errors
    ///
    /// With the monitor enabled, a [`ConfError`] naming the key, its value and where it was
    /// set: a policy class yarn-ha does not have ([`MonitorPolicies::from_conf`]), an interval or wait that is not
    /// positive, a factor out of its range (see [`PreemptionSettings::validate`]), an
    /// intra-queue order policy other than Hadoop's two, or `select_based_on_reserved_containers`,
    /// as yarn-ha's scheduler reserves no containers on nodes.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        if !MonitorPolicies::from_conf(conf)?.preemption {
            return Ok(Self::default());
        }
        let monitoring_interval = positive_millis(conf, &keys::PREEMPTION_MONITORING_INTERVAL)?;
        let max_wait_before_kill = positive_millis(conf, &keys::PREEMPTION_WAIT_TIME_BEFORE_KILL)?;
        let settings = PreemptionSettings {
            total_preemption_per_round: conf
                .get_f64(&keys::PREEMPTION_TOTAL_PREEMPTION_PER_ROUND)?,
            max_ignored_over_capacity: conf.get_f64(&keys::PREEMPTION_MAX_IGNORED_OVER_CAPACITY)?,
            natural_termination_factor: conf
                .get_f64(&keys::PREEMPTION_NATURAL_TERMINATION_FACTOR)?,
            intra_queue: intra_queue_settings(conf)?,
        };
        settings.validate().map_err(|err| refused(conf, err))?;
        let observe_only = conf.get_bool(&keys::PREEMPTION_OBSERVE_ONLY)?;
        let reserved = &keys::PREEMPTION_SELECT_BASED_ON_RESERVED_CONTAINERS;
        if conf.get_bool(reserved)? {
            return Err(conf.invalid_value(
                reserved,
                true,
                "false: yarn-ha's scheduler reserves no containers on nodes",
            ));
        }
        Ok(Self {
            enabled: true,
            monitoring_interval,
            max_wait_before_kill,
            observe_only,
            settings,
        })
    }
}

/// How leaves preempt among their own applications, when
/// `intra-queue-preemption.enabled` says they do; its other keys are read only then.
fn intra_queue_settings(conf: &Configuration) -> Result<Option<IntraQueueSettings>, ConfError> {
    if !conf.get_bool(&keys::PREEMPTION_INTRA_QUEUE_ENABLED)? {
        return Ok(None);
    }
    let order = conf.get_string(&keys::PREEMPTION_INTRA_QUEUE_ORDER_POLICY)?;
    Ok(Some(IntraQueueSettings {
        minimum_threshold: conf.get_f64(&keys::PREEMPTION_INTRA_QUEUE_MINIMUM_THRESHOLD)?,
        max_allowable_limit: conf.get_f64(&keys::PREEMPTION_INTRA_QUEUE_MAX_ALLOWABLE_LIMIT)?,
        order: IntraQueueOrder::parse(&order).map_err(|err| refused(conf, err))?,
    }))
}

/// The [`ConfError`] for a value the scheduler refused, naming its key and where it was set.
fn refused(conf: &Configuration, err: SchedulerError) -> ConfError {
    match err {
        SchedulerError::InvalidValue {
            key,
            value,
            expected,
        } => ConfError::InvalidValue {
            location: conf.source(&key).cloned(),
            kind: keys::find(&key).map_or(KeyKind::String, |declared| declared.kind),
            key,
            value,
            expected: expected.to_owned(),
        },
        // The settings refuse values only as above; anything else is still reported, against
        // the key that turned the policy on.
        other => ConfError::InvalidValue {
            key: keys::RM_SCHEDULER_ENABLE_MONITORS.name.to_string(),
            value: "true".to_owned(),
            kind: KeyKind::Bool,
            expected: other.to_string(),
            location: conf
                .source(&keys::RM_SCHEDULER_ENABLE_MONITORS.name)
                .cloned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENABLE: &str = "yarn.resourcemanager.scheduler.monitor.enable";

    fn read(pairs: &[(&str, &str)]) -> Result<PreemptionConfig, ConfError> {
        let mut conf = Configuration::new();
        for (key, value) in pairs {
            conf.set(key, value);
        }
        PreemptionConfig::from_conf(&conf)
    }

    fn named(err: &ConfError) -> &str {
        match err {
            ConfError::InvalidValue { key, .. } => key,
            other => panic!("expected a named value, got {other}"),
        }
    }

    #[test]
    fn off_by_default_and_on_with_hadoops_defaults_and_the_values_set() {
        assert_eq!(read(&[]).unwrap(), PreemptionConfig::default());
        assert!(!PreemptionConfig::default().enabled);
        let on = read(&[(ENABLE, "true")]).unwrap();
        assert_eq!(
            on,
            PreemptionConfig {
                enabled: true,
                ..PreemptionConfig::default()
            }
        );
        let tuned = read(&[
            (ENABLE, "true"),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval",
                "500",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill",
                "2000",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.observe_only",
                "true",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor",
                "1",
            ),
        ])
        .unwrap();
        assert_eq!(tuned.monitoring_interval, Duration::from_millis(500));
        assert_eq!(tuned.max_wait_before_kill, Duration::from_secs(2));
        assert!(tuned.observe_only);
        assert!((tuned.settings.natural_termination_factor - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn with_the_monitor_off_nothing_is_read_and_on_each_bad_value_is_named() {
        let cases = [
            (
                "yarn.resourcemanager.scheduler.monitor.policies",
                "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.FairOrderingPolicy",
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
            (
                "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.enabled",
                "yes",
            ),
            (
                "yarn.resourcemanager.monitor.capacity.preemption.select_based_on_reserved_containers",
                "true",
            ),
        ];
        for (key, value) in cases {
            let off = read(&[(key, value)]).expect("not read while the monitor is off");
            assert_eq!(off, PreemptionConfig::default(), "as in Hadoop");
            let err = read(&[(ENABLE, "true"), (key, value)]).expect_err(key);
            assert_eq!(named(&err), key, "{err}");
        }
        let err = read(&[(ENABLE, "maybe")]).expect_err("not a boolean");
        assert!(err.to_string().contains(ENABLE), "{err}");
    }

    #[test]
    fn intra_queue_keys_are_read_only_when_it_is_enabled_and_each_bad_value_is_named() {
        const INTRA: &str =
            "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.enabled";
        const THRESHOLD: &str = "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.minimum-threshold";
        const LIMIT: &str = "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.max-allowable-limit";
        const ORDER: &str = "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.preemption-order-policy";
        let on = read(&[(ENABLE, "true"), (INTRA, "true")]).unwrap();
        assert_eq!(on.settings.intra_queue, Some(IntraQueueSettings::default()));
        let tuned = read(&[
            (ENABLE, "true"),
            (INTRA, "true"),
            (THRESHOLD, "0"),
            (LIMIT, "1"),
            (ORDER, "priority_first"),
        ])
        .unwrap();
        assert_eq!(
            tuned.settings.intra_queue,
            Some(IntraQueueSettings {
                minimum_threshold: 0.0,
                max_allowable_limit: 1.0,
                order: IntraQueueOrder::PriorityFirst,
            })
        );
        for (key, value) in [
            (THRESHOLD, "1.5"),
            (LIMIT, "0"),
            (ORDER, "fifo"),
            (LIMIT, "lots"),
        ] {
            let off = read(&[(ENABLE, "true"), (key, value)]).expect("not read while off");
            assert_eq!(off.settings.intra_queue, None);
            let err = read(&[(ENABLE, "true"), (INTRA, "true"), (key, value)]).expect_err(key);
            assert_eq!(named(&err), key, "{err}");
            assert!(err.to_string().contains(value), "{err}");
        }
    }
}
