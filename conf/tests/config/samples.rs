//! The sample files in `conf/etc` load cleanly and describe what they claim.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use yarn_conf::{Configuration, Key, KeyKind, keys};

fn etc() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("etc")
}

#[test]
fn sample_site_is_a_three_rm_cluster_with_distinct_ports() {
    let configuration = Configuration::load_dir(&etc()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        configuration.warnings().is_empty(),
        "{:?}",
        configuration.warnings()
    );
    assert!(configuration.get_bool(&keys::RM_HA_ENABLED).expect("bool"));
    let ids = configuration.get_list(&keys::RM_HA_IDS).expect("list");
    assert_eq!(ids, ["rm1", "rm2", "rm3"]);

    let mut ports = BTreeSet::new();
    for id in &ids {
        for key in keys::RM_ENDPOINT_KEYS {
            let key = key.for_id(id);
            // Each address is set explicitly, not derived from a default.
            let source = configuration
                .source(&key.name)
                .expect("address is set per id");
            assert!(
                source.file.ends_with("yarn-site.xml"),
                "{} from {source}",
                key.name
            );
            let address = configuration
                .get_host_port(&key)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(address.host, "127.0.0.1");
            assert!(
                ports.insert(address.port),
                "port {} used twice",
                address.port
            );
        }
    }
    assert_eq!(ports.len(), 18);

    for key in [&keys::TLS_CA_CERT, &keys::TLS_CERT, &keys::TLS_KEY] {
        let path = configuration.get_required_string(key).expect("TLS path");
        assert!(
            path.starts_with("/etc/yarn-ha/pki/"),
            "{}: {path}",
            key.name
        );
    }
    let mut started = configuration.clone();
    started.set(keys::RM_HA_ID.name.as_ref(), "rm2");
    assert_eq!(
        started
            .get_string(&keys::RM_HA_RAFT_STORAGE_DIR)
            .expect("dir"),
        "/var/lib/yarn-ha/rm-raft/rm2"
    );
}

fn queue_key(queue: &str, attribute: &str, kind: KeyKind) -> Key {
    Key {
        name: Cow::Owned(format!("yarn.scheduler.capacity.root.{queue}.{attribute}")),
        default: "",
        kind,
        per_id: false,
        id: None,
    }
}

#[test]
fn sample_capacity_scheduler_has_two_queues_summing_to_one_hundred() {
    let mut configuration = Configuration::new();
    configuration
        .add_resource_file(&etc().join("capacity-scheduler.xml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let root_queues = Key::new("yarn.scheduler.capacity.root.queues", "", KeyKind::List);
    let queues = configuration.get_list(&root_queues).expect("list");
    assert_eq!(queues, ["default", "analytics"]);

    let mut total = 0.0;
    for queue in &queues {
        let capacity = configuration
            .get_f64(&queue_key(queue, "capacity", KeyKind::Float))
            .expect("capacity");
        let maximum = configuration
            .get_f64(&queue_key(queue, "maximum-capacity", KeyKind::Float))
            .expect("maximum-capacity");
        let factor = configuration
            .get_f64(&queue_key(queue, "user-limit-factor", KeyKind::Float))
            .expect("user-limit-factor");
        let acl = configuration
            .get_required_string(&queue_key(
                queue,
                "acl_submit_applications",
                KeyKind::String,
            ))
            .expect("acl");
        let state = configuration
            .get_string(&queue_key(queue, "state", KeyKind::String))
            .expect("state");
        assert!(
            capacity > 0.0 && capacity <= maximum && maximum <= 100.0,
            "{queue}"
        );
        assert!(factor > 0.0, "{queue}");
        assert!(!acl.is_empty());
        assert_eq!(state, "RUNNING");
        total += capacity;
    }
    assert!(
        (total - 100.0_f64).abs() < 1e-9,
        "capacities sum to {total}"
    );
}
