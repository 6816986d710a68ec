//! The AMRMProxy's typed configuration.

use yarn_conf::{ConfError, Configuration, HostPort, keys};

/// What the hosting NodeManager reads to decide whether and how to run the AMRMProxy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyConfig {
    /// `yarn.nodemanager.amrmproxy.enabled`.
    pub enabled: bool,
    /// Where AMs on this node reach the proxy.
    pub address: HostPort,
    /// `yarn.nodemanager.distributed-scheduling.enabled`: opportunistic asks are placed by the
    /// proxy's DistributedScheduler without an RM round trip.
    pub distributed_scheduling: bool,
}

impl ProxyConfig {
    /// Builds and validates the proxy configuration.
    ///
    /// Distributed scheduling runs inside the proxy, so enabling it without the proxy is refused
    /// rather than silently ignored.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key, its value, where it was set and what was expected.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let config = Self {
            enabled: conf.get_bool(&keys::AMRM_PROXY_ENABLED)?,
            address: conf.get_host_port(&keys::AMRM_PROXY_ADDRESS)?,
            distributed_scheduling: conf.get_bool(&keys::DIST_SCHEDULING_ENABLED)?,
        };
        if config.distributed_scheduling && !config.enabled {
            return Err(conf.invalid_value(
                &keys::DIST_SCHEDULING_ENABLED,
                true,
                format!("false unless {} is true", keys::AMRM_PROXY_ENABLED.name),
            ));
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_is_off_by_default_on_port_8049() {
        let config = ProxyConfig::from_conf(&Configuration::new()).unwrap();
        assert!(!config.enabled && !config.distributed_scheduling);
        assert_eq!(config.address.port, 8049);
    }

    #[test]
    fn distributed_scheduling_needs_the_proxy() {
        let mut conf = Configuration::new();
        conf.set("yarn.nodemanager.distributed-scheduling.enabled", "true");
        let err = ProxyConfig::from_conf(&conf).unwrap_err().to_string();
        assert!(err.contains("yarn.nodemanager.amrmproxy.enabled"), "{err}");
        conf.set("yarn.nodemanager.amrmproxy.enabled", "true");
        assert!(
            ProxyConfig::from_conf(&conf)
                .unwrap()
                .distributed_scheduling
        );
    }
}
