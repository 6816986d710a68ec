//! [`OpportunisticSettings`]: how the leader places OPPORTUNISTIC containers, from
//! `yarn-site.xml`.

use std::time::Duration;

use yarn_conf::{ConfError, Configuration, keys};
use yarn_opportunistic::{LoadComparator, NodeQueueLoadMonitor, QueueLimitCalculator};

/// The centralized opportunistic allocator's settings (Hadoop's keys and defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct OpportunisticSettings {
    /// Whether the RM allocates OPPORTUNISTIC containers and ranks nodes by load:
    /// `yarn.resourcemanager.opportunistic-container-allocation.enabled` or, as in YARN (whose
    /// RM then runs its opportunistic allocator service too),
    /// `yarn.nodemanager.distributed-scheduling.enabled`. When false, OPPORTUNISTIC asks are
    /// allocated as GUARANTEED containers.
    pub enabled: bool,
    /// `yarn.nodemanager.distributed-scheduling.enabled`: AMRMProxies place OPPORTUNISTIC
    /// containers themselves and the RM serves them DistributedSchedulingAMProtocol (which it
    /// also does whenever `enabled`).
    pub distributed_scheduling: bool,
    /// `...opportunistic-container-allocation.nodes-used`: the least-loaded nodes placed on.
    pub nodes_used: usize,
    /// `...opportunistic.max.container-allocation.per.am.heartbeat`; `None` for no cap.
    pub max_allocations_per_heartbeat: Option<u32>,
    /// `yarn.resourcemanager.nm-container-queuing.sorting-nodes-interval-ms`.
    pub sorting_interval: Duration,
    /// The queue limit sent to NodeManagers: comparator, `queue-limit-stdev`, and the bounds
    /// of the comparator's metric (`min-`/`max-queue-length`, or `min-`/`max-queue-wait-time-ms`
    /// under `QUEUE_WAIT_TIME`).
    pub queue_limit: QueueLimitCalculator,
}

impl OpportunisticSettings {
    /// Reads and checks the keys.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key and value: an unknown comparator, a negative or
    /// non-finite deviation factor, a minimum queue length above the maximum, no node used.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let comparator_key = &keys::NM_CONTAINER_QUEUING_LOAD_COMPARATOR;
        let comparator_value = conf.get_string(comparator_key)?;
        let comparator: LoadComparator = comparator_value.parse().map_err(|_| {
            conf.invalid_value(
                comparator_key,
                &comparator_value,
                "QUEUE_LENGTH or QUEUE_WAIT_TIME",
            )
        })?;
        let sigma = conf.get_f64(&keys::NM_CONTAINER_QUEUING_LIMIT_STDEV)?;
        if !(sigma.is_finite() && sigma >= 0.0) {
            return Err(conf.invalid_value(
                &keys::NM_CONTAINER_QUEUING_LIMIT_STDEV,
                sigma,
                "a non-negative number",
            ));
        }
        // The limit is on the metric the comparator ranks by, so are its bounds, as in YARN.
        let (min_key, max_key) = match comparator {
            LoadComparator::QueueLength => (
                &keys::NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH,
                &keys::NM_CONTAINER_QUEUING_MAX_QUEUE_LENGTH,
            ),
            LoadComparator::QueueWaitTime => (
                &keys::NM_CONTAINER_QUEUING_MIN_QUEUE_WAIT_TIME_MS,
                &keys::NM_CONTAINER_QUEUING_MAX_QUEUE_WAIT_TIME_MS,
            ),
        };
        let min = conf.get_i32(min_key)?;
        let max = conf.get_i32(max_key)?;
        let queue_limit = QueueLimitCalculator::new(comparator, sigma, min, max).map_err(|_| {
            conf.invalid_value(min_key, min, format!("at most {} ({max})", max_key.name))
        })?;
        let nodes_used = conf.get_u32(&keys::RM_OPPORTUNISTIC_CONTAINER_ALLOCATION_NODES_USED)?;
        if nodes_used == 0 {
            return Err(conf.invalid_value(
                &keys::RM_OPPORTUNISTIC_CONTAINER_ALLOCATION_NODES_USED,
                0,
                "at least 1",
            ));
        }
        let cap = conf.get_i32(&keys::RM_OPPORTUNISTIC_MAX_ALLOCATION_PER_AM_HEARTBEAT)?;
        let distributed_scheduling = conf.get_bool(&keys::DIST_SCHEDULING_ENABLED)?;
        Ok(Self {
            enabled: conf.get_bool(&keys::RM_OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED)?
                || distributed_scheduling,
            distributed_scheduling,
            nodes_used: usize::try_from(nodes_used).unwrap_or(usize::MAX),
            // Hadoop reads any value below 1 as "no cap".
            max_allocations_per_heartbeat: u32::try_from(cap).ok().filter(|&cap| cap > 0),
            sorting_interval: conf
                .get_duration(&keys::NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS)?,
            queue_limit,
        })
    }

    /// The load monitor a leadership starts with; `None` when opportunistic allocation is off,
    /// so NodeManagers get no queue limit, as in YARN.
    pub fn load_monitor(&self) -> Option<NodeQueueLoadMonitor> {
        self.enabled
            .then(|| NodeQueueLoadMonitor::new(self.queue_limit.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hadoop_defaults_and_clear_errors_for_bad_values() {
        let settings = OpportunisticSettings::from_conf(&Configuration::new()).unwrap();
        assert!(!settings.enabled && !settings.distributed_scheduling);
        assert_eq!(settings.nodes_used, 10);
        assert_eq!(settings.max_allocations_per_heartbeat, None);
        assert_eq!(settings.sorting_interval, Duration::from_secs(1));
        assert_eq!(settings.queue_limit.limit().max_queue_length, 5);
        assert!(settings.load_monitor().is_none());

        let mut conf = Configuration::new();
        conf.set(
            keys::NM_CONTAINER_QUEUING_LOAD_COMPARATOR.name.as_ref(),
            "FASTEST",
        );
        let err = OpportunisticSettings::from_conf(&conf)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("FASTEST") && err.contains("QUEUE_WAIT_TIME"),
            "{err}"
        );

        let mut conf = Configuration::new();
        conf.set(
            keys::NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH.name.as_ref(),
            "20",
        );
        let err = OpportunisticSettings::from_conf(&conf)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("min-queue-length") && err.contains("15"),
            "{err}"
        );

        let mut conf = Configuration::new();
        conf.set(
            keys::RM_OPPORTUNISTIC_MAX_ALLOCATION_PER_AM_HEARTBEAT
                .name
                .as_ref(),
            "4",
        );
        let settings = OpportunisticSettings::from_conf(&conf).unwrap();
        assert_eq!(settings.max_allocations_per_heartbeat, Some(4));
    }

    #[test]
    fn the_wait_time_comparator_bounds_its_limit_with_the_wait_time_keys() {
        let mut conf = Configuration::new();
        conf.set(
            keys::NM_CONTAINER_QUEUING_LOAD_COMPARATOR.name.as_ref(),
            "QUEUE_WAIT_TIME",
        );
        let settings = OpportunisticSettings::from_conf(&conf).unwrap();
        let limit = settings.queue_limit.limit();
        assert_eq!(
            (limit.max_queue_wait_time_ms, limit.max_queue_length),
            (10, -1),
            "Hadoop's min-queue-wait-time-ms before the first sort"
        );

        conf.set(
            keys::NM_CONTAINER_QUEUING_MIN_QUEUE_WAIT_TIME_MS
                .name
                .as_ref(),
            "500",
        );
        let err = OpportunisticSettings::from_conf(&conf)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("min-queue-wait-time-ms") && err.contains("max-queue-wait-time-ms (100)"),
            "{err}"
        );
    }

    #[test]
    fn distributed_scheduling_alone_turns_the_rm_allocator_and_ranking_on() {
        let mut conf = Configuration::new();
        conf.set("yarn.nodemanager.distributed-scheduling.enabled", "true");
        let settings = OpportunisticSettings::from_conf(&conf).unwrap();
        assert!(settings.enabled && settings.distributed_scheduling);
        assert!(settings.load_monitor().is_some());
    }
}
