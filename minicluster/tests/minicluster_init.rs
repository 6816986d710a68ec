//! `minicluster init` lays out a cluster `start` can launch: every conf dir gets the queue
//! configuration, the manifest reads back, and each daemon's addresses come from its conf.

use std::collections::BTreeSet;
use std::path::Path;

use yarn_conf::{Configuration, RmHaConfig};
use yarn_minicluster::{
    CAPACITY_SCHEDULER_XML, ClusterManifest, DaemonRole, DaemonSpec, daemon_addresses, init,
};

#[test]
fn init_writes_queue_configuration_and_a_manifest_start_can_launch() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("cluster");
    let manifest = init(&base, 3, 1).unwrap();
    assert!(manifest.base_dir.is_absolute());
    assert_eq!(manifest, ClusterManifest::read(&base).unwrap());
    assert!(manifest.logs_dir.is_dir());
    assert!(manifest.pki_dir.join("ca.pem").is_file());
    let roles: Vec<(DaemonRole, &str)> = manifest
        .daemons
        .iter()
        .map(|d| (d.role, d.id.as_str()))
        .collect();
    assert_eq!(
        roles,
        [
            (DaemonRole::ResourceManager, "rm1"),
            (DaemonRole::ResourceManager, "rm2"),
            (DaemonRole::ResourceManager, "rm3"),
            (DaemonRole::NodeManager, "nm1"),
        ]
    );

    let conf_dirs = manifest
        .daemons
        .iter()
        .map(|d| d.conf_dir.as_path())
        .chain([manifest.client_conf_dir.as_path()]);
    for conf_dir in conf_dirs {
        let mut conf = Configuration::new();
        conf.add_resource_file(&conf_dir.join(CAPACITY_SCHEDULER_XML))
            .unwrap();
        assert_eq!(
            conf.get("yarn.scheduler.capacity.root.queues").unwrap(),
            Some("default".to_owned()),
            "{}",
            conf_dir.display()
        );
    }

    let mut ports = BTreeSet::new();
    for daemon in &manifest.daemons {
        let addresses = daemon_addresses(daemon).unwrap();
        let expected_services: &[&str] = match daemon.role {
            DaemonRole::ResourceManager => &[
                "admin",
                "client",
                "raft",
                "resource-tracker",
                "scheduler",
                "webapp",
            ],
            DaemonRole::NodeManager => &["address", "webapp"],
        };
        let services: Vec<&str> = addresses.keys().map(String::as_str).collect();
        assert_eq!(services, expected_services, "{}", daemon.id);
        for address in addresses.values() {
            let port = address.strip_prefix("127.0.0.1:").unwrap();
            assert!(ports.insert(port.to_owned()), "{address} used twice");
        }
        let spec = DaemonSpec::yarn_ha(
            Path::new("/bin/yarn-ha"),
            daemon,
            manifest.log_file(&daemon.id),
            addresses,
        );
        assert_eq!(
            spec.log_file,
            base.join("logs").join(format!("{}.log", daemon.id))
        );
    }
    // An RM's addresses are its member entry of the group every daemon shares.
    let rm2 = &manifest.daemons[1];
    let ha = RmHaConfig::from_conf(&Configuration::load_dir(&rm2.conf_dir).unwrap()).unwrap();
    assert_eq!(
        daemon_addresses(rm2).unwrap()["admin"],
        ha.member("rm2").unwrap().admin.to_string()
    );
}

#[test]
fn init_refuses_a_used_directory_and_a_cluster_without_resourcemanagers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "keep me").unwrap();
    let err = init(dir.path(), 3, 0).unwrap_err().to_string();
    assert!(err.contains("is not empty"), "{err}");
    let entries = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(entries, 1, "init wrote into a used directory");

    let err = init(&dir.path().join("new"), 0, 2).unwrap_err().to_string();
    assert!(err.contains("at least one ResourceManager"), "{err}");
    assert!(!dir.path().join("new").exists());
}
