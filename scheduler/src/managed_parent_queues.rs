//! Hadoop's legacy auto-creation of queues: a *managed parent*
//! (`<queue-path>.auto-create-child-queue.enabled`) creates leaves directly under it, each
//! configured by the parent's `leaf-queue-template.*` entries, and Hadoop's
//! `GuaranteedOrZeroCapacityOverTimePolicy` gives each leaf either the template's capacity
//! (the leaf is *activated*: [`CreatedAs::GuaranteedLeaf`]) or none ([`CreatedAs::Leaf`]).
//!
//! As for the flexible mode, [`leaf_properties`] configures a created leaf by properties, so
//! that the one tree builder builds and validates it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::auto_created_queues::{CreatedAs, CreatedQueues, KIND_PROPERTIES, template_properties};
use crate::capacity_scheduler_configuration::CAPACITY_EPSILON;
use crate::error::SchedulerError;
use crate::property_reader::{PREFIX, PropertyReader, invalid};
use crate::queue_capacity::QueueCapacity;

/// What stands between a queue path and a managed parent's settings.
pub(crate) const INFIX: &str = ".auto-create-child-queue.";
/// `<queue-path>.auto-create-child-queue.enabled`: the queue creates leaves under it.
const ENABLED: &str = "enabled";
/// `<queue-path>.auto-create-child-queue.management-policy`: the class that decides the
/// created leaves' capacities.
const MANAGEMENT_POLICY: &str = "management-policy";
/// `<queue-path>.auto-create-child-queue.max-queues`: how many leaves it creates at most.
const MAX_QUEUES: &str = "max-queues";
/// `<queue-path>.auto-create-child-queue.fail-on-exceeding-parent-capacity`: whether a leaf
/// that could not hold its capacity is not created at all.
const FAIL_ON_EXCEEDING_PARENT_CAPACITY: &str = "fail-on-exceeding-parent-capacity";
/// Every setting of a managed parent.
const SETTINGS: [&str; 4] = [
    ENABLED,
    MANAGEMENT_POLICY,
    MAX_QUEUES,
    FAIL_ON_EXCEEDING_PARENT_CAPACITY,
];
/// Hadoop's default of [`MAX_QUEUES`].
const DEFAULT_MAX_QUEUES: u32 = 1000;
/// What stands between a managed parent's path and a property its leaves get.
pub(crate) const LEAF_TEMPLATE: &str = ".leaf-queue-template.";
/// The one management policy, Hadoop's default.
const GUARANTEED_OR_ZERO_POLICY_CLASS: &str = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.queuemanagement.GuaranteedOrZeroCapacityOverTimePolicy";
/// What a template capacity must be.
const TEMPLATE_CAPACITY: &str = "a percentage above 0 and at most 100 (a legacy auto-created \
                                 leaf takes its parent's share by percentage; use the flexible \
                                 auto-creation for weights or absolute resources)";

/// A managed parent's settings: the capacity its activated leaves hold, and its limits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ManagedParent {
    /// `leaf-queue-template.capacity`: the percentage of the parent each activated leaf is
    /// guaranteed.
    pub leaf_capacity: f64,
    /// How many of its leaves may hold their capacity at once: as many as fit in the parent in
    /// the default partition and in each partition the template gives a capacity in.
    pub activated_limit: usize,
    /// `auto-create-child-queue.max-queues` (1000): at most this many leaves.
    pub max_queues: u32,
    /// `auto-create-child-queue.fail-on-exceeding-parent-capacity` (false): a leaf that could
    /// not hold its capacity is refused rather than created without it.
    pub fail_on_exceeding_parent_capacity: bool,
}

impl ManagedParent {
    /// The settings of the queue at `path`, `None` unless `auto-create-child-queue.enabled` is
    /// true.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] for a flag or count that does not parse, a management
    /// policy other than Hadoop's default, or a template capacity that is not a percentage
    /// above 0;
    /// [`SchedulerError::MissingCapacity`] when the template sets no capacity (Hadoop's
    /// mandatory parameter).
    pub(crate) fn read(
        reader: &PropertyReader<'_>,
        path: &str,
    ) -> Result<Option<Self>, SchedulerError> {
        if reader.boolean(&setting_key(path, ENABLED))? != Some(true) {
            return Ok(None);
        }
        let policy_key = setting_key(path, MANAGEMENT_POLICY);
        if let Some(policy) = reader.get(&policy_key)
            && policy != GUARANTEED_OR_ZERO_POLICY_CLASS
        {
            return Err(invalid(
                &policy_key,
                policy,
                "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.\
                 queuemanagement.GuaranteedOrZeroCapacityOverTimePolicy, the one management \
                 policy yarn-ha has",
            ));
        }
        let capacity_key = template_key(path, "capacity");
        let Some(value) = reader.get(&capacity_key) else {
            return Err(SchedulerError::MissingCapacity {
                queue: path.to_owned(),
                key: capacity_key,
            });
        };
        let leaf_capacity = match QueueCapacity::parse(&capacity_key, value, true) {
            Ok(QueueCapacity::Percentage(percent))
                if percent > CAPACITY_EPSILON && percent <= 100.0 + CAPACITY_EPSILON =>
            {
                percent
            }
            _ => return Err(invalid(&capacity_key, value, TEMPLATE_CAPACITY)),
        };
        // A label capacity that does not parse is refused when the template's leaf is built.
        let label_prefix = template_key(path, "accessible-node-labels.");
        let activated_limit = reader
            .with_prefix_and_suffix(&label_prefix, ".capacity")
            .into_iter()
            .filter_map(|(_, value)| value.trim().parse::<f64>().ok())
            .filter(|percent| *percent > CAPACITY_EPSILON)
            .chain([leaf_capacity])
            .map(leaves_within)
            .min()
            .unwrap_or(0);
        Ok(Some(Self {
            leaf_capacity,
            activated_limit,
            max_queues: reader
                .parse::<u32>(
                    &setting_key(path, MAX_QUEUES),
                    "a non-negative 32-bit integer",
                )?
                .unwrap_or(DEFAULT_MAX_QUEUES),
            fail_on_exceeding_parent_capacity: reader
                .boolean(&setting_key(path, FAIL_ON_EXCEEDING_PARENT_CAPACITY))?
                .unwrap_or(false),
        }))
    }
}

/// How many leaves of `percent` each fit in 100 percent.
fn leaves_within(percent: f64) -> usize {
    // Truncation wanted: whole leaves only; `percent` is above 0.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let leaves = ((100.0 + CAPACITY_EPSILON) / percent).floor() as usize;
    leaves
}

/// `yarn.scheduler.capacity.<path>.auto-create-child-queue.<setting>`.
fn setting_key(path: &str, setting: &str) -> String {
    format!("{PREFIX}{path}{INFIX}{setting}")
}

/// `yarn.scheduler.capacity.<path>.leaf-queue-template.<property>`.
fn template_key(path: &str, property: &str) -> String {
    format!("{PREFIX}{path}{LEAF_TEMPLATE}{property}")
}

/// The managed parent of the leaf at `leaf` under `properties`, with its settings; `None` when
/// the leaf's parent is no (valid) managed parent.
pub fn managed_parent_of(
    properties: &BTreeMap<String, String>,
    leaf: &str,
) -> Option<(String, ManagedParent)> {
    let (parent, _) = leaf.rsplit_once('.')?;
    let settings = ManagedParent::read(&PropertyReader::new(properties), parent)
        .ok()
        .flatten()?;
    Some((parent.to_owned(), settings))
}

/// Whether the leaf at `leaf`, created under a managed parent, may hold its capacity beside
/// the leaves of `dynamic` that hold theirs: activating it keeps the activated leaves within
/// the parent (Hadoop's test of the parent's available capacity).
pub fn activation_fits(
    properties: &BTreeMap<String, String>,
    dynamic: &CreatedQueues,
    leaf: &str,
) -> bool {
    let Some((parent, settings)) = managed_parent_of(properties, leaf) else {
        return false;
    };
    let activated = dynamic
        .iter()
        .filter(|&(path, kind)| {
            path != leaf
                && *kind == CreatedAs::GuaranteedLeaf
                && path.rsplit_once('.').map(|(up, _)| up) == Some(parent.as_str())
        })
        .count();
    activated < settings.activated_limit
}

/// Whether the managed parent of `leaf`, new, may create it beside the leaves of `dynamic`:
/// it has fewer than its `max-queues` leaves and, when `fail-on-exceeding-parent-capacity`,
/// room for the leaf's capacity. True for a leaf of no managed parent.
pub fn creation_allowed(
    properties: &BTreeMap<String, String>,
    dynamic: &CreatedQueues,
    leaf: &str,
) -> bool {
    let Some((parent, settings)) = managed_parent_of(properties, leaf) else {
        return true;
    };
    let leaves = dynamic
        .keys()
        .filter(|path| path.rsplit_once('.').map(|(up, _)| up) == Some(parent.as_str()))
        .count();
    let below_max = u32::try_from(leaves).is_ok_and(|leaves| leaves < settings.max_queues);
    below_max
        && (!settings.fail_on_exceeding_parent_capacity
            || activation_fits(properties, dynamic, leaf))
}

/// The properties (after the leaf's path) a leaf created under the managed parent `parent`
/// gets: the parent's `leaf-queue-template.*` entries, with `capacity` and every label's
/// `capacity` set to 0 unless `activated`.
pub(crate) fn leaf_properties(
    properties: &BTreeMap<String, String>,
    parent: &str,
    activated: bool,
) -> Vec<(String, String)> {
    let prefix = template_key(parent, "");
    template_properties(properties, &prefix)
        .map(|(property, value)| {
            let capacity = property == "capacity"
                || property
                    .strip_prefix("accessible-node-labels.")
                    .is_some_and(|label| label.ends_with(".capacity"));
            let value = if capacity && !activated { "0" } else { value };
            (property.to_owned(), value.to_owned())
        })
        .collect()
}

/// Whether the scheduler reads `rest` (a key after [`PREFIX`]) as a managed parent's key: one
/// of its settings, or a template entry of a property that `is_queue_key` says the
/// scheduler reads for a queue (it gets the property as a key of `root`).
pub(crate) fn is_managed_parent_key(rest: &str, is_queue_key: impl Fn(&str) -> bool) -> bool {
    if let Some((path, setting)) = rest.split_once(INFIX) {
        return path.starts_with("root") && SETTINGS.contains(&setting);
    }
    let Some((path, property)) = rest.split_once(LEAF_TEMPLATE) else {
        return false;
    };
    path.starts_with("root")
        && !KIND_PROPERTIES.contains(&property)
        && is_queue_key(&format!("{PREFIX}root.{property}"))
}

/// A warning for each `leaf-queue-template.*` key, and each managed parent's setting but the
/// flag, of `reader` whose queue `is_managed` says is no managed parent, where the key
/// configures nothing (Hadoop ignores it silently).
pub(crate) fn stray_template_warnings(
    reader: &PropertyReader<'_>,
    is_managed: impl Fn(&str) -> bool,
) -> Vec<String> {
    reader
        .keys()
        .filter_map(|key| {
            let rest = key.strip_prefix(PREFIX)?;
            let (path, _) = rest.split_once(LEAF_TEMPLATE).or_else(|| {
                rest.split_once(INFIX)
                    .filter(|(_, setting)| *setting != ENABLED)
            })?;
            (!is_managed(path)).then(|| {
                format!(
                    "{key} is ignored: {path} is no managed parent \
                     ({PREFIX}{path}{INFIX}{ENABLED} is not true)"
                )
            })
        })
        .collect()
}

/// The queue path a managed parent's key configures (its flag, policy or template), `None`
/// for other keys.
pub(crate) fn configured_managed_parent(key: &str) -> Option<&str> {
    let rest = key.strip_prefix(PREFIX)?;
    rest.split_once(INFIX)
        .or_else(|| rest.split_once(LEAF_TEMPLATE))
        .map(|(path, _)| path)
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

    fn read(entries: &[(&str, &str)]) -> Result<Option<ManagedParent>, SchedulerError> {
        let props = properties(entries);
        ManagedParent::read(&PropertyReader::new(&props), "root.p")
    }

    #[test]
    fn a_managed_parent_needs_a_percentage_template_capacity_and_the_default_policy() {
        assert_eq!(read(&[]).unwrap(), None);
        assert_eq!(
            read(&[
                ("root.p.auto-create-child-queue.enabled", "true"),
                ("root.p.leaf-queue-template.capacity", "20"),
            ])
            .unwrap()
            .map(|settings| settings.activated_limit),
            Some(5)
        );
        // A label capacity the template gives counts too: three leaves of 30 percent of gpu.
        let labelled = read(&[
            ("root.p.auto-create-child-queue.enabled", "true"),
            ("root.p.leaf-queue-template.capacity", "20"),
            (
                "root.p.leaf-queue-template.accessible-node-labels.gpu.capacity",
                "30",
            ),
            ("root.p.auto-create-child-queue.max-queues", "7"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(labelled.activated_limit, 3);
        assert_eq!(labelled.max_queues, 7);
        assert!(!labelled.fail_on_exceeding_parent_capacity);
        let missing = read(&[("root.p.auto-create-child-queue.enabled", "true")]).unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("root.p.leaf-queue-template.capacity"),
            "{missing}"
        );
        for bad in ["0", "2w", "[memory=1024,vcores=1]", "101"] {
            let err = read(&[
                ("root.p.auto-create-child-queue.enabled", "true"),
                ("root.p.leaf-queue-template.capacity", bad),
            ])
            .unwrap_err();
            assert!(
                err.to_string().contains("a percentage above 0"),
                "{bad}: {err}"
            );
        }
        let policy = read(&[
            ("root.p.auto-create-child-queue.enabled", "true"),
            ("root.p.leaf-queue-template.capacity", "20"),
            (
                "root.p.auto-create-child-queue.management-policy",
                "com.example.Mine",
            ),
        ])
        .unwrap_err();
        assert!(policy.to_string().contains("com.example.Mine"), "{policy}");
    }

    #[test]
    fn a_leaf_gets_the_template_and_no_capacity_until_activated() {
        let props = properties(&[
            ("root.p.auto-create-child-queue.enabled", "true"),
            ("root.p.leaf-queue-template.capacity", "40"),
            ("root.p.leaf-queue-template.maximum-capacity", "80"),
            (
                "root.p.leaf-queue-template.accessible-node-labels.GPU.capacity",
                "10",
            ),
            ("root.p.leaf-queue-template.queues", "x"),
        ]);
        let activated = leaf_properties(&props, "root.p", true);
        let zero = leaf_properties(&props, "root.p", false);
        let get = |entries: &[(String, String)], property: &str| {
            entries
                .iter()
                .find(|(key, _)| key == property)
                .map(|(_, value)| value.clone())
        };
        assert_eq!(get(&activated, "capacity").as_deref(), Some("40"));
        assert_eq!(get(&zero, "capacity").as_deref(), Some("0"));
        assert_eq!(
            get(&zero, "accessible-node-labels.GPU.capacity").as_deref(),
            Some("0")
        );
        assert_eq!(get(&zero, "maximum-capacity").as_deref(), Some("80"));
        assert_eq!(get(&activated, "queues"), None);

        // Two leaves of 40 percent fit; a third does not until one is deactivated.
        let mut dynamic = CreatedQueues::from([
            ("root.p.a".to_owned(), CreatedAs::GuaranteedLeaf),
            ("root.p.b".to_owned(), CreatedAs::GuaranteedLeaf),
        ]);
        assert!(!activation_fits(&props, &dynamic, "root.p.c"));
        assert!(activation_fits(&props, &dynamic, "root.p.b"));
        dynamic.insert("root.p.a".to_owned(), CreatedAs::Leaf);
        assert!(activation_fits(&props, &dynamic, "root.p.c"));
        assert!(!activation_fits(&props, &dynamic, "root.q.c"));
    }
}
