//! `yarn-ha rmadmin` as an operator runs it: argument checks, the refusal of manual
//! transitions and replicas that are all down, which need no running replica; and a running
//! cluster refusing the caller's certificate.

mod common;

use std::net::TcpListener;
use std::path::Path;
use std::process::Output;

use tempfile::TempDir;
use yarn_conf::{Configuration, RmHaConfig};
use yarn_security::{Role, TlsFiles};

use common::process_cluster::{ProcessCluster, one_cluster_at_a_time};
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

/// A client configuration directory for an HA group rm1..rm3.
struct ClusterConf {
    dir: TempDir,
    admin_addresses: Vec<String>,
}

impl ClusterConf {
    /// A group whose admin addresses are closed ports on 127.0.0.1, with a PKI made by
    /// `yarn-ha pki init` and the user certificate of alice.
    fn must_create() -> ClusterConf {
        let dir = tempfile::tempdir().unwrap();
        let pki = dir.path().join("pki");
        must_init_pki(&pki, &["--rm-ids", &RM_IDS.join(","), "--users", "alice"]);
        let admin_addresses = RM_IDS.iter().map(|_| closed_address()).collect();
        Self::must_write(
            dir,
            admin_addresses,
            &TlsFiles::in_pki_dir(&pki, Role::User, "alice"),
        )
    }

    /// A configuration in `dir` for the replicas at `admin_addresses` (in rm-id order),
    /// presenting and trusting what `tls` names, with millisecond failover pauses.
    fn must_write(dir: TempDir, admin_addresses: Vec<String>, tls: &TlsFiles) -> ClusterConf {
        let mut properties = vec![
            (
                "yarn.resourcemanager.ha.enabled".to_owned(),
                "true".to_owned(),
            ),
            (
                "yarn.resourcemanager.ha.rm-ids".to_owned(),
                RM_IDS.join(","),
            ),
            ("yarn.tls.ca-cert".to_owned(), path(&tls.ca_cert)),
            ("yarn.tls.cert".to_owned(), path(&tls.cert)),
            ("yarn.tls.key".to_owned(), path(&tls.key)),
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

/// Runs `yarn-ha pki init --dir dir args...`, which must succeed.
fn must_init_pki(dir: &Path, args: &[&str]) {
    let mut all = vec!["pki", "init", "--dir", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = yarn_ha(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
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

/// What `-getAllServiceState` printed, as the words of each line.
fn rows(out: &Output) -> Vec<Vec<String>> {
    stdout(out)
        .lines()
        .map(|line| line.split_whitespace().map(str::to_owned).collect())
        .collect()
}

#[test]
fn a_refused_certificate_fails_get_all_service_state_at_once_naming_the_refusal() {
    let _turn = one_cluster_at_a_time();
    let cluster = ProcessCluster::start(0);
    let ha = RmHaConfig::from_conf(&Configuration::load_dir(cluster.conf_dir()).unwrap()).unwrap();
    let admin_addresses: Vec<String> = ha.members.iter().map(|m| m.admin.to_string()).collect();
    let pki = cluster.base_dir().join("pki");
    for (role, name) in [("nodemanager", "h1"), ("user", "bob")] {
        let out = yarn_ha(&[
            "pki",
            "issue",
            "--dir",
            pki.to_str().unwrap(),
            "--role",
            role,
            "--name",
            name,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let other_ca = tempfile::tempdir().unwrap();
    must_init_pki(other_ca.path(), &["--users", "alice"]);
    let client = |tls: &TlsFiles| {
        ClusterConf::must_write(tempfile::tempdir().unwrap(), admin_addresses.clone(), tls)
    };
    // Each replica's line on stderr holds the fragments `refusal` gives for its address.
    let refused_by_every_replica = |conf: &ClusterConf, refusal: &dyn Fn(&str) -> Vec<String>| {
        let out = conf.rmadmin(&["-getAllServiceState"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let expected: Vec<Vec<String>> = admin_addresses
            .iter()
            .map(|address| vec![address.clone(), "refused".to_owned()])
            .collect();
        assert_eq!(rows(&out), expected, "{}", stderr(&out));
        let message = stderr(&out);
        let lines: Vec<&str> = message.lines().collect();
        assert_eq!(lines.len(), admin_addresses.len(), "{message}");
        for (line, address) in lines.iter().zip(&admin_addresses) {
            assert!(line.starts_with("getAllServiceState: "), "{message}");
            for fragment in refusal(address) {
                assert!(line.contains(&fragment), "{fragment:?} in {message}");
            }
        }
    };

    // The admin protocol allows users only: a NodeManager's certificate is refused, and the
    // refusal names the roles allowed.
    let nodemanager = client(&TlsFiles::in_pki_dir(&pki, Role::NodeManager, "h1"));
    refused_by_every_replica(&nodemanager, &|_| {
        vec![
            "PermissionDenied: certificate nodemanager/h1 may not call the admin protocol \
             (allowed: user)"
                .to_owned(),
        ]
    });

    // A user outside yarn.admin.acl (whatever groups this host gives bob).
    let bob = client(&TlsFiles::in_pki_dir(&pki, Role::User, "bob"));
    refused_by_every_replica(&bob, &|_| {
        vec![
            "PermissionDenied: user bob ".to_owned(),
            "is not allowed to administer the ResourceManager".to_owned(),
        ]
    });

    // A certificate from another CA: every replica refuses it during the handshake.
    let foreign_certificate = TlsFiles {
        ca_cert: pki.join("ca.pem"),
        ..TlsFiles::in_pki_dir(other_ca.path(), Role::User, "alice")
    };
    let foreign = client(&foreign_certificate);
    refused_by_every_replica(&foreign, &|address| {
        vec![format!(
            "the ResourceManager at {address} does not trust this client's certificate \
             (issued by another CA?)"
        )]
    });
    // Through the failover client too, a refusal ends the call at once instead of being
    // retried as if the replicas were down.
    let out = foreign.rmadmin(&["-getClusterMembership"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let message = stderr(&out);
    assert!(
        message.starts_with(&format!(
            "getClusterMembership: the ResourceManager at {} does not trust this client's \
             certificate (issued by another CA?)",
            admin_addresses[0]
        )),
        "{message}"
    );
    assert_eq!(message.trim().lines().count(), 1, "{message}");

    // Trusting another CA only: this client refuses every replica's certificate.
    let foreign_ca = client(&TlsFiles::in_pki_dir(other_ca.path(), Role::User, "alice"));
    refused_by_every_replica(&foreign_ca, &|address| {
        vec![format!(
            "the ResourceManager's certificate at {address} is not signed by the CA in \
             yarn.tls.ca-cert"
        )]
    });
}
