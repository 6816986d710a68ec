//! The node-label verbs of the admin protocol (`rmadmin -addToClusterNodeLabels`,
//! `-removeFromClusterNodeLabels`, `-replaceLabelsOnNode`): checked here, committed through
//! Raft, refused by the state machine with nothing changed when they do not apply.

use yarn_proto::pb::{
    AddToClusterNodeLabelsRequestProto, AddToClusterNodeLabelsResponseProto,
    RemoveFromClusterNodeLabelsRequestProto, RemoveFromClusterNodeLabelsResponseProto,
    ReplaceLabelsOnNodeRequestProto, ReplaceLabelsOnNodeResponseProto,
};
use yarn_scheduler::{NodeLabel, NodeSpec, check_label_name};
use yarn_security::Caller;

use super::{AdminOperations, RmError};
use crate::state_machine::{CommandV1, RmCommand, RmResponse};

/// Hadoop's refusal of a label verb while labels are off.
const LABELS_DISABLED: &str =
    "Node-label-based scheduling is disabled. Please check yarn.node-labels.enabled";

impl AdminOperations {
    /// Adds cluster labels; a label without exclusivity is exclusive, as in Hadoop.
    pub(crate) async fn add_to_cluster_node_labels(
        &self,
        caller: &Caller,
        request: AddToClusterNodeLabelsRequestProto,
    ) -> Result<AddToClusterNodeLabelsResponseProto, RmError> {
        self.authorize(caller).await?;
        self.require_node_labels()?;
        let labels: Vec<NodeLabel> = request
            .deprecated_node_labels
            .into_iter()
            .map(|name| (name, None))
            .chain(
                request
                    .node_labels
                    .into_iter()
                    .map(|label| (label.name, label.is_exclusive)),
            )
            .map(|(name, exclusive)| NodeLabel {
                name: name.trim().to_owned(),
                exclusive: exclusive.unwrap_or(true),
            })
            .collect();
        if labels.is_empty() {
            return Err(RmError::invalid(
                "node_labels",
                "No cluster node-labels are specified",
            ));
        }
        for label in &labels {
            check_label_name(&label.name)
                .map_err(|err| RmError::invalid("node_labels", err.to_string()))?;
        }
        self.commit_labels(CommandV1::AddClusterNodeLabels { labels })
            .await?;
        Ok(AddToClusterNodeLabelsResponseProto {})
    }

    /// Removes cluster labels, taking them off every node.
    pub(crate) async fn remove_from_cluster_node_labels(
        &self,
        caller: &Caller,
        request: RemoveFromClusterNodeLabelsRequestProto,
    ) -> Result<RemoveFromClusterNodeLabelsResponseProto, RmError> {
        self.authorize(caller).await?;
        self.require_node_labels()?;
        let labels: Vec<String> = request
            .node_labels
            .iter()
            .map(|label| label.trim().to_owned())
            .filter(|label| !label.is_empty())
            .collect();
        if labels.is_empty() {
            return Err(RmError::invalid(
                "node_labels",
                "No cluster node-labels are specified",
            ));
        }
        // Until the first leader commits its queues, the state cannot tell which labels they
        // name; read once everything committed is applied.
        self.proposer.read_barrier().await?;
        if self.state.read(|state| state.queue_config_version == 0) {
            return Err(RmError::unavailable(
                "the queue configuration is not committed yet; retry",
            ));
        }
        self.commit_labels(CommandV1::RemoveClusterNodeLabels { labels })
            .await?;
        Ok(RemoveFromClusterNodeLabelsResponseProto {})
    }

    /// Sets the label of each listed NodeManager, or with port 0 of a host's; with
    /// `fail_on_unknown_nodes`, every node named must have registered once.
    pub(crate) async fn replace_labels_on_nodes(
        &self,
        caller: &Caller,
        request: ReplaceLabelsOnNodeRequestProto,
    ) -> Result<ReplaceLabelsOnNodeResponseProto, RmError> {
        self.authorize(caller).await?;
        self.require_node_labels()?;
        let mut mappings = Vec::with_capacity(request.node_to_labels.len());
        for (index, entry) in request.node_to_labels.iter().enumerate() {
            let field = "node_to_labels";
            let node = entry
                .node_id
                .as_ref()
                .filter(|node| !node.host.trim().is_empty())
                .ok_or_else(|| {
                    RmError::invalid(
                        field,
                        format!("node_to_labels[{index}]: node name cannot be empty"),
                    )
                })?;
            let port = match node.port {
                0 => None,
                port => Some(u16::try_from(port).map_err(|_| {
                    RmError::invalid(
                        field,
                        format!("node_to_labels[{index}]: port {port} is not a port"),
                    )
                })?),
            };
            let spec = NodeSpec {
                host: node.host.trim().to_owned(),
                port,
            };
            let labels: Vec<&str> = entry
                .node_labels
                .iter()
                .map(|label| label.trim())
                .filter(|label| !label.is_empty())
                .collect();
            let label = match labels.as_slice() {
                [] => None,
                [label] => Some((*label).to_owned()),
                _ => {
                    return Err(RmError::invalid(
                        field,
                        format!(
                            "{} labels specified on host={spec}, please note that we do not \
                             support specifying multiple labels on a single host for now.",
                            labels.len()
                        ),
                    ));
                }
            };
            mappings.push((spec, label));
        }
        if mappings.is_empty() {
            return Err(RmError::invalid(
                "node_to_labels",
                "No node-to-labels mappings are specified",
            ));
        }
        if request.fail_on_unknown_nodes {
            // Known: registered with this leader, or with an earlier one (its incarnation is
            // committed), as Hadoop knows its active and inactive nodes.
            let leadership = self.proposer.read_barrier().await?;
            let mut known: Vec<(String, Option<u16>)> = leadership.nodes(|tracker| {
                tracker
                    .nodes()
                    .map(|(id, _)| (id.host.clone(), Some(id.port)))
                    .collect()
            });
            self.state.read(|state| {
                known.extend(state.node_incarnations.keys().filter_map(|node| {
                    let (host, port) = node.rsplit_once(':')?;
                    Some((host.to_owned(), port.parse().ok()))
                }));
            });
            let unknown: Vec<String> = mappings
                .iter()
                .map(|(spec, _)| spec)
                .filter(|spec| {
                    !known.iter().any(|(host, port)| {
                        *host == spec.host && (spec.port.is_none() || spec.port == *port)
                    })
                })
                .map(ToString::to_string)
                .collect();
            if !unknown.is_empty() {
                return Err(RmError::invalid(
                    "node_to_labels",
                    format!(
                        "Failed to replace labels as there are unknown nodes:[{}]",
                        unknown.join(", ")
                    ),
                ));
            }
        }
        self.commit_labels(CommandV1::ReplaceLabelsOnNodes { mappings })
            .await?;
        Ok(ReplaceLabelsOnNodeResponseProto {})
    }

    fn require_node_labels(&self) -> Result<(), RmError> {
        if self.queues.settings.node_labels_enabled {
            Ok(())
        } else {
            Err(RmError::precondition(LABELS_DISABLED))
        }
    }

    async fn commit_labels(&self, command: CommandV1) -> Result<(), RmError> {
        match self.proposer.propose(RmCommand::V1(command)).await? {
            RmResponse::NodeLabelsChanged => Ok(()),
            RmResponse::NodeLabelsRefused { reason } => {
                Err(RmError::invalid("node_labels", reason))
            }
            other => Err(RmError::internal(format!(
                "a node-label change was answered with {other:?}"
            ))),
        }
    }
}
