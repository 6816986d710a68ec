//! The ResourceManager replica's typed configuration.

use std::path::PathBuf;
use std::time::Duration;

use yarn_conf::{ConfError, Configuration, RmHaConfig, keys};

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
    /// Attempts per application before it FAILS.
    pub am_max_attempts: u32,
    /// How long a new leader waits for NodeManagers to resync before allocating.
    pub scheduling_wait: Duration,
    /// Rolling interval of the AMRMToken master key.
    pub amrm_token_key_rolling_interval: Duration,
    /// Rolling interval of the container-token master key.
    pub container_token_key_rolling_interval: Duration,
    /// Rolling interval of the NM-token master key.
    pub nm_token_key_rolling_interval: Duration,
    /// An allocated container not started within this time is reclaimed.
    pub container_allocation_expiry: Duration,
    /// `yarn.acl.enable`.
    pub acl_enabled: bool,
    /// `yarn.admin.acl`, in Hadoop's "users groups" syntax.
    pub admin_acl: String,
}

impl RmConfig {
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
            am_max_attempts: conf.get_u32(&keys::RM_AM_MAX_ATTEMPTS)?,
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
            acl_enabled: conf.get_bool(&keys::YARN_ACL_ENABLE)?,
            admin_acl: conf.get_string(&keys::YARN_ADMIN_ACL)?,
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
        if self.nm_heartbeat_interval.is_zero() {
            let key = &keys::RM_NM_HEARTBEAT_INTERVAL_MS;
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
        Ok(())
    }
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
        conf.set("yarn.resourcemanager.am.max-attempts", "0");
        let err = RmConfig::from_conf(&conf, Some("rm1"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("at least 1"), "{err}");
    }
}
