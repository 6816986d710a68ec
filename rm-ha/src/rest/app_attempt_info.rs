//! [`AppAttemptsResponse`]: Hadoop's `appAttempts` object, from the client protocol's attempt
//! and container reports.

use serde::Serialize;
use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};
use yarn_proto::pb;

/// `{"appAttempts": {"appAttempt": [...]}}`, oldest attempt first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppAttemptsResponse {
    app_attempts: AppAttemptList,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct AppAttemptList {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    app_attempt: Vec<AppAttemptInfo>,
}

/// Hadoop's `appAttempt` object, its fields in Hadoop's order.
///
/// The AM container's id, node, node web address and log page (`logsLink`) come from the
/// attempt's container reports; an attempt without an AM container (not allocated yet, or
/// unmanaged) has them empty, as in Hadoop. yarn-ha keeps no per-attempt blacklist, so
/// `blacklistedNodes` is empty.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AppAttemptInfo {
    /// The attempt number, 1 for the first.
    pub(super) id: i32,
    pub(super) start_time: i64,
    pub(super) finished_time: i64,
    pub(super) container_id: String,
    pub(super) node_http_address: String,
    pub(super) node_id: String,
    pub(super) logs_link: String,
    pub(super) blacklisted_nodes: String,
    pub(super) app_attempt_id: String,
    pub(super) app_attempt_state: String,
}

impl AppAttemptsResponse {
    /// The answer for `attempts`, each with the reports of its containers (among which its AM
    /// container, if it has one).
    pub(crate) fn of(
        attempts: &[(
            pb::ApplicationAttemptReportProto,
            Vec<pb::ContainerReportProto>,
        )],
    ) -> Self {
        let app_attempt = attempts
            .iter()
            .map(|(attempt, containers)| AppAttemptInfo::describe(attempt, containers))
            .collect();
        Self {
            app_attempts: AppAttemptList { app_attempt },
        }
    }
}

impl AppAttemptInfo {
    /// The object for `attempt`, whose containers' reports are `containers`.
    pub(super) fn describe(
        attempt: &pb::ApplicationAttemptReportProto,
        containers: &[pb::ContainerReportProto],
    ) -> Self {
        let id = attempt
            .application_attempt_id
            .and_then(|id| ApplicationAttemptId::try_from(id).ok());
        let am_container = attempt
            .am_container_id
            .and_then(|id| ContainerId::try_from(id).ok());
        let am_report = am_container.and_then(|am| {
            containers.iter().find(|report| {
                report
                    .container_id
                    .and_then(|id| ContainerId::try_from(id).ok())
                    == Some(am)
            })
        });
        let am_node = am_report
            .and_then(|report| report.node_id.clone())
            .and_then(|node| NodeId::try_from(node).ok());
        Self {
            id: id.map_or(0, |id| id.attempt_id),
            start_time: attempt.start_time,
            finished_time: attempt.finish_time,
            container_id: am_container.map(|id| id.to_string()).unwrap_or_default(),
            node_http_address: am_report
                .map(|report| report.node_http_address.clone())
                .unwrap_or_default(),
            node_id: am_node.map(|node| node.to_string()).unwrap_or_default(),
            logs_link: am_report
                .map(|report| report.log_url.clone())
                .unwrap_or_default(),
            blacklisted_nodes: String::new(),
            app_attempt_id: id.map(|id| id.to_string()).unwrap_or_default(),
            app_attempt_state: attempt
                .yarn_application_attempt_state()
                .as_str_name()
                .trim_start_matches("APP_ATTEMPT_")
                .to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use yarn_proto::ids::ApplicationId;

    use super::*;

    #[test]
    fn an_attempt_names_its_am_container_and_its_node() {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700, 3), 1);
        let am = ContainerId::new(attempt, 1, 1).unwrap();
        let report = pb::ApplicationAttemptReportProto {
            application_attempt_id: Some(attempt.into()),
            yarn_application_attempt_state: pb::YarnApplicationAttemptStateProto::AppAttemptRunning
                .into(),
            am_container_id: Some(am.into()),
            start_time: 5,
            ..Default::default()
        };
        let containers = [pb::ContainerReportProto {
            container_id: Some(am.into()),
            node_id: Some(NodeId::new("h1", 8041).into()),
            node_http_address: "h1:8042".to_owned(),
            log_url: format!("https://h1:8042/node/containerlogs/{am}/alice"),
            ..Default::default()
        }];
        let body = serde_json::to_value(AppAttemptsResponse::of(&[(report, containers.to_vec())]))
            .unwrap();
        assert_eq!(
            body,
            json!({"appAttempts": {"appAttempt": [{
                "id": 1,
                "startTime": 5,
                "finishedTime": 0,
                "containerId": am.to_string(),
                "nodeHttpAddress": "h1:8042",
                "nodeId": "h1:8041",
                "logsLink": format!("https://h1:8042/node/containerlogs/{am}/alice"),
                "blacklistedNodes": "",
                "appAttemptId": "appattempt_1700_0003_000001",
                "appAttemptState": "RUNNING",
            }]}})
        );
    }
}
