//! The legacy placement entries (`u:user:queue`, `g:group:queue`, `application:queue`) as
//! [`MappingRule`]s, by the seed's conversion table; the engine and `yarn-ha placement convert`
//! both read them through here.

use super::mapping_rule::{FallbackResult, MappingRule, Policy, RuleType};
use super::placement_variables::{APPLICATION, PRIMARY_GROUP, SECONDARY_GROUP, USER, VARIABLES};

/// The entries of a legacy mapping value: comma-separated, trimmed, empty and repeated ones
/// dropped, as Hadoop drops them.
pub(super) fn entries(value: &str) -> Vec<&str> {
    let mut seen = Vec::new();
    for entry in value.split(',').map(str::trim) {
        if !entry.is_empty() && !seen.contains(&entry) {
            seen.push(entry);
        }
    }
    seen
}

/// The rule a legacy entry means: `[u|g]:name:queue` of `queue-mappings`, or `name:queue` of
/// the application-name rules when `application`. `%user` as a user and `%application` as an
/// application name match everyone; a failed placement falls back to the default queue.
///
/// # Errors
///
/// Hadoop's `Illegal queue mapping` or `unknown mapping prefix` for a malformed entry.
pub(super) fn legacy_rule(entry: &str, application: bool) -> Result<MappingRule, String> {
    let parts: Vec<&str> = entry
        .split(':')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    let illegal = || format!("Illegal queue mapping {entry}");
    let (rule_type, matches, queue) = if application {
        let [name, queue] = parts[..] else {
            return Err(illegal());
        };
        // `*` matches every name only in a user rule, so "every application" is a user rule.
        match name {
            APPLICATION => (RuleType::User, "*", queue),
            name => (RuleType::Application, name, queue),
        }
    } else {
        let [kind, name, queue] = parts[..] else {
            return Err(illegal());
        };
        match (kind, name) {
            // In the JSON form `*` is every user, which a legacy `u:*` never meant.
            ("u" | "g", "*") => {
                return Err(format!(
                    "{entry}: a user or group named * has no JSON form; u:%user:queue maps \
                     every user"
                ));
            }
            ("u", USER) => (RuleType::User, "*", queue),
            ("u", name) => (RuleType::User, name, queue),
            ("g", name) => (RuleType::Group, name, queue),
            (other, _) => return Err(format!("unknown mapping prefix {other}")),
        }
    };
    let (policy, parent_queue, custom_placement) = policy_of(queue);
    Ok(MappingRule {
        rule_type,
        matches: matches.to_owned(),
        policy,
        parent_queue,
        custom_placement,
        fallback_result: Some(FallbackResult::PlaceDefault),
        create: None,
        value: None,
    })
}

/// The policy a legacy queue names: one of the named policies when the queue ends in its
/// variables under a parent without any, otherwise `custom` with the queue as written.
fn policy_of(queue: &str) -> (Policy, Option<String>, Option<String>) {
    const ENDINGS: [(&[&str], Policy); 6] = [
        (&[PRIMARY_GROUP, USER], Policy::PrimaryGroupUser),
        (&[SECONDARY_GROUP, USER], Policy::SecondaryGroupUser),
        (&[USER], Policy::User),
        (&[PRIMARY_GROUP], Policy::PrimaryGroup),
        (&[SECONDARY_GROUP], Policy::SecondaryGroup),
        (&[APPLICATION], Policy::ApplicationName),
    ];
    let parts: Vec<&str> = queue.split('.').collect();
    for (ending, policy) in ENDINGS {
        let Some(parent) = parts.strip_suffix(ending) else {
            continue;
        };
        if parent.iter().any(|part| VARIABLES.contains(part)) {
            break;
        }
        let parent = (!parent.is_empty()).then(|| parent.join("."));
        return (policy, parent, None);
    }
    (Policy::Custom, None, Some(queue.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement_rules::rules_json::rules_to_json;

    /// Every line of the seed's conversion table, old entry to the JSON rule it lists.
    #[test]
    fn every_line_of_the_seeds_conversion_table() {
        let table: [(&str, bool, &str); 12] = [
            (
                "u:username:root.user.queue",
                false,
                r#"{"type":"user","matches":"username","policy":"custom","customPlacement":"root.user.queue","fallbackResult":"placeDefault"}"#,
            ),
            (
                "u:%user:%user",
                false,
                r#"{"type":"user","matches":"*","policy":"user","fallbackResult":"placeDefault"}"#,
            ),
            (
                "u:%user:root.parent.%user",
                false,
                r#"{"type":"user","matches":"*","policy":"user","parentQueue":"root.parent","fallbackResult":"placeDefault"}"#,
            ),
            (
                "u:%user:%primary_group",
                false,
                r#"{"type":"user","matches":"*","policy":"primaryGroup","fallbackResult":"placeDefault"}"#,
            ),
            (
                "u:%user:%primary_group.%user",
                false,
                r#"{"type":"user","matches":"*","policy":"primaryGroupUser","fallbackResult":"placeDefault"}"#,
            ),
            (
                "u:%user:root.groups.%primary_group.%user",
                false,
                r#"{"type":"user","matches":"*","policy":"primaryGroupUser","parentQueue":"root.groups","fallbackResult":"placeDefault"}"#,
            ),
            (
                "u:%user:%secondary_group",
                false,
                r#"{"type":"user","matches":"*","policy":"secondaryGroup","fallbackResult":"placeDefault"}"#,
            ),
            (
                "u:%user:%secondary_group.%user",
                false,
                r#"{"type":"user","matches":"*","policy":"secondaryGroupUser","fallbackResult":"placeDefault"}"#,
            ),
            (
                "u:%user:root.groups.%secondary_group.%user",
                false,
                r#"{"type":"user","matches":"*","policy":"secondaryGroupUser","parentQueue":"root.groups","fallbackResult":"placeDefault"}"#,
            ),
            (
                "g:hadoop:root.groups.hadoop",
                false,
                r#"{"type":"group","matches":"hadoop","policy":"custom","customPlacement":"root.groups.hadoop","fallbackResult":"placeDefault"}"#,
            ),
            (
                "%application:%application",
                true,
                r#"{"type":"user","matches":"*","policy":"applicationName","fallbackResult":"placeDefault"}"#,
            ),
            (
                "hive_query:root.query.hive",
                true,
                r#"{"type":"application","matches":"hive_query","policy":"custom","customPlacement":"root.query.hive","fallbackResult":"placeDefault"}"#,
            ),
        ];
        for (entry, application, json) in table {
            let rule = legacy_rule(entry, application).unwrap();
            assert_eq!(serde_json::to_string(&rule).unwrap(), json, "{entry}");
        }
    }

    #[test]
    fn variables_under_a_variable_parent_stay_custom() {
        let rule = legacy_rule("u:%user:%primary_group.%secondary_group", false).unwrap();
        assert_eq!(rule.policy, Policy::Custom);
        assert_eq!(
            rule.custom_placement.as_deref(),
            Some("%primary_group.%secondary_group")
        );
        let converted = rules_to_json(&[legacy_rule("etl:eng", true).unwrap()]);
        assert!(converted.contains("\"matches\": \"etl\""), "{converted}");
    }

    #[test]
    fn malformed_entries_are_refused_in_hadoops_words() {
        assert_eq!(
            legacy_rule("u:alice", false).unwrap_err(),
            "Illegal queue mapping u:alice"
        );
        assert_eq!(
            legacy_rule("u::eng", false).unwrap_err(),
            "Illegal queue mapping u::eng"
        );
        assert_eq!(
            legacy_rule("x:a:b", false).unwrap_err(),
            "unknown mapping prefix x"
        );
        assert_eq!(
            legacy_rule("a:b:c", true).unwrap_err(),
            "Illegal queue mapping a:b:c"
        );
        assert!(
            legacy_rule("u:*:eng", false)
                .unwrap_err()
                .contains("u:%user:queue")
        );
        assert!(legacy_rule("g:*:eng", false).is_err());
        assert_eq!(entries(" a, ,a,b,"), ["a", "b"]);
    }
}
