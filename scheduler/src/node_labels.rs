//! [`NodeLabels`]: the cluster's node labels (partitions) and which nodes carry them, as
//! Hadoop's centralized node-label configuration keeps them.
//!
//! The ResourceManager keeps one value of this type in its replicated state and changes it only
//! through the three admin verbs (`-addToClusterNodeLabels`, `-removeFromClusterNodeLabels`,
//! `-replaceLabelsOnNode`); the scheduler reads it to put each node in its partition. Every
//! change is checked whole before anything changes, so a refused verb leaves the labels as they
//! were.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use yarn_proto::ids::NodeId;

use crate::error::SchedulerError;

/// The longest label name Hadoop accepts.
pub const MAX_LABEL_LENGTH: usize = 255;

/// A cluster node label and whether its partition is exclusive: an exclusive partition's nodes
/// run only containers asked for with its label; a non-exclusive one lends its idle resources
/// to asks for the default partition.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeLabel {
    /// The label, case-sensitive.
    pub name: String,
    /// Whether only asks for this label may use its nodes (`exclusive=true`, Hadoop's default).
    pub exclusive: bool,
}

/// Where a label mapping applies: every NodeManager on a host, or one NodeManager.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeSpec {
    /// The host name.
    pub host: String,
    /// The NodeManager's port; `None` for every NodeManager on the host.
    pub port: Option<u16>,
}

impl NodeSpec {
    /// Reads `host` or `host:port`, as `-replaceLabelsOnNode` writes nodes.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidNodeSpec`] for an empty host or a port that is not a number.
    pub fn parse(text: &str) -> Result<Self, SchedulerError> {
        let text = text.trim();
        let invalid = |reason: &'static str| SchedulerError::InvalidNodeSpec {
            node: text.to_owned(),
            reason,
        };
        let (host, port) = match text.rsplit_once(':') {
            Some((host, port)) => {
                let port = port
                    .parse::<u16>()
                    .map_err(|_| invalid("the port is not a number from 0 to 65535"))?;
                (host, Some(port))
            }
            None => (text, None),
        };
        if host.is_empty() {
            return Err(invalid("the host is empty"));
        }
        Ok(Self {
            host: host.to_owned(),
            port,
        })
    }

    /// The spec naming exactly `node`.
    pub fn of(node: &NodeId) -> Self {
        Self {
            host: node.host.clone(),
            port: Some(node.port),
        }
    }
}

impl std::fmt::Display for NodeSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.port {
            Some(port) => write!(f, "{}:{port}", self.host),
            None => f.write_str(&self.host),
        }
    }
}

/// The cluster's labels and the label of each host or NodeManager mapped to one.
///
/// Invariants: every mapped label is a cluster label; names follow [`check_label_name`]. A
/// NodeManager is in the partition of its own `host:port` mapping, else of its host's, else in
/// the default partition (no label, `""`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeLabels {
    labels: BTreeMap<String, bool>,
    nodes: BTreeMap<NodeSpec, String>,
}

impl NodeLabels {
    /// Whether the cluster has no label at all.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The cluster labels, by name.
    pub fn labels(&self) -> impl Iterator<Item = NodeLabel> + '_ {
        self.labels.iter().map(|(name, exclusive)| NodeLabel {
            name: name.clone(),
            exclusive: *exclusive,
        })
    }

    /// Whether `name` is a cluster label.
    pub fn contains(&self, name: &str) -> bool {
        self.labels.contains_key(name)
    }

    /// Whether `name` is a cluster label whose partition is exclusive.
    pub fn is_exclusive(&self, name: &str) -> Option<bool> {
        self.labels.get(name).copied()
    }

    /// Every mapping, by host and port.
    pub fn mappings(&self) -> &BTreeMap<NodeSpec, String> {
        &self.nodes
    }

    /// The partition `node` is in: its label, or `""` for the default partition.
    pub fn partition_of(&self, node: &NodeId) -> &str {
        let exact = NodeSpec::of(node);
        self.nodes
            .get(&exact)
            .or_else(|| {
                self.nodes.get(&NodeSpec {
                    host: node.host.clone(),
                    port: None,
                })
            })
            .map_or("", String::as_str)
    }

    /// Adds cluster labels (`-addToClusterNodeLabels`). A label already there with the same
    /// exclusivity is left as it is.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidNodeLabel`] for a malformed name,
    /// [`SchedulerError::NodeLabelExclusivityChange`] for a label already there with the other
    /// exclusivity (Hadoop does not change it), [`SchedulerError::DuplicateNodeLabel`] for a
    /// label given twice with both exclusivities.
    pub fn add(&mut self, labels: &[NodeLabel]) -> Result<(), SchedulerError> {
        let mut seen = BTreeMap::new();
        for label in labels {
            check_label_name(&label.name)?;
            if *seen.entry(label.name.as_str()).or_insert(label.exclusive) != label.exclusive {
                return Err(SchedulerError::DuplicateNodeLabel {
                    label: label.name.clone(),
                });
            }
            if self
                .labels
                .get(&label.name)
                .is_some_and(|exclusive| *exclusive != label.exclusive)
            {
                return Err(SchedulerError::NodeLabelExclusivityChange {
                    label: label.name.clone(),
                });
            }
        }
        for label in labels {
            self.labels.insert(label.name.clone(), label.exclusive);
        }
        Ok(())
    }

    /// Removes cluster labels (`-removeFromClusterNodeLabels`) and takes them off every node
    /// that carries them. `used_by` names a queue that can still access a label, if any: such a
    /// label stays, as in Hadoop.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownNodeLabel`] for a label the cluster does not have,
    /// [`SchedulerError::NodeLabelInUse`] for one a queue can access.
    pub fn remove(
        &mut self,
        names: &[String],
        used_by: impl Fn(&str) -> Option<String>,
    ) -> Result<(), SchedulerError> {
        for name in names {
            if !self.labels.contains_key(name) {
                return Err(SchedulerError::UnknownNodeLabel {
                    label: name.clone(),
                });
            }
            if let Some(queue) = used_by(name) {
                return Err(SchedulerError::NodeLabelInUse {
                    label: name.clone(),
                    queue,
                });
            }
        }
        for name in names {
            self.labels.remove(name);
        }
        self.nodes
            .retain(|_, label| self.labels.contains_key(label));
        Ok(())
    }

    /// Sets the label of each listed host or NodeManager (`-replaceLabelsOnNode`), in the order
    /// listed; `None` takes its label off. A host's mapping replaces those of its NodeManagers,
    /// which then follow the host, as in Hadoop. Nodes not listed keep theirs.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownNodeLabel`] for a label the cluster does not have,
    /// [`SchedulerError::DuplicateNodeSpec`] for a node listed twice.
    pub fn replace(
        &mut self,
        mappings: &[(NodeSpec, Option<String>)],
    ) -> Result<(), SchedulerError> {
        let mut seen = BTreeSet::new();
        for (node, label) in mappings {
            if !seen.insert(node) {
                return Err(SchedulerError::DuplicateNodeSpec {
                    node: node.to_string(),
                });
            }
            if let Some(label) = label.as_deref().filter(|l| !self.labels.contains_key(*l)) {
                return Err(SchedulerError::UnknownNodeLabel {
                    label: label.to_owned(),
                });
            }
        }
        for (node, label) in mappings {
            if node.port.is_none() {
                self.nodes.retain(|mapped, _| mapped.host != node.host);
            }
            match label {
                Some(label) => self.nodes.insert(node.clone(), label.clone()),
                None => self.nodes.remove(node),
            };
        }
        Ok(())
    }
}

/// Checks a label name as Hadoop does: 1 to [`MAX_LABEL_LENGTH`] characters, letters, digits,
/// `-` and `_`, starting with a letter or digit.
///
/// # Errors
///
/// [`SchedulerError::InvalidNodeLabel`] naming the label and the rule.
pub fn check_label_name(name: &str) -> Result<(), SchedulerError> {
    let invalid = |reason: &'static str| SchedulerError::InvalidNodeLabel {
        label: name.to_owned(),
        reason,
    };
    if name.is_empty() || name.len() > MAX_LABEL_LENGTH {
        return Err(invalid("a label has 1 to 255 characters"));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(invalid("a label starts with a letter or a digit"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(invalid(
            "a label holds only letters, digits, '-' and '_' (one label per expression)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(name: &str, exclusive: bool) -> NodeLabel {
        NodeLabel {
            name: name.to_owned(),
            exclusive,
        }
    }

    fn node(host: &str, port: u16) -> NodeId {
        NodeId {
            host: host.to_owned(),
            port,
        }
    }

    fn spec(text: &str) -> NodeSpec {
        NodeSpec::parse(text).unwrap()
    }

    #[test]
    fn a_port_mapping_wins_over_its_host_mapping() {
        let mut labels = NodeLabels::default();
        labels
            .add(&[label("gpu", true), label("ssd", false)])
            .unwrap();
        labels
            .replace(&[
                (spec("h1"), Some("gpu".into())),
                (spec("h1:8041"), Some("ssd".into())),
            ])
            .unwrap();
        assert_eq!(labels.partition_of(&node("h1", 8041)), "ssd");
        assert_eq!(labels.partition_of(&node("h1", 9000)), "gpu");
        assert_eq!(labels.partition_of(&node("h2", 8041)), "");
        labels.replace(&[(spec("h1:8041"), None)]).unwrap();
        assert_eq!(labels.partition_of(&node("h1", 8041)), "gpu");
        // A host's mapping takes its NodeManagers' own with it.
        labels
            .replace(&[(spec("h1:8041"), Some("ssd".into()))])
            .unwrap();
        labels.replace(&[(spec("h1"), None)]).unwrap();
        assert_eq!(labels.partition_of(&node("h1", 8041)), "");
        assert!(labels.mappings().is_empty());
    }

    #[test]
    fn refusals_change_nothing() {
        let mut labels = NodeLabels::default();
        labels.add(&[label("gpu", true)]).unwrap();
        let before = labels.clone();
        for bad in ["", "-gpu", "g&&p", "a,b", &"x".repeat(256)] {
            assert!(
                matches!(
                    labels.add(&[label("fine", true), label(bad, true)]),
                    Err(SchedulerError::InvalidNodeLabel { .. })
                ),
                "{bad:?} accepted"
            );
        }
        assert!(matches!(
            labels.add(&[label("gpu", false)]),
            Err(SchedulerError::NodeLabelExclusivityChange { .. })
        ));
        assert!(matches!(
            labels.add(&[label("x", true), label("x", false)]),
            Err(SchedulerError::DuplicateNodeLabel { .. })
        ));
        assert!(matches!(
            labels.replace(&[
                (spec("h1"), Some("gpu".into())),
                (spec("h2"), Some("fpga".into()))
            ]),
            Err(SchedulerError::UnknownNodeLabel { .. })
        ));
        assert!(matches!(
            labels.replace(&[(spec("h1"), Some("gpu".into())), (spec("h1"), None)]),
            Err(SchedulerError::DuplicateNodeSpec { .. })
        ));
        assert_eq!(labels, before);
        labels
            .add(&[label("gpu", true), label("gpu", true)])
            .unwrap();
        assert_eq!(labels, before, "adding a label again changes nothing");
    }

    #[test]
    fn a_removed_label_leaves_its_nodes_unless_a_queue_uses_it() {
        let mut labels = NodeLabels::default();
        labels
            .add(&[label("gpu", true), label("ssd", false)])
            .unwrap();
        labels.replace(&[(spec("h1"), Some("gpu".into()))]).unwrap();
        let err = labels
            .remove(&["gpu".into()], |_| Some("root.ml".into()))
            .unwrap_err();
        assert!(err.to_string().contains("root.ml"), "{err}");
        assert!(labels.contains("gpu"));
        assert!(matches!(
            labels.remove(&["fpga".into()], |_| None),
            Err(SchedulerError::UnknownNodeLabel { .. })
        ));
        labels.remove(&["gpu".into()], |_| None).unwrap();
        assert!(!labels.contains("gpu"));
        assert_eq!(labels.partition_of(&node("h1", 1)), "");
        assert!(labels.mappings().is_empty());
    }

    #[test]
    fn node_specs_read_host_and_port() {
        assert_eq!(spec(" h1:8041 ").to_string(), "h1:8041");
        assert_eq!(spec("h1").port, None);
        assert!(NodeSpec::parse("h1:x").is_err());
        assert!(NodeSpec::parse(":8041").is_err());
    }
}
