//! `GET /ws/v1/cluster/get-node-labels`: the cluster's node labels as Hadoop's
//! `NodeLabelsInfo` gives them, `{"nodeLabelsInfo": {"nodeLabelInfo": [{"name", "exclusivity"}]}}`.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use yarn_proto::pb;

use super::rest_api::{RestApi, RestCaller};
use super::rest_refusal::RestRefusal;

/// `{"nodeLabelsInfo": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct NodeLabelsResponse {
    node_labels_info: NodeLabelsInfo,
}

/// Hadoop's `nodeLabelsInfo`: one `nodeLabelInfo` per label, by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeLabelsInfo {
    node_label_info: Vec<NodeLabelInfo>,
}

/// Hadoop's `nodeLabelInfo`.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct NodeLabelInfo {
    name: String,
    exclusivity: bool,
}

impl NodeLabelsResponse {
    fn of(labels: &[pb::NodeLabelProto]) -> Self {
        Self {
            node_labels_info: NodeLabelsInfo {
                node_label_info: labels
                    .iter()
                    .map(|label| NodeLabelInfo {
                        name: label.name.clone(),
                        exclusivity: label.is_exclusive.unwrap_or(true),
                    })
                    .collect(),
            },
        }
    }
}

/// The handler: the committed labels, read after the leader's read barrier.
pub(super) async fn get_node_labels(
    State(api): State<RestApi>,
    _caller: RestCaller,
) -> Result<Response, RestRefusal> {
    let labels = api.operations.get_cluster_node_labels().await?.node_labels;
    Ok(axum::Json(NodeLabelsResponse::of(&labels)).into_response())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn labels_take_hadoops_names() {
        let labels = [
            pb::NodeLabelProto {
                name: "gpu".to_owned(),
                is_exclusive: Some(true),
            },
            pb::NodeLabelProto {
                name: "spare".to_owned(),
                is_exclusive: Some(false),
            },
        ];
        assert_eq!(
            serde_json::to_value(NodeLabelsResponse::of(&labels)).unwrap(),
            json!({"nodeLabelsInfo": {"nodeLabelInfo": [
                {"name": "gpu", "exclusivity": true},
                {"name": "spare", "exclusivity": false},
            ]}})
        );
    }
}
