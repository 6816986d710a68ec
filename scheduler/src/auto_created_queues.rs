//! Hadoop's flexible ("v2") auto-creation of queues: which parents may create queues under
//! them ([`AutoQueueCreation`]), what a created queue is configured with (its parent's
//! templates, [`expand`]), and which queues a submission to a missing path creates
//! ([`queues_to_create`]).
//!
//! A dynamic queue is configured by properties like any other: [`expand`] writes, for each
//! one, its name into its parent's `queues` list and its parent's templates under its own
//! path, so the configuration that results is built and validated by the one tree builder.
//! The replicated state keeps only the dynamic queues' paths.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::CapacitySchedulerConfiguration;
use crate::capacity_scheduler_configuration::ROOT;
use crate::error::SchedulerError;
use crate::managed_parent_queues::{self, activation_fits, managed_parent_of};
use crate::property_reader::{PREFIX, PropertyReader};

/// What stands between a queue path and an auto-creation key.
pub(crate) const INFIX: &str = ".auto-queue-creation-v2.";
/// `<queue-path>.auto-queue-creation-v2.enabled`: the queue may create queues under it.
const ENABLED: &str = "enabled";
/// `<queue-path>.auto-queue-creation-v2.max-queues`: how many children (configured and
/// created) the queue may have before it creates no more.
const MAX_QUEUES: &str = "max-queues";
/// `<queue-path>.auto-queue-creation-v2.maximum-queue-depth`, also global: how many levels of
/// queues one submission may create under the queue.
const MAXIMUM_QUEUE_DEPTH: &str = "maximum-queue-depth";
/// `<queue-path>.auto-queue-creation-v2.queue-auto-removal.enable`: whether the queue, when
/// created, is removed once unused.
const AUTO_REMOVAL: &str = "queue-auto-removal.enable";
/// The template kinds, after [`INFIX`]: for every created child, for leaves, for parents.
const TEMPLATES: [&str; 3] = ["template.", "leaf-template.", "parent-template."];
/// The properties that make a queue a leaf or a parent, which no template (flexible or a
/// managed parent's) sets: a created queue is what the submission created it as.
pub(crate) const KIND_PROPERTIES: [&str; 3] = [
    "queues",
    "auto-queue-creation-v2.enabled",
    "auto-create-child-queue.enabled",
];
/// How long a created queue stays unused before it is removed, in seconds.
pub const QUEUE_EXPIRATION_TIME_KEY: &str =
    "yarn.scheduler.capacity.auto-queue-creation-v2.queue-expiration-time";
/// Hadoop's default of [`MAX_QUEUES`].
const DEFAULT_MAX_QUEUES: u32 = 1000;
/// Hadoop's default of [`MAXIMUM_QUEUE_DEPTH`].
const DEFAULT_MAXIMUM_QUEUE_DEPTH: u32 = 2;
/// Hadoop's default of [`QUEUE_EXPIRATION_TIME_KEY`].
const DEFAULT_QUEUE_EXPIRATION_SECONDS: u64 = 300;
/// Hadoop's weight of a created queue whose templates set no capacity.
const DYNAMIC_CAPACITY: &str = "1w";

/// How a queue came to be, as Hadoop's REST API names it (`creationMethod`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CreationMethod {
    /// Configured in the file (or the mutation API).
    #[default]
    Static,
    /// Created by a submission under a parent with flexible auto-creation.
    DynamicFlexible,
    /// Created by a submission under a managed parent (legacy auto-creation).
    DynamicLegacy,
}

impl CreationMethod {
    /// Hadoop's name: `static`, `dynamicFlexible` or `dynamicLegacy`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Static => "static",
            Self::DynamicFlexible => "dynamicFlexible",
            Self::DynamicLegacy => "dynamicLegacy",
        }
    }
}

/// What a submission created a queue as; a created parent stays one when its children go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum CreatedAs {
    /// A leaf, which takes applications; under a managed parent, one that holds no capacity
    /// (Hadoop's deactivated leaf).
    Leaf,
    /// A parent, which creates queues itself.
    Parent,
    /// A leaf under a managed parent that holds its template's capacity (Hadoop's activated
    /// leaf).
    GuaranteedLeaf,
}

impl CreatedAs {
    /// Whether the queue takes applications.
    pub fn is_leaf(self) -> bool {
        self != Self::Parent
    }
}

/// The queues submissions created, by full path.
pub type CreatedQueues = BTreeMap<String, CreatedAs>;

/// `created` (full paths, parents first, the leaf last) with what each was created as.
pub fn created_queues(created: &[String]) -> CreatedQueues {
    let leaf = created.len().saturating_sub(1);
    created
        .iter()
        .enumerate()
        .map(|(index, path)| {
            let kind = if index == leaf {
                CreatedAs::Leaf
            } else {
                CreatedAs::Parent
            };
            (path.clone(), kind)
        })
        .collect()
}

/// A parent's flexible auto-creation settings; a queue without them creates nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoQueueCreation {
    /// At most this many children, configured and created together.
    pub max_queues: u32,
    /// At most this many levels created by one submission under this queue.
    pub maximum_queue_depth: u32,
}

impl AutoQueueCreation {
    /// The settings of the queue at `path`, `None` unless `enabled` is true.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] for a value that does not parse.
    pub(crate) fn read(
        reader: &PropertyReader<'_>,
        path: &str,
    ) -> Result<Option<Self>, SchedulerError> {
        if reader.boolean(&queue_key(path, ENABLED))? != Some(true) {
            return Ok(None);
        }
        let count = "a non-negative 32-bit integer";
        let max_queues = reader
            .parse::<u32>(&queue_key(path, MAX_QUEUES), count)?
            .unwrap_or(DEFAULT_MAX_QUEUES);
        let depth = reader.parse::<u32>(&queue_key(path, MAXIMUM_QUEUE_DEPTH), count)?;
        let global = reader.parse::<u32>(
            &format!("{PREFIX}{}{MAXIMUM_QUEUE_DEPTH}", &INFIX[1..]),
            count,
        )?;
        Ok(Some(Self {
            max_queues,
            maximum_queue_depth: depth.or(global).unwrap_or(DEFAULT_MAXIMUM_QUEUE_DEPTH),
        }))
    }
}

/// The created queues among `dynamic` that are never removed, under the configuration
/// `properties`: those whose `<path>.auto-queue-creation-v2.queue-auto-removal.enable` (which
/// their parent's templates may set) is false, or whose parent's is. A value that does not
/// parse keeps its queue too (it was refused when committed).
pub fn kept_from_removal(
    properties: &BTreeMap<String, String>,
    dynamic: &CreatedQueues,
) -> BTreeSet<String> {
    let expanded = expand(properties, dynamic).0;
    let reader = PropertyReader::new(&expanded);
    let removable = |path: &str| {
        reader
            .boolean(&queue_key(path, AUTO_REMOVAL))
            .map(|enabled| enabled.unwrap_or(true))
            .unwrap_or(false)
    };
    // A managed parent's leaves are never removed, as in Hadoop (a parent created under a
    // queue made a managed parent since is, or it would hold its name forever).
    dynamic
        .iter()
        .filter(|&(path, kind)| {
            let parent = path.rsplit_once('.').map_or("", |(parent, _)| parent);
            let managed_leaf = kind.is_leaf() && managed_parent_of(properties, path).is_some();
            !removable(path) || !removable(parent) || managed_leaf
        })
        .map(|(path, _)| path.clone())
        .collect()
}

/// How long a created queue stays unused before it is removed
/// ([`QUEUE_EXPIRATION_TIME_KEY`], in seconds, 300 unless set), under the configuration
/// `properties`.
///
/// # Errors
///
/// [`SchedulerError::InvalidValue`] for a value that is not a positive number of seconds.
pub fn queue_expiration(properties: &BTreeMap<String, String>) -> Result<Duration, SchedulerError> {
    let reader = PropertyReader::new(properties);
    match reader.parse::<u64>(QUEUE_EXPIRATION_TIME_KEY, "a positive number of seconds")? {
        None => Ok(Duration::from_secs(DEFAULT_QUEUE_EXPIRATION_SECONDS)),
        Some(0) => Err(crate::property_reader::invalid(
            QUEUE_EXPIRATION_TIME_KEY,
            "0",
            "a positive number of seconds",
        )),
        Some(seconds) => Ok(Duration::from_secs(seconds)),
    }
}

/// `yarn.scheduler.capacity.<path>.auto-queue-creation-v2.<suffix>`.
fn queue_key(path: &str, suffix: &str) -> String {
    format!("{PREFIX}{path}{INFIX}{suffix}")
}

/// Whether the scheduler reads `rest` (a key after [`PREFIX`]) as an auto-creation key: a
/// queue's settings, the global depth and expiry, or a template entry of a property that
/// `is_queue_key` says the scheduler reads for a queue (`is_queue_key` gets the property as
/// a key of `root`).
pub(crate) fn is_auto_creation_key(rest: &str, is_queue_key: impl Fn(&str) -> bool) -> bool {
    let global = &INFIX[1..];
    if let Some(setting) = rest.strip_prefix(global) {
        return setting == MAXIMUM_QUEUE_DEPTH
            || rest == &QUEUE_EXPIRATION_TIME_KEY[PREFIX.len()..];
    }
    let Some((path, setting)) = rest.split_once(INFIX) else {
        return false;
    };
    if path.split('.').next() != Some(ROOT) {
        return false;
    }
    if [ENABLED, MAX_QUEUES, MAXIMUM_QUEUE_DEPTH, AUTO_REMOVAL].contains(&setting) {
        return !path.split('.').any(|part| part == "*");
    }
    TEMPLATES.iter().any(|template| {
        setting.strip_prefix(template).is_some_and(|property| {
            !KIND_PROPERTIES.contains(&property)
                && is_queue_key(&format!("{PREFIX}{ROOT}.{property}"))
        })
    })
}

/// The queue path a per-queue auto-creation setting configures (`None` for templates, which
/// may name queues by wildcard, and for other keys).
pub(crate) fn configured_parent(key: &str) -> Option<&str> {
    let (path, setting) = key.strip_prefix(PREFIX)?.split_once(INFIX)?;
    [ENABLED, MAX_QUEUES, MAXIMUM_QUEUE_DEPTH, AUTO_REMOVAL]
        .contains(&setting)
        .then_some(path)
}

/// `properties` with the dynamic queues `dynamic` configured (see the module), and the
/// dynamic queues left out because no parent can hold them (the parent is gone, or no longer
/// creates queues), each with why.
///
/// A leaf of a managed parent gets its parent's `leaf-queue-template.*` entries, with no
/// capacity unless it is a [`CreatedAs::GuaranteedLeaf`] within its parent's
/// [`activated_limit`](managed_parent_queues::ManagedParent::activated_limit) (counted in path
/// order, so that a template capacity raised since keeps the parent's leaves within it).
/// Otherwise a created queue gets, in rising precedence, weight `1w` and, for a leaf,
/// `user-limit-factor` -1 and `maximum-am-resource-percent` 1.0 (Hadoop's settings for a
/// dynamic leaf); its parent's `template.*` entries, those of wildcard paths (`root.a.*` for
/// the parent `root.a.b`) before the exact ones; then its parent's `leaf-template.*` or
/// `parent-template.*` entries in the same order. A created parent creates queues itself.
pub(crate) fn expand(
    properties: &BTreeMap<String, String>,
    dynamic: &CreatedQueues,
) -> (BTreeMap<String, String>, Vec<(String, String)>) {
    let mut expanded = properties.clone();
    let mut dropped: Vec<(String, String)> = Vec::new();
    let mut placed: BTreeSet<&str> = BTreeSet::new();
    let mut activated: BTreeMap<&str, usize> = BTreeMap::new();
    // A parent's path is a prefix of its children's and sorts first.
    for (path, kind) in dynamic {
        let Some((parent, name)) = path.rsplit_once('.') else {
            dropped.push((path.clone(), "root is never created".to_owned()));
            continue;
        };
        if listed_in_file(properties, path) {
            // The configured queue wins, as in Hadoop, where such a queue becomes static.
            placed.insert(path);
            continue;
        }
        let reader = PropertyReader::new(&expanded);
        let parent_listed =
            parent == ROOT || placed.contains(parent) || parent_is_configured(&reader, parent);
        let creates = reader.boolean(&queue_key(parent, ENABLED)).ok().flatten() == Some(true);
        let managed = managed_parent_queues::managed_parent_of(&expanded, path);
        if !parent_listed || !(creates || managed.is_some()) {
            dropped.push((
                path.clone(),
                format!("its parent {parent} no longer creates queues"),
            ));
            continue;
        }
        let own = |suffix: &str| format!("{PREFIX}{path}.{suffix}");
        if let Some((_, settings)) = managed {
            if !kind.is_leaf() {
                dropped.push((
                    path.clone(),
                    format!("its parent {parent} is a managed parent, which creates only leaves"),
                ));
                continue;
            }
            let count = activated.entry(parent).or_default();
            let holds = *kind == CreatedAs::GuaranteedLeaf && *count < settings.activated_limit;
            *count += usize::from(holds);
            list_child(&mut expanded, parent, name);
            for (property, value) in
                managed_parent_queues::leaf_properties(&expanded, parent, holds)
            {
                expanded.insert(own(&property), value);
            }
            placed.insert(path);
            continue;
        }
        let leaf = kind.is_leaf();
        let entries = template_entries(&expanded, parent, leaf);
        list_child(&mut expanded, parent, name);
        expanded.insert(own("capacity"), DYNAMIC_CAPACITY.to_owned());
        if leaf {
            expanded.insert(own("user-limit-factor"), "-1".to_owned());
            expanded.insert(own("maximum-am-resource-percent"), "1.0".to_owned());
        } else {
            expanded.insert(queue_key(path, ENABLED), "true".to_owned());
        }
        for (property, value) in entries {
            expanded.insert(own(&property), value);
        }
        placed.insert(path);
    }
    (expanded, dropped)
}

/// Adds `name` to the `queues` list of `parent` in `properties`.
fn list_child(properties: &mut BTreeMap<String, String>, parent: &str, name: &str) {
    let queues_key = format!("{PREFIX}{parent}.queues");
    let listed = match properties.get(&queues_key).map(|v| v.trim()) {
        Some(list) if !list.is_empty() => format!("{list},{name}"),
        _ => name.to_owned(),
    };
    properties.insert(queues_key, listed);
}

/// Whether `properties` list the queue at `path` in its parent's `queues`: a created queue the
/// file configures since.
pub(crate) fn listed_in_file(properties: &BTreeMap<String, String>, path: &str) -> bool {
    let Some((parent, name)) = path.rsplit_once('.') else {
        return false;
    };
    PropertyReader::new(properties)
        .get(&format!("{PREFIX}{parent}.queues"))
        .is_some_and(|list| list.split(',').any(|child| child.trim() == name))
}

/// Whether `parent` is reached from root by the `queues` lists of `reader`.
fn parent_is_configured(reader: &PropertyReader<'_>, parent: &str) -> bool {
    let mut path = ROOT.to_owned();
    for part in parent.split('.').skip(1) {
        let listed = reader
            .get(&format!("{PREFIX}{path}.queues"))
            .is_some_and(|list| list.split(',').any(|child| child.trim() == part));
        if !listed {
            return false;
        }
        path = format!("{path}.{part}");
    }
    parent.split('.').next() == Some(ROOT)
}

/// The template entries (property after the queue path, value) a child of `parent` gets, in
/// rising precedence (see [`expand`]).
fn template_entries(
    properties: &BTreeMap<String, String>,
    parent: &str,
    leaf: bool,
) -> Vec<(String, String)> {
    let parts: Vec<&str> = parent.split('.').collect();
    // Root is never a wildcard: the patterns from the most wildcards to none.
    let patterns: Vec<String> = (0..parts.len())
        .rev()
        .map(|wildcards| {
            let fixed = parts.len() - wildcards;
            parts[..fixed]
                .iter()
                .copied()
                .chain(std::iter::repeat_n("*", wildcards))
                .collect::<Vec<_>>()
                .join(".")
        })
        .filter(|pattern| pattern.starts_with(ROOT))
        .collect();
    let own_kind = if leaf { TEMPLATES[1] } else { TEMPLATES[2] };
    let mut entries = Vec::new();
    for kind in [TEMPLATES[0], own_kind] {
        for pattern in &patterns {
            let prefix = format!("{PREFIX}{pattern}{INFIX}{kind}");
            entries.extend(
                template_properties(properties, &prefix)
                    .map(|(property, value)| (property.to_owned(), value.to_owned())),
            );
        }
    }
    entries
}

/// The `(property, value)` pairs of the template whose keys begin with `prefix`, in key order:
/// every property but the [`KIND_PROPERTIES`].
pub(crate) fn template_properties<'a>(
    properties: &'a BTreeMap<String, String>,
    prefix: &'a str,
) -> impl Iterator<Item = (&'a str, &'a str)> {
    properties
        .range::<str, _>((
            std::ops::Bound::Included(prefix),
            std::ops::Bound::Unbounded,
        ))
        .map_while(move |(key, value)| Some((key.strip_prefix(prefix)?, value.as_str())))
        .filter(|(property, _)| !property.is_empty() && !KIND_PROPERTIES.contains(property))
}

/// Why a submission to a missing queue creates nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreationRefused {
    /// No queue on the path creates queues: the path is simply unknown.
    NotDynamic,
    /// A queue on the path creates queues, but not this one: Hadoop's reason.
    Refused(String),
}

/// The queues, parents first and the new leaf last, a submission to the full path `path`
/// creates, after the created queues above them, which it names again; none when `path` is a
/// leaf already.
///
/// The deepest existing queue on the path must create queues (flexible auto-creation
/// enabled, or itself created) and have fewer children than its `max-queues`, and the levels
/// below the first configured queue up the path must number at most that queue's
/// `maximum-queue-depth`; or it must be a managed parent and the path one leaf below it.
///
/// # Errors
///
/// [`CreationRefused::NotDynamic`] when that queue creates no queues, the path is not a full
/// path from root, or it names an existing parent; [`CreationRefused::Refused`] with the reason when it does but may
/// not create these: a limit is reached, the path runs through a leaf, or a name is invalid.
pub fn queues_to_create(
    conf: &CapacitySchedulerConfiguration,
    path: &str,
) -> Result<Vec<String>, CreationRefused> {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.first() != Some(&ROOT) || parts.len() < 2 {
        return Err(CreationRefused::NotDynamic);
    }
    if let Some(queue) = conf.queue(path) {
        // A parent is refused where it always was: at admission, or by the placement rule.
        return if queue.is_leaf() {
            Ok(Vec::new())
        } else {
            Err(CreationRefused::NotDynamic)
        };
    }
    let existing = (1..parts.len())
        .rev()
        .map(|end| parts[..end].join("."))
        .find(|candidate| conf.queue(candidate).is_some())
        .unwrap_or_else(|| ROOT.to_owned());
    let Some(parent) = conf.queue(&existing) else {
        return Err(CreationRefused::NotDynamic);
    };
    if let Some(settings) = parent.managed_parent {
        match &parts[existing.split('.').count()..] {
            [name] if valid_queue_name(name) => {}
            [name] => return Err(invalid_name(path, name)),
            _ => {
                return Err(CreationRefused::Refused(format!(
                    "Cannot auto create queue {path}: {existing} is a managed parent \
                     (auto-create-child-queue.enabled), which creates leaves directly under it \
                     only"
                )));
            }
        }
        let children = u32::try_from(parent.children.len()).unwrap_or(u32::MAX);
        if children >= settings.max_queues {
            return Err(CreationRefused::Refused(format!(
                "Cannot auto create queue {path}: {existing} has {children} leaves, at least \
                 its auto-create-child-queue.max-queues ({})",
                settings.max_queues
            )));
        }
        if settings.fail_on_exceeding_parent_capacity
            && !activation_fits(conf.properties(), conf.dynamic_queues(), path)
        {
            return Err(CreationRefused::Refused(format!(
                "Cannot auto create queue {path}: it could not hold its template's capacity \
                 beside the leaves of {existing} that hold theirs, and {existing}'s \
                 auto-create-child-queue.fail-on-exceeding-parent-capacity is true"
            )));
        }
        return Ok(vec![path.to_owned()]);
    }
    let Some(own) = parent.auto_queue_creation else {
        return Err(CreationRefused::NotDynamic);
    };
    // The depth counts from the first configured queue up the path, as Hadoop counts it:
    // created parents on the way count too.
    let mut configured = parent;
    while configured.creation_method == CreationMethod::DynamicFlexible {
        match configured.parent.as_deref().and_then(|up| conf.queue(up)) {
            Some(up) => configured = up,
            None => break,
        }
    }
    let maximum_queue_depth = configured
        .auto_queue_creation
        .map_or(own.maximum_queue_depth, |creation| {
            creation.maximum_queue_depth
        });
    let missing = &parts[existing.split('.').count()..];
    if let Some(bad) = missing.iter().find(|part| !valid_queue_name(part)) {
        return Err(invalid_name(path, bad));
    }
    let below = parts.len() - configured.path.split('.').count();
    let depth = u32::try_from(below).unwrap_or(u32::MAX);
    if depth > maximum_queue_depth {
        return Err(CreationRefused::Refused(format!(
            "Cannot auto create queue {path}: it is {depth} levels below {}, whose \
             auto-queue-creation-v2.maximum-queue-depth is {maximum_queue_depth}",
            configured.path
        )));
    }
    let children = u32::try_from(parent.children.len()).unwrap_or(u32::MAX);
    if children >= own.max_queues {
        return Err(CreationRefused::Refused(format!(
            "Cannot auto create queue {path}. Max Child Queue limit exceeded which is \
             configured as: {} and number of child queues is: {children}",
            own.max_queues
        )));
    }
    // The created queues above are named again, so that a removal committed before the
    // submission cannot leave the new leaf without its parent.
    let named_again = conf
        .ancestry(&existing)
        .into_iter()
        .filter(|queue| queue.creation_method == CreationMethod::DynamicFlexible)
        .map(|queue| queue.path.clone());
    Ok(named_again
        .chain(
            (1..=missing.len())
                .map(|levels| parts[..existing.split('.').count() + levels].join(".")),
        )
        .collect())
}

/// The refusal of `path` for its part `bad`, which [`valid_queue_name`] refuses.
fn invalid_name(path: &str, bad: &str) -> CreationRefused {
    CreationRefused::Refused(format!(
        "Cannot auto create queue {path}: '{bad}' is not a valid queue name (it is empty or \
         holds whitespace)"
    ))
}

/// Hadoop's rule for a queue name: not empty, no whitespace (dots split the path already).
fn valid_queue_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn properties(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
        entries
            .iter()
            .map(|(key, value)| (format!("{PREFIX}{key}"), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn a_created_leaf_is_listed_and_takes_its_parents_templates_by_precedence() {
        let props = properties(&[
            ("root.queues", "users"),
            ("root.users.auto-queue-creation-v2.enabled", "true"),
            (
                "root.*.auto-queue-creation-v2.template.maximum-capacity",
                "50",
            ),
            (
                "root.users.auto-queue-creation-v2.template.maximum-capacity",
                "80",
            ),
            ("root.users.auto-queue-creation-v2.template.capacity", "2w"),
            (
                "root.users.auto-queue-creation-v2.leaf-template.capacity",
                "3w",
            ),
            (
                "root.users.auto-queue-creation-v2.parent-template.capacity",
                "9w",
            ),
            // No template makes a created leaf a parent.
            (
                "root.users.auto-queue-creation-v2.leaf-template.auto-queue-creation-v2.enabled",
                "true",
            ),
            ("root.users.auto-queue-creation-v2.template.queues", "x"),
        ]);
        let dynamic = created_queues(&["root.users.alice".to_owned()]);
        let (expanded, dropped) = expand(&props, &dynamic);
        assert!(dropped.is_empty());
        let get = |key: &str| expanded.get(&format!("{PREFIX}{key}")).map(String::as_str);
        assert_eq!(get("root.users.queues"), Some("alice"));
        assert_eq!(get("root.users.alice.capacity"), Some("3w"));
        assert_eq!(get("root.users.alice.maximum-capacity"), Some("80"));
        assert_eq!(get("root.users.alice.user-limit-factor"), Some("-1"));
        assert_eq!(get("root.users.alice.auto-queue-creation-v2.enabled"), None);
        assert_eq!(get("root.users.alice.queues"), None);
    }

    #[test]
    fn a_created_parent_creates_queues_and_takes_the_parent_template() {
        let props = properties(&[
            ("root.queues", "default,users"),
            ("root.users.auto-queue-creation-v2.enabled", "true"),
            (
                "root.users.auto-queue-creation-v2.parent-template.capacity",
                "4w",
            ),
            (
                "root.users.*.auto-queue-creation-v2.template.maximum-capacity",
                "30",
            ),
        ]);
        let dynamic =
            created_queues(&["root.users.eng".to_owned(), "root.users.eng.bob".to_owned()]);
        let (expanded, dropped) = expand(&props, &dynamic);
        assert!(dropped.is_empty());
        let get = |key: &str| expanded.get(&format!("{PREFIX}{key}")).map(String::as_str);
        assert_eq!(get("root.users.queues"), Some("eng"));
        assert_eq!(get("root.users.eng.queues"), Some("bob"));
        assert_eq!(get("root.users.eng.capacity"), Some("4w"));
        assert_eq!(
            get("root.users.eng.auto-queue-creation-v2.enabled"),
            Some("true")
        );
        assert_eq!(get("root.users.eng.bob.capacity"), Some("1w"));
        assert_eq!(get("root.users.eng.bob.maximum-capacity"), Some("30"));
    }

    #[test]
    fn a_created_queue_whose_parent_stopped_creating_is_left_out() {
        let props = properties(&[("root.queues", "users")]);
        let mut dynamic = created_queues(&["root.users.alice".to_owned()]);
        dynamic.insert("root.gone.x".to_owned(), CreatedAs::Leaf);
        let (expanded, dropped) = expand(&props, &dynamic);
        assert_eq!(expanded, props);
        let paths: Vec<&str> = dropped.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(paths, ["root.gone.x", "root.users.alice"]);
    }

    #[test]
    fn settings_and_known_template_properties_are_read() {
        let is_queue_key = |key: &str| key.ends_with(".capacity");
        for rest in [
            "root.a.auto-queue-creation-v2.enabled",
            "root.a.auto-queue-creation-v2.max-queues",
            "auto-queue-creation-v2.maximum-queue-depth",
            "auto-queue-creation-v2.queue-expiration-time",
            "root.*.auto-queue-creation-v2.template.capacity",
            "root.a.auto-queue-creation-v2.leaf-template.capacity",
        ] {
            assert!(is_auto_creation_key(rest, is_queue_key), "{rest}");
        }
        for rest in [
            "root.*.auto-queue-creation-v2.enabled",
            "root.a.auto-queue-creation-v2.template.no-such-property",
            "root.a.auto-queue-creation-v2.other",
            "root.a.auto-queue-creation-v2.template.queues",
            "root.a.auto-queue-creation-v2.parent-template.auto-queue-creation-v2.enabled",
            "a.auto-queue-creation-v2.enabled",
        ] {
            assert!(!is_auto_creation_key(rest, is_queue_key), "{rest}");
        }
    }
}
