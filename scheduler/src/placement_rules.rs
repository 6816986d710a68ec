//! [`PlacementRules`]: the rules that send an application to a queue by its user, its groups,
//! its name or the queue it named: Hadoop's JSON rules (`mapping-rule-format=json`) or its
//! legacy entries (`queue-mappings` and `yarn.scheduler.queue-placement-rules.app-name`),
//! which are converted to the same rules and run by the same engine, as Hadoop 3.4 runs them.

mod legacy_rules;
mod mapping_rule;
mod placement_variables;
mod queue_paths;
mod rules_json;

use crate::CapacitySchedulerConfiguration;
use crate::error::SchedulerError;
use legacy_rules::{entries, legacy_rule};
use mapping_rule::{FallbackResult, MappingRule, RuleAction};
use placement_variables::PlacementVariables;
use queue_paths::{created_path, leaf_path};
use rules_json::rules_to_json;

/// `u:name:queue` and `g:name:queue` entries, comma-separated, tried in order.
pub const QUEUE_MAPPINGS_KEY: &str = "yarn.scheduler.capacity.queue-mappings";
/// Whether the rules also apply to a submission that names a queue other than `default`.
pub const QUEUE_MAPPINGS_OVERRIDE_KEY: &str =
    "yarn.scheduler.capacity.queue-mappings-override.enable";
/// `name:queue` entries by application name, tried after the user and group entries (a
/// `yarn-site.xml` key).
pub const APP_NAME_MAPPINGS_KEY: &str = "yarn.scheduler.queue-placement-rules.app-name";
/// `legacy` (the default) or `json`: which of the two forms of rules is in force.
pub const MAPPING_RULE_FORMAT_KEY: &str = "yarn.scheduler.capacity.mapping-rule-format";
/// The JSON rule document, inline; it wins over the file.
pub const MAPPING_RULE_JSON_KEY: &str = "yarn.scheduler.capacity.mapping-rule-json";
/// The path of a JSON rule document (relative ones from `capacity-scheduler.xml`'s directory),
/// which the leader reads with that file and commits inline as [`MAPPING_RULE_JSON_KEY`].
pub const MAPPING_RULE_JSON_FILE_KEY: &str = "yarn.scheduler.capacity.mapping-rule-json-file";

/// Hadoop's refusal of a submission the rules reject.
const REJECTED: &str =
    "Application submission have been rejected by a mapping rule. Please see the logs for details";

/// The rule chain in force and whether it applies to submissions that name a queue.
///
/// Rules apply only to a submission that names no queue or `default`, unless
/// `queue-mappings-override.enable` is true. They are tried in order. A rule that does not
/// match its user (`*` for every user), one of the user's groups, or the application's name
/// is passed over. A matching rule places the application in its policy's queue when that,
/// variables substituted, is an existing leaf (by full path, by a path from a queue's short
/// name, or by an unambiguous short name); otherwise its fallback decides: `skip` goes on,
/// `placeDefault` places in the default queue (refused if that is unusable too), `reject`
/// refuses. A `reject` rule refuses; a `setDefaultQueue` rule changes the default queue for
/// the rules after it. When no rule places the application it runs in the queue it named.
/// Legacy entries are rules whose fallback is `placeDefault`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlacementRules {
    rules: Vec<NamedRule>,
    override_specified: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct NamedRule {
    /// How reports and refusals name the rule: a legacy entry as written, or a JSON rule's
    /// position and fields.
    name: String,
    rule: MappingRule,
}

/// The configuration values the rules come from.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleSources<'a> {
    /// [`MAPPING_RULE_FORMAT_KEY`].
    pub format: Option<&'a str>,
    /// [`QUEUE_MAPPINGS_KEY`].
    pub queue_mappings: Option<&'a str>,
    /// [`APP_NAME_MAPPINGS_KEY`].
    pub app_name_mappings: Option<&'a str>,
    /// [`MAPPING_RULE_JSON_KEY`].
    pub json: Option<&'a str>,
    /// [`MAPPING_RULE_JSON_FILE_KEY`].
    pub json_file: Option<&'a str>,
    /// [`QUEUE_MAPPINGS_OVERRIDE_KEY`].
    pub override_specified: bool,
}

/// What a submission offers the rules.
#[derive(Debug, Clone, Copy)]
pub struct Submission<'a> {
    /// The submitting user.
    pub user: &'a str,
    /// The user's groups, primary first.
    pub groups: &'a [String],
    /// The application's name.
    pub application_name: &'a str,
    /// The queue the submission names; empty for none.
    pub queue: &'a str,
}

/// Where the rules send a submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// No rule applies: the application runs in the queue it named.
    AsSubmitted,
    /// A rule placed it in `queue`, a leaf's full path.
    Placed {
        /// The leaf.
        queue: String,
        /// The rule's name.
        rule: String,
        /// The queues the submission creates, parents first (the leaf last); empty when the
        /// leaf exists.
        created: Vec<String>,
    },
    /// A rule matched but its queue is unusable, and its `placeDefault` fallback sent the
    /// application to the default queue.
    Fallback {
        /// The default queue's full path.
        queue: String,
        /// The rule's name.
        rule: String,
        /// Why its queue is unusable.
        reason: String,
    },
}

impl PlacementRules {
    /// Reads the rules of the format `sources` selects and checks each as Hadoop does when it
    /// loads them: fields the policy needs, and a queue that can lead to a leaf of `conf`.
    /// The form not in force is reported in `warnings` when set, as is a JSON format with no
    /// rules. With `lenient`, for rules already in force, a rule that fails its check is kept
    /// (it takes its fallback when it matches), an entry or document that does not parse is
    /// left out and an unknown format is taken as `legacy`, each with a warning, so that a new
    /// leader keeps scheduling.
    ///
    /// # Errors
    ///
    /// Without `lenient`: [`SchedulerError::InvalidValue`] for a format other than `legacy`
    /// or `json` (either case; blank is `legacy`); [`SchedulerError::QueueMapping`] naming the key, the legacy entry and Hadoop's
    /// reason; [`SchedulerError::MappingRules`] naming the key, the JSON rule and the reason
    /// (a document that does not parse, with its line and column; a missing field; a queue
    /// that cannot be a leaf).
    pub fn parse(
        sources: &RuleSources<'_>,
        conf: &CapacitySchedulerConfiguration,
        lenient: bool,
        warnings: &mut Vec<String>,
    ) -> Result<Self, SchedulerError> {
        let format = sources.format.map(str::trim).unwrap_or_default();
        let json = if format.eq_ignore_ascii_case("json") {
            true
        } else if format.is_empty() || format.eq_ignore_ascii_case("legacy") {
            false
        } else {
            let refusal = SchedulerError::InvalidValue {
                key: MAPPING_RULE_FORMAT_KEY.to_owned(),
                value: format.to_owned(),
                expected: "legacy or json",
            };
            if !lenient {
                return Err(refusal);
            }
            warnings.push(format!("{refusal}; the legacy rules apply"));
            false
        };
        let ignored = |key: &str| {
            format!(
                "{key} is set but ignored: {MAPPING_RULE_FORMAT_KEY} is {}",
                if json { "json" } else { "legacy" }
            )
        };
        let unused: Vec<(&str, Option<&str>)> = if json {
            vec![
                (QUEUE_MAPPINGS_KEY, sources.queue_mappings),
                (APP_NAME_MAPPINGS_KEY, sources.app_name_mappings),
            ]
        } else {
            vec![
                (MAPPING_RULE_JSON_KEY, sources.json),
                (MAPPING_RULE_JSON_FILE_KEY, sources.json_file),
            ]
        };
        for (key, value) in unused {
            if value.is_some_and(|value| !value.trim().is_empty()) {
                warnings.push(ignored(key));
            }
        }
        let rules = if json {
            json_rules(sources, conf, lenient, warnings)?
        } else {
            legacy_rules(sources, conf, lenient, warnings)?
        };
        Ok(Self {
            rules,
            override_specified: sources.override_specified,
        })
    }

    /// Where `submission` goes under the queues of `conf` (see the type).
    ///
    /// # Errors
    ///
    /// Hadoop's refusal, followed by the rules that matched and what each decided, when a
    /// `reject` rule matches, a rule's `reject` fallback fires, or a `placeDefault` fallback
    /// finds the default queue unusable.
    pub fn place(
        &self,
        conf: &CapacitySchedulerConfiguration,
        submission: &Submission<'_>,
    ) -> Result<Placement, String> {
        let named = submission.queue.trim();
        if !named.is_empty() && named != "default" && !self.override_specified {
            return Ok(Placement::AsSubmitted);
        }
        let mut variables = PlacementVariables::new(submission);
        let mut tried: Vec<String> = Vec::new();
        let refuse = |tried: &[String]| format!("{REJECTED} (rules tried: {})", tried.join("; "));
        for NamedRule { name, rule } in &self.rules {
            let queue = match rule.apply(conf, &mut variables) {
                RuleAction::NoMatch => continue,
                RuleAction::DefaultChanged => {
                    tried.push(format!(
                        "{name}: the default queue is now {}",
                        variables.default_queue()
                    ));
                    continue;
                }
                RuleAction::Reject => {
                    tried.push(format!("{name}: rejects"));
                    return Err(refuse(&tried));
                }
                RuleAction::Place(queue) => queue,
            };
            let reason = match leaf_path(conf, &queue) {
                Ok(queue) => {
                    return Ok(Placement::Placed {
                        queue,
                        rule: name.clone(),
                        created: Vec::new(),
                    });
                }
                Err(reason) => reason,
            };
            let reason = match created_path(conf, &queue) {
                Ok(Some((queue, created))) if rule.creates() => {
                    return Ok(Placement::Placed {
                        queue,
                        rule: name.clone(),
                        created,
                    });
                }
                Ok(Some((queue, _))) => {
                    format!("Queue '{queue}' does not exist and the rule's create flag is false.")
                }
                Ok(None) => reason,
                Err(refusal) => refusal,
            };
            match rule.fallback() {
                FallbackResult::Skip => tried.push(format!("{name}: {reason} Skipped.")),
                FallbackResult::Reject => {
                    tried.push(format!("{name}: {reason} Rejected by its fallback."));
                    return Err(refuse(&tried));
                }
                FallbackResult::PlaceDefault => {
                    return match leaf_path(conf, variables.default_queue()) {
                        Ok(queue) => Ok(Placement::Fallback {
                            queue,
                            rule: name.clone(),
                            reason,
                        }),
                        Err(unusable) => {
                            tried.push(format!(
                                "{name}: {reason} Its fallback to the default queue failed: \
                                 {unusable}"
                            ));
                            Err(refuse(&tried))
                        }
                    };
                }
            }
        }
        Ok(Placement::AsSubmitted)
    }
}

/// A legacy entry: its key, the entry as written, and its rule or why it does not parse.
type LegacyEntry<'a> = (&'static str, &'a str, Result<MappingRule, String>);

/// The legacy entries as rules, user and group entries first, then application names.
fn legacy_entries<'a>(
    queue_mappings: &'a str,
    app_name_mappings: &'a str,
) -> impl Iterator<Item = LegacyEntry<'a>> {
    [
        (QUEUE_MAPPINGS_KEY, queue_mappings, false),
        (APP_NAME_MAPPINGS_KEY, app_name_mappings, true),
    ]
    .into_iter()
    .flat_map(|(key, value, application)| {
        entries(value)
            .into_iter()
            .map(move |entry| (key, entry, legacy_rule(entry, application)))
    })
}

/// The legacy entries as checked rules.
fn legacy_rules(
    sources: &RuleSources<'_>,
    conf: &CapacitySchedulerConfiguration,
    lenient: bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<NamedRule>, SchedulerError> {
    let mut rules = Vec::new();
    let all = legacy_entries(
        sources.queue_mappings.unwrap_or_default(),
        sources.app_name_mappings.unwrap_or_default(),
    );
    for (key, entry, rule) in all {
        let refusal = |reason| SchedulerError::QueueMapping {
            key,
            entry: entry.to_owned(),
            reason,
        };
        let rule = match rule {
            Ok(rule) => rule,
            Err(reason) if lenient => {
                warnings.push(format!("{}; the entry is left out", refusal(reason)));
                continue;
            }
            Err(reason) => return Err(refusal(reason)),
        };
        if let Err(reason) = rule.check(conf) {
            if !lenient {
                return Err(refusal(reason));
            }
            warnings.push(format!(
                "{}; the rule falls back when it matches, until a refresh settles it",
                refusal(reason)
            ));
        }
        rules.push(NamedRule {
            name: entry.to_owned(),
            rule,
        });
    }
    Ok(rules)
}

/// The JSON rules: the inline document, else the one read from the file.
fn json_rules(
    sources: &RuleSources<'_>,
    conf: &CapacitySchedulerConfiguration,
    lenient: bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<NamedRule>, SchedulerError> {
    let refusal = |reason| SchedulerError::MappingRules {
        key: MAPPING_RULE_JSON_KEY,
        reason,
    };
    let Some(text) = sources.json.filter(|text| !text.trim().is_empty()) else {
        if let Some(file) = sources.json_file.filter(|file| !file.trim().is_empty()) {
            // The leader commits the file's rules inline; properties that name only the file
            // did not come through it.
            let reason = format!(
                "{MAPPING_RULE_JSON_FILE_KEY}={file} was not read: the rules of a file are \
                 read with capacity-scheduler.xml and committed inline"
            );
            if !lenient {
                return Err(refusal(reason));
            }
            warnings.push(format!("{}; no rule applies", refusal(reason)));
        } else {
            warnings.push(format!(
                "{MAPPING_RULE_FORMAT_KEY} is json but neither {MAPPING_RULE_JSON_KEY} nor \
                 {MAPPING_RULE_JSON_FILE_KEY} is set: no placement rule applies"
            ));
        }
        return Ok(Vec::new());
    };
    let parsed = match rules_json::parse_rules_json(text) {
        Ok(parsed) => parsed,
        Err(reason) if lenient => {
            warnings.push(format!("{}; no rule applies", refusal(reason)));
            return Ok(Vec::new());
        }
        Err(reason) => return Err(refusal(reason)),
    };
    if parsed.is_empty() {
        warnings.push(format!(
            "{MAPPING_RULE_JSON_KEY} holds no rule: no placement rule applies"
        ));
    }
    let mut rules = Vec::new();
    for (position, rule) in parsed.into_iter().enumerate() {
        let name = format!("rule {} ({})", position + 1, rule.describe());
        if let Err(reason) = rule.check(conf) {
            let refused = refusal(format!("{name}: {reason}"));
            if !lenient {
                return Err(refused);
            }
            warnings.push(format!(
                "{refused}; the rule falls back when it matches, until a refresh settles it"
            ));
        }
        rules.push(NamedRule { name, rule });
    }
    Ok(rules)
}

/// The JSON rule document of the legacy entries `queue_mappings` and `app_name_mappings`
/// (each as the value of its key), by the seed's conversion table: what
/// `yarn-ha placement convert` prints.
///
/// # Errors
///
/// [`SchedulerError::QueueMapping`] for the first malformed entry.
pub fn convert_legacy_rules(
    queue_mappings: &str,
    app_name_mappings: &str,
) -> Result<String, SchedulerError> {
    Ok(rules_to_json(&legacy_rule_list(
        queue_mappings,
        app_name_mappings,
    )?))
}

/// The rules of the legacy entries, unchecked against any queue.
fn legacy_rule_list(
    queue_mappings: &str,
    app_name_mappings: &str,
) -> Result<Vec<MappingRule>, SchedulerError> {
    legacy_entries(queue_mappings, app_name_mappings)
        .map(|(key, entry, rule)| {
            rule.map_err(|reason| SchedulerError::QueueMapping {
                key,
                entry: entry.to_owned(),
                reason,
            })
        })
        .collect()
}

/// Checks the syntax of the application-name rules `value` (the `yarn-site.xml` key), which a
/// daemon does at start-up: their queues are checked against the queues in force.
///
/// # Errors
///
/// [`SchedulerError::QueueMapping`] for the first malformed entry.
pub(crate) fn check_app_name_entries(value: &str) -> Result<(), SchedulerError> {
    legacy_rule_list("", value).map(drop)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::SchedulerSettings;

    /// root.{default, eng, marketing, users.{alice, jo_dot_doe}, a.shared, b.shared}, with
    /// `mappings` as `queue-mappings` and `app_names` as the application-name rules.
    fn conf(
        mappings: &str,
        app_names: Option<&str>,
        override_specified: bool,
    ) -> Result<CapacitySchedulerConfiguration, SchedulerError> {
        let mut properties: BTreeMap<String, String> = [
            ("root.queues", "default,eng,marketing,users,a,b"),
            ("root.default.capacity", "10"),
            ("root.eng.capacity", "10"),
            ("root.marketing.capacity", "10"),
            ("root.users.capacity", "30"),
            ("root.users.queues", "alice,jo_dot_doe"),
            ("root.users.alice.capacity", "50"),
            ("root.users.jo_dot_doe.capacity", "50"),
            ("root.a.capacity", "20"),
            ("root.a.queues", "shared"),
            ("root.a.shared.capacity", "100"),
            ("root.b.capacity", "20"),
            ("root.b.queues", "shared"),
            ("root.b.shared.capacity", "100"),
        ]
        .into_iter()
        .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), v.to_owned()))
        .collect();
        properties.insert(QUEUE_MAPPINGS_KEY.to_owned(), mappings.to_owned());
        properties.insert(
            QUEUE_MAPPINGS_OVERRIDE_KEY.to_owned(),
            override_specified.to_string(),
        );
        let settings = SchedulerSettings {
            app_name_mappings: app_names.map(str::to_owned),
            ..SchedulerSettings::default()
        };
        CapacitySchedulerConfiguration::new(properties, settings)
    }

    fn place(
        conf: &CapacitySchedulerConfiguration,
        user: &str,
        groups: &[&str],
        application_name: &str,
        queue: &str,
    ) -> Result<Placement, String> {
        let groups: Vec<String> = groups.iter().map(|g| (*g).to_owned()).collect();
        conf.placement_rules().place(
            conf,
            &Submission {
                user,
                groups: &groups,
                application_name,
                queue,
            },
        )
    }

    fn placed(queue: &str, rule: &str) -> Result<Placement, String> {
        Ok(Placement::Placed {
            queue: queue.to_owned(),
            rule: rule.to_owned(),
            created: Vec::new(),
        })
    }

    #[test]
    fn rules_are_tried_in_order_and_the_first_match_places() {
        let rules = "u:carol:marketing,g:engineers:eng,u:%user:%primary_group.%user,\
                     u:%user:%secondary_group";
        let conf = conf(rules, Some("etl:eng"), false).unwrap();
        assert_eq!(
            place(&conf, "carol", &["engineers"], "x", "default"),
            placed("root.marketing", "u:carol:marketing")
        );
        assert_eq!(
            place(&conf, "alice", &["staff", "engineers"], "x", ""),
            placed("root.eng", "g:engineers:eng"),
            "a group rule matches a secondary group too"
        );
        assert_eq!(
            place(&conf, "alice", &["users"], "x", "default"),
            placed("root.users.alice", "u:%user:%primary_group.%user")
        );
        assert_eq!(
            place(&conf, "jo.doe", &["users"], "x", "default"),
            placed("root.users.jo_dot_doe", "u:%user:%primary_group.%user"),
            "a dot in a name becomes _dot_"
        );
        assert_eq!(
            place(&conf, "alice", &["users"], "x", "marketing"),
            Ok(Placement::AsSubmitted),
            "a named queue is kept without override"
        );
    }

    #[test]
    fn an_unusable_queue_falls_back_to_root_default() {
        let conf = conf("u:%user:%user", None, false).unwrap();
        assert_eq!(
            place(&conf, "dave", &[], "x", "default"),
            Ok(Placement::Fallback {
                queue: "root.default".to_owned(),
                rule: "u:%user:%user".to_owned(),
                reason: "Queue 'dave' specified in mapping rule does not exist.".to_owned(),
            })
        );
        let Ok(Placement::Fallback { reason, .. }) = place(&conf, "shared", &[], "x", "") else {
            panic!("an ambiguous name falls back");
        };
        assert!(reason.contains("is ambiguous"), "{reason}");
        let Ok(Placement::Fallback { reason, .. }) = place(&conf, "users", &[], "x", "") else {
            panic!("a parent falls back");
        };
        assert!(reason.contains("non-leaf queue 'root.users'"), "{reason}");
        let secondary = conf_with("u:%user:%secondary_group");
        let Ok(Placement::Fallback { reason, .. }) =
            place(&secondary, "alice", &["staff", "nobody"], "x", "")
        else {
            panic!("no secondary group names a queue");
        };
        assert_eq!(reason, "Invalid path returned by rule: ''");
        assert_eq!(
            place(&secondary, "alice", &["staff", "nobody", "eng"], "x", ""),
            placed("root.eng", "u:%user:%secondary_group"),
            "the first secondary group that names a queue"
        );
    }

    fn conf_with(mappings: &str) -> CapacitySchedulerConfiguration {
        conf(mappings, None, false).unwrap()
    }

    #[test]
    fn without_a_usable_root_default_an_unplaceable_submission_is_refused() {
        let properties = [
            ("yarn.scheduler.capacity.root.queues", "eng"),
            ("yarn.scheduler.capacity.root.eng.capacity", "100"),
            (QUEUE_MAPPINGS_KEY, "u:%user:%user"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let conf =
            CapacitySchedulerConfiguration::new(properties, SchedulerSettings::default()).unwrap();
        let refusal = place(&conf, "dave", &[], "x", "").unwrap_err();
        assert!(refusal.starts_with(REJECTED), "{refusal}");
        assert!(refusal.contains("'dave'"), "{refusal}");
    }

    #[test]
    fn a_committed_rule_whose_queue_went_is_kept_with_a_warning_and_falls_back() {
        let properties: BTreeMap<String, String> = [
            ("yarn.scheduler.capacity.root.queues", "default"),
            ("yarn.scheduler.capacity.root.default.capacity", "100"),
            (QUEUE_MAPPINGS_KEY, "u:alice:gone,u:%user:default"),
            (QUEUE_MAPPINGS_OVERRIDE_KEY, "yes"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        assert!(
            CapacitySchedulerConfiguration::new(properties.clone(), SchedulerSettings::default())
                .is_err()
        );
        let committed =
            CapacitySchedulerConfiguration::committed(properties, SchedulerSettings::default())
                .expect("a committed configuration keeps scheduling");
        assert_eq!(
            committed.placement_rules().rules.len(),
            2,
            "the rule whose queue went is kept"
        );
        assert_eq!(
            place(&committed, "alice", &[], "x", ""),
            Ok(Placement::Fallback {
                queue: "root.default".to_owned(),
                rule: "u:alice:gone".to_owned(),
                reason: "Queue 'gone' specified in mapping rule does not exist.".to_owned(),
            }),
            "and falls back as Hadoop's would"
        );
        let warned: Vec<&String> = committed
            .warnings()
            .iter()
            .filter(|w| w.contains("'gone'") || w.contains(QUEUE_MAPPINGS_OVERRIDE_KEY))
            .collect();
        assert_eq!(warned.len(), 2, "{:?}", committed.warnings());
    }

    #[test]
    fn a_committed_configuration_keeps_scheduling_whatever_its_rules_say() {
        let committed = |extra: &[(&str, &str)]| {
            let mut properties: BTreeMap<String, String> = [
                ("yarn.scheduler.capacity.root.queues", "default"),
                ("yarn.scheduler.capacity.root.default.capacity", "100"),
            ]
            .into_iter()
            .chain(extra.iter().copied())
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
            let refused = CapacitySchedulerConfiguration::new(
                properties.clone(),
                SchedulerSettings::default(),
            )
            .is_err();
            properties.insert(QUEUE_MAPPINGS_KEY.to_owned(), "u:%user:default".to_owned());
            let conf =
                CapacitySchedulerConfiguration::committed(properties, SchedulerSettings::default())
                    .expect("a committed configuration loads");
            (refused, conf)
        };
        // Blank and any case of legacy are the legacy format, as before JSON rules.
        for format in ["", " Legacy "] {
            let (refused, conf) = committed(&[(MAPPING_RULE_FORMAT_KEY, format)]);
            assert!(!refused, "{format:?}");
            assert_eq!(conf.placement_rules().rules.len(), 1, "{format:?}");
        }
        let (refused, conf) = committed(&[(MAPPING_RULE_FORMAT_KEY, "yaml")]);
        assert!(refused);
        assert_eq!(conf.placement_rules().rules.len(), 1, "taken as legacy");
        for document in ["{\"rules\": [", "{\"rules\": [{\"type\": \"user\"}]}"] {
            let (refused, conf) = committed(&[
                (MAPPING_RULE_FORMAT_KEY, "JSON"),
                (MAPPING_RULE_JSON_KEY, document),
            ]);
            assert!(refused, "{document}");
            assert!(conf.placement_rules().rules.is_empty(), "{document}");
            assert!(
                conf.warnings()
                    .iter()
                    .any(|w| w.contains("no rule applies")),
                "{:?}",
                conf.warnings()
            );
        }
    }

    #[test]
    fn application_rules_come_after_user_rules_and_override_places_named_queues() {
        let conf = conf(
            "u:carol:marketing",
            Some("etl:eng,%application:%application"),
            true,
        )
        .unwrap();
        assert_eq!(
            place(&conf, "carol", &[], "etl", "eng"),
            placed("root.marketing", "u:carol:marketing"),
            "override: a named queue is mapped too"
        );
        assert_eq!(
            place(&conf, "alice", &[], "etl", "default"),
            placed("root.eng", "etl:eng")
        );
        assert_eq!(
            place(&conf, "alice", &[], "marketing", "default"),
            placed("root.marketing", "%application:%application")
        );
        let Ok(Placement::Fallback { reason, .. }) = place(&conf, "alice", &[], "a.b", "") else {
            panic!("an application name is not cleaned: a.b names a queue path");
        };
        assert!(
            reason.contains("parent queue 'root.a'") && reason.contains("name 'b'"),
            "{reason}"
        );
        let none = conf_with("");
        assert!(none.placement_rules().rules.is_empty());
        assert_eq!(
            place(&none, "alice", &[], "x", ""),
            Ok(Placement::AsSubmitted)
        );
    }

    #[test]
    fn bad_entries_and_missing_static_queues_are_refused_by_key_and_entry() {
        let refusal = |mappings: &str, app_names: Option<&str>| {
            conf(mappings, app_names, false).unwrap_err().to_string()
        };
        assert_eq!(
            refusal("u:alice:eng,x:a:b", None),
            format!("key {QUEUE_MAPPINGS_KEY}: mapping \"x:a:b\": unknown mapping prefix x")
        );
        assert!(refusal("u:alice", None).ends_with("Illegal queue mapping u:alice"));
        assert!(refusal("u::eng", None).ends_with("Illegal queue mapping u::eng"));
        assert_eq!(
            refusal("", Some("a:b:c")),
            format!("key {APP_NAME_MAPPINGS_KEY}: mapping \"a:b:c\": Illegal queue mapping a:b:c")
        );
        assert!(
            refusal("u:alice:nosuch", None)
                .ends_with("Queue 'nosuch' specified in mapping rule does not exist.")
        );
        assert!(refusal("g:staff:users", None).contains("non-leaf queue 'root.users'"));
        // Repeated and empty entries are dropped, as Hadoop drops them.
        let conf = conf_with(" u:alice:eng, ,u:alice:eng,");
        assert_eq!(conf.placement_rules().rules.len(), 1);
    }
}
