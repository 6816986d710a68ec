//! The NodeManager's typed configuration.

use std::path::PathBuf;

use yarn_conf::{ConfError, Configuration, HostPort, keys};

/// Everything a NodeManager reads from `yarn-site.xml`, read once at start-up and validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NmConfig {
    /// ContainerManagementProtocol endpoint; with the host it names the node (`NodeId`).
    pub address: HostPort,
    /// Web UI and REST endpoint.
    pub webapp_address: HostPort,
    /// Memory offered to containers, in MB.
    pub memory_mb: u64,
    /// Virtual cores offered to containers.
    pub vcores: u32,
    /// Directories containers' working directories are created in.
    pub local_dirs: Vec<PathBuf>,
    /// Where the NM keeps the state it recovers after a restart.
    pub recovery_dir: PathBuf,
    /// Opportunistic containers that may wait in the queue; 0 disables queuing.
    pub opportunistic_queue_length: u32,
}

impl NmConfig {
    /// Builds and validates the NodeManager configuration.
    ///
    /// A node must offer some memory and at least one vcore and name at least one local
    /// directory; otherwise it could never run a container and would only confuse the scheduler.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key, its value, where it was set and what was expected.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let config = Self {
            address: conf.get_host_port(&keys::NM_ADDRESS)?,
            webapp_address: conf.get_host_port(&keys::NM_WEBAPP_ADDRESS)?,
            memory_mb: conf.get_size_mb(&keys::NM_PMEM_MB)?,
            vcores: conf.get_u32(&keys::NM_VCORES)?,
            local_dirs: conf
                .get_list(&keys::NM_LOCAL_DIRS)?
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            recovery_dir: PathBuf::from(conf.get_required_string(&keys::NM_RECOVERY_DIR)?),
            opportunistic_queue_length: conf
                .get_u32(&keys::NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH)?,
        };
        if config.memory_mb == 0 {
            return Err(conf.invalid_value(&keys::NM_PMEM_MB, 0, "at least 1 MB"));
        }
        if config.vcores == 0 {
            return Err(conf.invalid_value(&keys::NM_VCORES, 0, "at least 1 vcore"));
        }
        if config.local_dirs.is_empty() {
            return Err(ConfError::Missing {
                key: keys::NM_LOCAL_DIRS.name.to_string(),
                expected: "at least one directory".to_owned(),
            });
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_hadoop() {
        let config = NmConfig::from_conf(&Configuration::new()).unwrap();
        assert_eq!(config.address.port, 8041);
        assert_eq!(config.memory_mb, 8192);
        assert_eq!(config.vcores, 8);
        assert_eq!(config.opportunistic_queue_length, 0);
    }

    #[test]
    fn a_node_that_could_run_nothing_is_refused() {
        for (key, value, expected) in [
            ("yarn.nodemanager.resource.memory-mb", "0", "at least 1 MB"),
            (
                "yarn.nodemanager.resource.cpu-vcores",
                "0",
                "at least 1 vcore",
            ),
            ("yarn.nodemanager.resource.cpu-vcores", "-2", "non-negative"),
            (
                "yarn.nodemanager.local-dirs",
                " , ",
                "at least one directory",
            ),
        ] {
            let mut conf = Configuration::new();
            conf.set(key, value);
            let err = NmConfig::from_conf(&conf).unwrap_err().to_string();
            assert!(
                err.contains(key) && err.contains(expected),
                "{key}={value}: {err}"
            );
        }
    }
}
