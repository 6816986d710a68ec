//! The cluster's node labels in the replicated state: the three admin verbs that change them,
//! each applied whole or refused with the reason and nothing changed.

use yarn_scheduler::{NodeLabel, NodeSpec, queue_naming_label};

use super::{RmResponse, RmState};

impl RmState {
    pub(super) fn add_cluster_node_labels(&mut self, labels: &[NodeLabel]) -> RmResponse {
        refused_or_changed(self.node_labels.add(labels))
    }

    /// A label a queue of the configuration in force names stays: the next configuration
    /// would need it.
    pub(super) fn remove_cluster_node_labels(&mut self, labels: &[String]) -> RmResponse {
        let queue_config = &self.queue_config;
        refused_or_changed(
            self.node_labels
                .remove(labels, |label| queue_naming_label(queue_config, label)),
        )
    }

    pub(super) fn replace_labels_on_nodes(
        &mut self,
        mappings: &[(NodeSpec, Option<String>)],
    ) -> RmResponse {
        refused_or_changed(self.node_labels.replace(mappings))
    }
}

fn refused_or_changed(outcome: Result<(), yarn_scheduler::SchedulerError>) -> RmResponse {
    match outcome {
        Ok(()) => RmResponse::NodeLabelsChanged,
        Err(err) => RmResponse::NodeLabelsRefused {
            reason: err.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::{CommandV1, RmCommand};

    fn apply(state: &mut RmState, command: CommandV1) -> RmResponse {
        state.apply(&RmCommand::V1(command))
    }

    fn gpu() -> NodeLabel {
        NodeLabel {
            name: "gpu".into(),
            exclusive: true,
        }
    }

    #[test]
    fn labels_are_added_mapped_and_removed_through_commands() {
        let mut state = RmState::default();
        let added = apply(
            &mut state,
            CommandV1::AddClusterNodeLabels {
                labels: vec![gpu()],
            },
        );
        assert_eq!(added, RmResponse::NodeLabelsChanged);
        let node = NodeSpec::parse("n1:8041").unwrap();
        let mapped = apply(
            &mut state,
            CommandV1::ReplaceLabelsOnNodes {
                mappings: vec![(node.clone(), Some("gpu".into()))],
            },
        );
        assert_eq!(mapped, RmResponse::NodeLabelsChanged);
        assert_eq!(
            state.node_labels.mappings().get(&node).map(String::as_str),
            Some("gpu")
        );

        state.queue_config.insert(
            "yarn.scheduler.capacity.root.ml.accessible-node-labels".into(),
            "gpu".into(),
        );
        let before = state.clone();
        let refused = apply(
            &mut state,
            CommandV1::RemoveClusterNodeLabels {
                labels: vec!["gpu".into()],
            },
        );
        assert!(
            matches!(&refused, RmResponse::NodeLabelsRefused { reason } if reason.contains("root.ml")),
            "{refused:?}"
        );
        assert_eq!(state, before, "a refusal changes nothing");

        state.queue_config.clear();
        let removed = apply(
            &mut state,
            CommandV1::RemoveClusterNodeLabels {
                labels: vec!["gpu".into()],
            },
        );
        assert_eq!(removed, RmResponse::NodeLabelsChanged);
        assert!(state.node_labels.is_empty());
        assert!(state.node_labels.mappings().is_empty());
    }

    #[test]
    fn a_mapping_to_an_unknown_label_is_refused() {
        let mut state = RmState::default();
        let refused = apply(
            &mut state,
            CommandV1::ReplaceLabelsOnNodes {
                mappings: vec![(NodeSpec::parse("n1").unwrap(), Some("gpu".into()))],
            },
        );
        assert!(
            matches!(&refused, RmResponse::NodeLabelsRefused { reason } if reason.contains("gpu")),
            "{refused:?}"
        );
        assert_eq!(state, RmState::default());
    }
}
