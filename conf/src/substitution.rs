//! `${...}` variable substitution in configuration values.
//!
//! A reference is `${` followed by one or more characters other than `}`, `$` and space, then
//! `}`; this is Hadoop's pattern, so anything else (`${}`, `${a b}`, a lone `$`) stays literal.
//! `${env.NAME}` reads the environment variable `NAME`; any other `${name}` reads the property
//! `name`, substituted in turn.
//!
//! Differences from Hadoop, all on purpose:
//!
//! - A reference that cannot be resolved is an error. Hadoop leaves `${x}` in the value, which
//!   then surfaces far away as a host named `${x}` or a directory created with that name; failing
//!   at the key that holds the reference is easier to diagnose.
//! - A cycle is reported with its path (`a -> b -> a`) instead of being cut off after 20 rounds.
//! - Nesting deeper than [`MAX_DEPTH`] is an error, where Hadoop silently stops expanding.
//! - One read expands at most [`MAX_EXPANDED_BYTES`] of text (each value counted every time it is
//!   expanded); past that it is an error. Without it, ten references to ten references nested
//!   nine deep would take gigabytes; Hadoop's cut-off after 20 rounds bounds the same growth.
//! - Environment values are inserted literally, never expanded again, and the
//!   `${env.NAME:-fallback}` forms are not supported (they read as an unset variable).
//! - Java system properties do not exist here, so `${name}` only ever names a property.

use std::borrow::Cow;

use crate::error::{ConfError, SubstitutionProblem};
use crate::location::Location;

/// The deepest chain of nested references allowed (Hadoop's limit).
pub const MAX_DEPTH: usize = 20;

/// The most text one read may expand: 1 MiB.
///
/// Every value substitution expands is counted, in full and each time it is expanded (the value
/// read included), and so is every environment value inserted. The substituted value is made of
/// that text only, so it is never longer; and since a reference is at least four bytes (`${x}`),
/// the count also bounds the references resolved, so a value that expands to nothing through
/// millions of references is refused just like one that expands to gigabytes. A value is counted
/// before it is scanned or copied, so the work of one read stays proportional to this limit and
/// a refused expansion is never built.
///
/// The values in `yarn-default.xml` are under a hundred bytes; 1 MiB leaves room for long lists
/// (an ACL or queue mapping naming thousands of users) and expands in milliseconds, while ten
/// references to ten references nested nine deep (about 10^9 bytes) is refused.
pub const MAX_EXPANDED_BYTES: usize = 1 << 20;

/// What a reference resolves to.
#[derive(Debug)]
pub(crate) struct Definition<'a> {
    /// The property actually read, which may differ from the name in the reference when a per-id
    /// scope applies.
    pub(crate) name: Cow<'a, str>,
    /// Its unsubstituted value.
    pub(crate) value: &'a str,
    /// Where the value came from; `None` for a built-in default.
    pub(crate) location: Option<&'a Location>,
}

/// Where references are looked up.
pub(crate) trait Lookup {
    /// The property a reference to `name` reads, given the chain of properties being expanded
    /// (outermost first); `None` when nothing defines it.
    fn property(&self, name: &str, chain: &[String]) -> Option<Definition<'_>>;

    /// The value of environment variable `name`, if set.
    fn environment(&self, name: &str) -> Option<String>;
}

/// Substitutes every reference in `raw`, the value of property `key` found at `location`.
///
/// # Errors
///
/// [`ConfError::Substitution`] naming the property whose value holds the failing reference, that
/// value, its location, and the chain of references from `key`; [`ConfError::ExpansionTooLarge`]
/// naming `key` and its location when the expansion passes [`MAX_EXPANDED_BYTES`].
pub(crate) fn substitute(
    key: &str,
    raw: &str,
    location: Option<&Location>,
    lookup: &impl Lookup,
) -> Result<String, ConfError> {
    let mut expansion = Expansion {
        lookup,
        key,
        location,
        chain: vec![key.to_owned()],
        counted: 0,
        out: String::new(),
    };
    expansion.expand(raw, location)?;
    Ok(expansion.out)
}

/// The state of one read: every level appends to the same output, so no intermediate value is
/// built or copied.
struct Expansion<'a, L> {
    lookup: &'a L,
    /// The property read, and where its value came from.
    key: &'a str,
    location: Option<&'a Location>,
    /// The properties being expanded, outermost (`key`) first.
    chain: Vec<String>,
    /// The text counted against [`MAX_EXPANDED_BYTES`] so far.
    counted: usize,
    out: String,
}

impl<L: Lookup> Expansion<'_, L> {
    /// Appends `raw`, the value of the last property in the chain found at `location`, with its
    /// references substituted.
    fn expand(&mut self, raw: &str, location: Option<&Location>) -> Result<(), ConfError> {
        self.count(raw.len())?;
        let lookup = self.lookup;
        for segment in segments(raw) {
            let variable = match segment {
                Segment::Literal(text) => {
                    self.out.push_str(text);
                    continue;
                }
                Segment::Reference(variable) => variable,
            };
            if let Some(name) = variable.strip_prefix("env.") {
                let Some(value) = lookup.environment(name) else {
                    let reason = SubstitutionProblem::UnsetEnvironment;
                    return Err(self.fail(raw, variable, reason, location));
                };
                self.count(value.len())?;
                self.out.push_str(&value);
                continue;
            }
            let Some(definition) = lookup.property(variable, &self.chain) else {
                let chain = extended(&self.chain, variable);
                let reason = SubstitutionProblem::Undefined { chain };
                return Err(self.fail(raw, variable, reason, location));
            };
            if self.chain.iter().any(|seen| *seen == definition.name) {
                let chain = extended(&self.chain, &definition.name);
                let reason = SubstitutionProblem::Cycle { chain };
                return Err(self.fail(raw, variable, reason, location));
            }
            if self.chain.len() > MAX_DEPTH {
                let chain = extended(&self.chain, &definition.name);
                let reason = SubstitutionProblem::TooDeep { chain };
                return Err(self.fail(raw, variable, reason, location));
            }
            self.chain.push(definition.name.into_owned());
            let expanded = self.expand(definition.value, definition.location);
            self.chain.pop();
            expanded?;
        }
        Ok(())
    }

    /// Counts `bytes` more text, before it is scanned or copied.
    fn count(&mut self, bytes: usize) -> Result<(), ConfError> {
        self.counted = self.counted.saturating_add(bytes);
        if self.counted <= MAX_EXPANDED_BYTES {
            return Ok(());
        }
        Err(ConfError::ExpansionTooLarge {
            key: self.key.to_owned(),
            chain: self.chain.clone(),
            location: self.location.cloned(),
        })
    }

    /// The error for `variable` in `raw`, the value of the last property in the chain.
    fn fail(
        &self,
        raw: &str,
        variable: &str,
        reason: SubstitutionProblem,
        location: Option<&Location>,
    ) -> ConfError {
        ConfError::Substitution {
            key: self.chain.last().cloned().unwrap_or_default(),
            value: raw.to_owned(),
            variable: variable.to_owned(),
            reason: Box::new(reason),
            location: location.cloned(),
        }
    }
}

fn extended(chain: &[String], next: &str) -> Vec<String> {
    chain.iter().cloned().chain([next.to_owned()]).collect()
}

/// A piece of a value: literal text or the name inside a `${...}` reference.
#[derive(Debug, PartialEq, Eq)]
enum Segment<'a> {
    Literal(&'a str),
    Reference(&'a str),
}

/// Splits `raw` into literal text and references, leftmost match first.
fn segments(raw: &str) -> Vec<Segment<'_>> {
    let mut segments = Vec::new();
    let mut literal_start = 0;
    let mut search_from = 0;
    while let Some(found) = raw[search_from..].find("${") {
        let open = search_from + found;
        let body_start = open + 2;
        let body_len = raw[body_start..]
            .find(['}', '$', ' '])
            .filter(|&len| len > 0 && raw[body_start + len..].starts_with('}'));
        match body_len {
            Some(len) => {
                if literal_start < open {
                    segments.push(Segment::Literal(&raw[literal_start..open]));
                }
                segments.push(Segment::Reference(&raw[body_start..body_start + len]));
                literal_start = body_start + len + 1;
                search_from = literal_start;
            }
            // Not a reference: keep the `$` literal and look for the next `${`.
            None => search_from = open + 1,
        }
    }
    if literal_start < raw.len() {
        segments.push(Segment::Literal(&raw[literal_start..]));
    }
    segments
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[derive(Default)]
    struct FakeLookup {
        properties: HashMap<String, (String, Location)>,
        environment: HashMap<String, String>,
    }

    impl FakeLookup {
        fn with(mut self, name: &str, value: &str) -> FakeLookup {
            let line = u32::try_from(self.properties.len() + 1).unwrap_or(u32::MAX);
            let location = Location::new("site.xml", line, 3);
            self.properties
                .insert(name.to_owned(), (value.to_owned(), location));
            self
        }
    }

    impl Lookup for FakeLookup {
        fn property(&self, name: &str, _chain: &[String]) -> Option<Definition<'_>> {
            self.properties
                .get(name)
                .map(|(value, location)| Definition {
                    name: Cow::Owned(name.to_owned()),
                    value,
                    location: Some(location),
                })
        }

        fn environment(&self, name: &str) -> Option<String> {
            self.environment.get(name).cloned()
        }
    }

    fn must_substitute(lookup: &FakeLookup, raw: &str) -> String {
        substitute("root", raw, None, lookup).unwrap_or_else(|e| panic!("{raw:?}: {e}"))
    }

    fn must_fail(lookup: &FakeLookup, key: &str) -> ConfError {
        let (raw, location) = &lookup.properties[key];
        substitute(key, raw, Some(location), lookup).expect_err("substitution should fail")
    }

    #[test]
    fn splits_references_with_hadoop_pattern() {
        use Segment::{Literal, Reference};
        assert_eq!(segments("plain"), vec![Literal("plain")]);
        assert_eq!(
            segments("a${b}c${d.e}"),
            vec![Literal("a"), Reference("b"), Literal("c"), Reference("d.e")]
        );
        assert_eq!(segments("${}${a b}$x"), vec![Literal("${}${a b}$x")]);
        assert_eq!(segments("${a${b}"), vec![Literal("${a"), Reference("b")]);
        assert_eq!(segments("${unterminated"), vec![Literal("${unterminated")]);
        assert!(segments("").is_empty());
    }

    #[test]
    fn expands_nested_properties_and_environment() {
        let mut lookup = FakeLookup::default()
            .with("host", "${prefix}.example.com")
            .with("prefix", "rm1");
        lookup
            .environment
            .insert("HOME_DIR".into(), "/home/${x}".into());
        assert_eq!(
            must_substitute(&lookup, "${host}:8032"),
            "rm1.example.com:8032"
        );
        // Environment values are literal: `${x}` inside them is not expanded.
        assert_eq!(
            must_substitute(&lookup, "${env.HOME_DIR}/a"),
            "/home/${x}/a"
        );
        assert_eq!(must_substitute(&lookup, "no refs, ${}"), "no refs, ${}");
    }

    #[test]
    fn undefined_reference_names_the_holder_and_the_path() {
        let lookup = FakeLookup::default()
            .with("a", "${b}/x")
            .with("b", "${missing}");
        let error = must_fail(&lookup, "a");
        let ConfError::Substitution {
            key,
            value,
            variable,
            reason,
            location,
        } = error
        else {
            panic!("wrong variant");
        };
        assert_eq!(
            (key.as_str(), value.as_str(), variable.as_str()),
            ("b", "${missing}", "missing")
        );
        assert_eq!(location, Some(Location::new("site.xml", 2, 3)));
        assert_eq!(
            *reason,
            SubstitutionProblem::Undefined {
                chain: vec!["a".into(), "b".into(), "missing".into()]
            }
        );
    }

    #[test]
    fn unset_environment_variable_is_an_error() {
        let lookup = FakeLookup::default().with("dir", "${env.NOT_SET_ANYWHERE}/x");
        let message = must_fail(&lookup, "dir").to_string();
        assert_eq!(
            message,
            "site.xml:1:3: key dir: value \"${env.NOT_SET_ANYWHERE}/x\": cannot substitute \
             ${env.NOT_SET_ANYWHERE}: the environment variable is not set"
        );
    }

    #[test]
    fn cycle_reports_the_chain() {
        let lookup = FakeLookup::default().with("a", "${b}").with("b", "x${a}");
        let message = must_fail(&lookup, "a").to_string();
        assert!(
            message.contains("cyclic reference a -> b -> a"),
            "{message}"
        );
        assert!(message.starts_with("site.xml:2:3: key b:"), "{message}");

        let lookup = FakeLookup::default().with("self", "${self}");
        let message = must_fail(&lookup, "self").to_string();
        assert!(
            message.contains("cyclic reference self -> self"),
            "{message}"
        );
    }

    #[test]
    fn twenty_levels_pass_and_twenty_one_fail() {
        let mut lookup = FakeLookup::default();
        for level in 0..MAX_DEPTH {
            lookup = lookup.with(&format!("k{level}"), &format!("${{k{}}}", level + 1));
        }
        lookup = lookup.with(&format!("k{MAX_DEPTH}"), "bottom");
        assert_eq!(must_substitute(&lookup, "${k1}"), "bottom");
        let (raw, location) = lookup.properties["k0"].clone();
        assert_eq!(
            substitute("k0", &raw, Some(&location), &lookup)
                .ok()
                .as_deref(),
            Some("bottom")
        );

        let lookup = lookup
            .with(&format!("k{MAX_DEPTH}"), "${k21}")
            .with("k21", "too deep");
        let error = must_fail(&lookup, "k0");
        let ConfError::Substitution { key, reason, .. } = error else {
            panic!("wrong variant: {error}");
        };
        let SubstitutionProblem::TooDeep { chain } = *reason else {
            panic!("wrong reason: {reason}");
        };
        assert_eq!(key, "k20");
        assert_eq!(chain.len(), MAX_DEPTH + 2);
        assert_eq!(chain.last().map(String::as_str), Some("k21"));
    }

    /// `a0` to `a8` each hold ten references to the next; `a9` holds `leaf`.
    fn ten_references_nine_deep(leaf: &str) -> FakeLookup {
        let mut lookup = FakeLookup::default();
        for level in 0..9 {
            let value = format!("${{a{}}}", level + 1).repeat(10);
            lookup = lookup.with(&format!("a{level}"), &value);
        }
        lookup.with("a9", leaf)
    }

    #[test]
    fn ten_references_nine_deep_stop_at_the_limit() {
        // 10^9 bytes if expanded: this read used to run until memory ran out.
        let error = must_fail(&ten_references_nine_deep("x"), "a0");
        let message = error.to_string();
        assert!(
            message.starts_with(&format!(
                "site.xml:1:3: key a0: substituting its ${{...}} references needs more than \
                 {MAX_EXPANDED_BYTES} bytes of text, the limit for one read (stopped inside a0 -> a1"
            )),
            "{message}"
        );
        let ConfError::ExpansionTooLarge { key, chain, .. } = error else {
            panic!("wrong variant: {message}");
        };
        assert_eq!(key, "a0");
        let path: Vec<String> = (0..chain.len()).map(|level| format!("a{level}")).collect();
        assert_eq!(chain, path);
    }

    #[test]
    fn references_that_expand_to_nothing_still_count() {
        // The same billion references, each expanding to nothing, are as much work.
        let error = must_fail(&ten_references_nine_deep(""), "a0");
        assert!(
            matches!(&error, ConfError::ExpansionTooLarge { key, .. } if key == "a0"),
            "{error}"
        );
    }

    #[test]
    fn limit_counts_each_expanded_value_every_time_and_includes_the_limit() {
        // `${big}` is 6 bytes, so big's value may take the rest of the limit exactly.
        let big = "x".repeat(MAX_EXPANDED_BYTES - 6);
        let mut lookup = FakeLookup::default().with("big", &big);
        lookup
            .environment
            .insert("BIG".into(), "x".repeat(MAX_EXPANDED_BYTES));
        assert_eq!(must_substitute(&lookup, "${big}").len(), big.len());

        for raw in ["${big}!", "${big}${big}", "${env.BIG}"] {
            let error = substitute("root", raw, None, &lookup).expect_err(raw);
            assert!(
                matches!(&error, ConfError::ExpansionTooLarge { key, location: None, .. }
                    if key == "root"),
                "{raw}: {error}"
            );
        }
    }
}
