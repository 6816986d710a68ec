//! Layering, `final`, programmatic overrides, substitution and per-id keys.

use std::time::Duration;

use yarn_conf::{ConfError, Configuration, HostPort, Location, SubstitutionProblem, keys};

use crate::{must_load, site, value_column};

#[test]
fn later_layers_override_earlier_ones_and_source_follows() {
    let configuration = must_load(&[
        ("lower.xml", &site(&[("a", "1"), ("b", "2")])),
        ("upper.xml", &site(&[("b", "3"), ("c", "4")])),
    ]);
    assert_eq!(configuration.get_raw("a"), Some("1"));
    assert_eq!(configuration.get_raw("b"), Some("3"));
    assert_eq!(
        configuration.source("b"),
        Some(&Location::new("upper.xml", 2, value_column("b")))
    );
    assert_eq!(
        configuration.source("a").map(|l| l.file.as_str()),
        Some("lower.xml")
    );
    assert_eq!(configuration.names().collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(configuration.resources(), ["lower.xml", "upper.xml"]);
    assert!(configuration.warnings().is_empty());
}

#[test]
fn final_value_survives_later_layers_with_a_warning() {
    let key = keys::TLS_ENABLED;
    let name = key.name.as_ref();
    let lower = "<configuration>\n  <property><name>yarn.tls.enabled</name><value>true</value><final>true</final></property>\n</configuration>";
    let configuration = must_load(&[
        ("lower.xml", lower),
        ("same.xml", &site(&[(name, "true")])),
        ("upper.xml", &site(&[("x", "1"), (name, "false")])),
    ]);
    assert!(configuration.get_bool(&keys::TLS_ENABLED).expect("bool"));
    assert_eq!(
        configuration.source(name).map(|l| l.file.as_str()),
        Some("lower.xml")
    );
    // Repeating the final value is harmless; only the attempt to change it is reported.
    let warnings = configuration.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with(&format!(
        "upper.xml:3:{}: key yarn.tls.enabled",
        value_column(name)
    )));
    assert!(warnings[0].contains("\"false\" ignored"), "{}", warnings[0]);
    assert!(warnings[0].contains("lower.xml:2:"), "{}", warnings[0]);
}

#[test]
fn final_in_the_same_file_also_holds() {
    let xml = "<configuration>\n\
               <property><name>k</name><value>1</value><final>true</final></property>\n\
               <property><name>k</name><value>2</value></property>\n\
               </configuration>";
    let configuration = must_load(&[("one.xml", xml)]);
    assert_eq!(configuration.get_raw("k"), Some("1"));
    assert_eq!(configuration.warnings().len(), 1);
}

#[test]
fn set_overrides_even_final_values() {
    let lower = "<configuration><property><name>k</name><value>1</value><final>true</final></property></configuration>";
    let mut configuration = must_load(&[("lower.xml", lower)]);
    configuration.set("k", "2");
    configuration.set("new", "3");
    assert_eq!(configuration.get_raw("k"), Some("2"));
    assert_eq!(configuration.source("k"), Some(&Location::programmatic()));
    assert_eq!(
        configuration.get("new").expect("plain").as_deref(),
        Some("3")
    );
    // A resource added afterwards still cannot override the key marked final.
    configuration
        .add_resource_str("upper.xml", &site(&[("k", "4")]))
        .expect("loads");
    assert_eq!(configuration.get_raw("k"), Some("2"));
}

#[test]
fn a_rejected_resource_leaves_the_configuration_unchanged() {
    let mut configuration = must_load(&[("good.xml", &site(&[("k", "1")]))]);
    let bad = "<configuration>\n<property><name>k</name><value>2</value></property>\n<property><value>3</value></property>\n</configuration>";
    configuration
        .add_resource_str("bad.xml", bad)
        .expect_err("missing name");
    assert_eq!(configuration.get_raw("k"), Some("1"));
    assert_eq!(configuration.resources(), ["good.xml"]);
}

#[test]
fn get_substitutes_and_get_raw_does_not() {
    let configuration = must_load(&[(
        "site.xml",
        &site(&[
            ("base", "/data"),
            ("dir", "${base}/raft"),
            ("literal", "cost: $5, ${}"),
        ]),
    )]);
    assert_eq!(configuration.get_raw("dir"), Some("${base}/raft"));
    assert_eq!(
        configuration.get("dir").expect("subst").as_deref(),
        Some("/data/raft")
    );
    assert_eq!(
        configuration.get("literal").expect("no refs").as_deref(),
        Some("cost: $5, ${}")
    );
    assert_eq!(configuration.get("unset").expect("unset"), None);
}

#[test]
fn environment_references_read_the_process_environment() {
    // Cargo sets CARGO_MANIFEST_DIR for test processes.
    let configuration = must_load(&[(
        "site.xml",
        &site(&[
            ("home", "${env.CARGO_MANIFEST_DIR}/etc"),
            ("bad", "${env.YARN_CONF_TEST_UNSET_VARIABLE}"),
        ]),
    )]);
    assert_eq!(
        configuration.get("home").expect("env").as_deref(),
        Some(format!("{}/etc", env!("CARGO_MANIFEST_DIR")).as_str())
    );
    let error = configuration.get("bad").expect_err("unset variable");
    assert!(matches!(
        error,
        ConfError::Substitution { ref reason, ref variable, .. }
            if **reason == SubstitutionProblem::UnsetEnvironment
                && variable == "env.YARN_CONF_TEST_UNSET_VARIABLE"
    ));
}

#[test]
fn empty_configuration_answers_every_key_with_its_default() {
    let configuration = Configuration::new();
    assert_eq!(
        configuration
            .get_host_port(&keys::RM_ADDRESS)
            .expect("default"),
        HostPort::new("0.0.0.0", 8032)
    );
    assert_eq!(
        configuration
            .get_i32(&keys::RM_AM_MAX_ATTEMPTS)
            .expect("default"),
        2
    );
    assert_eq!(
        configuration
            .get_duration(&keys::RM_NM_HEARTBEAT_INTERVAL_MS)
            .expect("default"),
        Duration::from_millis(1000)
    );
    assert_eq!(
        configuration
            .get_duration(&keys::RM_AMRM_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS)
            .expect("default"),
        Duration::from_secs(86400)
    );
    assert_eq!(
        configuration
            .get_size_mb(&keys::NM_PMEM_MB)
            .expect("default"),
        8192
    );
    assert!(
        configuration
            .get_list(&keys::RM_HA_IDS)
            .expect("default")
            .is_empty()
    );
    assert_eq!(
        configuration.get_string(&keys::TLS_CERT).expect("default"),
        ""
    );
}

#[test]
fn empty_or_blank_values_fall_back_to_the_default() {
    let key = keys::RM_AM_MAX_ATTEMPTS;
    let name = key.name.as_ref();
    let configuration = must_load(&[("site.xml", &site(&[(name, "  "), ("blank", "")]))]);
    assert_eq!(
        configuration
            .get_i32(&keys::RM_AM_MAX_ATTEMPTS)
            .expect("default"),
        2
    );
}

#[test]
fn typed_getters_trim_and_parse_hadoop_forms() {
    let configuration = must_load(&[(
        "site.xml",
        &site(&[
            ("yarn.acl.enable", "\n   TRUE\n  "),
            ("yarn.resourcemanager.am.max-attempts", "0x10"),
            ("yarn.nodemanager.local-dirs", " /d1 ,, /d2 ,"),
            ("yarn.nodemanager.amrmproxy.address", "[::1]:8049"),
            ("yarn.connect.retry-interval.ms", "250"),
            ("yarn.example.ratio", "0.25"),
            ("yarn.example.count", "-3"),
        ]),
    )]);
    assert!(
        configuration
            .get_bool(&keys::YARN_ACL_ENABLE)
            .expect("bool")
    );
    assert_eq!(
        configuration
            .get_i32(&keys::RM_AM_MAX_ATTEMPTS)
            .expect("hex"),
        16
    );
    assert_eq!(
        configuration
            .get_u32(&keys::RM_AM_MAX_ATTEMPTS)
            .expect("hex"),
        16
    );
    assert_eq!(
        configuration.get_list(&keys::NM_LOCAL_DIRS).expect("list"),
        ["/d1", "/d2"]
    );
    assert_eq!(
        configuration
            .get_host_port(&keys::AMRM_PROXY_ADDRESS)
            .expect("ipv6")
            .to_string(),
        "[::1]:8049"
    );
    // Hadoop's `.ms` suffix style counts as a unit too.
    let dotted = yarn_conf::Key::new(
        "yarn.connect.retry-interval.ms",
        "1",
        yarn_conf::KeyKind::Duration,
    );
    assert_eq!(
        configuration.get_duration(&dotted).expect("ms"),
        Duration::from_millis(250)
    );
    let ratio = yarn_conf::Key::new("yarn.example.ratio", "1", yarn_conf::KeyKind::Float);
    assert_eq!(configuration.get_f64(&ratio).expect("float"), 0.25);
    let count = yarn_conf::Key::new("yarn.example.count", "0", yarn_conf::KeyKind::Long);
    assert_eq!(configuration.get_i64(&count).expect("negative long"), -3);
    let error = configuration.get_u64(&count).expect_err("negative");
    assert!(
        error
            .to_string()
            .contains("(expected a non-negative 64-bit integer)"),
        "{error}"
    );
}

#[test]
fn per_id_addresses_derive_from_the_per_id_hostname() {
    let configuration = must_load(&[(
        "site.xml",
        &site(&[
            ("yarn.resourcemanager.hostname", "shared.example.com"),
            ("yarn.resourcemanager.hostname.rm1", "rm1.example.com"),
            ("yarn.resourcemanager.hostname.rm2", "rm2.example.com"),
            ("yarn.resourcemanager.address.rm2", "10.0.0.2:9032"),
            (
                "yarn.resourcemanager.admin.address.rm2",
                "${yarn.resourcemanager.hostname}:9033",
            ),
            (
                "yarn.resourcemanager.hostname.rm4",
                "${yarn.resourcemanager.hostname}",
            ),
            ("yarn.resourcemanager.hostname.rm5", ""),
        ]),
    )]);
    let address = |key: &yarn_conf::Key, id: &str| {
        configuration
            .get_host_port(&key.for_id(id))
            .unwrap_or_else(|e| panic!("{id}: {e}"))
            .to_string()
    };
    // Unset per-id address: derived from the per-id hostname with the default port.
    assert_eq!(address(&keys::RM_ADDRESS, "rm1"), "rm1.example.com:8032");
    assert_eq!(
        address(&keys::RM_HA_RAFT_ADDRESS, "rm1"),
        "rm1.example.com:8035"
    );
    // An explicit per-id address wins.
    assert_eq!(address(&keys::RM_ADDRESS, "rm2"), "10.0.0.2:9032");
    // References in an explicit per-id value are scoped to the id too.
    assert_eq!(
        address(&keys::RM_ADMIN_ADDRESS, "rm2"),
        "rm2.example.com:9033"
    );
    // No per-id hostname: the shared hostname.
    assert_eq!(address(&keys::RM_ADDRESS, "rm3"), "shared.example.com:8032");
    // Inside hostname.rm4, ${yarn.resourcemanager.hostname} is the shared key, not a cycle.
    assert_eq!(
        address(&keys::RM_WEBAPP_ADDRESS, "rm4"),
        "shared.example.com:8088"
    );
    // An empty per-id hostname does not hide the shared one.
    assert_eq!(
        address(&keys::RM_SCHEDULER_ADDRESS, "rm5"),
        "shared.example.com:8030"
    );
    // Without an id, the shared keys are read as they are.
    assert_eq!(
        configuration
            .get_host_port(&keys::RM_ADDRESS)
            .expect("shared")
            .to_string(),
        "shared.example.com:8032"
    );
    assert_eq!(
        configuration
            .get_string(&keys::RM_HOSTNAME.for_id("rm1"))
            .expect("hostname"),
        "rm1.example.com"
    );
}

#[test]
fn load_dir_reads_the_site_file_over_the_defaults() {
    let dir = tempfile::tempdir().expect("tempdir");
    let defaults_only = Configuration::load_dir(dir.path()).expect("no site file is fine");
    assert_eq!(defaults_only.resources(), ["yarn-default.xml"]);

    let site_path = dir.path().join("yarn-site.xml");
    std::fs::write(
        &site_path,
        site(&[("yarn.resourcemanager.am.max-attempts", "5")]),
    )
    .expect("write");
    let configuration = Configuration::load_dir(dir.path()).expect("loads");
    assert_eq!(
        configuration
            .get_i32(&keys::RM_AM_MAX_ATTEMPTS)
            .expect("int"),
        5
    );
    let source = configuration
        .source("yarn.resourcemanager.am.max-attempts")
        .expect("set");
    assert_eq!(source.file, site_path.display().to_string());
    assert_eq!(source.line, 2);

    let missing = dir.path().join("absent");
    let error = Configuration::load_dir(&missing).expect_err("no such directory");
    assert!(matches!(error, ConfError::Io { .. }), "{error}");
    let error = Configuration::load_dir(&site_path).expect_err("a file, not a directory");
    assert!(matches!(error, ConfError::Io { .. }), "{error}");
}
