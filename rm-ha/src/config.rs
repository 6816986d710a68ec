//! The ResourceManager replica's typed configuration.

use std::path::PathBuf;
use std::time::Duration;

use yarn_conf::{ConfError, Configuration, Key, KeyKind, RmHaConfig, keys};
use yarn_security::{Groups, HadoopIpcSettings, KeyRollingSchedule};
use yarn_web::WebAccess;

use yarn_scheduler::{ConfigurationStore, SchedulerError, SchedulerSettings};

use crate::RmNode;
use crate::applications::{DiagnosticsLimit, MAX_CONTEXT_BYTES_LIMIT, SubmissionLimits};
use crate::nodes::TopologyMapping;
use crate::scheduling::{
    ActivitiesSettings, MonitorPolicies, OpportunisticSettings, PreemptionConfig,
    QUEUE_AUTO_REFRESH_POLICY_CLASS, QueueConfigSource, ReservationConfig,
};
use crate::state_machine::MasterKeyKind;

/// Everything a replica reads from `yarn-site.xml`, read once at start-up and validated.
#[derive(Debug, Clone, PartialEq)]
pub struct RmConfig {
    /// This replica's id, a member of `ha.members`.
    pub rm_id: String,
    /// The group's members and endpoints.
    pub ha: RmHaConfig,
    /// `yarn.resourcemanager.cluster-id`: clients and NMs refuse a leader from another cluster.
    pub cluster_id: String,
    /// Where this replica keeps its Raft log and snapshots.
    pub storage_dir: PathBuf,
    /// The heartbeat interval the RM dictates to NodeManagers.
    pub nm_heartbeat_interval: Duration,
    /// A NodeManager silent for this long is LOST.
    pub nm_expiry_interval: Duration,
    /// An AM silent for this long has its attempt failed.
    pub am_expiry_interval: Duration,
    /// How often the leader kills the applications whose lifetime has ended.
    pub application_timeouts_interval: Duration,
    /// Attempts per application before it FAILS.
    pub am_max_attempts: u32,
    /// How long a new leader waits for NodeManagers to resync before allocating.
    pub scheduling_wait: Duration,
    /// The pause between two scheduling passes of the leader.
    pub scheduling_interval: Duration,
    /// Rolling interval of the AMRMToken master key.
    pub amrm_token_key_rolling_interval: Duration,
    /// Rolling interval of the container-token master key.
    pub container_token_key_rolling_interval: Duration,
    /// Rolling interval of the NM-token master key.
    pub nm_token_key_rolling_interval: Duration,
    /// An allocated container not started within this time is reclaimed.
    pub container_allocation_expiry: Duration,
    /// `yarn.resourcemanager.auto-update.containers`: whether increases and promotions reach
    /// NodeManagers by heartbeat too.
    pub auto_update_containers: bool,
    /// How many finished applications the replicated state keeps: the smaller of
    /// `yarn.resourcemanager.max-completed-applications` and
    /// `yarn.resourcemanager.state-store.max-completed-applications`.
    pub max_completed_applications: u32,
    /// `yarn.acl.enable`.
    pub acl_enabled: bool,
    /// Whether Raft replaces a lost leader by itself; manual transitions then need
    /// `--forcemanual`.
    pub automatic_failover: bool,
    /// Raft timings and log compaction.
    pub raft: RaftSettings,
    /// What one application submission may carry.
    pub submission_limits: SubmissionLimits,
    /// `yarn.resourcemanager.scheduler.max-asks-per-allocate`.
    pub max_asks_per_allocate: usize,
    /// `yarn.app.attempt.diagnostics.limit.kc`.
    pub diagnostics_limit: DiagnosticsLimit,
    /// Where the leader reads `capacity-scheduler.xml`, and the `yarn-site.xml` scheduler
    /// settings. [`RmConfig::from_conf`] leaves the file unset (the built-in default queue);
    /// the `resourcemanager` command points it into the configuration directory.
    pub queues: QueueConfigSource,
    /// How OPPORTUNISTIC asks are placed (`yarn.resourcemanager.opportunistic-*`,
    /// `yarn.resourcemanager.nm-container-queuing.*`).
    pub opportunistic: OpportunisticSettings,
    /// Whether and how the leader preempts containers (`yarn.resourcemanager.scheduler.monitor.*`,
    /// `yarn.resourcemanager.monitor.capacity.preemption.*`).
    pub preemption: PreemptionConfig,
    /// How often the leader checks `capacity-scheduler.xml` and commits it again when it
    /// changed, when the monitor runs Hadoop's `QueueConfigurationAutoRefreshPolicy`.
    pub queue_auto_refresh: Option<Duration>,
    /// Whether the leader removes unused auto-created queues, when the monitor runs Hadoop's
    /// `AutoCreatedQueueDeletionPolicy`.
    pub auto_queue_deletion: bool,
    /// How often the leader gives the leaves of managed parents their capacity or takes it
    /// back, when the monitor runs Hadoop's `QueueManagementDynamicEditPolicy`.
    pub queue_management: Option<Duration>,
    /// How long the leader keeps the activities it records
    /// (`yarn.resourcemanager.activities-manager.*`).
    pub activities: ActivitiesSettings,
    /// Whether and how the leader runs the ReservationSystem
    /// (`yarn.resourcemanager.reservation-system.*`).
    pub reservations: ReservationConfig,
    /// Who the web address serves without a name (`hadoop.http.authentication.*`).
    pub web_access: WebAccess,
    /// Whether the client and scheduler ports also speak Hadoop IPC, and to whom.
    pub hadoop_ipc: HadoopIpcSettings,
    /// How NodeManagers are placed on racks (`net.topology.*`).
    pub topology: TopologyMapping,
}

/// The Raft group's timings, from `yarn.resourcemanager.ha.raft.*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RaftSettings {
    /// How often the leader heartbeats followers.
    pub heartbeat_interval: Duration,
    /// Lower bound of the randomised election timeout.
    pub election_timeout_min: Duration,
    /// Upper bound of the election timeout, and the leader lease.
    pub election_timeout_max: Duration,
    /// Log entries between snapshots.
    pub snapshot_log_entries: u64,
    /// Deadline of one RPC between replicas.
    pub rpc_timeout: Duration,
}

impl RmConfig {
    /// Every configured replica as a Raft member: its rm-id and Raft address.
    pub fn raft_members(&self) -> impl Iterator<Item = RmNode> + '_ {
        self.ha.members.iter().map(|member| RmNode {
            rm_id: member.rm_id.clone(),
            raft_address: member.raft.to_string(),
        })
    }

    /// Builds the configuration of replica `rm_id` (or of `yarn.resourcemanager.ha.id` when
    /// `None`) and validates it.
    ///
    /// Beyond each value's type this checks that the id is a member, that at least one attempt
    /// is allowed, that NMs heartbeat more often than they expire, and, as Hadoop does, that the
    /// container-token key outlives three NM expiry intervals so that a key never rolls out from
    /// under a token the NM has not yet been sent.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key, its value, where it was set and what was expected.
    pub fn from_conf(conf: &Configuration, rm_id: Option<&str>) -> Result<Self, ConfError> {
        let ha = RmHaConfig::from_conf(conf)?;
        let rm_id = match rm_id {
            Some(id) => id.to_owned(),
            None if ha.enabled => conf.get_required_string(&keys::RM_HA_ID)?,
            None => ha.members[0].rm_id.clone(),
        };
        if ha.member(&rm_id).is_none() {
            let ids: Vec<_> = ha.members.iter().map(|m| m.rm_id.as_str()).collect();
            return Err(conf.invalid_value(
                &keys::RM_HA_ID,
                &rm_id,
                format!("one of the configured rm ids ({})", ids.join(", ")),
            ));
        }
        let config = Self {
            storage_dir: PathBuf::from(conf.get_required_string(&keys::RM_HA_RAFT_STORAGE_DIR)?),
            cluster_id: conf.get_required_string(&keys::RM_CLUSTER_ID)?,
            nm_heartbeat_interval: conf.get_duration(&keys::RM_NM_HEARTBEAT_INTERVAL_MS)?,
            nm_expiry_interval: conf.get_duration(&keys::RM_NM_EXPIRY_INTERVAL_MS)?,
            am_expiry_interval: conf.get_duration(&keys::RM_AM_EXPIRY_INTERVAL_MS)?,
            application_timeouts_interval: conf
                .get_duration(&keys::RM_APPLICATION_TIMEOUTS_MONITOR_INTERVAL_MS)?,
            am_max_attempts: conf.get_u32(&keys::RM_AM_MAX_ATTEMPTS)?,
            scheduling_interval: conf
                .get_duration(&keys::SCHEDULER_ASYNC_SCHEDULING_INTERVAL_MS)?,
            scheduling_wait: conf
                .get_duration(&keys::RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS)?,
            amrm_token_key_rolling_interval: conf
                .get_duration(&keys::RM_AMRM_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS)?,
            container_token_key_rolling_interval: conf
                .get_duration(&keys::RM_CONTAINER_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS)?,
            nm_token_key_rolling_interval: conf
                .get_duration(&keys::RM_NMTOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS)?,
            container_allocation_expiry: conf
                .get_duration(&keys::RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS)?,
            auto_update_containers: conf.get_bool(&keys::RM_AUTO_UPDATE_CONTAINERS)?,
            max_completed_applications: conf
                .get_u32(&keys::RM_MAX_COMPLETED_APPLICATIONS)?
                .min(conf.get_u32(&keys::RM_STATE_STORE_MAX_COMPLETED_APPLICATIONS)?),
            acl_enabled: conf.get_bool(&keys::YARN_ACL_ENABLE)?,
            automatic_failover: conf.get_bool(&keys::RM_HA_AUTOMATIC_FAILOVER_ENABLED)?,
            raft: RaftSettings {
                heartbeat_interval: conf.get_duration(&keys::RM_HA_RAFT_HEARTBEAT_INTERVAL_MS)?,
                election_timeout_min: conf
                    .get_duration(&keys::RM_HA_RAFT_ELECTION_TIMEOUT_MIN_MS)?,
                election_timeout_max: conf
                    .get_duration(&keys::RM_HA_RAFT_ELECTION_TIMEOUT_MAX_MS)?,
                snapshot_log_entries: conf.get_u64(&keys::RM_HA_RAFT_SNAPSHOT_LOG_ENTRIES)?,
                rpc_timeout: conf.get_duration(&keys::RM_HA_RAFT_RPC_TIMEOUT_MS)?,
            },
            submission_limits: SubmissionLimits {
                max_context_bytes: to_usize(conf.get_u32(&keys::RM_ZK_MAX_ZNODE_SIZE_BYTES)?),
                max_tags: to_usize(conf.get_u32(&keys::APPLICATION_MAX_TAGS)?),
                max_tag_length: to_usize(conf.get_u32(&keys::APPLICATION_MAX_TAG_LENGTH)?),
            },
            diagnostics_limit: DiagnosticsLimit::kilo_chars(to_usize(
                conf.get_u32(&keys::APP_ATTEMPT_DIAGNOSTICS_LIMIT_KC)?,
            )),
            max_asks_per_allocate: to_usize(
                conf.get_u32(&keys::RM_SCHEDULER_MAX_ASKS_PER_ALLOCATE)?,
            ),
            queues: QueueConfigSource {
                file: None,
                settings: scheduler_settings(conf)?,
                groups: Groups::from_conf(conf)?,
            },
            opportunistic: OpportunisticSettings::from_conf(conf)?,
            preemption: PreemptionConfig::from_conf(conf)?,
            queue_auto_refresh: MonitorPolicies::from_conf(conf)?.queue_auto_refresh,
            auto_queue_deletion: MonitorPolicies::from_conf(conf)?.auto_queue_deletion,
            queue_management: MonitorPolicies::from_conf(conf)?.queue_management,
            activities: ActivitiesSettings::from_conf(conf)?,
            reservations: ReservationConfig::from_conf(conf)?,
            web_access: WebAccess::from_conf(conf)?,
            hadoop_ipc: HadoopIpcSettings::from_conf(conf)?,
            topology: TopologyMapping::from_conf(conf)?,
            rm_id,
            ha,
        };
        config.validate(conf)?;
        Ok(config)
    }

    fn validate(&self, conf: &Configuration) -> Result<(), ConfError> {
        if self.am_max_attempts == 0 {
            return Err(conf.invalid_value(&keys::RM_AM_MAX_ATTEMPTS, 0, "at least 1"));
        }
        if self.max_asks_per_allocate == 0 {
            return Err(conf.invalid_value(
                &keys::RM_SCHEDULER_MAX_ASKS_PER_ALLOCATE,
                0,
                "at least 1",
            ));
        }
        let context_bytes = self.submission_limits.max_context_bytes;
        if !(1..=MAX_CONTEXT_BYTES_LIMIT).contains(&context_bytes) {
            return Err(conf.invalid_value(
                &keys::RM_ZK_MAX_ZNODE_SIZE_BYTES,
                context_bytes,
                format!(
                    "between 1 and {MAX_CONTEXT_BYTES_LIMIT}, the largest message the client \
                     port accepts"
                ),
            ));
        }
        if self.nm_heartbeat_interval.is_zero() {
            let key = &keys::RM_NM_HEARTBEAT_INTERVAL_MS;
            return Err(conf.invalid_value(key, 0, "a positive number of milliseconds"));
        }
        if self.application_timeouts_interval.is_zero() {
            let key = &keys::RM_APPLICATION_TIMEOUTS_MONITOR_INTERVAL_MS;
            return Err(conf.invalid_value(key, 0, "a positive number of milliseconds"));
        }
        if self.nm_expiry_interval <= self.nm_heartbeat_interval {
            return Err(conf.invalid_value(
                &keys::RM_NM_EXPIRY_INTERVAL_MS,
                self.nm_expiry_interval.as_millis(),
                format!(
                    "more than {} ({} ms), or every node would expire between heartbeats",
                    keys::RM_NM_HEARTBEAT_INTERVAL_MS.name,
                    self.nm_heartbeat_interval.as_millis()
                ),
            ));
        }
        self.validate_raft(conf)?;
        if self.queue_auto_refresh.is_some()
            && self.queues.settings.configuration_store == ConfigurationStore::Mutable
        {
            return Err(conf.invalid_value(
                &keys::RM_SCHEDULER_MONITOR_POLICIES,
                QUEUE_AUTO_REFRESH_POLICY_CLASS,
                format!(
                    "no QueueConfigurationAutoRefreshPolicy while {} is a mutable store: the \
                     queue configuration then lives in the replicated state, not in the file",
                    keys::SCHEDULER_CONFIGURATION_STORE_CLASS.name
                ),
            ));
        }
        if self.container_token_key_rolling_interval < self.nm_expiry_interval * 3 {
            return Err(conf.invalid_value(
                &keys::RM_CONTAINER_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS,
                self.container_token_key_rolling_interval.as_secs(),
                format!(
                    "at least 3 x {} ({} s)",
                    keys::RM_NM_EXPIRY_INTERVAL_MS.name,
                    (self.nm_expiry_interval * 3).as_secs()
                ),
            ));
        }
        for kind in MasterKeyKind::ALL {
            if self.key_rolling_schedule(kind).is_err() {
                let (interval, delay) = self.key_rolling_times(kind);
                return Err(conf.invalid_value(
                    &rolling_interval_key(kind),
                    interval.as_secs(),
                    format!(
                        "more than twice the key activation delay ({} s, 1.5 x the liveness \
                         expiry interval)",
                        delay.as_secs()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The rolling schedule of `kind`'s master keys: the configured interval, and an
    /// activation delay of 1.5 liveness expiry intervals (of AMs for AMRMTokens, of NMs for
    /// container and NM tokens) as in Hadoop, so every holder has heard of a key before it signs.
    ///
    /// # Errors
    ///
    /// When the interval is not more than twice the delay, which [`RmConfig::from_conf`]
    /// refuses; only a hand-built `RmConfig` can get here.
    pub fn key_rolling_schedule(
        &self,
        kind: MasterKeyKind,
    ) -> Result<KeyRollingSchedule, yarn_security::Error> {
        let (interval, delay) = self.key_rolling_times(kind);
        KeyRollingSchedule::new(millis(interval), millis(delay))
    }

    fn key_rolling_times(&self, kind: MasterKeyKind) -> (Duration, Duration) {
        match kind {
            MasterKeyKind::AmRm => (
                self.amrm_token_key_rolling_interval,
                self.am_expiry_interval * 3 / 2,
            ),
            MasterKeyKind::Container => (
                self.container_token_key_rolling_interval,
                self.nm_expiry_interval * 3 / 2,
            ),
            MasterKeyKind::Nm => (
                self.nm_token_key_rolling_interval,
                self.nm_expiry_interval * 3 / 2,
            ),
        }
    }

    /// openraft needs heartbeats inside the election timeout and a non-empty timeout range;
    /// checking here names the key instead of failing inside openraft.
    fn validate_raft(&self, conf: &Configuration) -> Result<(), ConfError> {
        let raft = &self.raft;
        if raft.heartbeat_interval.is_zero() {
            let key = &keys::RM_HA_RAFT_HEARTBEAT_INTERVAL_MS;
            return Err(conf.invalid_value(key, 0, "a positive number of milliseconds"));
        }
        if raft.election_timeout_min <= raft.heartbeat_interval {
            return Err(conf.invalid_value(
                &keys::RM_HA_RAFT_ELECTION_TIMEOUT_MIN_MS,
                raft.election_timeout_min.as_millis(),
                format!(
                    "more than {} ({} ms), or followers would start elections between heartbeats",
                    keys::RM_HA_RAFT_HEARTBEAT_INTERVAL_MS.name,
                    raft.heartbeat_interval.as_millis()
                ),
            ));
        }
        if raft.election_timeout_max <= raft.election_timeout_min {
            return Err(conf.invalid_value(
                &keys::RM_HA_RAFT_ELECTION_TIMEOUT_MAX_MS,
                raft.election_timeout_max.as_millis(),
                format!(
                    "more than {} ({} ms), so that election timeouts are spread",
                    keys::RM_HA_RAFT_ELECTION_TIMEOUT_MIN_MS.name,
                    raft.election_timeout_min.as_millis()
                ),
            ));
        }
        if raft.snapshot_log_entries == 0 {
            let key = &keys::RM_HA_RAFT_SNAPSHOT_LOG_ENTRIES;
            return Err(conf.invalid_value(key, 0, "at least 1"));
        }
        if raft.rpc_timeout.is_zero() {
            let key = &keys::RM_HA_RAFT_RPC_TIMEOUT_MS;
            return Err(conf.invalid_value(key, 0, "a positive number of milliseconds"));
        }
        Ok(())
    }
}

fn rolling_interval_key(kind: MasterKeyKind) -> Key {
    match kind {
        MasterKeyKind::AmRm => keys::RM_AMRM_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS,
        MasterKeyKind::Container => keys::RM_CONTAINER_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS,
        MasterKeyKind::Nm => keys::RM_NMTOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS,
    }
}

fn to_usize(value: u32) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// The scheduler's `yarn-site.xml` settings, each minimum at most its maximum, with errors in
/// the configuration's own terms (key, value, where it was set).
fn scheduler_settings(conf: &Configuration) -> Result<SchedulerSettings, ConfError> {
    SchedulerSettings::from_conf(conf).map_err(|err| match err {
        SchedulerError::Conf { source } => source,
        SchedulerError::InvalidAllocationRange {
            minimum_key,
            minimum,
            maximum_key,
            maximum,
        } => ConfError::InvalidValue {
            key: minimum_key.to_owned(),
            value: minimum.to_string(),
            kind: KeyKind::Int,
            expected: format!("at most {maximum_key} ({maximum})"),
            location: conf.source(minimum_key).cloned(),
        },
        other => ConfError::InvalidValue {
            key: "yarn.scheduler.*".to_owned(),
            value: String::new(),
            kind: KeyKind::String,
            expected: other.to_string(),
            location: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three_rms() -> Configuration {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", "rm1,rm2,rm3");
        for (id, host) in [
            ("rm1", "10.0.0.1"),
            ("rm2", "10.0.0.2"),
            ("rm3", "10.0.0.3"),
        ] {
            conf.set(&format!("yarn.resourcemanager.hostname.{id}"), host);
        }
        conf
    }

    #[test]
    fn defaults_build_a_valid_single_replica() {
        let config = RmConfig::from_conf(&Configuration::new(), None).unwrap();
        assert_eq!(config.rm_id, "rm1");
        assert_eq!(config.am_max_attempts, 2);
        assert_eq!(config.nm_heartbeat_interval, Duration::from_secs(1));
        assert_eq!(
            config.container_token_key_rolling_interval,
            Duration::from_secs(86_400)
        );
    }

    #[test]
    fn rm_id_comes_from_the_argument_or_ha_id_and_must_be_a_member() {
        let mut conf = three_rms();
        assert_eq!(
            RmConfig::from_conf(&conf, Some("rm2")).unwrap().rm_id,
            "rm2"
        );

        let err = RmConfig::from_conf(&conf, None).unwrap_err();
        assert!(
            matches!(err, ConfError::Missing { ref key, .. } if key == "yarn.resourcemanager.ha.id")
        );

        conf.set("yarn.resourcemanager.ha.id", "rm9");
        let err = RmConfig::from_conf(&conf, None).unwrap_err().to_string();
        assert!(
            err.contains("\"rm9\"") && err.contains("rm1, rm2, rm3"),
            "{err}"
        );
    }

    #[test]
    fn the_queue_auto_refresh_runs_when_listed_and_is_refused_with_a_mutable_store() {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.scheduler.monitor.enable", "true");
        conf.set(
            "yarn.resourcemanager.scheduler.monitor.policies",
            QUEUE_AUTO_REFRESH_POLICY_CLASS,
        );
        conf.set(
            "yarn.scheduler.capacity.queue.auto.refresh.monitoring-interval",
            "1500",
        );
        let config = RmConfig::from_conf(&conf, None).unwrap();
        assert_eq!(
            config.queue_auto_refresh,
            Some(Duration::from_millis(1_500))
        );
        assert!(!config.preemption.enabled, "preemption is not listed");
        conf.set("yarn.scheduler.configuration.store.class", "zk");
        let err = RmConfig::from_conf(&conf, None).unwrap_err().to_string();
        assert!(
            err.contains("yarn.resourcemanager.scheduler.monitor.policies")
                && err.contains("yarn.scheduler.configuration.store.class"),
            "{err}"
        );
        assert_eq!(
            RmConfig::from_conf(&Configuration::new(), None)
                .unwrap()
                .queue_auto_refresh,
            None
        );
    }

    #[test]
    fn intervals_that_cannot_work_are_refused() {
        let mut conf = three_rms();
        conf.set("yarn.nm.liveness-monitor.expiry-interval-ms", "500");
        let err = RmConfig::from_conf(&conf, Some("rm1"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("yarn.nm.liveness-monitor.expiry-interval-ms"),
            "{err}"
        );

        let mut conf = three_rms();
        conf.set(
            "yarn.resourcemanager.container-tokens.master-key-rolling-interval-secs",
            "600",
        );
        let err = RmConfig::from_conf(&conf, Some("rm1"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("at least 3 x"), "{err}");

        let mut conf = three_rms();
        conf.set("yarn.resourcemanager.ha.raft.election-timeout-min-ms", "40");
        let err = RmConfig::from_conf(&conf, Some("rm1"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("yarn.resourcemanager.ha.raft.election-timeout-min-ms")
                && err.contains("heartbeat-interval-ms (50 ms)"),
            "{err}"
        );

        let mut conf = three_rms();
        conf.set(
            "yarn.resourcemanager.ha.raft.election-timeout-max-ms",
            "200",
        );
        let err = RmConfig::from_conf(&conf, Some("rm1"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("election-timeout-max-ms"), "{err}");

        let mut conf = three_rms();
        conf.set(
            "yarn.resourcemanager.application-timeouts.monitor.interval-ms",
            "0",
        );
        let err = RmConfig::from_conf(&conf, Some("rm1"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("application-timeouts.monitor.interval-ms")
                && err.contains("a positive number of milliseconds"),
            "{err}"
        );

        let mut conf = three_rms();
        conf.set("yarn.resourcemanager.am.max-attempts", "0");
        let err = RmConfig::from_conf(&conf, Some("rm1"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("at least 1"), "{err}");
    }
}
