//! A laid-out cluster must be one every daemon accepts: valid typed configs, distinct ports,
//! loadable TLS credentials with the right identities.

use std::collections::BTreeSet;

use yarn_conf::{Configuration, RmHaConfig};
use yarn_minicluster::ClusterLayout;
use yarn_nodemanager::NmConfig;
use yarn_rm_ha::RmConfig;
use yarn_security::{PeerIdentity, Role, TlsConfig};

#[test]
fn every_daemon_of_a_layout_gets_a_valid_config_and_its_own_identity() {
    let dir = tempfile::tempdir().unwrap();
    let layout = ClusterLayout::create(&dir.path().join("cluster"), 3, 2).unwrap();
    assert_eq!(layout.rms.len(), 3);
    assert_eq!(layout.nms.len(), 2);

    let mut ports = BTreeSet::new();
    for rm in &layout.rms {
        let conf = Configuration::load_dir(&rm.conf_dir).unwrap();
        let config = RmConfig::from_conf(&conf, None).unwrap();
        assert_eq!(config.rm_id, rm.rm_id);
        assert_eq!(config.storage_dir, rm.storage_dir);
        let tls = TlsConfig::from_conf(&conf).unwrap();
        assert_eq!(
            tls.identity(),
            Some(&PeerIdentity {
                role: Role::ResourceManager,
                name: rm.rm_id.clone()
            })
        );
        if rm.rm_id == "rm1" {
            let ha = RmHaConfig::from_conf(&conf).unwrap();
            for member in &ha.members {
                for address in [
                    &member.client,
                    &member.scheduler,
                    &member.resource_tracker,
                    &member.admin,
                    &member.webapp,
                    &member.raft,
                ] {
                    assert_eq!(address.host, "127.0.0.1");
                    assert!(
                        ports.insert(address.port),
                        "port {} used twice",
                        address.port
                    );
                }
            }
        }
    }
    for nm in &layout.nms {
        let conf = Configuration::load_dir(&nm.conf_dir).unwrap();
        let config = NmConfig::from_conf(&conf).unwrap();
        assert!(ports.insert(config.address.port), "NM port reused");
        let tls = TlsConfig::from_conf(&conf).unwrap();
        let identity = tls.identity().unwrap();
        assert_eq!(identity.role, Role::NodeManager);
        // The RM lets an NM certificate speak only for nodes on the host it names.
        assert_eq!(identity.name, config.address.host);
    }
    let client = Configuration::load_dir(&layout.client_conf_dir).unwrap();
    assert_eq!(
        TlsConfig::from_conf(&client)
            .unwrap()
            .identity()
            .unwrap()
            .role,
        Role::User
    );
}

#[test]
fn a_layout_refuses_a_used_directory_and_an_empty_cluster() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("stray"), "x").unwrap();
    let err = ClusterLayout::create(dir.path(), 1, 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not empty"), "{err}");
    let err = ClusterLayout::create(&dir.path().join("new"), 0, 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("at least one ResourceManager"), "{err}");
}
