//! [`MonitorPolicies`]: which of Hadoop's scheduling edit policies the leader runs, from
//! `yarn.resourcemanager.scheduler.monitor.*`.

use std::time::Duration;

use yarn_conf::{ConfError, Configuration, Key, keys};

/// Hadoop's class of the proportional preemption policy.
pub(crate) const PROPORTIONAL_POLICY_CLASS: &str = "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy";

/// Hadoop's class of the policy that refreshes the queues when `capacity-scheduler.xml`
/// changes.
pub(crate) const QUEUE_AUTO_REFRESH_POLICY_CLASS: &str = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueConfigurationAutoRefreshPolicy";

/// Hadoop's class of the policy that gives the leaves of managed parents their capacity or
/// takes it back.
pub(crate) const QUEUE_MANAGEMENT_POLICY_CLASS: &str = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueManagementDynamicEditPolicy";

/// Hadoop's class of the policy that removes unused auto-created queues.
pub(crate) const AUTO_QUEUE_DELETION_POLICY_CLASS: &str = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueDeletionPolicy";

/// The scheduling edit policies `yarn.resourcemanager.scheduler.monitor.policies` lists, when
/// `yarn.resourcemanager.scheduler.monitor.enable` runs them; with the monitor off, none runs
/// and the list is not read, as in Hadoop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MonitorPolicies {
    /// The proportional preemption policy runs.
    pub preemption: bool,
    /// The queue auto-refresh policy runs, checking the file this often
    /// (`yarn.scheduler.capacity.queue.auto.refresh.monitoring-interval`, read only then).
    pub queue_auto_refresh: Option<Duration>,
    /// The policy that removes unused auto-created queues runs.
    pub auto_queue_deletion: bool,
    /// The queue management policy runs this often
    /// (`yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval`, read
    /// only then).
    pub queue_management: Option<Duration>,
}

impl MonitorPolicies {
    /// Reads the monitor keys.
    ///
    /// # Errors
    ///
    /// With the monitor on, a [`ConfError`] naming the key, its value and where it was set: a
    /// class other than the two policies yarn-ha has, or a refresh interval that is not a
    /// positive number of milliseconds.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        if !conf.get_bool(&keys::RM_SCHEDULER_ENABLE_MONITORS)? {
            return Ok(Self::default());
        }
        let key = &keys::RM_SCHEDULER_MONITOR_POLICIES;
        let mut policies = Self::default();
        for class in conf.get_list(key)? {
            match class.as_str() {
                PROPORTIONAL_POLICY_CLASS => policies.preemption = true,
                AUTO_QUEUE_DELETION_POLICY_CLASS => policies.auto_queue_deletion = true,
                QUEUE_MANAGEMENT_POLICY_CLASS => {
                    let interval = &keys::QUEUE_MANAGEMENT_MONITORING_INTERVAL;
                    policies.queue_management = Some(positive_millis(conf, interval)?);
                }
                QUEUE_AUTO_REFRESH_POLICY_CLASS => {
                    let interval = &keys::QUEUE_AUTO_REFRESH_MONITORING_INTERVAL;
                    policies.queue_auto_refresh = Some(positive_millis(conf, interval)?);
                }
                _ => {
                    return Err(conf.invalid_value(
                        key,
                        class,
                        format!(
                            "{PROPORTIONAL_POLICY_CLASS}, {QUEUE_AUTO_REFRESH_POLICY_CLASS}, \
                             {AUTO_QUEUE_DELETION_POLICY_CLASS} or \
                             {QUEUE_MANAGEMENT_POLICY_CLASS}, the scheduling edit policies \
                             yarn-ha has"
                        ),
                    ));
                }
            }
        }
        Ok(policies)
    }
}

/// The value of `key`, which must be a positive number of milliseconds.
pub(super) fn positive_millis(conf: &Configuration, key: &Key) -> Result<Duration, ConfError> {
    let millis = conf.get_i64(key)?;
    match u64::try_from(millis) {
        Ok(millis) if millis > 0 => Ok(Duration::from_millis(millis)),
        _ => Err(conf.invalid_value(key, millis, "a positive number of milliseconds")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENABLE: &str = "yarn.resourcemanager.scheduler.monitor.enable";
    const POLICIES: &str = "yarn.resourcemanager.scheduler.monitor.policies";
    const INTERVAL: &str = "yarn.scheduler.capacity.queue.auto.refresh.monitoring-interval";

    fn read(pairs: &[(&str, &str)]) -> Result<MonitorPolicies, ConfError> {
        let mut conf = Configuration::new();
        for (key, value) in pairs {
            conf.set(key, value);
        }
        MonitorPolicies::from_conf(&conf)
    }

    #[test]
    fn the_monitor_runs_the_policies_listed_and_none_when_off() {
        let both = format!("{PROPORTIONAL_POLICY_CLASS}, {QUEUE_AUTO_REFRESH_POLICY_CLASS}");
        assert_eq!(
            read(&[(POLICIES, &both), (INTERVAL, "-1")]).unwrap(),
            MonitorPolicies::default(),
            "nothing is read while the monitor is off"
        );
        assert_eq!(
            read(&[(ENABLE, "true")]).unwrap(),
            MonitorPolicies {
                preemption: true,
                queue_auto_refresh: None,
                auto_queue_deletion: false,
                queue_management: None,
            },
            "Hadoop's default list is the preemption policy"
        );
        assert_eq!(
            read(&[
                (ENABLE, "true"),
                (POLICIES, QUEUE_AUTO_REFRESH_POLICY_CLASS)
            ])
            .unwrap(),
            MonitorPolicies {
                preemption: false,
                queue_auto_refresh: Some(Duration::from_millis(5_000)),
                auto_queue_deletion: false,
                queue_management: None,
            }
        );
        assert_eq!(
            read(&[
                (ENABLE, "true"),
                (POLICIES, AUTO_QUEUE_DELETION_POLICY_CLASS)
            ])
            .unwrap(),
            MonitorPolicies {
                preemption: false,
                queue_auto_refresh: None,
                auto_queue_deletion: true,
                queue_management: None,
            }
        );
        assert_eq!(
            read(&[(ENABLE, "true"), (POLICIES, QUEUE_MANAGEMENT_POLICY_CLASS)])
                .unwrap()
                .queue_management,
            Some(Duration::from_millis(1_500)),
            "Hadoop's default interval"
        );
        let management =
            "yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval";
        assert!(
            read(&[
                (ENABLE, "true"),
                (POLICIES, QUEUE_MANAGEMENT_POLICY_CLASS),
                (management, "0")
            ])
            .unwrap_err()
            .to_string()
            .contains(management)
        );
        assert_eq!(
            read(&[(ENABLE, "true"), (POLICIES, &both), (INTERVAL, "250")]).unwrap(),
            MonitorPolicies {
                preemption: true,
                queue_auto_refresh: Some(Duration::from_millis(250)),
                auto_queue_deletion: false,
                queue_management: None,
            }
        );
    }

    #[test]
    fn an_unknown_class_and_a_bad_interval_are_refused_by_name() {
        let other =
            "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.FairOrderingPolicy";
        let err = read(&[(ENABLE, "true"), (POLICIES, other)]).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains(POLICIES) && message.contains(other),
            "{message}"
        );
        for interval in ["0", "-5", "soon"] {
            let err = read(&[
                (ENABLE, "true"),
                (POLICIES, QUEUE_AUTO_REFRESH_POLICY_CLASS),
                (INTERVAL, interval),
            ])
            .unwrap_err();
            let message = err.to_string();
            assert!(
                message.contains(INTERVAL) && message.contains(interval),
                "{message}"
            );
        }
    }
}
