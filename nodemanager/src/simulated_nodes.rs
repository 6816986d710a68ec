//! Many simulated NodeManagers in one process, for load and scale tests.

use std::path::Path;

use crate::{ExecutorKind, NmConfig};

/// The configuration of simulated node `index` (0-based) of a process hosting several.
///
/// Every node gets its own ports (the configured ones plus twice `index`, so that adjacent RPC
/// and web ports such as the defaults 8041 and 8042 never collide across nodes; port 0 stays 0,
/// letting the kernel choose), its own local, log and recovery directories (`node-<index>` under
/// the configured ones), and the simulated executor: no processes run, containers last as long as
/// their launch context asks. The nodes register as distinct NodeManagers on the same host.
pub fn simulated_node_config(base: &NmConfig, index: u16) -> NmConfig {
    let mut config = base.clone();
    let step = index.saturating_mul(2);
    let shift = |port: u16| {
        if port == 0 {
            0
        } else {
            port.saturating_add(step)
        }
    };
    config.address.port = shift(base.address.port);
    config.webapp_address.port = shift(base.webapp_address.port);
    config.amrm_proxy.address.port = shift(base.amrm_proxy.address.port);
    let sub = |dir: &Path| dir.join(format!("node-{index}"));
    config.local_dirs = base.local_dirs.iter().map(|d| sub(d)).collect();
    config.log_dirs = base.log_dirs.iter().map(|d| sub(d)).collect();
    config.recovery_dir = sub(&base.recovery_dir);
    config.executor_kind = ExecutorKind::Simulated;
    config
}

#[cfg(test)]
mod tests {
    use yarn_conf::Configuration;

    use super::*;

    #[test]
    fn each_simulated_node_gets_its_own_ports_and_directories() {
        let mut conf = Configuration::new();
        conf.set("yarn.nodemanager.address", "127.0.0.1:9000");
        conf.set("yarn.nodemanager.webapp.address", "127.0.0.1:0");
        conf.set("yarn.nodemanager.local-dirs", "/data/a,/data/b");
        let base = NmConfig::from_conf(&conf).unwrap();
        let second = simulated_node_config(&base, 1);
        assert_eq!(second.address.port, 9002);
        assert_eq!(second.webapp_address.port, 0);
        assert_eq!(
            second.local_dirs,
            [Path::new("/data/a/node-1"), Path::new("/data/b/node-1")]
        );
        assert_eq!(second.recovery_dir, base.recovery_dir.join("node-1"));
        assert_eq!(second.executor_kind, ExecutorKind::Simulated);
        assert_ne!(
            simulated_node_config(&base, 2).recovery_dir,
            second.recovery_dir
        );

        // With the default adjacent ports, no node's RPC port is another's web port.
        let defaults = NmConfig::from_conf(&Configuration::new()).unwrap();
        let ports: Vec<u16> = (0..4)
            .map(|i| simulated_node_config(&defaults, i))
            .flat_map(|c| [c.address.port, c.webapp_address.port])
            .collect();
        let distinct: std::collections::BTreeSet<_> = ports.iter().collect();
        assert_eq!(distinct.len(), ports.len(), "{ports:?}");
    }
}
