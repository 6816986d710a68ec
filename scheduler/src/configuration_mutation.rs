//! [`ConfigurationStore`] and [`MutationAclPolicy`]: whether the queue configuration may be
//! changed through Hadoop's mutation API, and by whom.

use serde::{Deserialize, Serialize};

use crate::error::SchedulerError;

/// Hadoop's default mutation policy: administrators only.
pub const DEFAULT_MUTATION_ACL_POLICY: &str =
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.DefaultConfigurationMutationACLPolicy";
/// Hadoop's queue-admin mutation policy.
pub const QUEUE_ADMIN_MUTATION_ACL_POLICY: &str = "org.apache.hadoop.yarn.server.resourcemanager.\
     scheduler.capacity.conf.QueueAdminConfigurationMutationACLPolicy";

/// `yarn.scheduler.configuration.store.class`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConfigurationStore {
    /// `file`: `capacity-scheduler.xml` is the source, changed by `-refreshQueues`.
    #[default]
    File,
    /// `memory`, `leveldb`, `zk` or `fs`: the replicated state is the source, changed by the
    /// mutation API; Hadoop's four stores are one here, durable and replicated like all state.
    Mutable,
}

/// `yarn.scheduler.configuration.mutation.acl-policy.class`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum MutationAclPolicy {
    /// Only `yarn.admin.acl` may change the configuration.
    #[default]
    Admins,
    /// Besides administrators, a user who administers (`acl_administer_queue`) every queue a
    /// change touches: the queue removed or updated, the nearest existing ancestor of a queue
    /// added. Global keys stay for administrators.
    QueueAdmins,
}

impl ConfigurationStore {
    /// The store `value` names.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] for any other value (Hadoop's store class names are not
    /// loaded as classes).
    pub fn parse(key: &str, value: &str) -> Result<Self, SchedulerError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "file" => Ok(Self::File),
            "memory" | "leveldb" | "zk" | "fs" => Ok(Self::Mutable),
            _ => Err(SchedulerError::InvalidValue {
                key: key.to_owned(),
                value: value.trim().to_owned(),
                expected: "file, memory, leveldb, zk or fs",
            }),
        }
    }
}

impl MutationAclPolicy {
    /// The policy `value` names: one of Hadoop's two classes.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] for any other class.
    pub fn parse(key: &str, value: &str) -> Result<Self, SchedulerError> {
        match value.trim() {
            "" | DEFAULT_MUTATION_ACL_POLICY => Ok(Self::Admins),
            QUEUE_ADMIN_MUTATION_ACL_POLICY => Ok(Self::QueueAdmins),
            other => Err(SchedulerError::InvalidValue {
                key: key.to_owned(),
                value: other.to_owned(),
                expected: "org.apache.hadoop.yarn.server.resourcemanager.scheduler.\
                           DefaultConfigurationMutationACLPolicy or org.apache.hadoop.yarn.\
                           server.resourcemanager.scheduler.capacity.conf.\
                           QueueAdminConfigurationMutationACLPolicy",
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hadoops_store_and_policy_names_are_read_and_others_refused() {
        assert_eq!(
            ConfigurationStore::parse("k", "file").ok(),
            Some(ConfigurationStore::File)
        );
        for mutable in ["memory", " ZK ", "leveldb", "fs"] {
            assert_eq!(
                ConfigurationStore::parse("k", mutable).ok(),
                Some(ConfigurationStore::Mutable)
            );
        }
        let refused = ConfigurationStore::parse("k", "org.example.Store").unwrap_err();
        assert!(
            refused.to_string().contains("org.example.Store"),
            "{refused}"
        );
        assert_eq!(
            MutationAclPolicy::parse("k", QUEUE_ADMIN_MUTATION_ACL_POLICY).ok(),
            Some(MutationAclPolicy::QueueAdmins)
        );
        assert_eq!(
            MutationAclPolicy::parse("k", DEFAULT_MUTATION_ACL_POLICY).ok(),
            Some(MutationAclPolicy::Admins)
        );
        assert!(MutationAclPolicy::parse("k", "Custom").is_err());
    }
}
