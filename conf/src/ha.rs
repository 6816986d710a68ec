//! Which ResourceManagers form the cluster and where each one listens.
//!
//! As in Hadoop's `HAUtil`, every RM endpoint key takes a `.<rm-id>` suffix when HA is enabled,
//! and an unset per-id address derives from `yarn.resourcemanager.hostname.<rm-id>`. Servers,
//! clients and the minicluster all read the member list through [`RmHaConfig`], so they agree on
//! it.

use crate::{ConfError, Configuration, HostPort, Key, keys};

/// The id a replica gets when HA is disabled and `yarn.resourcemanager.ha.id` is unset: a
/// single RM runs through the same code as a one-member group.
pub const SINGLE_RM_ID: &str = "rm1";

/// Every endpoint of one ResourceManager replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RmEndpoints {
    /// The replica's id, one of `yarn.resourcemanager.ha.rm-ids`.
    pub rm_id: String,
    /// ApplicationClientProtocol (`yarn.resourcemanager.address`).
    pub client: HostPort,
    /// ApplicationMasterProtocol (`yarn.resourcemanager.scheduler.address`).
    pub scheduler: HostPort,
    /// ResourceTracker, NodeManager heartbeats (`yarn.resourcemanager.resource-tracker.address`).
    pub resource_tracker: HostPort,
    /// The admin protocol (`yarn.resourcemanager.admin.address`).
    pub admin: HostPort,
    /// Web UI and REST (`yarn.resourcemanager.webapp.address`).
    pub webapp: HostPort,
    /// Raft peer transport (`yarn.resourcemanager.ha.raft.address`).
    pub raft: HostPort,
}

/// The ResourceManager group as configured: whether HA is on and every member's endpoints, in
/// the order of `yarn.resourcemanager.ha.rm-ids` (clients try them in that order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RmHaConfig {
    /// `yarn.resourcemanager.ha.enabled`.
    pub enabled: bool,
    /// One entry per replica; exactly one when HA is disabled.
    pub members: Vec<RmEndpoints>,
}

impl RmHaConfig {
    /// Reads the member list and every member's endpoints.
    ///
    /// With HA enabled, `rm-ids` must name at least one id, without duplicates, and no two
    /// members may share an endpoint address. With HA disabled the single member is named by
    /// `yarn.resourcemanager.ha.id` (or [`SINGLE_RM_ID`]) and reads the unsuffixed keys.
    ///
    /// # Errors
    ///
    /// [`ConfError::Missing`] for an empty id list with HA on, [`ConfError::InvalidValue`] for a
    /// duplicate id or a shared address, and any getter error for a bad address.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let enabled = conf.get_bool(&keys::RM_HA_ENABLED)?;
        if !enabled {
            let id = conf.get_string(&keys::RM_HA_ID)?;
            let id = if id.is_empty() {
                SINGLE_RM_ID.to_owned()
            } else {
                id
            };
            let member = read_endpoints(conf, &id, |key| key.clone())?;
            return Ok(Self {
                enabled,
                members: vec![member],
            });
        }
        let ids = conf.get_list(&keys::RM_HA_IDS)?;
        if ids.is_empty() {
            return Err(ConfError::Missing {
                key: keys::RM_HA_IDS.name.to_string(),
                expected: "a comma-separated list of rm ids when HA is enabled".to_owned(),
            });
        }
        let mut members: Vec<RmEndpoints> = Vec::with_capacity(ids.len());
        for id in &ids {
            if members.iter().any(|m| &m.rm_id == id) {
                return Err(conf.invalid_value(&keys::RM_HA_IDS, ids.join(","), "distinct rm ids"));
            }
            members.push(read_endpoints(conf, id, |key| key.for_id(id))?);
        }
        check_distinct_addresses(conf, &members)?;
        Ok(Self { enabled, members })
    }

    /// The member named `rm_id`, if it is one.
    pub fn member(&self, rm_id: &str) -> Option<&RmEndpoints> {
        self.members.iter().find(|m| m.rm_id == rm_id)
    }
}

fn read_endpoints(
    conf: &Configuration,
    rm_id: &str,
    key_for: impl Fn(&Key) -> Key,
) -> Result<RmEndpoints, ConfError> {
    let address = |key: &Key| conf.get_host_port(&key_for(key));
    Ok(RmEndpoints {
        rm_id: rm_id.to_owned(),
        client: address(&keys::RM_ADDRESS)?,
        scheduler: address(&keys::RM_SCHEDULER_ADDRESS)?,
        resource_tracker: address(&keys::RM_RESOURCE_TRACKER_ADDRESS)?,
        admin: address(&keys::RM_ADMIN_ADDRESS)?,
        webapp: address(&keys::RM_WEBAPP_ADDRESS)?,
        raft: address(&keys::RM_HA_RAFT_ADDRESS)?,
    })
}

/// Two members on one host:port would steal each other's port; wildcard hosts are skipped
/// because the same wildcard on different machines is the normal case.
fn check_distinct_addresses(
    conf: &Configuration,
    members: &[RmEndpoints],
) -> Result<(), ConfError> {
    let mut seen: Vec<(&HostPort, &str, Key)> = Vec::new();
    for member in members {
        let addresses = [
            &member.client,
            &member.scheduler,
            &member.resource_tracker,
            &member.admin,
            &member.webapp,
            &member.raft,
        ];
        let endpoints = addresses.into_iter().zip(keys::RM_ENDPOINT_KEYS);
        for (address, key) in endpoints {
            if address.host == "0.0.0.0" || address.host == "::" || address.port == 0 {
                continue;
            }
            if let Some((_, other_id, other_key)) = seen.iter().find(|(a, _, _)| *a == address) {
                let key = key.for_id(&member.rm_id);
                let expected = format!(
                    "an address not already used by {}.{other_id}",
                    other_key.name
                );
                return Err(conf.invalid_value(&key, address, expected));
            }
            seen.push((address, &member.rm_id, key));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ha_conf(ids: &str) -> Configuration {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", ids);
        conf
    }

    #[test]
    fn members_follow_rm_ids_and_derive_addresses_from_per_id_hostnames() {
        let mut conf = ha_conf("rm1, rm2");
        conf.set("yarn.resourcemanager.hostname.rm1", "10.0.0.1");
        conf.set("yarn.resourcemanager.hostname.rm2", "10.0.0.2");
        conf.set("yarn.resourcemanager.ha.raft.address.rm2", "10.0.0.2:9035");
        let ha = RmHaConfig::from_conf(&conf).unwrap();
        let ids: Vec<_> = ha.members.iter().map(|m| m.rm_id.as_str()).collect();
        assert_eq!(ids, ["rm1", "rm2"]);
        assert_eq!(
            ha.member("rm1").unwrap().client.to_string(),
            "10.0.0.1:8032"
        );
        assert_eq!(ha.member("rm2").unwrap().admin.to_string(), "10.0.0.2:8033");
        assert_eq!(ha.member("rm2").unwrap().raft.to_string(), "10.0.0.2:9035");
    }

    #[test]
    fn ha_disabled_gives_one_member_from_unsuffixed_keys() {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.address", "127.0.0.1:18032");
        let ha = RmHaConfig::from_conf(&conf).unwrap();
        assert!(!ha.enabled);
        assert_eq!(ha.members.len(), 1);
        assert_eq!(ha.members[0].rm_id, SINGLE_RM_ID);
        assert_eq!(ha.members[0].client.to_string(), "127.0.0.1:18032");
    }

    #[test]
    fn empty_or_duplicate_ids_and_shared_addresses_are_refused() {
        let err = RmHaConfig::from_conf(&ha_conf("")).unwrap_err();
        assert!(
            matches!(err, ConfError::Missing { ref key, .. } if key == "yarn.resourcemanager.ha.rm-ids")
        );

        let err = RmHaConfig::from_conf(&ha_conf("rm1,rm1")).unwrap_err();
        assert!(err.to_string().contains("distinct rm ids"), "{err}");

        let mut conf = ha_conf("rm1,rm2");
        conf.set("yarn.resourcemanager.hostname.rm1", "127.0.0.1");
        conf.set("yarn.resourcemanager.hostname.rm2", "127.0.0.1");
        let err = RmHaConfig::from_conf(&conf).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("yarn.resourcemanager.address.rm2"),
            "{message}"
        );
        assert!(
            message.contains("yarn.resourcemanager.address.rm1"),
            "{message}"
        );
    }
}
