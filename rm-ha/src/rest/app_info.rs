//! [`AppInfo`] and its neighbours: Hadoop's `app`, `appstate` and `new-application`
//! objects, as pure functions of the client protocol's reports.

use serde::{Deserialize, Serialize};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;

use super::app_timeouts::AppTimeoutsInfo;

/// `{"apps": {"app": [...]}}`; `{"apps": {}}` when none matches, as Hadoop 3 answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct AppsResponse {
    apps: AppList,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct AppList {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    app: Vec<AppInfo>,
}

impl AppsResponse {
    /// The answer holding `apps`.
    pub(crate) fn of(apps: Vec<AppInfo>) -> Self {
        Self {
            apps: AppList { app: apps },
        }
    }
}

/// `{"app": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct AppResponse {
    pub(crate) app: AppInfo,
}

/// Hadoop's `app` object, its fields in Hadoop's order.
///
/// Times are ms since the epoch (0 while unset), `elapsedTime` runs to the finish time or, for
/// a running application, to when the report was made; `progress` is a percentage. The
/// resource figures are the application's live containers, -1 once it has ended, as Hadoop
/// reports them; yarn-ha has no reservations, so those figures are none. The preempted figures
/// are what the application's containers killed as PREEMPTED held, and for how long.
/// `trackingUrl` is left out while `trackingUI` is `UNASSIGNED`. `timeouts` holds the LIFETIME
/// timeout, `UNLIMITED` without one.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppInfo {
    pub(super) id: String,
    pub(super) user: String,
    pub(super) name: String,
    pub(super) queue: String,
    pub(super) state: String,
    pub(super) final_status: String,
    pub(super) progress: f32,
    #[serde(rename = "trackingUI")]
    pub(super) tracking_ui: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tracking_url: Option<String>,
    pub(super) diagnostics: String,
    pub(super) cluster_id: i64,
    pub(super) application_type: String,
    pub(super) application_tags: String,
    pub(super) priority: i32,
    pub(super) started_time: i64,
    pub(super) finished_time: i64,
    pub(super) elapsed_time: i64,
    #[serde(rename = "amRPCAddress", skip_serializing_if = "Option::is_none")]
    pub(super) am_rpc_address: Option<String>,
    #[serde(rename = "allocatedMB")]
    pub(super) allocated_mb: i64,
    #[serde(rename = "allocatedVCores")]
    pub(super) allocated_vcores: i64,
    #[serde(rename = "reservedMB")]
    pub(super) reserved_mb: i64,
    #[serde(rename = "reservedVCores")]
    pub(super) reserved_vcores: i64,
    pub(super) running_containers: i64,
    pub(super) memory_seconds: i64,
    pub(super) vcore_seconds: i64,
    #[serde(rename = "preemptedResourceMB")]
    pub(super) preempted_resource_mb: i64,
    pub(super) preempted_resource_v_cores: i32,
    pub(super) num_non_a_m_container_preempted: i32,
    pub(super) num_a_m_container_preempted: i32,
    pub(super) preempted_memory_seconds: i64,
    pub(super) preempted_vcore_seconds: i64,
    pub(super) unmanaged_application: bool,
    pub(super) timeouts: AppTimeoutsInfo,
}

impl AppInfo {
    /// The object for `report`, made at `now_ms`.
    pub(crate) fn describe(report: &pb::ApplicationReportProto, now_ms: i64) -> Self {
        let id = report
            .application_id
            .and_then(|id| ApplicationId::try_from(id).ok());
        let state = report.yarn_application_state();
        let final_status = report.final_application_status();
        let usage = report.app_resource_usage.clone().unwrap_or_default();
        let used = usage.used_resources.unwrap_or_default();
        let end = if report.finish_time > 0 {
            report.finish_time
        } else {
            now_ms
        };
        let tracking_ui = tracking_ui(state, report.finish_time, &report.tracking_url);
        // Hadoop reports -1 for what an ended application holds.
        let ended = matches!(
            state,
            pb::YarnApplicationStateProto::Finished
                | pb::YarnApplicationStateProto::Failed
                | pb::YarnApplicationStateProto::Killed
        );
        let held = |value: i64| if ended { -1 } else { value };
        Self {
            id: id.map(|id| id.to_string()).unwrap_or_default(),
            user: report.user.clone(),
            name: report.name.clone(),
            queue: report.queue.clone(),
            state: state.as_str_name().to_owned(),
            final_status: final_status
                .as_str_name()
                .trim_start_matches("APP_")
                .to_owned(),
            progress: report.progress * 100.0,
            tracking_ui,
            tracking_url: (tracking_ui != UNASSIGNED).then(|| report.tracking_url.clone()),
            diagnostics: report.diagnostics.clone(),
            cluster_id: id.map_or(0, |id| id.cluster_timestamp),
            application_type: report.application_type.clone(),
            application_tags: report.application_tags.join(","),
            priority: report.priority.map_or(0, |priority| priority.priority),
            started_time: report.start_time,
            finished_time: report.finish_time,
            elapsed_time: end.saturating_sub(report.start_time).max(0),
            am_rpc_address: (!report.host.is_empty() && report.rpc_port > 0)
                .then(|| format!("{}:{}", report.host, report.rpc_port)),
            allocated_mb: held(used.memory),
            allocated_vcores: held(i64::from(used.virtual_cores)),
            reserved_mb: held(0),
            reserved_vcores: held(0),
            running_containers: held(i64::from(usage.num_used_containers)),
            memory_seconds: usage.memory_seconds,
            vcore_seconds: usage.vcore_seconds,
            preempted_resource_mb: usage.preempted_memory_mb,
            preempted_resource_v_cores: i32::try_from(usage.preempted_vcores).unwrap_or(i32::MAX),
            num_non_a_m_container_preempted: usage.num_non_am_containers_preempted,
            num_a_m_container_preempted: usage.num_am_containers_preempted,
            preempted_memory_seconds: usage.preempted_memory_seconds,
            preempted_vcore_seconds: usage.preempted_vcore_seconds,
            unmanaged_application: report.unmanaged_application,
            timeouts: AppTimeoutsInfo::of(report),
        }
    }
}

/// Hadoop's `trackingUI` while no AM has given a tracking URL.
const UNASSIGNED: &str = "UNASSIGNED";

/// Hadoop's `trackingUI`: nothing until an AM runs and gives a URL, then the AM's page, then,
/// once the application has finished, its history.
fn tracking_ui(
    state: pb::YarnApplicationStateProto,
    finish_time: i64,
    tracking_url: &str,
) -> &'static str {
    use pb::YarnApplicationStateProto as State;
    let before_am = matches!(
        state,
        State::New | State::NewSaving | State::Submitted | State::Accepted
    );
    if before_am || tracking_url.is_empty() {
        UNASSIGNED
    } else if finish_time == 0 {
        "ApplicationMaster"
    } else {
        "History"
    }
}

/// Hadoop's `appstate` object: `{"state": "KILLED"}`, both as an answer and as the body of a
/// kill request, which may say why (`diagnostics`, kept in the application's diagnostics).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AppStateInfo {
    pub(crate) state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) diagnostics: Option<String>,
}

impl AppStateInfo {
    /// The state of `report`.
    pub(crate) fn of(report: &pb::ApplicationReportProto) -> Self {
        Self {
            state: report.yarn_application_state().as_str_name().to_owned(),
            diagnostics: None,
        }
    }

    /// Whether the application has ended.
    pub(crate) fn is_final(&self) -> bool {
        matches!(self.state.as_str(), "FINISHED" | "FAILED" | "KILLED")
    }
}

/// Hadoop's `appqueue` object, `{"queue": "..."}`: an answer, and the body of a move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AppQueue {
    pub(crate) queue: String,
}

/// Hadoop's `applicationpriority` object, `{"priority": n}`: an answer, and the body of a
/// change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AppPriority {
    pub(crate) priority: i32,
}

/// Hadoop's answer to `POST /apps/new-application`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct NewApplication {
    #[serde(rename = "application-id")]
    application_id: String,
    #[serde(rename = "maximum-resource-capability")]
    maximum_resource_capability: ResourceInfo,
}

/// Hadoop's `resource` object: `{"memory": MB, "vCores": n}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResourceInfo {
    memory: i64,
    #[serde(rename = "vCores")]
    v_cores: i32,
}

impl From<&pb::ResourceProto> for ResourceInfo {
    fn from(proto: &pb::ResourceProto) -> Self {
        Self {
            memory: proto.memory,
            v_cores: proto.virtual_cores,
        }
    }
}

impl From<ResourceInfo> for pb::ResourceProto {
    fn from(info: ResourceInfo) -> Self {
        Self {
            memory: info.memory,
            virtual_cores: info.v_cores,
            ..Default::default()
        }
    }
}

impl NewApplication {
    /// The answer for the client protocol's `response`.
    pub(crate) fn of(response: &pb::GetNewApplicationResponseProto) -> Self {
        let capability = response.maximum_capability.clone().unwrap_or_default();
        Self {
            application_id: response
                .application_id
                .and_then(|id| ApplicationId::try_from(id).ok())
                .map(|id| id.to_string())
                .unwrap_or_default(),
            maximum_resource_capability: ResourceInfo::from(&capability),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn running() -> pb::ApplicationReportProto {
        pb::ApplicationReportProto {
            application_id: Some(ApplicationId::new(1_700, 3).into()),
            user: "alice".to_owned(),
            queue: "default".to_owned(),
            name: "job".to_owned(),
            host: "h1".to_owned(),
            rpc_port: 4000,
            yarn_application_state: pb::YarnApplicationStateProto::Running.into(),
            tracking_url: "http://h1:4001".to_owned(),
            start_time: 10_000,
            progress: 0.5,
            application_type: "YARN".to_owned(),
            application_tags: vec!["a".to_owned(), "b".to_owned()],
            priority: Some(pb::PriorityProto { priority: 2 }),
            app_resource_usage: Some(pb::ApplicationResourceUsageReportProto {
                num_used_containers: 3,
                used_resources: Some(pb::ResourceProto {
                    memory: 3072,
                    virtual_cores: 3,
                    ..Default::default()
                }),
                memory_seconds: 900,
                vcore_seconds: 9,
                preempted_memory_mb: 2048,
                preempted_vcores: 2,
                preempted_memory_seconds: 300,
                preempted_vcore_seconds: 3,
                num_non_am_containers_preempted: 1,
                num_am_containers_preempted: 1,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_running_application_in_hadoops_names_types_and_units() {
        let app = serde_json::to_value(AppInfo::describe(&running(), 15_000)).unwrap();
        let expected = json!({
            "id": "application_1700_0003",
            "user": "alice",
            "name": "job",
            "queue": "default",
            "state": "RUNNING",
            "finalStatus": "UNDEFINED",
            "progress": 50.0,
            "trackingUI": "ApplicationMaster",
            "trackingUrl": "http://h1:4001",
            "diagnostics": "",
            "clusterId": 1_700,
            "applicationType": "YARN",
            "applicationTags": "a,b",
            "priority": 2,
            "startedTime": 10_000,
            "finishedTime": 0,
            "elapsedTime": 5_000,
            "amRPCAddress": "h1:4000",
            "allocatedMB": 3072,
            "allocatedVCores": 3,
            "reservedMB": 0,
            "reservedVCores": 0,
            "runningContainers": 3,
            "memorySeconds": 900,
            "vcoreSeconds": 9,
            "preemptedResourceMB": 2048,
            "preemptedResourceVCores": 2,
            "numNonAMContainerPreempted": 1,
            "numAMContainerPreempted": 1,
            "preemptedMemorySeconds": 300,
            "preemptedVcoreSeconds": 3,
            "unmanagedApplication": false,
            "timeouts": {"timeout": [{
                "type": "LIFETIME",
                "expiryTime": "UNLIMITED",
                "remainingTimeInSeconds": -1,
            }]},
        });
        assert_eq!(app, expected);
    }

    #[test]
    fn an_ended_application_holds_minus_one_and_links_to_history() {
        let mut report = running();
        report.yarn_application_state = pb::YarnApplicationStateProto::Finished.into();
        report.final_application_status = pb::FinalApplicationStatusProto::AppSucceeded.into();
        report.finish_time = 12_000;
        let app = serde_json::to_value(AppInfo::describe(&report, 99_000)).unwrap();
        assert_eq!(app["finalStatus"], "SUCCEEDED");
        assert_eq!(app["trackingUI"], "History");
        assert_eq!(app["elapsedTime"], 2_000);
        for held in [
            "allocatedMB",
            "allocatedVCores",
            "runningContainers",
            "reservedMB",
        ] {
            assert_eq!(app[held], -1, "{held}");
        }
    }

    #[test]
    fn an_accepted_application_has_no_tracking_url_yet() {
        let mut report = running();
        report.yarn_application_state = pb::YarnApplicationStateProto::Accepted.into();
        let app = serde_json::to_value(AppInfo::describe(&report, 15_000)).unwrap();
        assert_eq!(app["trackingUI"], "UNASSIGNED");
        assert!(app.get("trackingUrl").is_none(), "{app}");
    }

    #[test]
    fn no_match_is_an_empty_apps_object() {
        let body = serde_json::to_value(AppsResponse::of(Vec::new())).unwrap();
        assert_eq!(body, json!({"apps": {}}));
    }
}
