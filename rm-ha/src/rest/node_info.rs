//! [`NodeInfo`]: Hadoop's `node` object, with the opportunistic figures of its `nodes` page.

use serde::Serialize;
use yarn_proto::ids::NodeId;
use yarn_proto::pb;

use crate::operations::RmError;

/// The node states a `states` query may name, as Hadoop spells them.
const NODE_STATES: [&str; 8] = [
    "NEW",
    "RUNNING",
    "UNHEALTHY",
    "DECOMMISSIONED",
    "LOST",
    "REBOOTED",
    "DECOMMISSIONING",
    "SHUTDOWN",
];

/// The states a `/nodes` query asks for: its `states` parameter (comma-separated, any case),
/// none meaning every state.
///
/// # Errors
///
/// [`RmError::InvalidRequest`] for a state Hadoop does not have or another parameter.
pub(crate) fn requested_states(
    query: &[(String, String)],
) -> Result<Vec<pb::NodeStateProto>, RmError> {
    let mut states = Vec::new();
    for (name, value) in query {
        match name.as_str() {
            "states" => {
                for state in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let upper = state.to_uppercase();
                    if !NODE_STATES.contains(&upper.as_str()) {
                        return Err(RmError::invalid(
                            "states",
                            format!(
                                "Invalid node state {state} specified. It should be one of {}",
                                NODE_STATES.join(", ")
                            ),
                        ));
                    }
                    let wire = pb::NodeStateProto::from_str_name(&format!("NS_{upper}"))
                        .ok_or_else(|| {
                            RmError::internal(format!("node state {upper} has no wire form"))
                        })?;
                    states.push(wire);
                }
            }
            "user.name" => {}
            other => {
                return Err(RmError::invalid(
                    "query",
                    format!("the query parameter {other:?} is not supported by /nodes"),
                ));
            }
        }
    }
    Ok(states)
}

/// `{"nodes": {"node": [...]}}`; `{"nodes": {}}` when none matches, as Hadoop 3 answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NodesResponse {
    nodes: NodeList,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct NodeList {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    node: Vec<NodeInfo>,
}

impl NodesResponse {
    /// The answer holding `nodes`.
    pub(crate) fn of(nodes: Vec<NodeInfo>) -> Self {
        Self {
            nodes: NodeList { node: nodes },
        }
    }
}

/// `{"node": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NodeResponse {
    pub(crate) node: NodeInfo,
}

/// Hadoop's `node` object.
///
/// `usedMemoryMB` and `usedVirtualCores` are what GUARANTEED containers hold, as Hadoop's
/// scheduler counts them; the OPPORTUNISTIC figures come from the node's last heartbeat, under
/// Hadoop's names (`numRunningOpportContainers`, `usedVirtualCoresOpport`,
/// `numQueuedContainers`, and `usedMemoryOpportGB`, which in Hadoop too carries the memory in
/// MB despite its name). `nodeHTTPAddress` is empty for an inactive node (lost,
/// decommissioned, rebooted or shut down), as in Hadoop. yarn-ha does not check node health,
/// so `healthReport` is empty and `lastHealthUpdate` 0. `nodeLabels` holds the node's label,
/// if it has one.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NodeInfo {
    pub(super) rack: String,
    pub(super) state: String,
    pub(super) id: String,
    pub(super) node_host_name: String,
    #[serde(rename = "nodeHTTPAddress")]
    pub(super) node_http_address: String,
    pub(super) last_health_update: i64,
    pub(super) health_report: String,
    pub(super) num_containers: i32,
    #[serde(rename = "usedMemoryMB")]
    pub(super) used_memory_mb: i64,
    #[serde(rename = "availMemoryMB")]
    pub(super) avail_memory_mb: i64,
    pub(super) used_virtual_cores: i64,
    pub(super) available_virtual_cores: i64,
    pub(super) num_running_opport_containers: i32,
    #[serde(rename = "usedMemoryOpportGB")]
    pub(super) used_memory_opport_gb: i64,
    pub(super) used_virtual_cores_opport: i64,
    pub(super) num_queued_containers: i32,
    /// The node's labels, sorted.
    pub(super) node_labels: Vec<String>,
}

impl NodeInfo {
    /// The object for `report`.
    pub(crate) fn describe(report: &pb::NodeReportProto) -> Self {
        let id = report
            .node_id
            .clone()
            .and_then(|id| NodeId::try_from(id).ok());
        let used = report.used.clone().unwrap_or_default();
        let capability = report.capability.clone().unwrap_or_default();
        Self {
            id: id.as_ref().map(ToString::to_string).unwrap_or_default(),
            rack: report.rack_name.clone(),
            state: report
                .node_state()
                .as_str_name()
                .trim_start_matches("NS_")
                .to_owned(),
            node_host_name: id.map(|id| id.host).unwrap_or_default(),
            node_http_address: if is_inactive(report.node_state()) {
                String::new()
            } else {
                report.http_address.clone()
            },
            last_health_update: report.last_health_report_time,
            health_report: report.health_report.clone(),
            num_containers: report.num_containers,
            used_memory_mb: used.memory,
            avail_memory_mb: capability.memory.saturating_sub(used.memory).max(0),
            used_virtual_cores: i64::from(used.virtual_cores),
            available_virtual_cores: i64::from(
                capability
                    .virtual_cores
                    .saturating_sub(used.virtual_cores)
                    .max(0),
            ),
            num_running_opport_containers: report.num_running_opportunistic_containers,
            used_memory_opport_gb: report.opportunistic_memory_used,
            used_virtual_cores_opport: i64::from(report.opportunistic_vcores_used),
            num_queued_containers: report.num_queued_opportunistic_containers,
            node_labels: {
                let mut labels = report.node_labels.clone();
                labels.sort();
                labels
            },
        }
    }
}

/// Hadoop's inactive node states, whose web address is not reported.
fn is_inactive(state: pb::NodeStateProto) -> bool {
    matches!(
        state,
        pb::NodeStateProto::NsLost
            | pb::NodeStateProto::NsDecommissioned
            | pb::NodeStateProto::NsRebooted
            | pb::NodeStateProto::NsShutdown
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_running_node_with_opportunistic_load_in_hadoops_names() {
        let report = pb::NodeReportProto {
            node_id: Some(NodeId::new("h1", 8041).into()),
            http_address: "h1:8042".to_owned(),
            rack_name: "/default-rack".to_owned(),
            used: Some(pb::ResourceProto {
                memory: 2048,
                virtual_cores: 2,
                ..Default::default()
            }),
            capability: Some(pb::ResourceProto {
                memory: 8192,
                virtual_cores: 8,
                ..Default::default()
            }),
            num_containers: 5,
            node_state: pb::NodeStateProto::NsRunning.into(),
            num_running_opportunistic_containers: 3,
            num_queued_opportunistic_containers: 4,
            opportunistic_memory_used: 1536,
            opportunistic_vcores_used: 3,
            node_labels: vec!["gpu".to_owned()],
            ..Default::default()
        };
        let node = serde_json::to_value(NodeInfo::describe(&report)).unwrap();
        assert_eq!(
            node,
            json!({
                "rack": "/default-rack",
                "state": "RUNNING",
                "id": "h1:8041",
                "nodeHostName": "h1",
                "nodeHTTPAddress": "h1:8042",
                "lastHealthUpdate": 0,
                "healthReport": "",
                "numContainers": 5,
                "usedMemoryMB": 2048,
                "availMemoryMB": 6144,
                "usedVirtualCores": 2,
                "availableVirtualCores": 6,
                "numRunningOpportContainers": 3,
                "usedMemoryOpportGB": 1536,
                "usedVirtualCoresOpport": 3,
                "numQueuedContainers": 4,
                "nodeLabels": ["gpu"],
            })
        );
    }

    #[test]
    fn a_lost_node_has_no_web_address() {
        let report = pb::NodeReportProto {
            node_id: Some(NodeId::new("h1", 8041).into()),
            http_address: "h1:8042".to_owned(),
            node_state: pb::NodeStateProto::NsLost.into(),
            ..Default::default()
        };
        let node = serde_json::to_value(NodeInfo::describe(&report)).unwrap();
        assert_eq!(node["state"], "LOST");
        assert_eq!(node["nodeHTTPAddress"], "");
    }

    #[test]
    fn states_are_checked_and_case_insensitive() {
        let query = |value: &str| vec![("states".to_owned(), value.to_owned())];
        assert_eq!(
            requested_states(&query("running,lost")).unwrap(),
            [pb::NodeStateProto::NsRunning, pb::NodeStateProto::NsLost]
        );
        let err = requested_states(&query("SLEEPING")).unwrap_err();
        assert!(
            matches!(&err, RmError::InvalidRequest { field: "states", message } if message.contains("SLEEPING")),
            "{err:?}"
        );
    }
}
