//! [`QueueNodeLabels`]: which partitions a queue may use and its share of each, read from
//! `accessible-node-labels`, `accessible-node-labels.<label>.capacity`,
//! `accessible-node-labels.<label>.maximum-capacity` and `default-node-label-expression`.
//!
//! A partition's capacities follow Hadoop's percentages: `root` has all of every partition, a
//! child's capacity for a label is a percentage of its parent's share of that partition, and
//! under a parent with a share the children's percentages add up to 100 (0 under a parent
//! without one). The nodes of a partition are counted apart from the default partition's, so a
//! label's capacities say nothing about the default partition's and the other way round.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::capacity_scheduler_configuration::CAPACITY_EPSILON;
use crate::error::SchedulerError;
use crate::node_labels::check_label_name;
use crate::property_reader::{PREFIX, PropertyReader, invalid};

/// The component after a queue path that opens its label keys.
pub(crate) const ACCESSIBLE_NODE_LABELS: &str = "accessible-node-labels";
/// `default-node-label-expression`, after the queue path.
pub(crate) const DEFAULT_NODE_LABEL_EXPRESSION: &str = "default-node-label-expression";
/// What a label capacity key ends with, after the label.
const CAPACITY: &str = "capacity";
/// What a label maximum capacity key ends with, after the label.
const MAXIMUM_CAPACITY: &str = "maximum-capacity";
/// What a percentage of a partition is written as.
const PERCENT: &str = "a percentage from 0 to 100 (yarn-ha reads label capacities as \
                       percentages only)";

/// A queue's share of one partition, percent of its parent's share.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LabelCapacity {
    /// `accessible-node-labels.<label>.capacity` (0 when unset).
    pub capacity: f64,
    /// `accessible-node-labels.<label>.maximum-capacity` (100 when unset or -1).
    pub maximum_capacity: f64,
}

impl LabelCapacity {
    /// All of the parent's share: `root`'s capacity in every partition.
    pub const FULL: Self = Self {
        capacity: 100.0,
        maximum_capacity: 100.0,
    };
    /// An accessible label without a capacity key: nothing guaranteed, all of the parent's
    /// share at most, as in Hadoop.
    const UNSET: Self = Self {
        capacity: 0.0,
        maximum_capacity: 100.0,
    };
}

/// The node-label settings of one queue.
///
/// Invariants: `capacities` holds only accessible labels; `default_expression` is `""` or an
/// accessible label.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct QueueNodeLabels {
    /// The labels the queue may use; `None` for every label (`*`). Inherited when unset; `root`
    /// may use every label.
    pub accessible: Option<BTreeSet<String>>,
    /// The capacities configured per label.
    pub capacities: BTreeMap<String, LabelCapacity>,
    /// The label of asks and AMs that name none (`""`: the default partition). Inherited when
    /// unset.
    pub default_expression: String,
}

impl QueueNodeLabels {
    /// Whether the queue may use `label`'s nodes; every queue may use the default partition.
    pub fn can_access(&self, label: &str) -> bool {
        label.is_empty()
            || self
                .accessible
                .as_ref()
                .is_none_or(|labels| labels.contains(label))
    }

    /// The queue's capacities in `label`'s partition: as configured, the unset default when
    /// accessible, nothing otherwise.
    pub fn capacity(&self, label: &str) -> LabelCapacity {
        match self.capacities.get(label) {
            Some(capacity) => *capacity,
            None if self.can_access(label) => LabelCapacity::UNSET,
            None => LabelCapacity {
                capacity: 0.0,
                maximum_capacity: 0.0,
            },
        }
    }

    /// The labels named by this queue's settings, for checks against the cluster's labels.
    pub fn named_labels(&self) -> impl Iterator<Item = &str> {
        self.accessible
            .iter()
            .flatten()
            .map(String::as_str)
            .chain(self.capacities.keys().map(String::as_str))
            .chain(Some(self.default_expression.as_str()).filter(|l| !l.is_empty()))
    }

    /// Reads the settings of the queue at `path`, inheriting from `parent` (`None` for `root`).
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] for a malformed label or percentage,
    /// [`SchedulerError::QueueRule`] for a label the parent cannot access, a capacity for a label
    /// the queue cannot access, a capacity above its maximum, or a default expression the queue
    /// cannot access.
    pub(crate) fn read(
        reader: &PropertyReader<'_>,
        path: &str,
        parent: Option<&Self>,
    ) -> Result<Self, SchedulerError> {
        let accessible_key = accessible_key(path);
        let accessible = match reader.get_untrimmed(&accessible_key) {
            None => parent.and_then(|p| p.accessible.clone()),
            Some(value) if value.trim() == "*" => None,
            Some(value) => Some(parse_labels(&accessible_key, value)?),
        };
        if let (Some(parent), Some(labels)) = (parent, &accessible)
            && let Some(outside) = labels.iter().find(|l| !parent.can_access(l))
        {
            return Err(SchedulerError::QueueRule {
                key: accessible_key,
                rule: format!(
                    "{path} may use label {outside}, which its parent may not: a queue's \
                     accessible-node-labels are a subset of its parent's"
                ),
            });
        }
        if parent.is_some_and(|p| p.accessible.is_some()) && accessible.is_none() {
            return Err(SchedulerError::QueueRule {
                key: accessible_key,
                rule: format!(
                    "{path} may use every label (*) but its parent may not: a queue's \
                     accessible-node-labels are a subset of its parent's"
                ),
            });
        }
        let mut labels = Self {
            accessible,
            capacities: BTreeMap::new(),
            default_expression: String::new(),
        };
        let prefix = format!("{PREFIX}{path}.{ACCESSIBLE_NODE_LABELS}.");
        let configured: BTreeSet<&str> = reader
            .with_prefix_and_suffix(&prefix, "")
            .into_iter()
            .filter_map(|(rest, _)| {
                let (label, _) = rest.split_once('.')?;
                Some(label)
            })
            .collect();
        for label in configured {
            let key = |suffix: &str| format!("{prefix}{label}.{suffix}");
            let capacity =
                reader.float_in(&key(CAPACITY), PERCENT, |v| (0.0..=100.0).contains(&v))?;
            let maximum = reader.float_in(&key(MAXIMUM_CAPACITY), PERCENT, |v| {
                (0.0..=100.0).contains(&v) || v == -1.0
            })?;
            if capacity.is_none() && maximum.is_none() {
                continue;
            }
            check_label_name(label).map_err(|_| {
                invalid(
                    &key(CAPACITY),
                    label,
                    "a label of letters, digits, '-' and '_'",
                )
            })?;
            if !labels.can_access(label) {
                return Err(SchedulerError::QueueRule {
                    key: key(CAPACITY),
                    rule: format!(
                        "{path} sets a capacity for label {label}, which it may not use: add \
                         {label} to {accessible_key}"
                    ),
                });
            }
            if parent.is_none() && [capacity, maximum].iter().flatten().any(|v| *v != 100.0) {
                return Err(SchedulerError::QueueRule {
                    key: key(CAPACITY),
                    rule: format!(
                        "root has all of every partition: its capacity and maximum-capacity for \
                         label {label} are 100 when set"
                    ),
                });
            }
            let capacity = LabelCapacity {
                capacity: capacity.unwrap_or(0.0),
                maximum_capacity: maximum.filter(|m| *m >= 0.0).unwrap_or(100.0),
            };
            if capacity.capacity > capacity.maximum_capacity + CAPACITY_EPSILON {
                return Err(SchedulerError::QueueRule {
                    key: key(MAXIMUM_CAPACITY),
                    rule: format!(
                        "{path}'s capacity for label {label} ({}) is above its maximum ({})",
                        capacity.capacity, capacity.maximum_capacity
                    ),
                });
            }
            labels.capacities.insert(label.to_owned(), capacity);
        }
        let expression_key = format!("{PREFIX}{path}.{DEFAULT_NODE_LABEL_EXPRESSION}");
        labels.default_expression = match reader.get(&expression_key) {
            None => parent.map_or_else(String::new, |p| p.default_expression.clone()),
            Some(label) => {
                check_label_name(label).map_err(|_| {
                    invalid(
                        &expression_key,
                        label,
                        "one label of letters, digits, '-' and '_'",
                    )
                })?;
                label.to_owned()
            }
        };
        if !labels.can_access(&labels.default_expression) {
            return Err(SchedulerError::QueueRule {
                key: expression_key,
                rule: format!(
                    "{path}'s default-node-label-expression {} names a label it may not use",
                    labels.default_expression
                ),
            });
        }
        Ok(labels)
    }
}

/// Checks the children of a parent in every partition one of them configures: their
/// capacities add up to 100 under a parent with a share of the partition, to 0 under one
/// without (`parent_share` gives the parent's absolute capacity of a label, percent).
///
/// # Errors
///
/// [`SchedulerError::QueueRule`] naming the first child's capacity key, the label and the sum.
pub(crate) fn check_children(
    parent: &str,
    parent_share: impl Fn(&str) -> f64,
    children: &[(&str, &QueueNodeLabels)],
    at_most: bool,
) -> Result<(), SchedulerError> {
    let labels: BTreeSet<&str> = children
        .iter()
        .flat_map(|(_, labels)| labels.capacities.keys().map(String::as_str))
        .collect();
    for label in labels {
        let sum: f64 = children
            .iter()
            .map(|(_, labels)| labels.capacity(label).capacity)
            .sum();
        let expected = if parent_share(label) > CAPACITY_EPSILON {
            100.0
        } else {
            0.0
        };
        let within = at_most && sum <= expected + CAPACITY_EPSILON;
        if (sum - expected).abs() > CAPACITY_EPSILON && !within {
            let first = children.first().map_or(parent, |(path, _)| path);
            return Err(SchedulerError::QueueRule {
                key: format!("{PREFIX}{first}.{ACCESSIBLE_NODE_LABELS}.{label}.{CAPACITY}"),
                rule: format!(
                    "the capacities of {parent}'s children for label {label} sum to {sum}, \
                     expected {expected}"
                ),
            });
        }
    }
    Ok(())
}

/// The first queue (in key order) whose settings in `properties` (`capacity-scheduler.xml`)
/// name `label`: it lists it in `accessible-node-labels`, gives it a capacity or makes it its
/// `default-node-label-expression`. A queue that may use every label (`*`) names none, as in
/// Hadoop, where only such queues let a label be removed.
pub fn queue_naming_label(properties: &BTreeMap<String, String>, label: &str) -> Option<String> {
    properties.iter().find_map(|(key, value)| {
        let rest = key.strip_prefix(PREFIX)?;
        if let Some(path) = label_capacity_queue(rest) {
            let named = rest[path.len()..]
                .strip_prefix(&format!(".{ACCESSIBLE_NODE_LABELS}.{label}."))
                .is_some();
            return named.then(|| path.to_owned());
        }
        if let Some(path) = rest.strip_suffix(&format!(".{ACCESSIBLE_NODE_LABELS}")) {
            return value
                .split(',')
                .any(|listed| listed.trim() == label)
                .then(|| path.to_owned());
        }
        let path = rest.strip_suffix(&format!(".{DEFAULT_NODE_LABEL_EXPRESSION}"))?;
        (value.trim() == label).then(|| path.to_owned())
    })
}

/// The queue path of a label capacity key (`<path>.accessible-node-labels.<label>.capacity` or
/// `.maximum-capacity`, after the prefix); `None` for any other key.
pub(crate) fn label_capacity_queue(rest: &str) -> Option<&str> {
    let (path, label_key) = rest.split_once(&format!(".{ACCESSIBLE_NODE_LABELS}."))?;
    let (label, suffix) = label_key.split_once('.')?;
    (!label.is_empty() && (suffix == CAPACITY || suffix == MAXIMUM_CAPACITY)).then_some(path)
}

fn accessible_key(path: &str) -> String {
    format!("{PREFIX}{path}.{ACCESSIBLE_NODE_LABELS}")
}

/// A comma-separated list of labels; blank is none, as Hadoop reads `" "`.
fn parse_labels(key: &str, value: &str) -> Result<BTreeSet<String>, SchedulerError> {
    let mut labels = BTreeSet::new();
    for label in value.split(',').map(str::trim).filter(|l| !l.is_empty()) {
        check_label_name(label).map_err(|_| {
            invalid(
                key,
                value.trim(),
                "`*`, or labels of letters, digits, '-' and '_' separated by commas",
            )
        })?;
        labels.insert(label.to_owned());
    }
    Ok(labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_named_by_a_list_a_capacity_or_a_default_expression() {
        let properties = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (format!("{PREFIX}{k}"), (*v).to_owned()))
                .collect()
        };
        let named = |pairs: &[(&str, &str)]| queue_naming_label(&properties(pairs), "gpu");
        assert_eq!(
            named(&[("root.a.accessible-node-labels", "ssd, gpu")]).as_deref(),
            Some("root.a")
        );
        assert_eq!(
            named(&[("root.b.accessible-node-labels.gpu.maximum-capacity", "50")]).as_deref(),
            Some("root.b")
        );
        assert_eq!(
            named(&[("root.c.default-node-label-expression", "gpu")]).as_deref(),
            Some("root.c")
        );
        assert_eq!(named(&[("root.a.accessible-node-labels", "*")]), None);
        assert_eq!(named(&[("root.a.accessible-node-labels", "gpus")]), None);
        assert_eq!(
            named(&[("root.a.accessible-node-labels.gpus.capacity", "10")]),
            None
        );
    }
}
