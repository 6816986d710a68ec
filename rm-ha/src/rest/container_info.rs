//! [`ContainerInfo`]: Hadoop's `container` object of
//! `/ws/v1/cluster/apps/{appid}/appattempts/{attemptid}/containers[/{containerid}]`, from the
//! client protocol's container reports.

use serde::Serialize;
use yarn_proto::ids::{ContainerId, NodeId};
use yarn_proto::pb;

/// `{"containers": {"container": [...]}}`, in container id order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ContainersResponse {
    containers: ContainerList,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct ContainerList {
    container: Vec<ContainerInfo>,
}

/// `{"container": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ContainerResponse {
    pub(crate) container: ContainerInfo,
}

/// Hadoop's `container` object (its fields in Hadoop's names and order), with yarn-ha's
/// `executionType` added, `GUARANTEED` or `OPPORTUNISTIC`.
///
/// Times are ms since the epoch, `finishedTime` 0 while the container runs and `elapsedTime`
/// up to the report; `containerExitStatus` is 0 until the container ended (Hadoop's value for a
/// container without an exit status yet). `nodeHttpAddress` is the node's web address as
/// `host:port` and `logUrl` the node's log page of the container, both empty while the leader
/// has not heard from the node.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContainerInfo {
    pub(super) container_id: String,
    #[serde(rename = "allocatedMB")]
    pub(super) allocated_mb: i64,
    #[serde(rename = "allocatedVCores")]
    pub(super) allocated_v_cores: i32,
    pub(super) assigned_node_id: String,
    pub(super) priority: i32,
    pub(super) started_time: i64,
    pub(super) finished_time: i64,
    pub(super) elapsed_time: i64,
    pub(super) diagnostics_info: String,
    pub(super) log_url: String,
    pub(super) container_exit_status: i32,
    pub(super) container_state: String,
    pub(super) node_http_address: String,
    pub(super) node_id: String,
    pub(super) execution_type: &'static str,
}

impl ContainersResponse {
    /// The answer for `reports`, sorted by container id.
    pub(crate) fn of(reports: &[pb::ContainerReportProto], now_ms: i64) -> Self {
        let mut container: Vec<ContainerInfo> = reports
            .iter()
            .map(|report| ContainerInfo::describe(report, now_ms))
            .collect();
        container.sort_by(|a, b| a.container_id.cmp(&b.container_id));
        Self {
            containers: ContainerList { container },
        }
    }
}

impl ContainerInfo {
    /// The object for `report`, made at `now_ms`.
    pub(crate) fn describe(report: &pb::ContainerReportProto, now_ms: i64) -> Self {
        let id = report
            .container_id
            .and_then(|id| ContainerId::try_from(id).ok());
        let node = report
            .node_id
            .clone()
            .and_then(|id| NodeId::try_from(id).ok())
            .map(|id| id.to_string())
            .unwrap_or_default();
        let resource = report.resource.clone().unwrap_or_default();
        let end = if report.finish_time > 0 {
            report.finish_time
        } else {
            now_ms
        };
        Self {
            container_id: id.map(|id| id.to_string()).unwrap_or_default(),
            allocated_mb: resource.memory,
            allocated_v_cores: resource.virtual_cores,
            assigned_node_id: node.clone(),
            priority: report.priority.map_or(0, |priority| priority.priority),
            started_time: report.creation_time,
            finished_time: report.finish_time,
            elapsed_time: end.saturating_sub(report.creation_time).max(0),
            diagnostics_info: report.diagnostics_info.clone(),
            log_url: report.log_url.clone(),
            container_exit_status: report.container_exit_status.unwrap_or(0),
            container_state: report
                .container_state()
                .as_str_name()
                .trim_start_matches("C_")
                .to_owned(),
            node_http_address: report.node_http_address.clone(),
            node_id: node,
            execution_type: match report.execution_type() {
                pb::ExecutionTypeProto::Opportunistic => "OPPORTUNISTIC",
                _ => "GUARANTEED",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;

    #[test]
    fn a_running_opportunistic_container_in_hadoops_names() {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700, 3), 1);
        let id = ContainerId::new(attempt, 1, 2).unwrap();
        let report = pb::ContainerReportProto {
            container_id: Some(id.into()),
            resource: Some(pb::ResourceProto {
                memory: 512,
                virtual_cores: 1,
                ..Default::default()
            }),
            node_id: Some(NodeId::new("h1", 8041).into()),
            priority: Some(pb::PriorityProto { priority: 2 }),
            creation_time: 1_000,
            container_state: pb::ContainerStateProto::CRunning.into(),
            node_http_address: "h1:8042".to_owned(),
            log_url: "https://h1:8042/node/containerlogs/c/alice".to_owned(),
            execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
            ..Default::default()
        };
        let container = serde_json::to_value(ContainerInfo::describe(&report, 4_000)).unwrap();
        assert_eq!(
            container,
            json!({
                "containerId": id.to_string(),
                "allocatedMB": 512,
                "allocatedVCores": 1,
                "assignedNodeId": "h1:8041",
                "priority": 2,
                "startedTime": 1_000,
                "finishedTime": 0,
                "elapsedTime": 3_000,
                "diagnosticsInfo": "",
                "logUrl": "https://h1:8042/node/containerlogs/c/alice",
                "containerExitStatus": 0,
                "containerState": "RUNNING",
                "nodeHttpAddress": "h1:8042",
                "nodeId": "h1:8041",
                "executionType": "OPPORTUNISTIC",
            })
        );
    }

    #[test]
    fn a_finished_container_reports_its_exit_and_elapsed_time() {
        let report = pb::ContainerReportProto {
            creation_time: 1_000,
            finish_time: 1_500,
            container_exit_status: Some(143),
            container_state: pb::ContainerStateProto::CComplete.into(),
            ..Default::default()
        };
        let container = ContainerInfo::describe(&report, 9_000);
        assert_eq!(container.elapsed_time, 500);
        assert_eq!(container.container_exit_status, 143);
        assert_eq!(container.container_state, "COMPLETE");
        assert_eq!(container.execution_type, "GUARANTEED");
    }
}
