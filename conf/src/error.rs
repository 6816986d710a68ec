//! The crate's error type, [`ConfError`], and the problem descriptions its variants carry.

use crate::key::KeyKind;
use crate::location::Location;

/// Everything that can go wrong while loading or reading configuration.
///
/// Each message names where the problem is (file, line and column when there is one), the key,
/// the offending value and what was expected, so an operator can fix the file without reading
/// code. Values that came from a key's built-in default have no location and say so.
#[derive(Debug, thiserror::Error)]
pub enum ConfError {
    /// A resource could not be read.
    #[error("{file}: cannot read configuration: {source}")]
    Io {
        /// The path that failed.
        file: String,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A resource file larger than [`crate::loader::MAX_FILE_BYTES`], refused before it is read
    /// in full or parsed.
    #[error(
        "{file}: cannot read configuration: the file is {size} bytes, more than the limit of {} \
         bytes",
        crate::loader::MAX_FILE_BYTES
    )]
    FileTooLarge {
        /// The path as given.
        file: String,
        /// Its size in bytes; for a file that grew while it was read, or a pipe or device that
        /// reports no size, the bytes read before stopping (one past the limit).
        size: u64,
    },

    /// The resource is not well-formed XML.
    #[error("{location}: malformed XML: {problem}")]
    Xml {
        /// Where the problem was detected.
        location: Location,
        /// What is wrong.
        problem: XmlProblem,
    },

    /// The XML is well-formed but not a Hadoop `<configuration>` document.
    #[error("{location}: {problem}")]
    Structure {
        /// The element or text at fault.
        location: Location,
        /// What is wrong.
        problem: StructureProblem,
    },

    /// A Hadoop key yarn-ha does not honour, set to a value that would need it to (see
    /// [`crate::unhonoured`]).
    #[error("{}key {key}: value {value:?} is refused: {reason}", origin(.location))]
    Unhonoured {
        /// The property name.
        key: String,
        /// The value after substitution and trimming.
        value: String,
        /// What yarn-ha does instead, and the values it accepts.
        reason: String,
        /// The `<value>` element the value came from.
        location: Option<Location>,
    },

    /// A value does not parse as the type its getter reads.
    #[error(
        "{}key {key}: value {value:?} is not a valid {kind} (expected {expected})",
        origin(.location)
    )]
    InvalidValue {
        /// The property name.
        key: String,
        /// The value after substitution and trimming.
        value: String,
        /// The type that was asked for.
        kind: KeyKind,
        /// A description of the values accepted, with the reason when there is one.
        expected: String,
        /// The `<value>` element the effective value came from; `None` for a built-in default.
        location: Option<Location>,
    },

    /// A required key is unset or empty.
    #[error("key {key} is not set (expected {expected})")]
    Missing {
        /// The property name.
        key: String,
        /// What the key should contain.
        expected: String,
    },

    /// A `${...}` reference could not be substituted.
    #[error(
        "{}key {key}: value {value:?}: cannot substitute ${{{variable}}}: {reason}",
        origin(.location)
    )]
    Substitution {
        /// The property whose value holds the failing reference.
        key: String,
        /// That property's unsubstituted value.
        value: String,
        /// The name inside `${...}`.
        variable: String,
        /// Why it could not be substituted.
        reason: Box<SubstitutionProblem>,
        /// Where that value came from; `None` for a built-in default.
        location: Option<Location>,
    },

    /// Substituting the value of `key` would take more text than
    /// [`crate::substitution::MAX_EXPANDED_BYTES`]; substitution stopped there, before the value
    /// was built.
    #[error(
        "{}key {key}: substituting its ${{...}} references needs more than {} bytes of text, \
         the limit for one read (stopped inside {})",
        origin(.location), crate::substitution::MAX_EXPANDED_BYTES, .chain.join(" -> ")
    )]
    ExpansionTooLarge {
        /// The property that was read.
        key: String,
        /// The properties being expanded when the limit was passed, from `key` inward; a
        /// reference repeated many times along it is usually the cause.
        chain: Vec<String>,
        /// Where the value of `key` came from; `None` for a built-in default.
        location: Option<Location>,
    },

    /// A unit-bearing getter was called for a key whose name carries no unit. This is a bug in the
    /// calling code, reported as an error rather than a panic.
    #[error(
        "key {key} has no unit suffix ({accepted}), so it cannot be read as a {getter}; \
         the code reading it must use another getter or rename the key"
    )]
    MissingUnitSuffix {
        /// The property name.
        key: String,
        /// The getter that was called, e.g. `duration`.
        getter: &'static str,
        /// The suffixes that getter understands.
        accepted: &'static str,
    },
}

impl ConfError {
    /// The position the error points at, when it has one: the malformed spot for parse errors,
    /// the `<value>` element for value errors (`None` when the value was a built-in default).
    pub fn location(&self) -> Option<&Location> {
        match self {
            ConfError::Xml { location, .. } | ConfError::Structure { location, .. } => {
                Some(location)
            }
            ConfError::InvalidValue { location, .. }
            | ConfError::Unhonoured { location, .. }
            | ConfError::Substitution { location, .. }
            | ConfError::ExpansionTooLarge { location, .. } => location.as_ref(),
            ConfError::Io { .. }
            | ConfError::FileTooLarge { .. }
            | ConfError::Missing { .. }
            | ConfError::MissingUnitSuffix { .. } => None,
        }
    }
}

fn origin(location: &Option<Location>) -> String {
    match location {
        Some(location) => format!("{location}: "),
        None => "built-in default: ".to_owned(),
    }
}

/// `bytes` as `\xNN` escapes, the way editors and `od -c` show them.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("\\x{byte:02X}")).collect()
}

/// A well-formedness problem in a resource.
#[derive(Debug, thiserror::Error)]
pub enum XmlProblem {
    /// The tokenizer rejected the input (unclosed tag or comment, bad declaration, ...).
    #[error("{0}")]
    Syntax(quick_xml::Error),
    /// A byte sequence that is not UTF-8, located at its first byte.
    #[error("{} is not UTF-8 (configuration files are read as UTF-8)", hex(.bytes))]
    InvalidUtf8 {
        /// The sequence: a byte that cannot start or continue a character, or the start of a
        /// character cut short (at most three bytes).
        bytes: Vec<u8>,
    },
    /// An entity other than the five XML predefines; Hadoop files define no others.
    #[error(
        "unknown entity &{entity}; (only &lt; &gt; &amp; &apos; &quot; and &#...; are defined)"
    )]
    UnknownEntity {
        /// The entity name between `&` and `;`.
        entity: String,
    },
    /// A character reference that names no Unicode character.
    #[error("invalid character reference &{reference};")]
    InvalidCharacterReference {
        /// The reference between `&` and `;`.
        reference: String,
    },
    /// An end tag that does not match the innermost open element and closes no enclosing one.
    #[error("expected </{expected}>, found </{found}>")]
    MismatchedEndTag {
        /// The innermost open element.
        expected: String,
        /// The end tag found.
        found: String,
    },
    /// An element left open when an enclosing element was closed; located at its start tag.
    #[error("element <{element}> is not closed before </{closed_by}>")]
    UnclosedElement {
        /// The element that was never closed.
        element: String,
        /// The end tag that closed its parent.
        closed_by: String,
    },
    /// An end tag while no element is open.
    #[error("</{found}> closes no open element")]
    UnmatchedEndTag {
        /// The end tag found.
        found: String,
    },
    /// The input ends while elements are still open: the file is truncated.
    #[error("the file ends before </{element}> (the element opened at line {}, column {})",
        .opened_at.line, .opened_at.column)]
    Truncated {
        /// The innermost open element.
        element: String,
        /// Where it was opened.
        opened_at: Location,
    },
}

/// A well-formed document that is not a valid Hadoop configuration resource.
#[derive(Debug, thiserror::Error)]
pub enum StructureProblem {
    /// No root element at all (empty file, or only comments and whitespace).
    #[error("the file is empty: expected a <configuration> element")]
    EmptyDocument,
    /// The root element is not `<configuration>`.
    #[error("unexpected root element <{found}> (expected <configuration>)")]
    UnexpectedRoot {
        /// The root element found.
        found: String,
    },
    /// An element that is not allowed where it appears.
    #[error("unexpected element <{found}> inside <{parent}> (expected {expected})")]
    UnexpectedElement {
        /// The element found.
        found: String,
        /// Its parent element.
        parent: String,
        /// What may appear there.
        expected: &'static str,
    },
    /// Non-whitespace text where only elements may appear.
    #[error("unexpected text {text:?} inside <{parent}> (expected only elements)")]
    UnexpectedText {
        /// The text, trimmed.
        text: String,
        /// The element containing it.
        parent: String,
    },
    /// Text or a second element outside the `<configuration>` element.
    #[error("unexpected content outside <configuration> (only comments and whitespace may appear)")]
    ContentOutsideRoot,
    /// A `<property>` without a `<name>`, or with an empty one.
    #[error("<property> has no <name> (or an empty one)")]
    MissingName,
    /// A `<property>` with a name but no `<value>` element.
    #[error("property {name} has no <value> (use <value/> for an empty value)")]
    MissingValue {
        /// The property's name.
        name: String,
    },
    /// The same child element twice in one `<property>`.
    #[error("second <{element}> in one <property> (the first is at line {}, column {})",
        .first.line, .first.column)]
    DuplicateElement {
        /// The repeated element.
        element: String,
        /// Where the first one is.
        first: Location,
    },
    /// A `<final>` that is neither `true` nor `false`.
    #[error("property {name}: <final> is {value:?} (expected true or false)")]
    InvalidFinal {
        /// The property's name.
        name: String,
        /// The text found.
        value: String,
    },
}

/// Why a `${...}` reference could not be substituted.
///
/// Every chain starts at the key that was asked for and ends at the failing reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubstitutionProblem {
    /// No resource sets the referenced property and no declared key gives it a default.
    #[error("no resource sets it and no declared key has a default for it ({})", .chain.join(" -> "))]
    Undefined {
        /// The reference path.
        chain: Vec<String>,
    },
    /// `${env.NAME}` where the environment variable `NAME` is not set (or is not UTF-8).
    #[error("the environment variable is not set")]
    UnsetEnvironment,
    /// References that lead back to a property already being substituted.
    #[error("cyclic reference {}", .chain.join(" -> "))]
    Cycle {
        /// The reference path, ending at the repeated property.
        chain: Vec<String>,
    },
    /// References nested deeper than [`crate::substitution::MAX_DEPTH`] levels.
    #[error("references nest deeper than {} levels: {}",
        crate::substitution::MAX_DEPTH, .chain.join(" -> "))]
    TooDeep {
        /// The reference path.
        chain: Vec<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_value_reads_like_the_documented_example() {
        let error = ConfError::InvalidValue {
            key: "yarn.resourcemanager.am.max-attempts".into(),
            value: "ten".into(),
            kind: KeyKind::Int,
            expected: "a 32-bit integer".into(),
            location: Some(Location::new("yarn-site.xml", 12, 7)),
        };
        assert_eq!(
            error.to_string(),
            "yarn-site.xml:12:7: key yarn.resourcemanager.am.max-attempts: \
             value \"ten\" is not a valid integer (expected a 32-bit integer)"
        );
    }

    #[test]
    fn values_without_location_are_labelled_built_in_defaults() {
        let error = ConfError::Substitution {
            key: "a".into(),
            value: "${b}".into(),
            variable: "b".into(),
            reason: Box::new(SubstitutionProblem::Cycle {
                chain: vec!["a".into(), "b".into(), "a".into()],
            }),
            location: None,
        };
        assert_eq!(
            error.to_string(),
            "built-in default: key a: value \"${b}\": cannot substitute ${b}: cyclic reference a -> b -> a"
        );
    }
}
