//! The node-label queries of the client protocol (`getClusterNodeLabels`, `getNodeToLabels`,
//! `getLabelsToNodes`), read from the committed labels after the leader's read barrier.

use yarn_proto::pb;
use yarn_scheduler::{NodeLabels, NodeSpec};

use super::{ClientOperations, RmError};

impl ClientOperations {
    /// The cluster's labels, by name.
    pub(crate) async fn get_cluster_node_labels(
        &self,
    ) -> Result<pb::GetClusterNodeLabelsResponseProto, RmError> {
        let labels = self.committed_labels().await?;
        Ok(pb::GetClusterNodeLabelsResponseProto {
            deprecated_node_labels: labels.labels().map(|label| label.name).collect(),
            node_labels: labels
                .labels()
                .map(|label| pb::NodeLabelProto {
                    name: label.name,
                    is_exclusive: Some(label.exclusive),
                })
                .collect(),
        })
    }

    /// The label of every host (port 0) and NodeManager mapped to one.
    pub(crate) async fn get_node_to_labels(
        &self,
    ) -> Result<pb::GetNodesToLabelsResponseProto, RmError> {
        let labels = self.committed_labels().await?;
        Ok(pb::GetNodesToLabelsResponseProto {
            node_to_labels: labels
                .mappings()
                .iter()
                .map(|(node, label)| pb::NodeIdToLabelsProto {
                    node_id: Some(node_id_of(node)),
                    node_labels: vec![label.clone()],
                })
                .collect(),
        })
    }

    /// The hosts (port 0) and NodeManagers of each label asked for, or of every label; a label
    /// the cluster does not have is left out.
    pub(crate) async fn get_labels_to_nodes(
        &self,
        request: pb::GetLabelsToNodesRequestProto,
    ) -> Result<pb::GetLabelsToNodesResponseProto, RmError> {
        let labels = self.committed_labels().await?;
        let wanted = |label: &str| {
            request.node_labels.is_empty() || request.node_labels.iter().any(|l| l == label)
        };
        Ok(pb::GetLabelsToNodesResponseProto {
            labels_to_nodes: labels
                .labels()
                .filter(|label| wanted(&label.name))
                .map(|label| pb::LabelsToNodeIdsProto {
                    node_id: labels
                        .mappings()
                        .iter()
                        .filter(|(_, mapped)| **mapped == label.name)
                        .map(|(node, _)| node_id_of(node))
                        .collect(),
                    node_labels: label.name,
                })
                .collect(),
        })
    }

    async fn committed_labels(&self) -> Result<NodeLabels, RmError> {
        self.proposer.read_barrier().await?;
        Ok(self.state.read(|state| state.node_labels.clone()))
    }
}

/// A mapping's node as Hadoop writes it: a host alone has port 0.
fn node_id_of(node: &NodeSpec) -> pb::NodeIdProto {
    pb::NodeIdProto {
        host: node.host.clone(),
        port: node.port.map_or(0, i32::from),
    }
}
