//! Hadoop's JSON document of placement rules (`{"rules": [...]}`), read and written.

use serde::{Deserialize, Serialize};

use super::mapping_rule::MappingRule;

/// The document: the rules in the order they are tried.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MappingRulesDescription {
    #[serde(default)]
    rules: Vec<MappingRule>,
}

/// The rules of a JSON document. Unknown fields and values are refused, as Hadoop's parser
/// refuses them.
///
/// # Errors
///
/// What is wrong and where: serde's message with its line and column.
pub(super) fn parse_rules_json(text: &str) -> Result<Vec<MappingRule>, String> {
    serde_json::from_str::<MappingRulesDescription>(text)
        .map(|description| description.rules)
        .map_err(|err| format!("not a JSON rule document: {err}"))
}

/// `rules` as a JSON document Hadoop and yarn-ha read, pretty-printed, fields in the seed's
/// order and absent ones left out.
pub(super) fn rules_to_json(rules: &[MappingRule]) -> String {
    let description = MappingRulesDescription {
        rules: rules.to_vec(),
    };
    // A document of plain strings and enums always serializes.
    serde_json::to_string_pretty(&description).unwrap_or_default()
}
