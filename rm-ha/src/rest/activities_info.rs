//! Hadoop's JSON of scheduler and application activities (`ActivitiesInfo`,
//! `AppActivitiesInfo` and the DAOs under them), and the query parameters of both endpoints.

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Serialize;
use yarn_proto::ids::NodeId;
use yarn_scheduler::{ActivityState, AppActivity, RequestActivity};

use crate::operations::NodeFilter;
use crate::scheduling::{RecordedActivity, RecordedPass};

/// Hadoop's diagnostic while no pass is recorded yet, when no node was named.
pub(crate) const WAITING_FOR_NEXT_ALLOCATION: &str = "waiting for next allocation";
/// Hadoop's diagnostic while nothing is recorded yet for a node or an application.
pub(crate) const WAITING_FOR_DISPLAY: &str = "waiting for display";
/// Hadoop's name of a container not placed.
const NO_CONTAINER: &str = "Container-Id-Not-Assigned";
/// The longest an application's recording may be asked for: each of the leader's passes
/// builds its records meanwhile.
const MAX_RECORDING_SECS: f64 = 600.0;

/// `{"activities": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ActivitiesResponse {
    activities: ActivitiesInfo,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct ActivitiesInfo {
    #[serde(skip_serializing_if = "Option::is_none")]
    node_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostic: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    allocations: Vec<NodeAllocationInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeAllocationInfo {
    partition: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_container_id: Option<String>,
    final_allocation_state: &'static str,
    root: ActivityNodeInfo,
}

/// A queue, application, request or node of an activity tree.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct ActivityNodeInfo {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    app_priority: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_priority: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allocation_request_id: Option<i64>,
    allocation_state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostic: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    node_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    node_ids: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<ActivityNodeInfo>,
}

impl ActivitiesResponse {
    /// What a read answers: the recorded pass (restricted to `node` when named), or Hadoop's
    /// diagnostic while none is.
    pub(crate) fn of(pass: Option<&RecordedPass>, node: Option<&str>, group_by: bool) -> Self {
        let node_id = node.map(str::to_owned);
        let Some(pass) = pass else {
            let waiting = if node.is_some() {
                WAITING_FOR_DISPLAY
            } else {
                WAITING_FOR_NEXT_ALLOCATION
            };
            return Self::refusal(waiting, node);
        };
        if pass.records.is_empty() {
            return Self::refusal("do not have available resources", node);
        }
        let mut diagnostic = None;
        if pass.dropped > 0 {
            diagnostic = Some(format!(
                "the first {} attempts of the pass are shown; {} more were not recorded",
                pass.records.len(),
                pass.dropped
            ));
        }
        Self {
            activities: ActivitiesInfo {
                node_id,
                timestamp: Some(pass.at_ms),
                date_time: Some(date_time(pass.at_ms)),
                diagnostic,
                allocations: pass
                    .records
                    .iter()
                    .map(|record| NodeAllocationInfo {
                        partition: record.partition.clone(),
                        updated_container_id: allocated(record)
                            .and_then(|request| request.container)
                            .map(|id| id.to_string()),
                        final_allocation_state: allocation_state(record.state),
                        root: queue_tree(record, group_by),
                    })
                    .collect(),
            },
        }
    }

    /// Hadoop's answer that names only what went wrong, or what is awaited.
    pub(crate) fn refusal(diagnostic: &str, node: Option<&str>) -> Self {
        Self {
            activities: ActivitiesInfo {
                node_id: node.map(str::to_owned),
                timestamp: None,
                date_time: None,
                diagnostic: Some(diagnostic.to_owned()),
                allocations: Vec::new(),
            },
        }
    }
}

/// `{"appActivities": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppActivitiesResponse {
    app_activities: AppActivitiesInfo,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct AppActivitiesInfo {
    application_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostic: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date_time: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    allocations: Vec<AppAllocationInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct AppAllocationInfo {
    #[serde(skip_serializing_if = "Option::is_none")]
    node_id: Option<String>,
    timestamp: i64,
    date_time: String,
    queue_name: String,
    app_priority: i32,
    allocation_state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostic: Option<String>,
    children: Vec<AppRequestAllocationInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct AppRequestAllocationInfo {
    request_priority: i32,
    allocation_request_id: i64,
    allocation_state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostic: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<ActivityNodeInfo>,
}

impl AppActivitiesResponse {
    /// What a read answers: the activities recorded (newest first, filtered as `query` says),
    /// Hadoop's `waiting for display` when none ever was, or, for a refresh alone, its
    /// acknowledgement.
    pub(crate) fn of(
        application_id: &str,
        recorded: Option<&[RecordedActivity]>,
        query: &AppActivitiesQuery,
        now_ms: i64,
    ) -> Self {
        if !query.get {
            return Self::note(
                application_id,
                "Successfully received action: refresh",
                now_ms,
            );
        }
        let Some(recorded) = recorded else {
            return Self::note(application_id, WAITING_FOR_DISPLAY, now_ms);
        };
        let allocations = recorded
            .iter()
            .filter_map(|entry| query.app_allocation(entry))
            .take(query.limit.unwrap_or(usize::MAX))
            .collect();
        Self {
            app_activities: AppActivitiesInfo {
                application_id: application_id.to_owned(),
                diagnostic: None,
                timestamp: None,
                date_time: None,
                allocations,
            },
        }
    }

    /// Hadoop's answer that carries only a diagnostic and the time.
    pub(crate) fn note(application_id: &str, diagnostic: &str, now_ms: i64) -> Self {
        Self {
            app_activities: AppActivitiesInfo {
                application_id: application_id.to_owned(),
                diagnostic: Some(diagnostic.to_owned()),
                timestamp: Some(now_ms),
                date_time: Some(date_time(now_ms)),
                allocations: Vec::new(),
            },
        }
    }
}

/// The query of `GET /ws/v1/cluster/scheduler/activities`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActivitiesQuery {
    /// `nodeId`: `host:port` or a host.
    pub(crate) node: Option<(String, NodeFilter)>,
    /// `groupBy=diagnostic`.
    pub(crate) group_by: bool,
}

impl ActivitiesQuery {
    /// Reads `nodeId` and `groupBy`.
    ///
    /// # Errors
    ///
    /// Hadoop's message for a `groupBy` other than `diagnostic`, or a `nodeId` that is not
    /// `host` or `host:port`.
    pub(crate) fn parse(query: &[(String, String)]) -> Result<Self, String> {
        let mut parsed = Self {
            node: None,
            group_by: false,
        };
        for (name, value) in query {
            match name.as_str() {
                "nodeId" => {
                    let filter = if value.contains(':') {
                        NodeFilter::Node(value.parse::<NodeId>().map_err(|err| {
                            format!("nodeId {value:?} is not host or host:port: {err}")
                        })?)
                    } else {
                        NodeFilter::Host(value.clone())
                    };
                    parsed.node = Some((value.clone(), filter));
                }
                "groupBy" => parsed.group_by = group_by(value)?,
                _ => {}
            }
        }
        Ok(parsed)
    }
}

/// The query of `GET /ws/v1/cluster/scheduler/app-activities/{appid}`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AppActivitiesQuery {
    /// `maxTime`: how long a refresh records (3 s).
    pub(crate) max_time: Duration,
    /// `requestPriorities`: only these requests (all when empty).
    pub(crate) request_priorities: BTreeSet<i32>,
    /// `allocationRequestIds`: only these requests (all when empty).
    pub(crate) allocation_request_ids: BTreeSet<i64>,
    /// `groupBy=diagnostic`.
    pub(crate) group_by: bool,
    /// `limit`: the newest this many.
    pub(crate) limit: Option<usize>,
    /// `actions` holds `refresh` (or is absent).
    pub(crate) refresh: bool,
    /// `actions` holds `get` (or is absent).
    pub(crate) get: bool,
}

impl AppActivitiesQuery {
    /// Reads Hadoop's parameters; repeated and comma-separated values add up.
    ///
    /// # Errors
    ///
    /// Hadoop's messages: `request priorities must be integers!`, `allocation request Ids
    /// must be integers!`, `limit must be integer!`, `limit must be greater than 0!`, `Got
    /// invalid action: ...`, `Got invalid groupBy: ...`; and a `maxTime` that is not a positive
    /// number of seconds up to ten minutes, or `summarize=true`, which yarn-ha does not do.
    pub(crate) fn parse(query: &[(String, String)]) -> Result<Self, String> {
        let mut parsed = Self {
            max_time: Duration::from_secs(3),
            request_priorities: BTreeSet::new(),
            allocation_request_ids: BTreeSet::new(),
            group_by: false,
            limit: None,
            refresh: false,
            get: false,
        };
        let mut actions = false;
        for (name, value) in query {
            let values = || value.split(',').map(str::trim).filter(|v| !v.is_empty());
            match name.as_str() {
                "maxTime" => {
                    let seconds: f64 = value.trim().parse().unwrap_or(f64::NAN);
                    if !(seconds > 0.0 && seconds <= MAX_RECORDING_SECS) {
                        return Err(format!(
                            "maxTime must be a positive number of seconds up to \
                             {MAX_RECORDING_SECS}, got {value:?}"
                        ));
                    }
                    parsed.max_time = Duration::from_secs_f64(seconds);
                }
                "requestPriorities" => {
                    for v in values() {
                        let priority = v
                            .parse()
                            .map_err(|_| "request priorities must be integers!")?;
                        parsed.request_priorities.insert(priority);
                    }
                }
                "allocationRequestIds" => {
                    for v in values() {
                        let id = v
                            .parse()
                            .map_err(|_| "allocation request Ids must be integers!")?;
                        parsed.allocation_request_ids.insert(id);
                    }
                }
                "groupBy" => parsed.group_by = group_by(value)?,
                "limit" => {
                    let limit: i64 = value.trim().parse().map_err(|_| "limit must be integer!")?;
                    let limit = usize::try_from(limit)
                        .ok()
                        .filter(|limit| *limit > 0)
                        .ok_or("limit must be greater than 0!")?;
                    parsed.limit = Some(limit);
                }
                "actions" => {
                    actions = true;
                    for v in values() {
                        match v.to_ascii_lowercase().as_str() {
                            "refresh" => parsed.refresh = true,
                            "get" => parsed.get = true,
                            _ => {
                                return Err(format!(
                                    "Got invalid action: {v}, valid actions: [REFRESH, GET]"
                                ));
                            }
                        }
                    }
                }
                "summarize" if value.trim().eq_ignore_ascii_case("false") => {}
                "summarize" => {
                    return Err(format!(
                        "summarize={value} is not supported: yarn-ha returns the recorded \
                         activities as they are"
                    ));
                }
                _ => {}
            }
        }
        if !actions {
            parsed.refresh = true;
            parsed.get = true;
        }
        Ok(parsed)
    }

    /// Whether `request` is one the query asks for.
    fn wants(&self, request: &RequestActivity) -> bool {
        (self.request_priorities.is_empty() || self.request_priorities.contains(&request.priority))
            && (self.allocation_request_ids.is_empty()
                || self
                    .allocation_request_ids
                    .contains(&request.allocation_request_id))
    }

    /// `entry` as Hadoop's `AppAllocationInfo`, its requests filtered; `None` when the filter
    /// leaves none of its requests.
    fn app_allocation(&self, entry: &RecordedActivity) -> Option<AppAllocationInfo> {
        let record = &entry.activity;
        let filtered =
            !self.request_priorities.is_empty() || !self.allocation_request_ids.is_empty();
        let children: Vec<AppRequestAllocationInfo> = record
            .requests
            .iter()
            .filter(|request| self.wants(request))
            .map(|request| AppRequestAllocationInfo {
                request_priority: request.priority,
                allocation_request_id: request.allocation_request_id,
                allocation_state: request.state.as_str(),
                diagnostic: request.diagnostic.as_ref().map(ToString::to_string),
                children: node_children(request, self.group_by),
            })
            .collect();
        if filtered && children.is_empty() {
            return None;
        }
        Some(AppAllocationInfo {
            node_id: allocated(record)
                .and_then(|request| request.node.as_ref())
                .map(ToString::to_string),
            timestamp: entry.at_ms,
            date_time: date_time(entry.at_ms),
            queue_name: record.queue.clone(),
            app_priority: record.app_priority,
            allocation_state: record.state.as_str(),
            diagnostic: app_diagnostic(record),
            children,
        })
    }
}

fn group_by(value: &str) -> Result<bool, String> {
    if value.trim().eq_ignore_ascii_case("diagnostic") {
        Ok(true)
    } else {
        Err(format!(
            "Got invalid groupBy: {value}, valid groupBy types: [DIAGNOSTIC]"
        ))
    }
}

/// Why the application was passed over, and how many of its requests were not kept.
fn app_diagnostic(record: &AppActivity) -> Option<String> {
    let not_kept = (record.requests_not_kept > 0).then(|| {
        format!(
            "{} more requests were passed over and not recorded",
            record.requests_not_kept
        )
    });
    match (record.diagnostic.as_ref(), not_kept) {
        (Some(diagnostic), Some(not_kept)) => Some(format!("{diagnostic}; {not_kept}")),
        (Some(diagnostic), None) => Some(diagnostic.to_string()),
        (None, not_kept) => not_kept,
    }
}

/// The request of `record` that got a container.
fn allocated(record: &AppActivity) -> Option<&RequestActivity> {
    record
        .requests
        .iter()
        .find(|request| request.state == ActivityState::Allocated)
}

/// Hadoop's `AllocationState` name of an attempt's outcome.
fn allocation_state(state: ActivityState) -> &'static str {
    match state {
        ActivityState::Allocated => "ALLOCATED",
        ActivityState::Skipped | ActivityState::Rejected => "SKIPPED",
    }
}

/// `record` as a tree from `root` down its queue path to the application, its requests and
/// the node each got.
fn queue_tree(record: &AppActivity, group_by: bool) -> ActivityNodeInfo {
    let application = ActivityNodeInfo {
        name: Some(record.application_id.to_string()),
        app_priority: Some(record.app_priority),
        allocation_state: record.state.as_str(),
        diagnostic: app_diagnostic(record),
        children: record
            .requests
            .iter()
            .map(|request| ActivityNodeInfo {
                name: Some(format!(
                    "request_{}_{}",
                    request.priority, request.allocation_request_id
                )),
                request_priority: Some(request.priority),
                allocation_request_id: Some(request.allocation_request_id),
                allocation_state: request.state.as_str(),
                diagnostic: request.diagnostic.as_ref().map(ToString::to_string),
                children: node_children(request, group_by),
                ..ActivityNodeInfo::default()
            })
            .collect(),
        ..ActivityNodeInfo::default()
    };
    let queue_state = if record.state == ActivityState::Allocated {
        "ACCEPTED"
    } else {
        "SKIPPED"
    };
    let parts: Vec<&str> = record.queue.split('.').collect();
    (1..=parts.len())
        .rev()
        .fold(application, |child, depth| ActivityNodeInfo {
            name: Some(parts[..depth].join(".")),
            allocation_state: queue_state,
            children: vec![child],
            ..ActivityNodeInfo::default()
        })
}

/// The node `request` went to, or with `group_by` Hadoop's grouped form.
fn node_children(request: &RequestActivity, group_by: bool) -> Vec<ActivityNodeInfo> {
    let Some(node) = &request.node else {
        return Vec::new();
    };
    let state = request.state.as_str();
    // Each request goes to one node at most, so a group is that node.
    if group_by {
        return vec![ActivityNodeInfo {
            allocation_state: state,
            count: Some(1),
            node_ids: Some(vec![node.to_string()]),
            ..ActivityNodeInfo::default()
        }];
    }
    vec![ActivityNodeInfo {
        name: Some(
            request
                .container
                .map_or_else(|| NO_CONTAINER.to_owned(), |id| id.to_string()),
        ),
        allocation_state: state,
        node_id: Some(node.to_string()),
        ..ActivityNodeInfo::default()
    }]
}

/// A time as Java's `Date.toString()` prints it, in UTC (`Mon Nov 30 23:12:38 UTC 2026`).
fn date_time(ms: i64) -> String {
    let format = time::macros::format_description!(
        "[weekday repr:short] [month repr:short] [day] [hour]:[minute]:[second] UTC [year]"
    );
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|at| at.format(&format).ok())
        .unwrap_or_else(|| ms.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
    use yarn_scheduler::ActivityDiagnostic;

    use super::*;

    fn pairs(query: &[(&str, &str)]) -> Vec<(String, String)> {
        query
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn app() -> ApplicationId {
        ApplicationId {
            cluster_timestamp: 1_700_000_000_000,
            id: 7,
        }
    }

    /// An attempt in root.a.b whose AM was placed on host1 after a request was skipped.
    fn record() -> AppActivity {
        let mut record = AppActivity::new(app(), "root.a.b", 2, "");
        record.skip((1, 5), || ActivityDiagnostic::LocalityDelay {
            off_switch: true,
        });
        let attempt = ApplicationAttemptId {
            application_id: app(),
            attempt_id: 1,
        };
        record.allocate(
            (0, -1),
            NodeId::new("host1", 8041),
            ContainerId::new(attempt, 0, 1).unwrap(),
        );
        record
    }

    #[test]
    fn a_recorded_pass_is_hadoops_tree_from_root_to_the_node() {
        let pass = RecordedPass {
            at_ms: 0,
            records: vec![record()],
            dropped: 0,
        };
        let value = serde_json::to_value(ActivitiesResponse::of(Some(&pass), None, false)).unwrap();
        let activities = &value["activities"];
        assert_eq!(activities["timestamp"], 0);
        assert_eq!(activities["dateTime"], "Thu Jan 01 00:00:00 UTC 1970");
        let allocation = &activities["allocations"][0];
        assert_eq!(allocation["partition"], "");
        assert_eq!(allocation["finalAllocationState"], "ALLOCATED");
        assert_eq!(
            allocation["updatedContainerId"],
            "container_1700000000000_0007_01_000001"
        );
        let root = &allocation["root"];
        assert_eq!(
            (&root["name"], &root["allocationState"]),
            (&json!("root"), &json!("ACCEPTED"))
        );
        let leaf = &root["children"][0]["children"][0];
        assert_eq!(leaf["name"], "root.a.b");
        let application = &leaf["children"][0];
        assert_eq!(application["name"], "application_1700000000000_0007");
        assert_eq!(application["appPriority"], 2);
        let skipped = &application["children"][0];
        assert_eq!(skipped["name"], "request_1_5");
        assert_eq!(skipped["allocationState"], "SKIPPED");
        assert!(
            skipped["diagnostic"]
                .as_str()
                .unwrap()
                .starts_with("Node skipped because of off-switch delay")
        );
        assert!(skipped.get("children").is_none());
        let node = &application["children"][1]["children"][0];
        assert_eq!(node["nodeId"], "host1:8041");
        assert_eq!(node["allocationState"], "ALLOCATED");

        let grouped =
            serde_json::to_value(ActivitiesResponse::of(Some(&pass), None, true)).unwrap();
        let group = &grouped["activities"]["allocations"][0]["root"]["children"][0]["children"][0]
            ["children"][0]["children"][1]["children"][0];
        assert_eq!(
            group,
            &json!({"allocationState": "ALLOCATED", "count": 1, "nodeIds": ["host1:8041"]})
        );
    }

    #[test]
    fn requests_not_kept_are_counted_in_the_applications_diagnostic() {
        let mut crowded = AppActivity::new(app(), "root.a", 0, "");
        for id in 0..=yarn_scheduler::MAX_REQUESTS_PER_RECORD {
            let id = i64::try_from(id).unwrap();
            crowded.skip((1, id), || ActivityDiagnostic::NoNodeWithRoom {
                resource: yarn_scheduler::Resource::new(1024, 1),
            });
        }
        let pass = RecordedPass {
            at_ms: 0,
            records: vec![crowded],
            dropped: 0,
        };
        let value = serde_json::to_value(ActivitiesResponse::of(Some(&pass), None, false)).unwrap();
        let application =
            &value["activities"]["allocations"][0]["root"]["children"][0]["children"][0];
        assert_eq!(
            application["diagnostic"],
            "1 more requests were passed over and not recorded"
        );
    }

    #[test]
    fn nothing_recorded_yet_says_what_is_awaited() {
        let waiting = serde_json::to_value(ActivitiesResponse::of(None, None, false)).unwrap();
        assert_eq!(
            waiting,
            json!({"activities": {"diagnostic": "waiting for next allocation"}})
        );
        let node =
            serde_json::to_value(ActivitiesResponse::of(None, Some("host1"), false)).unwrap();
        assert_eq!(
            node,
            json!({"activities": {"nodeId": "host1", "diagnostic": "waiting for display"}})
        );
    }

    #[test]
    fn app_activities_are_newest_first_filtered_and_limited() {
        let entries = vec![
            RecordedActivity {
                at_ms: 2_000,
                activity: record(),
            },
            RecordedActivity {
                at_ms: 1_000,
                activity: record(),
            },
        ];
        let query = AppActivitiesQuery::parse(&pairs(&[("requestPriorities", "1")])).unwrap();
        let value: Value = serde_json::to_value(AppActivitiesResponse::of(
            "application_1700000000000_0007",
            Some(&entries),
            &query,
            5_000,
        ))
        .unwrap();
        let allocations = value["appActivities"]["allocations"].as_array().unwrap();
        assert_eq!(allocations.len(), 2);
        assert_eq!(allocations[0]["timestamp"], 2_000);
        assert_eq!(allocations[0]["queueName"], "root.a.b");
        assert_eq!(allocations[0]["allocationState"], "ALLOCATED");
        assert_eq!(allocations[0]["nodeId"], "host1:8041");
        let requests = allocations[0]["children"].as_array().unwrap();
        assert_eq!(requests.len(), 1, "only priority 1");
        assert_eq!(requests[0]["requestPriority"], 1);
        assert_eq!(requests[0]["allocationRequestId"], 5);

        let query =
            AppActivitiesQuery::parse(&pairs(&[("limit", "1"), ("actions", "get")])).unwrap();
        let value = serde_json::to_value(AppActivitiesResponse::of("a", Some(&entries), &query, 0))
            .unwrap();
        assert_eq!(
            value["appActivities"]["allocations"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        let none = AppActivitiesQuery::parse(&pairs(&[("allocationRequestIds", "9")])).unwrap();
        let value =
            serde_json::to_value(AppActivitiesResponse::of("a", Some(&entries), &none, 0)).unwrap();
        assert!(value["appActivities"].get("allocations").is_none());

        let waiting =
            serde_json::to_value(AppActivitiesResponse::of("a", None, &query, 0)).unwrap();
        assert_eq!(
            waiting["appActivities"]["diagnostic"],
            "waiting for display"
        );
        let refresh = AppActivitiesQuery::parse(&pairs(&[("actions", "REFRESH")])).unwrap();
        let value =
            serde_json::to_value(AppActivitiesResponse::of("a", None, &refresh, 0)).unwrap();
        assert_eq!(
            value["appActivities"]["diagnostic"],
            "Successfully received action: refresh"
        );
    }

    #[test]
    fn queries_read_hadoops_parameters_and_refuse_with_its_messages() {
        let query = AppActivitiesQuery::parse(&pairs(&[
            ("maxTime", "1.5"),
            ("requestPriorities", "1,2"),
            ("requestPriorities", "3"),
            ("allocationRequestIds", "-1"),
            ("groupBy", "DIAGNOSTIC"),
            ("limit", "4"),
        ]))
        .unwrap();
        assert_eq!(query.max_time, Duration::from_millis(1_500));
        let longest = AppActivitiesQuery::parse(&pairs(&[("maxTime", "600")])).unwrap();
        assert_eq!(longest.max_time, Duration::from_secs(600));
        assert_eq!(query.request_priorities, [1, 2, 3].into());
        assert_eq!(query.allocation_request_ids, [-1].into());
        assert!(query.group_by && query.refresh && query.get);
        assert_eq!(query.limit, Some(4));
        for (name, value, message) in [
            (
                "requestPriorities",
                "high",
                "request priorities must be integers!",
            ),
            (
                "allocationRequestIds",
                "x",
                "allocation request Ids must be integers!",
            ),
            ("limit", "many", "limit must be integer!"),
            ("limit", "0", "limit must be greater than 0!"),
            (
                "actions",
                "delete",
                "Got invalid action: delete, valid actions: [REFRESH, GET]",
            ),
            (
                "groupBy",
                "node",
                "Got invalid groupBy: node, valid groupBy types: [DIAGNOSTIC]",
            ),
            ("maxTime", "-1", "maxTime must be a positive number"),
            ("maxTime", "600.5", "maxTime must be a positive number"),
            ("summarize", "true", "summarize=true is not supported"),
        ] {
            let err = AppActivitiesQuery::parse(&pairs(&[(name, value)])).unwrap_err();
            assert!(err.starts_with(message), "{name}={value}: {err}");
        }
        let nodes = ActivitiesQuery::parse(&pairs(&[("nodeId", "host1:8041")])).unwrap();
        assert_eq!(
            nodes.node,
            Some((
                "host1:8041".to_owned(),
                NodeFilter::Node(NodeId::new("host1", 8041))
            ))
        );
        let host = ActivitiesQuery::parse(&pairs(&[("nodeId", "host1")])).unwrap();
        assert_eq!(host.node.unwrap().1, NodeFilter::Host("host1".to_owned()));
        assert!(ActivitiesQuery::parse(&pairs(&[("nodeId", "host1:port")])).is_err());
        assert!(ActivitiesQuery::parse(&pairs(&[("groupBy", "x")])).is_err());
    }
}
