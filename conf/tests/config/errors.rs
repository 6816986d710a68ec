//! Malformed resources and bad values: every error names the position and what was expected.

use std::fmt::Write as _;

use yarn_conf::loader::MAX_FILE_BYTES;
use yarn_conf::substitution::MAX_EXPANDED_BYTES;
use yarn_conf::{
    ConfError, Configuration, Key, KeyKind, StructureProblem, SubstitutionProblem, XmlProblem, keys,
};

use crate::{assert_error_at, must_load, must_reject, site, value_column};

#[test]
fn unclosed_element_points_at_its_start_tag() {
    let xml = "<configuration>\n  <property>\n    <name>a</name>\n    <value>1\n  </property>\n</configuration>\n";
    let error = must_reject(xml);
    assert_error_at(
        &error,
        "site.xml",
        4,
        5,
        &["element <value> is not closed before </property>"],
    );
    assert!(matches!(
        error,
        ConfError::Xml {
            problem: XmlProblem::UnclosedElement { .. },
            ..
        }
    ));
}

#[test]
fn mismatched_end_tag_points_at_the_end_tag() {
    let xml = "<configuration>\n  <property>\n    <name>a</nmae>\n    <value>1</value>\n  </property>\n</configuration>\n";
    let error = must_reject(xml);
    assert_error_at(
        &error,
        "site.xml",
        3,
        12,
        &["expected </name>, found </nmae>"],
    );
}

#[test]
fn unknown_entity_points_at_the_ampersand() {
    let xml = "<configuration>\n  <property>\n    <name>a</name>\n    <value>a &foo; b</value>\n  </property>\n</configuration>\n";
    let error = must_reject(xml);
    assert_error_at(&error, "site.xml", 4, 14, &["unknown entity &foo;"]);
}

#[test]
fn truncated_file_points_at_the_end_and_names_the_open_element() {
    let xml = "<configuration>\n  <property>\n    <name>a</name>\n    <value>12";
    let error = must_reject(xml);
    assert_error_at(
        &error,
        "site.xml",
        4,
        14,
        &[
            "the file ends before </value>",
            "opened at line 4, column 5",
        ],
    );

    // Cut inside a tag: the tokenizer reports it at the start of the tag.
    let error = must_reject("<configuration>\n  <property>\n    <na");
    assert_error_at(&error, "site.xml", 3, 5, &["malformed XML", "not closed"]);
}

#[test]
fn property_without_name_points_at_the_property() {
    let xml =
        "<configuration>\n  <property>\n    <value>1</value>\n  </property>\n</configuration>\n";
    let error = must_reject(xml);
    assert_error_at(&error, "site.xml", 2, 3, &["<property> has no <name>"]);

    let blank =
        "<configuration>\n  <property><name> </name><value>1</value></property>\n</configuration>";
    assert_error_at(&must_reject(blank), "site.xml", 2, 3, &["has no <name>"]);
}

#[test]
fn unexpected_root_element_is_named() {
    let xml = "<?xml version=\"1.0\"?>\n<conf>\n</conf>\n";
    let error = must_reject(xml);
    assert_error_at(
        &error,
        "site.xml",
        2,
        1,
        &["unexpected root element <conf> (expected <configuration>)"],
    );
}

#[test]
fn empty_file_is_rejected() {
    let error = must_reject("");
    assert_error_at(&error, "site.xml", 1, 1, &["the file is empty"]);
    assert!(matches!(
        error,
        ConfError::Structure {
            problem: StructureProblem::EmptyDocument,
            ..
        }
    ));
    // Only a declaration and a comment is just as empty; the position is the end of the file.
    let error = must_reject("<?xml version=\"1.0\"?>\n<!-- nothing -->\n");
    assert_error_at(&error, "site.xml", 3, 1, &["the file is empty"]);
}

#[test]
fn text_for_an_integer_key_reads_like_the_documented_example() {
    let key = keys::RM_AM_MAX_ATTEMPTS;
    let name = key.name.as_ref();
    let configuration = must_load(&[("yarn-site.xml", &site(&[("other", "x"), (name, "ten")]))]);
    let error = configuration
        .get_i32(&keys::RM_AM_MAX_ATTEMPTS)
        .expect_err("ten is not an integer");
    let column = value_column(name);
    assert_error_at(&error, "yarn-site.xml", 3, column, &[]);
    assert_eq!(
        error.to_string(),
        format!(
            "yarn-site.xml:3:{column}: key yarn.resourcemanager.am.max-attempts: \
             value \"ten\" is not a valid integer (expected a 32-bit integer)"
        )
    );
}

#[test]
fn yes_is_not_a_boolean() {
    let key = keys::YARN_ACL_ENABLE;
    let name = key.name.as_ref();
    let configuration = must_load(&[("site.xml", &site(&[(name, " yes ")]))]);
    let error = configuration
        .get_bool(&keys::YARN_ACL_ENABLE)
        .expect_err("Hadoop accepts only true and false");
    assert_error_at(
        &error,
        "site.xml",
        2,
        value_column(name),
        &[
            "key yarn.acl.enable",
            "value \"yes\"",
            "(expected true or false)",
        ],
    );
}

#[test]
fn typed_errors_point_at_the_file_the_effective_value_came_from() {
    let key = &keys::RM_AM_MAX_ATTEMPTS;
    let name = key.name.as_ref();
    let lower = site(&[(name, "ten")]);
    let unrelated = site(&[("a", "1"), ("b", "2")]);
    let upper = site(&[("a", "1"), ("b", "2"), (name, "eleven")]);

    let mut configuration = Configuration::with_defaults().expect("defaults load");
    configuration
        .add_resource_str("lower.xml", &lower)
        .expect("lower loads");
    configuration
        .add_resource_str("unrelated.xml", &unrelated)
        .expect("unrelated loads");
    let error = configuration.get_i32(key).expect_err("ten");
    assert_error_at(&error, "lower.xml", 2, value_column(name), &["\"ten\""]);

    configuration
        .add_resource_str("upper.xml", &upper)
        .expect("upper loads");
    let error = configuration.get_i32(key).expect_err("eleven");
    assert_error_at(&error, "upper.xml", 4, value_column(name), &["\"eleven\""]);
}

#[test]
fn out_of_range_port_names_the_reason() {
    let key = &keys::NM_ADDRESS;
    let name = key.name.as_ref();
    let configuration = must_load(&[("site.xml", &site(&[(name, "127.0.0.1:70000")]))]);
    let error = configuration
        .get_host_port(key)
        .expect_err("port too large");
    assert_error_at(
        &error,
        "site.xml",
        2,
        value_column(name),
        &[
            "not a valid host:port address",
            "port 70000 is greater than 65535",
        ],
    );
}

#[test]
fn negative_duration_and_size_are_rejected() {
    let duration = &keys::RM_NM_HEARTBEAT_INTERVAL_MS;
    let size = &keys::NM_PMEM_MB;
    let configuration = must_load(&[(
        "site.xml",
        &site(&[(duration.name.as_ref(), "-5"), (size.name.as_ref(), "1.5")]),
    )]);
    let error = configuration.get_duration(duration).expect_err("negative");
    assert_error_at(
        &error,
        "site.xml",
        2,
        value_column(&duration.name),
        &["milliseconds"],
    );
    let error = configuration.get_size_mb(size).expect_err("fraction");
    assert_error_at(
        &error,
        "site.xml",
        3,
        value_column(&size.name),
        &["mebibytes"],
    );
}

#[test]
fn unresolvable_reference_points_at_the_value_holding_it() {
    let key = keys::RM_HOSTNAME;
    let hostname = key.name.as_ref();
    let configuration = must_load(&[(
        "site.xml",
        &site(&[("x", "1"), (hostname, "${no.such.key}")]),
    )]);
    // The address default refers to the hostname, whose value holds the bad reference.
    let error = configuration
        .get_host_port(&keys::RM_ADDRESS)
        .expect_err("unresolvable");
    assert_error_at(
        &error,
        "site.xml",
        3,
        value_column(hostname),
        &[
            "key yarn.resourcemanager.hostname",
            "cannot substitute ${no.such.key}",
            "yarn.resourcemanager.address -> yarn.resourcemanager.hostname -> no.such.key",
        ],
    );
    assert!(matches!(
        error,
        ConfError::Substitution { ref reason, .. }
            if matches!(**reason, SubstitutionProblem::Undefined { .. })
    ));
}

#[test]
fn cyclic_reference_shows_the_chain() {
    let configuration = must_load(&[("site.xml", &site(&[("a", "${b}"), ("b", "pre-${a}")]))]);
    let error = configuration.get("a").expect_err("cycle");
    assert_error_at(
        &error,
        "site.xml",
        3,
        value_column("b"),
        &[
            "key b",
            "value \"pre-${a}\"",
            "cyclic reference a -> b -> a",
        ],
    );
}

#[test]
fn nesting_deeper_than_twenty_levels_is_rejected() {
    let names: Vec<String> = (0..=21).map(|level| format!("k{level}")).collect();
    let values: Vec<String> = (1..=21)
        .map(|level| format!("${{k{level}}}"))
        .chain(["bottom".to_owned()])
        .collect();
    let pairs: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(values.iter().map(String::as_str))
        .collect();
    let configuration = must_load(&[("site.xml", &site(&pairs))]);

    // k1 is 20 levels above k21: allowed.
    assert_eq!(
        configuration.get("k1").expect("20 levels").as_deref(),
        Some("bottom")
    );
    // k0 is 21 levels above k21: the reference in k20 (line 22) is one too many.
    let error = configuration.get("k0").expect_err("21 levels");
    let mut chain = String::new();
    for level in 0..=21 {
        let _ = write!(chain, "{}k{level}", if level == 0 { "" } else { " -> " });
    }
    assert_error_at(
        &error,
        "site.xml",
        22,
        value_column("k20"),
        &["key k20", "references nest deeper than 20 levels", &chain],
    );
}

#[test]
fn unit_getters_on_unitless_keys_are_errors_not_panics() {
    let configuration = Configuration::new();
    let error = configuration
        .get_duration(&keys::RM_AM_MAX_ATTEMPTS)
        .expect_err("no unit");
    assert!(matches!(
        error,
        ConfError::MissingUnitSuffix {
            getter: "duration",
            ..
        }
    ));
    assert!(
        error
            .to_string()
            .contains("yarn.resourcemanager.am.max-attempts")
    );

    let error = configuration
        .get_size_mb(&keys::NM_VCORES)
        .expect_err("no unit");
    assert!(matches!(
        error,
        ConfError::MissingUnitSuffix {
            accepted: "-mb",
            ..
        }
    ));
}

#[test]
fn required_string_reports_the_missing_key() {
    let error = Configuration::new()
        .get_required_string(&keys::TLS_CA_CERT)
        .expect_err("empty by default");
    assert!(matches!(&error, ConfError::Missing { key, .. } if key == "yarn.tls.ca-cert"));
    assert_eq!(
        error.to_string(),
        "key yarn.tls.ca-cert is not set (expected a non-empty string)"
    );
}

#[test]
fn bad_built_in_default_is_labelled_as_such() {
    const BROKEN: Key = Key::new("yarn.test.broken-ms", "soon", KeyKind::Duration);
    let error = Configuration::new()
        .get_duration(&BROKEN)
        .expect_err("bad default");
    assert_eq!(error.location(), None);
    assert!(
        error
            .to_string()
            .starts_with("built-in default: key yarn.test.broken-ms"),
        "{error}"
    );
}

#[test]
fn unreadable_file_names_the_path() {
    let missing = std::path::Path::new("/nonexistent/yarn-ha/yarn-site.xml");
    let error = Configuration::new()
        .add_resource_file(missing)
        .expect_err("missing file");
    assert!(
        matches!(&error, ConfError::Io { file, .. } if file == "/nonexistent/yarn-ha/yarn-site.xml")
    );
    assert!(
        error
            .to_string()
            .starts_with("/nonexistent/yarn-ha/yarn-site.xml: cannot read")
    );
}

#[test]
fn ten_references_nested_nine_deep_are_refused_at_the_expansion_limit() {
    // a0 to a8 hold ten references each to the next, a9 one byte: 10^9 bytes if expanded.
    let names: Vec<String> = (0..=9).map(|level| format!("a{level}")).collect();
    let values: Vec<String> = (1..=9)
        .map(|level| format!("${{a{level}}}").repeat(10))
        .chain(["x".to_owned()])
        .collect();
    let pairs: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(values.iter().map(String::as_str))
        .collect();
    let configuration = must_load(&[("site.xml", &site(&pairs))]);

    let error = configuration.get("a0").expect_err("too large");
    let limit = format!("more than {MAX_EXPANDED_BYTES} bytes of text");
    assert_error_at(
        &error,
        "site.xml",
        2,
        value_column("a0"),
        &["key a0", &limit, "stopped inside a0 -> a1"],
    );
    assert!(matches!(error, ConfError::ExpansionTooLarge { ref key, .. } if key == "a0"));
}

#[test]
fn invalid_utf8_in_a_file_points_at_the_byte() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("yarn-site.xml");
    let latin1 =
        b"<configuration>\n  <property><name>k</name><value>caf\xE9</value></property>\n</configuration>\n";
    std::fs::write(&path, latin1).expect("write the file");

    let error = Configuration::new()
        .add_resource_file(&path)
        .expect_err("Latin-1 is not UTF-8");
    assert_error_at(
        &error,
        &path.display().to_string(),
        2,
        37,
        &["malformed XML: \\xE9 is not UTF-8"],
    );
    assert!(matches!(
        error,
        ConfError::Xml {
            problem: XmlProblem::InvalidUtf8 { .. },
            ..
        }
    ));
}

#[test]
fn file_larger_than_the_limit_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("capacity-scheduler.xml");
    // Sparse: no data is written, and none is read before the refusal.
    let file = std::fs::File::create(&path).expect("create the file");
    file.set_len(137_000_000).expect("extend the file");

    let error = Configuration::new()
        .add_resource_file(&path)
        .expect_err("too large");
    let name = path.display().to_string();
    assert!(
        matches!(&error, ConfError::FileTooLarge { file, size: 137_000_000 } if *file == name),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "{name}: cannot read configuration: the file is 137000000 bytes, more than the limit \
             of {MAX_FILE_BYTES} bytes"
        )
    );

    file.set_len(MAX_FILE_BYTES + 1).expect("shrink the file");
    let error = Configuration::new()
        .add_resource_file(&path)
        .expect_err("one byte too large");
    assert!(
        matches!(error, ConfError::FileTooLarge { size, .. } if size == MAX_FILE_BYTES + 1),
        "{error}"
    );

    // At the limit the file is read: these zero bytes are then refused as XML, not for size.
    file.set_len(MAX_FILE_BYTES).expect("shrink the file");
    let error = Configuration::new()
        .add_resource_file(&path)
        .expect_err("zero bytes are not a configuration");
    assert!(
        matches!(
            error,
            ConfError::Structure {
                problem: StructureProblem::ContentOutsideRoot,
                ..
            }
        ),
        "{error}"
    );
}

#[cfg(unix)]
#[test]
fn endless_device_is_refused_after_the_limit() {
    // /dev/zero reports size 0 and never ends: the read itself must stop.
    let error = Configuration::new()
        .add_resource_file(std::path::Path::new("/dev/zero"))
        .expect_err("endless");
    assert!(
        matches!(error, ConfError::FileTooLarge { size, .. } if size == MAX_FILE_BYTES + 1),
        "{error}"
    );
}
