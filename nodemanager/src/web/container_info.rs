//! [`ContainerInfo`]: one container as `/ws/v1/node/containers` shows it, in Hadoop's JSON
//! shape, and the documents that carry it.

use serde::Serialize;
use yarn_proto::ids::NodeId;
use yarn_proto::pb;

use crate::container_manager::ContainerReport;
use crate::container_scheduler::ExecutionType;

/// Hadoop's `ContainerExitStatus.INVALID`: the exit code of a container that has not ended.
const EXIT_CODE_NOT_YET_KNOWN: i32 = pb::ContainerExitStatusProto::Invalid as i32;

/// `{"containers": {"container": [...]}}`, the document `/ws/v1/node/containers` returns.
///
/// A node without containers answers `{"containers": {"container": []}}`. Hadoop's Jersey
/// answers `{"containers": null}` there instead; yarn-ha keeps the shape of the non-empty case
/// so that clients need no special case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContainersResponse {
    /// The containers.
    pub containers: ContainerList,
}

/// The `containers` object: the list under `container`, as Hadoop names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContainerList {
    /// Every container the node knows, in container id order.
    pub container: Vec<ContainerInfo>,
}

/// `{"container": {...}}`, the document `/ws/v1/node/containers/{containerid}` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContainerResponse {
    /// The container.
    pub container: ContainerInfo,
}

/// Hadoop's `container` object of the NodeManager REST API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerInfo {
    /// The container id, e.g. `container_e03_1700000000000_0001_01_000001`.
    pub id: String,
    /// YARN's public container state: `NEW`, `SCHEDULED` (queued or about to launch),
    /// `RUNNING` or `COMPLETE`. Hadoop reports its NodeManager's internal state machine here
    /// (`LOCALIZING`, `EXITED_WITH_SUCCESS`, `DONE`, ...), which yarn-ha does not have.
    pub state: String,
    /// The exit status once the container completed; -1000 (`INVALID`) before, as in Hadoop.
    pub exit_code: i32,
    /// Why the container ended; empty before.
    pub diagnostics: String,
    /// The application's user.
    pub user: String,
    /// The container's memory allocation in MB.
    #[serde(rename = "totalMemoryNeededMB")]
    pub total_memory_needed_mb: u64,
    /// The container's vcores.
    #[serde(rename = "totalVCoresNeeded")]
    pub total_vcores_needed: u64,
    /// Empty, where Hadoop puts the absolute URL of the container's log page: yarn-ha's page
    /// is `/node/containerlogs/<container>/<user>` on this node's web address. The files named
    /// in `container_log_files` lie in the node's first log directory under
    /// `<application>/<container>/`.
    pub container_logs_link: String,
    /// The node id, `host:port`.
    pub node_id: String,
    /// The names of the files in the container's log directory (`stdout`, `stderr`), sorted;
    /// empty until the container is launched, and for simulated containers.
    pub container_log_files: Vec<String>,
    /// `GUARANTEED` or `OPPORTUNISTIC`: the execution type the container has now.
    pub execution_type: String,
}

impl ContainerInfo {
    /// The `container` object of `report`, on node `node_id`, whose log directory holds
    /// `log_files`.
    pub fn describe(report: &ContainerReport, node_id: &NodeId, log_files: Vec<String>) -> Self {
        Self {
            id: report.container_id.to_string(),
            state: report.state_name().to_owned(),
            exit_code: report.exit_code.unwrap_or(EXIT_CODE_NOT_YET_KNOWN),
            diagnostics: report.diagnostics.clone(),
            user: report.user.clone(),
            total_memory_needed_mb: report.memory_mb,
            total_vcores_needed: u64::from(report.vcores),
            container_logs_link: String::new(),
            node_id: node_id.to_string(),
            container_log_files: log_files,
            execution_type: execution_type_name(report.execution_type).to_owned(),
        }
    }
}

/// YARN's `ExecutionType` names.
fn execution_type_name(execution_type: ExecutionType) -> &'static str {
    match execution_type {
        ExecutionType::Guaranteed => "GUARANTEED",
        ExecutionType::Opportunistic => "OPPORTUNISTIC",
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

    use super::*;

    fn report(state: pb::ContainerStateProto, exit_code: Option<i32>) -> ContainerReport {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        ContainerReport {
            container_id: ContainerId::new(attempt, 3, 2).unwrap(),
            user: "alice".to_owned(),
            state,
            pid: None,
            exit_code,
            diagnostics: String::new(),
            memory_mb: 1536,
            vcores: 2,
            execution_type: ExecutionType::Opportunistic,
            log_dir: PathBuf::from("/logs/application_1700000000000_0001/c"),
        }
    }

    fn node_id() -> NodeId {
        NodeId::new("node1.example.com", 45454)
    }

    #[test]
    fn a_completed_container_serializes_in_hadoops_shape() {
        let mut report = report(pb::ContainerStateProto::CComplete, Some(143));
        report.diagnostics = "Container killed on request.".to_owned();
        report.execution_type = ExecutionType::Guaranteed;
        let info = ContainerInfo::describe(
            &report,
            &node_id(),
            vec!["stderr".to_owned(), "stdout".to_owned()],
        );
        assert_eq!(
            serde_json::to_value(ContainerResponse { container: info }).unwrap(),
            json!({"container": {
                "id": "container_e03_1700000000000_0001_01_000002",
                "state": "COMPLETE",
                "exitCode": 143,
                "diagnostics": "Container killed on request.",
                "user": "alice",
                "totalMemoryNeededMB": 1536,
                "totalVCoresNeeded": 2,
                "containerLogsLink": "",
                "nodeId": "node1.example.com:45454",
                "containerLogFiles": ["stderr", "stdout"],
                "executionType": "GUARANTEED",
            }})
        );
    }

    #[test]
    fn a_container_that_has_not_ended_reports_hadoops_invalid_exit_code() {
        for state in [
            pb::ContainerStateProto::CScheduled,
            pb::ContainerStateProto::CRunning,
        ] {
            let info = ContainerInfo::describe(&report(state, None), &node_id(), Vec::new());
            assert_eq!(info.exit_code, -1000, "{state:?}");
            assert_eq!(info.execution_type, "OPPORTUNISTIC");
        }
        let running = ContainerInfo::describe(
            &report(pb::ContainerStateProto::CRunning, None),
            &node_id(),
            Vec::new(),
        );
        assert_eq!(running.state, "RUNNING");
    }

    #[test]
    fn containers_are_listed_under_container_even_when_there_are_none() {
        let empty = ContainersResponse {
            containers: ContainerList {
                container: Vec::new(),
            },
        };
        assert_eq!(
            serde_json::to_value(empty).unwrap(),
            json!({"containers": {"container": []}})
        );
    }
}
