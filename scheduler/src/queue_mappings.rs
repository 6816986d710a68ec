//! [`QueueMappings`]: Hadoop's legacy placement rules, which send an application to a queue by
//! its user, its groups or its name (`yarn.scheduler.capacity.queue-mappings` and
//! `yarn.scheduler.queue-placement-rules.app-name`).

use crate::CapacitySchedulerConfiguration;
use crate::error::SchedulerError;

/// `u:name:queue` and `g:name:queue` entries, comma-separated, tried in order.
pub const QUEUE_MAPPINGS_KEY: &str = "yarn.scheduler.capacity.queue-mappings";
/// Whether mappings also apply to a submission that names a queue other than `default`.
pub const QUEUE_MAPPINGS_OVERRIDE_KEY: &str =
    "yarn.scheduler.capacity.queue-mappings-override.enable";
/// `name:queue` entries by application name, tried after the user and group entries (a
/// `yarn-site.xml` key).
pub const APP_NAME_MAPPINGS_KEY: &str = "yarn.scheduler.queue-placement-rules.app-name";

/// The queue a submission that names none is in, and where a rule whose queue is unusable
/// sends an application.
const DEFAULT_QUEUE: &str = "default";
const DEFAULT_QUEUE_PATH: &str = "root.default";
/// Hadoop's refusal when even that fallback is unusable.
const REJECTED: &str =
    "Application submission have been rejected by a mapping rule. Please see the logs for details";

/// The legacy placement rules, as Hadoop 3.4 evaluates them (`CSMappingPlacementRule` with
/// rules converted from the legacy format).
///
/// Rules apply only to a submission that names no queue or `default`, unless
/// `queue-mappings-override.enable` is true. The first rule whose source matches the
/// submission decides: a user rule matches its user (`%user` matches every user), a group rule
/// any group of the user, an application rule the application's name (`%application` every
/// name). Its queue, after substituting `%user`, `%primary_group` (the user's first group),
/// `%secondary_group` (the first of the others for which the queue exists; a `.` in a user or
/// group name becomes `_dot_`) and `%application`, must be an existing leaf, by full path or
/// by an unambiguous short name; otherwise the application goes to `root.default`, the legacy
/// rules' fallback, and is refused only if that is unusable too. When no rule matches, the
/// application runs in the queue it named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueMappings {
    rules: Vec<MappingRule>,
    override_specified: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct MappingRule {
    /// The entry as written, to name the rule that placed an application.
    entry: String,
    source: Source,
    queue: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    AnyUser,
    User(String),
    Group(String),
    AnyApplication,
    Application(String),
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
        /// The rule's entry.
        rule: String,
    },
    /// A rule matched but its queue is unusable: the application goes to `root.default`.
    Fallback {
        /// `root.default`.
        queue: String,
        /// The rule's entry.
        rule: String,
        /// Why its queue is unusable.
        reason: String,
    },
}

impl QueueMappings {
    /// Parses `queue_mappings` (`[u|g]:name:queue` entries) and `app_name_mappings`
    /// (`name:queue` entries), each comma-separated, trimmed, empty and repeated entries
    /// dropped as Hadoop drops them, and checks that every queue named without a variable is an
    /// existing leaf of `conf`. With `dropped`, for rules already in force, a rule that fails
    /// is left out with a warning there instead, and the others stay.
    ///
    /// # Errors
    ///
    /// Without `dropped`, [`SchedulerError::QueueMapping`] naming the key, the entry and
    /// Hadoop's reason (`Illegal queue mapping`, `unknown mapping prefix`, or the queue that
    /// does not exist).
    pub fn parse(
        queue_mappings: Option<&str>,
        app_name_mappings: Option<&str>,
        override_specified: bool,
        conf: &CapacitySchedulerConfiguration,
        dropped: Option<&mut Vec<String>>,
    ) -> Result<Self, SchedulerError> {
        let mut rules = Vec::new();
        let mut dropped = dropped;
        for (key, value, application) in [
            (QUEUE_MAPPINGS_KEY, queue_mappings, false),
            (APP_NAME_MAPPINGS_KEY, app_name_mappings, true),
        ] {
            for entry in entries(value.unwrap_or_default()) {
                let checked = parse_entry(entry, application).and_then(|rule| {
                    if !rule.queue.contains('%') {
                        leaf_path(conf, &rule.queue)?;
                    }
                    Ok(rule)
                });
                let refusal = match checked {
                    Ok(rule) => {
                        rules.push(rule);
                        continue;
                    }
                    Err(reason) => SchedulerError::QueueMapping {
                        key,
                        entry: entry.to_owned(),
                        reason,
                    },
                };
                match dropped.as_deref_mut() {
                    Some(warnings) => warnings.push(format!(
                        "{refusal}; the rule is left out until a refresh settles it"
                    )),
                    None => return Err(refusal),
                }
            }
        }
        Ok(Self {
            rules,
            override_specified,
        })
    }

    /// Whether there is no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Where `submission` goes under the queues of `conf` (see the type).
    ///
    /// # Errors
    ///
    /// Hadoop's refusal when a matching rule's queue and the `root.default` fallback are both
    /// unusable.
    pub fn place(
        &self,
        conf: &CapacitySchedulerConfiguration,
        submission: &Submission<'_>,
    ) -> Result<Placement, String> {
        let named = submission.queue.trim();
        if !named.is_empty() && named != DEFAULT_QUEUE && !self.override_specified {
            return Ok(Placement::AsSubmitted);
        }
        let Some(rule) = self.rules.iter().find(|rule| rule.matches(submission)) else {
            return Ok(Placement::AsSubmitted);
        };
        let rule_name = rule.entry.clone();
        match rule
            .target(conf, submission)
            .and_then(|queue| leaf_path(conf, &queue))
        {
            Ok(queue) => Ok(Placement::Placed {
                queue,
                rule: rule_name,
            }),
            Err(reason) => match leaf_path(conf, DEFAULT_QUEUE_PATH) {
                Ok(queue) => Ok(Placement::Fallback {
                    queue,
                    rule: rule_name,
                    reason,
                }),
                Err(_) => Err(format!("{REJECTED} ({rule_name}: {reason})")),
            },
        }
    }
}

impl MappingRule {
    fn matches(&self, submission: &Submission<'_>) -> bool {
        match &self.source {
            Source::AnyUser | Source::AnyApplication => true,
            Source::User(user) => user == submission.user,
            Source::Group(group) => submission.groups.iter().any(|g| g == group),
            Source::Application(name) => name == submission.application_name,
        }
    }

    /// The queue path the rule names for `submission`, its variables substituted.
    fn target(
        &self,
        conf: &CapacitySchedulerConfiguration,
        submission: &Submission<'_>,
    ) -> Result<String, String> {
        let mut parts: Vec<String> = Vec::new();
        for part in self.queue.split('.') {
            let value = match part {
                "%user" => clean(submission.user),
                // Hadoop cleans only user and group names.
                "%application" => submission.application_name.to_owned(),
                "%primary_group" => submission
                    .groups
                    .first()
                    .map(|g| clean(g))
                    .unwrap_or_default(),
                "%secondary_group" => {
                    let prefix = parts.join(".");
                    submission
                        .groups
                        .iter()
                        .skip(1)
                        .map(|group| clean(group))
                        .find(|group| {
                            let path = if prefix.is_empty() {
                                group.clone()
                            } else {
                                format!("{prefix}.{group}")
                            };
                            conf.resolve(&path).is_ok()
                        })
                        .unwrap_or_default()
                }
                literal => literal.to_owned(),
            };
            parts.push(value);
        }
        let path = parts.join(".");
        if parts.iter().any(String::is_empty) {
            return Err(format!("Invalid path returned by rule: '{path}'"));
        }
        Ok(path)
    }
}

/// Checks the syntax of the application-name rules `value` (the `yarn-site.xml` key), which a
/// daemon does at start-up: their queues are checked against the queues in force.
///
/// # Errors
///
/// [`SchedulerError::QueueMapping`] for the first malformed entry.
pub(crate) fn check_app_name_entries(value: &str) -> Result<(), SchedulerError> {
    for entry in entries(value) {
        parse_entry(entry, true).map_err(|reason| SchedulerError::QueueMapping {
            key: APP_NAME_MAPPINGS_KEY,
            entry: entry.to_owned(),
            reason,
        })?;
    }
    Ok(())
}

/// The entries of a mapping value: comma-separated, trimmed, empty and repeated ones dropped.
fn entries(value: &str) -> Vec<&str> {
    let mut seen = Vec::new();
    for entry in value.split(',').map(str::trim) {
        if !entry.is_empty() && !seen.contains(&entry) {
            seen.push(entry);
        }
    }
    seen
}

fn parse_entry(entry: &str, application: bool) -> Result<MappingRule, String> {
    let parts: Vec<&str> = entry
        .split(':')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    let illegal = || format!("Illegal queue mapping {entry}");
    let rule = |source, queue: &str| MappingRule {
        entry: entry.to_owned(),
        source,
        queue: queue.to_owned(),
    };
    if application {
        let [name, queue] = parts[..] else {
            return Err(illegal());
        };
        let source = if name == "%application" {
            Source::AnyApplication
        } else {
            Source::Application(name.to_owned())
        };
        return Ok(rule(source, queue));
    }
    let [kind, name, queue] = parts[..] else {
        return Err(illegal());
    };
    let source = match kind {
        "u" if name == "%user" => Source::AnyUser,
        "u" => Source::User(name.to_owned()),
        "g" => Source::Group(name.to_owned()),
        other => return Err(format!("unknown mapping prefix {other}")),
    };
    Ok(rule(source, queue))
}

/// The full path of the leaf `name` names (a full path, or an unambiguous short name), or why
/// no application can be placed there, in Hadoop's words.
fn leaf_path(conf: &CapacitySchedulerConfiguration, name: &str) -> Result<String, String> {
    // A path whose first queue is named short (`users.%user`) starts from that queue's full
    // path, when the short name is unambiguous (Hadoop's `normalizeQueuePathRoot`).
    let normalized = match name.split_once('.') {
        Some((first, rest)) if conf.resolve(name).is_err() => conf.resolve(first).map_or_else(
            |_| name.to_owned(),
            |queue| format!("{}.{rest}", queue.path),
        ),
        _ => name.to_owned(),
    };
    match conf.resolve(&normalized) {
        Ok(queue) if queue.children.is_empty() => Ok(queue.path.clone()),
        Ok(queue) => Err(format!(
            "Mapping rule returned a non-leaf queue '{}', cannot place application in it.",
            queue.path
        )),
        Err(candidates) if candidates.is_empty() => Err(format!(
            "Queue '{name}' specified in mapping rule does not exist."
        )),
        Err(_) => Err(format!(
            "Queue '{name}' specified in mapping rule is ambiguous"
        )),
    }
}

/// A user or group name as a queue name: Hadoop's `cleanName`.
fn clean(name: &str) -> String {
    name.replace('.', "_dot_")
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
        conf.queue_mappings().place(
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
    fn a_committed_rule_whose_queue_went_is_dropped_with_a_warning() {
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
            committed.queue_mappings().rules.len(),
            1,
            "only the rule whose queue went is left out"
        );
        let warned: Vec<&String> = committed
            .warnings()
            .iter()
            .filter(|w| w.contains("'gone'") || w.contains(QUEUE_MAPPINGS_OVERRIDE_KEY))
            .collect();
        assert_eq!(warned.len(), 2, "{:?}", committed.warnings());
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
        assert!(reason.contains("'a.b'"), "{reason}");
        let none = conf_with("");
        assert!(none.queue_mappings().is_empty());
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
        assert_eq!(conf.queue_mappings().rules.len(), 1);
    }
}
