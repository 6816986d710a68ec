//! The endpoints a daemon will serve, read from its configuration directory the way the daemon
//! itself reads them.

use std::collections::BTreeMap;

use anyhow::Context;
use yarn_conf::{Configuration, RmHaConfig, keys};

use crate::cluster_manifest::ManifestDaemon;
use crate::daemon_role::DaemonRole;

/// The endpoints of `daemon` by service name, as `host:port`: `client`, `scheduler`,
/// `resource-tracker`, `admin`, `webapp` and `raft` for a ResourceManager (its member entry of
/// `yarn.resourcemanager.ha.rm-ids`), `address` and `webapp` for a NodeManager.
///
/// # Errors
///
/// When the configuration cannot be loaded or an address key is invalid (the message names the
/// file, key and value), or an RM's id is not a member of its own configuration.
pub fn daemon_addresses(daemon: &ManifestDaemon) -> anyhow::Result<BTreeMap<String, String>> {
    let conf = Configuration::load_dir(&daemon.conf_dir)
        .with_context(|| format!("loading the configuration of {}", daemon.id))?;
    let named = |pairs: Vec<(&str, String)>| {
        pairs
            .into_iter()
            .map(|(name, address)| (name.to_owned(), address))
            .collect()
    };
    match daemon.role {
        DaemonRole::ResourceManager => {
            let ha = RmHaConfig::from_conf(&conf)
                .with_context(|| format!("reading the RM group of {}", daemon.id))?;
            let member = ha.member(&daemon.id).with_context(|| {
                format!(
                    "{} is not among the ResourceManagers configured in {} ({})",
                    daemon.id,
                    daemon.conf_dir.display(),
                    keys::RM_HA_IDS.name
                )
            })?;
            Ok(named(vec![
                ("client", member.client.to_string()),
                ("scheduler", member.scheduler.to_string()),
                ("resource-tracker", member.resource_tracker.to_string()),
                ("admin", member.admin.to_string()),
                ("webapp", member.webapp.to_string()),
                ("raft", member.raft.to_string()),
            ]))
        }
        DaemonRole::NodeManager => {
            let address = |key| {
                conf.get_host_port(key)
                    .with_context(|| format!("reading the addresses of {}", daemon.id))
            };
            Ok(named(vec![
                ("address", address(&keys::NM_ADDRESS)?.to_string()),
                ("webapp", address(&keys::NM_WEBAPP_ADDRESS)?.to_string()),
            ]))
        }
    }
}
