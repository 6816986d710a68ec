//! [`SchedulerSettings`]: the `yarn-site.xml` values the scheduler needs.

use serde::{Deserialize, Serialize};
use yarn_conf::Configuration;
use yarn_conf::keys::{
    CLUSTER_MAX_APPLICATION_PRIORITY, NODE_LABELS_ENABLED, SCHEDULER_CONFIGURATION_MAX_VERSION,
    SCHEDULER_CONFIGURATION_MUTATION_ACL_POLICY_CLASS, SCHEDULER_CONFIGURATION_STORE_CLASS,
    SCHEDULER_MAXIMUM_ALLOCATION_MB, SCHEDULER_MAXIMUM_ALLOCATION_VCORES,
    SCHEDULER_MINIMUM_ALLOCATION_MB, SCHEDULER_MINIMUM_ALLOCATION_VCORES, YARN_ACL_ENABLE,
};

use crate::Resource;
use crate::access_control_list::AccessControlList;
use crate::configuration_mutation::{ConfigurationStore, MutationAclPolicy};
use crate::error::SchedulerError;
use crate::placement_rules::{APP_NAME_MAPPINGS_KEY, check_app_name_entries};

/// The most queue configurations the state may keep: each is whole, in memory and in every
/// snapshot.
const MAX_CONFIGURATION_VERSIONS: u32 = 1000;

/// `yarn.scheduler.minimum-allocation-mb`: the smallest container memory, and the step asks are
/// rounded up to.
pub const MINIMUM_ALLOCATION_MB_KEY: &str = "yarn.scheduler.minimum-allocation-mb";
/// `yarn.scheduler.maximum-allocation-mb`: the largest container memory.
pub const MAXIMUM_ALLOCATION_MB_KEY: &str = "yarn.scheduler.maximum-allocation-mb";
/// `yarn.scheduler.minimum-allocation-vcores`: the smallest container core count.
pub const MINIMUM_ALLOCATION_VCORES_KEY: &str = "yarn.scheduler.minimum-allocation-vcores";
/// `yarn.scheduler.maximum-allocation-vcores`: the largest container core count.
pub const MAXIMUM_ALLOCATION_VCORES_KEY: &str = "yarn.scheduler.maximum-allocation-vcores";
/// `yarn.cluster.max-application-priority`: higher requested priorities are lowered to it.
pub const MAX_APPLICATION_PRIORITY_KEY: &str = "yarn.cluster.max-application-priority";
/// `yarn.admin.acl`: the cluster administrators.
pub const ADMIN_ACL_KEY: &str = "yarn.admin.acl";

/// Cluster-wide scheduler settings that live in `yarn-site.xml` rather than
/// `capacity-scheduler.xml`. Defaults are YARN's (see [`Default`]).
///
/// Invariant after [`from_conf`](Self::from_conf) or [`validate`](Self::validate): the minimum
/// allocation fits in the maximum in both dimensions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchedulerSettings {
    /// `yarn.scheduler.minimum-allocation-{mb,vcores}`: 1024 MiB and 1 core.
    pub minimum_allocation: Resource,
    /// `yarn.scheduler.maximum-allocation-{mb,vcores}`: 8192 MiB and 4 cores.
    pub maximum_allocation: Resource,
    /// `yarn.cluster.max-application-priority`: 0.
    pub max_application_priority: i32,
    /// `yarn.acl.enable`: false, which allows everything.
    pub acl_enable: bool,
    /// `yarn.admin.acl`: `*`.
    pub admin_acl: AccessControlList,
    /// `yarn.scheduler.queue-placement-rules.app-name`: none.
    pub app_name_mappings: Option<String>,
    /// `yarn.node-labels.enabled`: false, every node in the default partition and no ask
    /// naming a label.
    pub node_labels_enabled: bool,
    /// `yarn.scheduler.configuration.store.class`: `file`.
    pub configuration_store: ConfigurationStore,
    /// `yarn.scheduler.configuration.mutation.acl-policy.class`: administrators only.
    pub mutation_acl_policy: MutationAclPolicy,
    /// `yarn.scheduler.configuration.max.version`: 100 replaced configurations kept.
    pub configuration_max_versions: u32,
}

impl Default for SchedulerSettings {
    fn default() -> Self {
        Self {
            minimum_allocation: Resource::new(1024, 1),
            maximum_allocation: Resource::new(8192, 4),
            max_application_priority: 0,
            acl_enable: false,
            admin_acl: AccessControlList::everyone(),
            app_name_mappings: None,
            node_labels_enabled: false,
            configuration_store: ConfigurationStore::File,
            mutation_acl_policy: MutationAclPolicy::Admins,
            configuration_max_versions: 100,
        }
    }
}

impl SchedulerSettings {
    /// Reads the settings from a loaded `yarn-site.xml` configuration, using the defaults for
    /// unset or empty keys (the typed keys of `yarn_conf::keys`). `yarn.admin.acl` is read
    /// without trimming so that the "nobody" value `" "` keeps its meaning instead of falling
    /// back to the default, which the typed string getter would do.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::Conf`] carrying the positioned configuration error (file, line,
    /// column, key, value, expected) for a bad number or boolean or an unresolvable `${...}`,
    /// and [`SchedulerError::InvalidAllocationRange`] when a minimum exceeds its maximum.
    pub fn from_conf(conf: &Configuration) -> Result<Self, SchedulerError> {
        let conf_error = |source| SchedulerError::Conf { source };
        let admin_acl = match conf.get(ADMIN_ACL_KEY).map_err(conf_error)? {
            Some(value) if !value.is_empty() => AccessControlList::parse(&value),
            _ => AccessControlList::everyone(),
        };
        let settings = Self {
            minimum_allocation: Resource::new(
                conf.get_u64(&SCHEDULER_MINIMUM_ALLOCATION_MB)
                    .map_err(conf_error)?,
                conf.get_u32(&SCHEDULER_MINIMUM_ALLOCATION_VCORES)
                    .map_err(conf_error)?,
            ),
            maximum_allocation: Resource::new(
                conf.get_u64(&SCHEDULER_MAXIMUM_ALLOCATION_MB)
                    .map_err(conf_error)?,
                conf.get_u32(&SCHEDULER_MAXIMUM_ALLOCATION_VCORES)
                    .map_err(conf_error)?,
            ),
            max_application_priority: conf
                .get_i32(&CLUSTER_MAX_APPLICATION_PRIORITY)
                .map_err(conf_error)?,
            acl_enable: conf.get_bool(&YARN_ACL_ENABLE).map_err(conf_error)?,
            admin_acl,
            app_name_mappings: conf
                .get(APP_NAME_MAPPINGS_KEY)
                .map_err(conf_error)?
                .filter(|value| !value.trim().is_empty()),
            node_labels_enabled: conf.get_bool(&NODE_LABELS_ENABLED).map_err(conf_error)?,
            configuration_store: ConfigurationStore::parse(
                &SCHEDULER_CONFIGURATION_STORE_CLASS.name,
                &conf
                    .get_string(&SCHEDULER_CONFIGURATION_STORE_CLASS)
                    .map_err(conf_error)?,
            )?,
            mutation_acl_policy: MutationAclPolicy::parse(
                &SCHEDULER_CONFIGURATION_MUTATION_ACL_POLICY_CLASS.name,
                &conf
                    .get_string(&SCHEDULER_CONFIGURATION_MUTATION_ACL_POLICY_CLASS)
                    .map_err(conf_error)?,
            )?,
            configuration_max_versions: conf
                .get_u32(&SCHEDULER_CONFIGURATION_MAX_VERSION)
                .map_err(conf_error)?,
        };
        settings.validate()?;
        if settings.configuration_max_versions > MAX_CONFIGURATION_VERSIONS {
            return Err(SchedulerError::InvalidValue {
                key: SCHEDULER_CONFIGURATION_MAX_VERSION.name.to_string(),
                value: settings.configuration_max_versions.to_string(),
                expected: "at most 1000 versions: each is a whole configuration kept in every \
                           snapshot",
            });
        }
        if let Some(rules) = &settings.app_name_mappings {
            check_app_name_entries(rules)?;
        }
        Ok(settings)
    }

    /// Checks that each minimum allocation is at most its maximum.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidAllocationRange`] naming both keys and values.
    pub fn validate(&self) -> Result<(), SchedulerError> {
        if self.minimum_allocation.memory_mb > self.maximum_allocation.memory_mb {
            return Err(SchedulerError::InvalidAllocationRange {
                minimum_key: MINIMUM_ALLOCATION_MB_KEY,
                minimum: self.minimum_allocation.memory_mb,
                maximum_key: MAXIMUM_ALLOCATION_MB_KEY,
                maximum: self.maximum_allocation.memory_mb,
            });
        }
        if self.minimum_allocation.vcores > self.maximum_allocation.vcores {
            return Err(SchedulerError::InvalidAllocationRange {
                minimum_key: MINIMUM_ALLOCATION_VCORES_KEY,
                minimum: u64::from(self.minimum_allocation.vcores),
                maximum_key: MAXIMUM_ALLOCATION_VCORES_KEY,
                maximum: u64::from(self.maximum_allocation.vcores),
            });
        }
        Ok(())
    }

    /// Why every user is a cluster administrator under these settings, when that is so: with
    /// administration open to all, any user can remove Raft members or move leadership. `None`
    /// when `yarn.admin.acl` names who may.
    pub fn open_admin_rights(&self) -> Option<&'static str> {
        if !self.acl_enable {
            Some("yarn.acl.enable is false, so every user is an administrator")
        } else if self.admin_acl.is_all_allowed() {
            Some("yarn.admin.acl is *, so every user is an administrator")
        } else {
            None
        }
    }

    /// Whether `user` (in `groups`) is a cluster administrator under `yarn.admin.acl`. Always
    /// true when ACLs are disabled.
    pub fn is_admin(&self, user: &str, groups: &[String]) -> bool {
        !self.acl_enable || self.admin_acl.is_allowed(user, groups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_yarn() {
        let settings = SchedulerSettings::from_conf(&Configuration::new()).unwrap();
        assert_eq!(settings, SchedulerSettings::default());
        assert_eq!(settings.minimum_allocation, Resource::new(1024, 1));
        assert_eq!(settings.maximum_allocation, Resource::new(8192, 4));
        assert_eq!(settings.max_application_priority, 0);
        assert!(!settings.acl_enable);
        assert!(settings.admin_acl.is_all_allowed());
    }

    #[test]
    fn administration_open_to_all_is_named_with_its_cause() {
        let defaults = SchedulerSettings::default();
        assert!(
            defaults
                .open_admin_rights()
                .unwrap()
                .contains("yarn.acl.enable")
        );
        let everyone = SchedulerSettings {
            acl_enable: true,
            ..SchedulerSettings::default()
        };
        assert!(
            everyone
                .open_admin_rights()
                .unwrap()
                .contains("yarn.admin.acl is *")
        );
        let named = SchedulerSettings {
            acl_enable: true,
            admin_acl: AccessControlList::parse("yarn-admin"),
            ..SchedulerSettings::default()
        };
        assert_eq!(named.open_admin_rights(), None);
    }

    #[test]
    fn reads_overrides_and_keeps_the_nobody_admin_acl() {
        let mut conf = Configuration::new();
        conf.set(MINIMUM_ALLOCATION_MB_KEY, "512");
        conf.set(MAXIMUM_ALLOCATION_VCORES_KEY, "32");
        conf.set(MAX_APPLICATION_PRIORITY_KEY, "10");
        conf.set("yarn.acl.enable", "true");
        conf.set(ADMIN_ACL_KEY, " ");
        let settings = SchedulerSettings::from_conf(&conf).unwrap();
        assert_eq!(settings.minimum_allocation, Resource::new(512, 1));
        assert_eq!(settings.maximum_allocation, Resource::new(8192, 32));
        assert_eq!(settings.max_application_priority, 10);
        assert!(!settings.is_admin("root", &[]));
    }

    #[test]
    fn bad_numbers_and_ranges_name_the_keys() {
        let mut conf = Configuration::new();
        conf.set(MAXIMUM_ALLOCATION_MB_KEY, "lots");
        let message = SchedulerSettings::from_conf(&conf).unwrap_err().to_string();
        assert!(message.contains(MAXIMUM_ALLOCATION_MB_KEY), "{message}");
        assert!(message.contains("lots"), "{message}");

        let mut conf = Configuration::new();
        conf.set(MINIMUM_ALLOCATION_MB_KEY, "16384");
        let message = SchedulerSettings::from_conf(&conf).unwrap_err().to_string();
        assert!(
            message.contains("16384") && message.contains("8192"),
            "{message}"
        );

        let mut conf = Configuration::new();
        conf.set(APP_NAME_MAPPINGS_KEY, "etl:eng,etl=eng");
        let message = SchedulerSettings::from_conf(&conf).unwrap_err().to_string();
        assert!(
            message.contains(APP_NAME_MAPPINGS_KEY)
                && message.ends_with("Illegal queue mapping etl=eng"),
            "a malformed application-name rule stops the daemon: {message}"
        );
    }
}
