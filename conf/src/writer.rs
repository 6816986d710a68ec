//! Writes Hadoop configuration XML, for tools that generate `yarn-site.xml` (the minicluster,
//! the chaos harness).

use std::fmt::Write as _;

/// Renders `properties` as a `<configuration>` document that [`crate::loader::parse`] reads back
/// to the same names and values, in the given order. Text is escaped, so paths and ACLs may hold
/// any characters XML allows.
pub fn site_xml<'a>(properties: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut xml = String::from("<?xml version=\"1.0\"?>\n<configuration>\n");
    for (name, value) in properties {
        // Writing to a String cannot fail.
        let _ = writeln!(
            xml,
            "  <property>\n    <name>{}</name>\n    <value>{}</value>\n  </property>",
            escape(name),
            escape(value)
        );
    }
    xml.push_str("</configuration>\n");
    xml
}

fn escape(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader;

    #[test]
    fn written_xml_parses_back_to_the_same_properties() {
        let properties = [
            ("yarn.admin.acl", "alice,bob admins"),
            ("odd", "a<b & c>\"d\" 'e'"),
            ("empty", ""),
        ];
        let xml = site_xml(properties);
        let parsed = loader::parse("generated.xml", &xml).unwrap();
        let read: Vec<(&str, &str)> = parsed
            .iter()
            .map(|p| (p.name.as_str(), p.value.as_str()))
            .collect();
        assert_eq!(read, properties);
    }
}
