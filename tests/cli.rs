//! The `yarn-ha` binary as a user runs it: help, usage errors, Hadoop-style options, and the
//! commands that work today (`conf`, `pki`).

mod common;

use std::path::Path;

use common::{stderr, stdout, yarn_ha};

#[test]
fn help_lists_every_command_of_the_architecture() {
    let out = yarn_ha(&["--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let help = stdout(&out);
    for command in [
        "resourcemanager",
        "nodemanager",
        "rmadmin",
        "application",
        "node",
        "queue",
        "placement",
        "top",
        "dshell",
        "pi",
        "minicluster",
        "pki",
        "conf",
        "chaos",
        "bench",
    ] {
        assert!(
            help.lines()
                .any(|line| line.trim_start().starts_with(&format!("{command} "))),
            "--help does not list {command} with a description:\n{help}"
        );
    }
    assert!(help.contains("--conf-dir"), "{help}");
}

#[test]
fn unknown_commands_and_bad_flags_print_usage_and_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["application", "--no-such-flag"],
        &["rmadmin", "-noSuchOption"],
        &["application"],
    ] {
        let out = yarn_ha(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("Usage:"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn hadoop_single_dash_options_are_accepted() {
    // Parsed (not a usage error, 2): each fails only for want of a configuration directory.
    let out = yarn_ha(&["application", "-status", "application_1700000000000_0001"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("configuration directory"),
        "{}",
        stderr(&out)
    );
    let out = yarn_ha(&["rmadmin", "-getServiceState", "rm1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("configuration directory"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn malformed_ids_on_the_command_line_are_usage_errors_naming_the_id() {
    let out = yarn_ha(&["application", "-kill", "application_abc_0001"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("application_abc_0001"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn conf_get_prints_defaults_and_per_id_values() {
    let out = yarn_ha(&["conf", "get", "yarn.resourcemanager.am.max-attempts"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "2");

    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("yarn-site.xml"),
        r#"<?xml version="1.0"?>
<configuration>
  <property><name>yarn.resourcemanager.hostname.rm2</name><value>10.0.0.2</value></property>
</configuration>
"#,
    );
    let conf_dir = dir.path().to_str().unwrap();
    let out = yarn_ha(&[
        "--conf-dir",
        conf_dir,
        "conf",
        "get",
        "yarn.resourcemanager.address.rm2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "10.0.0.2:8032");
}

#[test]
fn conf_check_reports_positioned_errors_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("yarn-site.xml"),
        "<configuration>\n  <property>\n    <name>yarn.resourcemanager.am.max-attempts</name>\n    <value>ten</value>\n  </property>\n</configuration>\n",
    );
    write(
        &dir.path().join("capacity-scheduler.xml"),
        "<configuration>\n  <property><name>a</name><value>1</value>\n</configuration>\n",
    );
    let out = yarn_ha(&["--conf-dir", dir.path().to_str().unwrap(), "conf", "check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = stderr(&out);
    assert!(report.contains("yarn-site.xml:4:"), "{report}");
    assert!(
        report.contains("yarn.resourcemanager.am.max-attempts"),
        "{report}"
    );
    assert!(report.contains("\"ten\""), "{report}");
    assert!(report.contains("capacity-scheduler.xml:"), "{report}");
}

#[test]
fn conf_check_accepts_the_shipped_samples() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("conf/etc");
    let out = yarn_ha(&[
        "--conf-dir",
        samples.to_str().unwrap(),
        "conf",
        "check",
        "--no-files",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn pki_init_writes_certificates_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let pki = dir.path().join("pki");
    let pki_dir = pki.to_str().unwrap();
    let init = [
        "pki",
        "init",
        "--dir",
        pki_dir,
        "--rm-ids",
        "rm1,rm2",
        "--nm-hosts",
        "h1",
        "--users",
        "alice",
    ];
    let out = yarn_ha(&init);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for file in [
        "ca.pem",
        "resourcemanager-rm2.pem",
        "nodemanager-h1-key.pem",
        "user-alice.pem",
    ] {
        assert!(pki.join(file).exists(), "{file} missing");
    }

    let out = yarn_ha(&init);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));

    let out = yarn_ha(&[
        "pki", "issue", "--dir", pki_dir, "--role", "user", "--name", "bob",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(pki.join("user-bob.pem").exists());

    let out = yarn_ha(&[
        "pki", "issue", "--dir", pki_dir, "--role", "admin", "--name", "x",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn pki_issue_writes_a_pkcs12_bundle_whose_password_never_comes_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let pki = dir.path().join("pki");
    let pki_dir = pki.to_str().unwrap();
    let out = yarn_ha(&["pki", "init", "--dir", pki_dir]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let issue = |name: &str, extra: &[&str], password_env: Option<&str>| {
        let bundle = dir.path().join(format!("{name}.p12"));
        let mut command = common::yarn_ha_command();
        command
            .args([
                "pki", "issue", "--dir", pki_dir, "--role", "user", "--name", name,
            ])
            .arg("--pkcs12")
            .arg(&bundle)
            .args(extra);
        match password_env {
            Some(password) => command.env("YARN_HA_PKCS12_PASSWORD", password),
            None => command.env_remove("YARN_HA_PKCS12_PASSWORD"),
        };
        (common::output(&mut command), bundle)
    };

    // No password anywhere: refused before anything is written.
    let (out, bundle) = issue("carol", &[], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--pkcs12-password-file")
            && stderr(&out).contains("YARN_HA_PKCS12_PASSWORD"),
        "{}",
        stderr(&out)
    );
    assert!(!bundle.exists());
    assert!(!pki.join("user-carol.pem").exists());

    // From the environment.
    let (out, bundle) = issue("carol", &[], Some("s3cret"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("wrote {}", bundle.display())),
        "{}",
        stdout(&out)
    );
    assert!(std::fs::metadata(&bundle).unwrap().len() > 0);
    assert!(pki.join("user-carol.pem").exists());

    // From a file, which wins over the environment; an empty one is refused.
    let password_file = dir.path().join("password");
    write(&password_file, "s3cret\n");
    let file = password_file.to_str().unwrap();
    let (out, bundle) = issue("dave", &["--pkcs12-password-file", file], Some("ignored"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(bundle.exists());
    write(&password_file, "\n");
    let (out, bundle) = issue("erin", &["--pkcs12-password-file", file], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("not empty"), "{}", stderr(&out));
    assert!(!bundle.exists());

    // There is no flag for the password itself, and the file flag needs --pkcs12.
    for args in [
        &[
            "pki",
            "issue",
            "--dir",
            pki_dir,
            "--role",
            "user",
            "--name",
            "f",
            "--pkcs12",
            "f.p12",
            "--pkcs12-password",
            "x",
        ][..],
        &[
            "pki",
            "issue",
            "--dir",
            pki_dir,
            "--role",
            "user",
            "--name",
            "f",
            "--pkcs12-password-file",
            file,
        ],
    ] {
        let out = yarn_ha(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn pki_init_names_its_administrators_and_conf_check_warns_when_everyone_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let pki = dir.path().join("pki");
    let out = yarn_ha(&[
        "pki",
        "init",
        "--dir",
        pki.to_str().unwrap(),
        "--rm-ids",
        "rm1",
        "--users",
        "alice",
        "--admins",
        "yarn-admin",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        pki.join("user-yarn-admin.pem").exists(),
        "admins get certificates"
    );
    let acl = std::fs::read_to_string(pki.join("admin-acl.xml")).expect("admin-acl.xml");
    assert!(
        acl.contains("<name>yarn.admin.acl</name>") && acl.contains("<value>yarn-admin</value>"),
        "{acl}"
    );

    // A yarn-site.xml with those two properties draws no warning; one without them does.
    let conf = dir.path().join("conf");
    std::fs::create_dir(&conf).unwrap();
    std::fs::copy(pki.join("admin-acl.xml"), conf.join("yarn-site.xml")).unwrap();
    write(&conf.join("capacity-scheduler.xml"), "<configuration/>\n");
    let check = || {
        yarn_ha(&[
            "--conf-dir",
            conf.to_str().unwrap(),
            "conf",
            "check",
            "--no-files",
        ])
    };
    let out = check();
    assert!(
        !stderr(&out).contains("every user is an administrator"),
        "{}",
        stderr(&out)
    );
    write(&conf.join("yarn-site.xml"), "<configuration/>\n");
    let out = check();
    assert!(
        stderr(&out)
            .contains("warning: yarn.acl.enable is false, so every user is an administrator"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn placement_convert_prints_the_json_rules_of_legacy_mappings() {
    let dir = tempfile::tempdir().unwrap();
    let legacy = dir.path().join("mappings.txt");
    write(
        &legacy,
        "u:%user:root.groups.%primary_group.%user,g:hadoop:root.groups.hadoop\n\
         %application:%application\nhive_query:root.query.hive\n",
    );
    let out = yarn_ha(&["placement", "convert", legacy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let expected: serde_json::Value = serde_json::from_str(
        r#"{"rules": [
          {"type": "user", "matches": "*", "policy": "primaryGroupUser",
           "parentQueue": "root.groups", "fallbackResult": "placeDefault"},
          {"type": "group", "matches": "hadoop", "policy": "custom",
           "customPlacement": "root.groups.hadoop", "fallbackResult": "placeDefault"},
          {"type": "user", "matches": "*", "policy": "applicationName",
           "fallbackResult": "placeDefault"},
          {"type": "application", "matches": "hive_query", "policy": "custom",
           "customPlacement": "root.query.hive", "fallbackResult": "placeDefault"}
        ]}"#,
    )
    .unwrap();
    assert_eq!(printed, expected);
    write(&legacy, "u:alice:eng,x:bob:eng");
    let out = yarn_ha(&["placement", "convert", legacy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("mapping \"x:bob:eng\": unknown mapping prefix x"),
        "{}",
        stderr(&out)
    );
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn sim_refuses_a_group_size_it_cannot_simulate_and_a_bad_planted_bug() {
    let out = yarn_ha(&["sim", "--replicas", "4", "--seed", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("--replicas 4"), "{}", stderr(&out));

    let out = common::output(common::yarn_ha_command().args(["sim", "--seed", "1"]).env(
        "YARN_HA_FAILPOINTS",
        "plant.unflushed-appends,plant.unsynced-appends",
    ));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("one at a time"), "{}", stderr(&out));
}

/// `yarn-site.xml` text setting `pairs`, one property per line.
fn site(pairs: &[(&str, &str)]) -> String {
    let mut xml = String::from("<configuration>\n");
    for (name, value) in pairs {
        xml.push_str(&format!(
            "  <property><name>{name}</name><value>{value}</value></property>\n"
        ));
    }
    xml.push_str("</configuration>\n");
    xml
}

#[test]
fn conf_check_lists_every_key_honoured_refused_or_warned() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("yarn-site.xml"),
        &site(&[
            ("yarn.resourcemanager.am.max-attempts", "3"),
            ("yarn.resourcemanager.scheduler.class", CAPACITY_SCHEDULER),
            ("yarn.node-labels.configuration-type", "distributed"),
            ("yarn.resourcemanager.zk-address", "zk1:2181"),
            ("yarn.timeline-service.enabled", "true"),
            ("yarn.nodemanager.aux-services", "mapreduce_shuffle"),
            ("yarn.resourcemanager.am.max-atempts", "3"),
        ]),
    );
    write(
        &dir.path().join("capacity-scheduler.xml"),
        &site(&[
            ("yarn.scheduler.capacity.root.queues", "a,b"),
            ("yarn.scheduler.capacity.root.a.capacity", "50"),
            ("yarn.scheduler.capacity.root.b.capacity", "50"),
            (
                "yarn.scheduler.capacity.root.a.allow-zero-capacity-sum",
                "true",
            ),
            (
                "yarn.scheduler.capacity.root.b.maximum-application-lifetime",
                "-1",
            ),
            (
                "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments",
                "1",
            ),
            (
                "yarn.scheduler.capacity.root.a.accessible-node-labels",
                "gpu",
            ),
        ]),
    );
    let out = yarn_ha(&[
        "--conf-dir",
        dir.path().to_str().unwrap(),
        "conf",
        "check",
        "--no-files",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let listing = stdout(&out);
    let line_of = |key: &str| {
        listing
            .lines()
            .find(|line| {
                line.match_indices(key).any(|(at, _)| {
                    matches!(
                        line[at + key.len()..].chars().next(),
                        None | Some(' ' | ':')
                    )
                })
            })
            .unwrap_or_else(|| panic!("{key} is not listed:\n{listing}"))
            .to_owned()
    };
    for key in [
        "yarn.resourcemanager.am.max-attempts",
        "yarn.resourcemanager.scheduler.class",
        "yarn.scheduler.capacity.root.queues",
        "yarn.scheduler.capacity.root.a.capacity",
        "yarn.scheduler.capacity.root.b.maximum-application-lifetime",
        "yarn.scheduler.capacity.root.a.accessible-node-labels",
    ] {
        assert!(line_of(key).starts_with("honoured  "), "{listing}");
    }
    for (key, says) in [
        ("yarn.resourcemanager.zk-address", "not ZooKeeper"),
        ("yarn.timeline-service.enabled", "no timeline service"),
        (
            "yarn.resourcemanager.am.max-atempts",
            "not a key yarn-ha knows",
        ),
        (
            "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments",
            "schedule-asynchronously.enable=false",
        ),
    ] {
        let line = line_of(key);
        assert!(
            line.starts_with("warned    ") && line.contains(says),
            "{line}"
        );
    }
    // Refusals name the file, the line of the value, the key and why.
    for (file, line, key, says) in [
        (
            "yarn-site.xml",
            4,
            "yarn.node-labels.configuration-type",
            "centralized",
        ),
        (
            "yarn-site.xml",
            7,
            "yarn.nodemanager.aux-services",
            "no auxiliary services",
        ),
        (
            "capacity-scheduler.xml",
            5,
            "yarn.scheduler.capacity.root.a.allow-zero-capacity-sum",
            "percentage children sum to 100",
        ),
    ] {
        let listed = line_of(key);
        let at = format!("{file}:{line}:");
        assert!(
            listed.starts_with("refused   ") && listed.contains(&at) && listed.contains(says),
            "{listed}"
        );
        assert!(stderr(&out).contains(&at), "{}", stderr(&out));
    }
    assert!(stderr(&out).contains("3 problem(s)"), "{}", stderr(&out));
}

const CAPACITY_SCHEDULER: &str =
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";

/// Runs a daemon that is expected to refuse to start; kills it if it is still running after
/// 60 s, so a daemon that starts after all fails the test instead of hanging it.
fn refused_start(conf_dir: &Path, daemon: &str) -> std::process::Output {
    let mut child = common::yarn_ha_command()
        .args(["--conf-dir", conf_dir.to_str().unwrap(), daemon])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the yarn-ha binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().expect("wait").is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    child.wait_with_output().expect("the daemon's output")
}

#[test]
fn daemons_refuse_to_start_on_a_key_whose_promise_they_cannot_keep() {
    let dir = tempfile::tempdir().unwrap();
    let storage = dir.path().join("raft");
    let local = [
        ("yarn.resourcemanager.hostname", "127.0.0.1"),
        ("yarn.nodemanager.hostname", "127.0.0.1"),
        (
            "yarn.resourcemanager.ha.raft.storage-dir",
            storage.to_str().unwrap(),
        ),
        ("yarn.tls.enabled", "false"),
    ];
    let with = |extra: (&'static str, &'static str)| {
        let mut pairs = local.to_vec();
        pairs.push(extra);
        site(&pairs)
    };
    let site_file = dir.path().join("yarn-site.xml");
    let queues_file = dir.path().join("capacity-scheduler.xml");
    for (daemon, extra, says) in [
        (
            "resourcemanager",
            ("yarn.node-labels.configuration-type", "distributed"),
            "centralized",
        ),
        (
            "nodemanager",
            ("yarn.nodemanager.aux-services", "spark_shuffle"),
            "no auxiliary services",
        ),
    ] {
        write(&site_file, &with(extra));
        let out = refused_start(dir.path(), daemon);
        assert_eq!(out.status.code(), Some(1), "{daemon}: {}", stderr(&out));
        let message = stderr(&out);
        assert!(
            message.contains(&format!("yarn-site.xml:{}:", local.len() + 2))
                && message.contains(&format!("key {}: value {:?} is refused", extra.0, extra.1))
                && message.contains(says),
            "{daemon}: {message}"
        );
    }
    write(&site_file, &site(&local));
    write(
        &queues_file,
        &site(&[
            ("yarn.scheduler.capacity.root.queues", "default"),
            ("yarn.scheduler.capacity.root.default.capacity", "100"),
            (
                "yarn.scheduler.capacity.root.default.allow-zero-capacity-sum",
                "true",
            ),
        ]),
    );
    let out = refused_start(dir.path(), "resourcemanager");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let message = stderr(&out);
    assert!(
        message.contains("capacity-scheduler.xml:4:")
            && message.contains(
                "key yarn.scheduler.capacity.root.default.allow-zero-capacity-sum: \
                 value \"true\" is refused: in legacy queue mode a parent's percentage \
                 children sum to 100"
            ),
        "{message}"
    );
    assert!(
        !storage.exists(),
        "a refused ResourceManager touched its storage"
    );
}
