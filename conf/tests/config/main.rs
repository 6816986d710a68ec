//! Integration tests for yarn-conf, one binary with a module per topic.

mod defaults;
mod errors;
mod layering;
mod samples;

use yarn_conf::{ConfError, Configuration, Location};

/// Parses `xml` as resource `site.xml` on an empty configuration; panics if that succeeds.
pub fn must_reject(xml: &str) -> ConfError {
    let mut configuration = Configuration::new();
    match configuration.add_resource_str("site.xml", xml) {
        Ok(()) => panic!("resource should have been rejected:\n{xml}"),
        Err(error) => error,
    }
}

/// Builds a configuration from named resources, bottom first; panics on a parse error.
pub fn must_load(resources: &[(&str, &str)]) -> Configuration {
    let mut configuration = Configuration::new();
    for (name, xml) in resources {
        if let Err(error) = configuration.add_resource_str(name, xml) {
            panic!("{name} should load: {error}");
        }
    }
    configuration
}

/// A `<configuration>` document with one property per `(name, value)` pair, one line each,
/// so that property `i` (0-based) has its `<value>` at line `i + 2`.
pub fn site(properties: &[(&str, &str)]) -> String {
    let mut xml = String::from("<configuration>\n");
    for (name, value) in properties {
        xml.push_str(&format!(
            "  <property><name>{name}</name><value>{value}</value></property>\n"
        ));
    }
    xml.push_str("</configuration>\n");
    xml
}

/// The column of `<value>` in a line written by [`site`] for a property called `name`.
pub fn value_column(name: &str) -> u32 {
    let prefix = format!("  <property><name>{name}</name>");
    u32::try_from(prefix.chars().count() + 1).expect("short line")
}

/// Asserts that `error` points at `file`:`line`:`column` and that its message mentions each of
/// `fragments`.
pub fn assert_error_at(error: &ConfError, file: &str, line: u32, column: u32, fragments: &[&str]) {
    assert_eq!(
        error.location(),
        Some(&Location::new(file, line, column)),
        "wrong position for: {error}"
    );
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("{file}:{line}:{column}: ")),
        "message does not start with the position: {message}"
    );
    for fragment in fragments {
        assert!(
            message.contains(fragment),
            "{fragment:?} missing from: {message}"
        );
    }
}
