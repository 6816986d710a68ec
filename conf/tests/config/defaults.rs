//! `conf/yarn-default.xml` and `keys::ALL` must agree, and every default must parse.

use std::collections::BTreeMap;

use yarn_conf::{Configuration, DEFAULT_RESOURCE, Key, KeyKind, keys, loader};

fn default_file() -> Vec<loader::Property> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/yarn-default.xml");
    let xml = std::fs::read_to_string(path).expect("yarn-default.xml is readable");
    loader::parse("yarn-default.xml", &xml).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn default_file_documents_exactly_the_declared_keys_with_their_defaults() {
    let properties = default_file();
    let in_file: BTreeMap<&str, &str> = properties
        .iter()
        .map(|p| (p.name.as_str(), p.value.as_str()))
        .collect();
    assert_eq!(
        in_file.len(),
        properties.len(),
        "a key appears twice in yarn-default.xml"
    );
    let in_code: BTreeMap<&str, &str> = keys::ALL
        .iter()
        .map(|key| (key.name.as_ref(), key.default))
        .collect();
    assert_eq!(in_file, in_code, "yarn-default.xml and keys::ALL disagree");
    for property in &properties {
        assert!(
            !property.description.is_empty(),
            "{} has no description ({})",
            property.name,
            property.location
        );
        assert!(
            !property.is_final,
            "{} must not be final in the defaults",
            property.name
        );
    }
}

#[test]
fn embedded_defaults_are_the_bottom_layer() {
    let configuration = Configuration::with_defaults().expect("embedded defaults load");
    assert_eq!(configuration.resources(), [DEFAULT_RESOURCE]);
    assert_eq!(configuration.names().count(), keys::ALL.len());
    let source = configuration
        .source(keys::RM_ADDRESS.name.as_ref())
        .expect("documented");
    assert_eq!(source.file, DEFAULT_RESOURCE);
    assert!(source.line > 1);
}

fn must_parse_default(configuration: &Configuration, key: &Key) {
    let result = match key.kind {
        KeyKind::Bool => configuration.get_bool(key).map(drop),
        KeyKind::Int => configuration.get_i32(key).map(drop),
        KeyKind::Long => configuration.get_i64(key).map(drop),
        KeyKind::Float => configuration.get_f64(key).map(drop),
        KeyKind::Duration => configuration.get_duration(key).map(drop),
        KeyKind::SizeMb => configuration.get_size_mb(key).map(drop),
        KeyKind::HostPort => configuration.get_host_port(key).map(drop),
        KeyKind::List => configuration.get_list(key).map(drop),
        KeyKind::String => configuration.get_string(key).map(drop),
    };
    if let Err(error) = result {
        panic!("default of {key} does not parse as {}: {error}", key.kind);
    }
}

#[test]
fn every_default_parses_with_the_getter_of_its_kind() {
    let empty = Configuration::new();
    let defaults = Configuration::with_defaults().expect("embedded defaults load");
    for configuration in [&empty, &defaults] {
        for key in keys::ALL {
            must_parse_default(configuration, key);
            if key.per_id {
                must_parse_default(configuration, &key.for_id("rm1"));
            }
        }
    }
}

#[test]
fn default_file_documents_every_key_yarn_ha_does_not_honour() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/yarn-default.xml");
    let xml = std::fs::read_to_string(path).expect("yarn-default.xml is readable");
    let (_, rest) = xml
        .split_once("UNHONOURED BEGIN\n")
        .expect("yarn-default.xml has the UNHONOURED block");
    let (block, _) = rest.split_once("UNHONOURED END").expect("the block ends");
    assert_eq!(
        block,
        yarn_conf::unhonoured::documentation(),
        "yarn-default.xml and unhonoured::UNHONOURED disagree; paste documentation()'s text"
    );
    assert_eq!(
        block
            .lines()
            .filter(|line| !line.starts_with("    "))
            .count(),
        yarn_conf::unhonoured::UNHONOURED.len()
    );
}
