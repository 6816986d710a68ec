//! `yarn-ha rmadmin` as an operator runs it, in the cases that need no running replica:
//! argument checks, the refusal of manual transitions, and replicas that are all down.

mod common;

use std::net::TcpListener;
use std::path::Path;
use std::process::Output;

use tempfile::TempDir;

use common::{stderr, stdout};

const RM_IDS: [&str; 3] = ["rm1", "rm2", "rm3"];

/// `yarn-ha args...` logging errors only, so that stderr holds the messages the tests check.
fn yarn_ha(args: &[&str]) -> Output {
    common::output(
        common::yarn_ha_command()
            .args(args)
            .env("YARN_HA_LOG", "error"),
    )
}

/// A configuration directory for an HA group rm1..rm3 whose admin addresses are closed ports
/// on 127.0.0.1, with a PKI made by `yarn-ha pki init` and the user certificate of alice.
struct ClusterConf {
    dir: TempDir,
    admin_addresses: Vec<String>,
}

impl ClusterConf {
    fn must_create() -> ClusterConf {
        let dir = tempfile::tempdir().unwrap();
        let pki = dir.path().join("pki");
        let out = yarn_ha(&[
            "pki",
            "init",
            "--dir",
            pki.to_str().unwrap(),
            "--rm-ids",
            &RM_IDS.join(","),
            "--users",
            "alice",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

        let admin_addresses: Vec<String> = RM_IDS.iter().map(|_| closed_address()).collect();
        let mut properties = vec![
            (
                "yarn.resourcemanager.ha.enabled".to_owned(),
                "true".to_owned(),
            ),
            (
                "yarn.resourcemanager.ha.rm-ids".to_owned(),
                RM_IDS.join(","),
            ),
            ("yarn.tls.ca-cert".to_owned(), path(&pki.join("ca.pem"))),
            (
                "yarn.tls.cert".to_owned(),
                path(&pki.join("user-alice.pem")),
            ),
            (
                "yarn.tls.key".to_owned(),
                path(&pki.join("user-alice-key.pem")),
            ),
            (
                "yarn.client.failover-sleep-base-ms".to_owned(),
                "1".to_owned(),
            ),
            (
                "yarn.client.failover-sleep-max-ms".to_owned(),
                "5".to_owned(),
            ),
        ];
        for (id, address) in RM_IDS.iter().zip(&admin_addresses) {
            properties.push((
                format!("yarn.resourcemanager.admin.address.{id}"),
                address.clone(),
            ));
        }
        let mut xml = String::from("<?xml version=\"1.0\"?>\n<configuration>\n");
        for (name, value) in &properties {
            xml.push_str(&format!(
                "  <property><name>{name}</name><value>{value}</value></property>\n"
            ));
        }
        xml.push_str("</configuration>\n");
        std::fs::write(dir.path().join("yarn-site.xml"), xml).unwrap();
        ClusterConf {
            dir,
            admin_addresses,
        }
    }

    fn rmadmin(&self, args: &[&str]) -> Output {
        let mut all = vec!["--conf-dir", self.dir.path().to_str().unwrap(), "rmadmin"];
        all.extend_from_slice(args);
        yarn_ha(&all)
    }
}

/// A port on 127.0.0.1 nobody listens on: bound, then released.
fn closed_address() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

fn path(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

#[test]
fn an_unknown_rm_id_is_refused_with_hadoops_message_and_exit_1() {
    let conf = ClusterConf::must_create();
    for args in [
        &["-getServiceState", "rm9"][..],
        &["-checkHealth", "rm9"],
        &["-transitionToActive", "rm9", "-forcemanual"],
        &["-transitionToStandby", "--forcemanual", "rm9"],
        &["-removeFromCluster", "rm9"],
        &["-getStateDigest", "rm9"],
    ] {
        let out = conf.rmadmin(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).trim(),
            "rm9 is not a valid serviceId. It should be one of rm1,rm2,rm3",
            "{args:?}"
        );
        assert_eq!(stdout(&out), "", "{args:?}");
    }
}

#[test]
fn manual_transitions_are_refused_under_automatic_failover_without_forcemanual() {
    let conf = ClusterConf::must_create();
    for args in [
        &["-transitionToActive", "rm2"][..],
        &["-transitionToStandby", "rm1"],
    ] {
        let out = conf.rmadmin(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let message = stderr(&out);
        assert!(
            message.starts_with("Refusing to manually manage HA state"),
            "{args:?}: {message}"
        );
        assert!(message.contains("--forcemanual"), "{message}");
        assert_eq!(message.trim().lines().count(), 1, "{message}");
    }
}

#[test]
fn get_all_service_state_lists_every_replica_as_unreachable_when_all_are_down() {
    let conf = ClusterConf::must_create();
    let out = conf.rmadmin(&["-getAllServiceState"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stdout(&out);
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), RM_IDS.len(), "{report}");
    for (line, address) in lines.iter().zip(&conf.admin_addresses) {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words, [address.as_str(), "unreachable"], "{report}");
    }
}

#[test]
fn a_call_to_a_replica_that_is_down_fails_naming_it_and_its_address() {
    let conf = ClusterConf::must_create();
    let out = conf.rmadmin(&["-getServiceState", "rm2"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let message = stderr(&out);
    assert!(message.starts_with("getServiceState: "), "{message}");
    assert!(message.contains("rm2"), "{message}");
    assert!(message.contains(&conf.admin_addresses[1]), "{message}");
    assert_eq!(message.trim().lines().count(), 1, "{message}");
}

#[test]
fn rmadmin_needs_a_conf_dir_and_exactly_one_operation() {
    let out = yarn_ha(&["rmadmin", "-getAllServiceState"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("--conf-dir"), "{}", stderr(&out));

    for args in [
        &["rmadmin", "-getAllServiceState", "-refreshQueues"][..],
        &["rmadmin", "-forcemanual"],
        &["rmadmin", "-addToCluster", "rm4"],
    ] {
        let out = yarn_ha(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}
