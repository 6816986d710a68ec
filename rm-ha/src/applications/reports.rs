//! The client protocol's reports on applications, attempts, containers and nodes, as pure
//! functions of the replicated state (and, for nodes, the leader's node tracker).

use prost::Message;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb::{self, YarnApplicationAttemptStateProto, YarnApplicationStateProto};

use super::{ClusterOverview, LifetimeTimeout, TokenIssuer, execution_type, resource};
use crate::nodes::{NodeState, NodeTracker};
use crate::scheduling::OpportunisticCounts;
use crate::state_machine::{
    ApplicationRecord, ApplicationState, AttemptRecord, AttemptState, ContainerRecord,
    ContainerState, ExecutionType, FinalStatus, RmState,
};

/// What Hadoop reports in place of a detail the caller may not see.
pub const UNAVAILABLE: &str = "N/A";

/// The report of `app` as `caller` sees it at `now_ms`.
///
/// Every caller sees what identifies the application and where it stands: id, user, queue,
/// name, type, tags, priority, state, final status and times. With `view_access` (YARN's
/// VIEW_APP, decided by the caller) the report also carries the current attempt with its AM
/// address and tracking URL, the diagnostics and the resource usage: its live containers and
/// what they hold, the MB-seconds and vcore-seconds its containers have held so far (a live
/// container counts up to `now_ms`), and what its containers killed as PREEMPTED held, how
/// long, and how many of them were ApplicationMasters. Without it, as in YARN, those are
/// [`UNAVAILABLE`], the RPC port -1, the usage Hadoop's stand-in of -1 figures, the progress 0,
/// and no attempt is named.
///
/// For an unmanaged application (`unmanaged_am` in its submission) whose current attempt waits
/// for its AM to register, the report carries the attempt's AMRMToken, signed with the current
/// AMRM key, when `caller` is the application's owner: an unmanaged AM runs outside the cluster
/// and gets its token this way, as in YARN, which hands it only to the owner (who always holds
/// VIEW_APP access) and only while the attempt is LAUNCHED. Every other report carries none.
pub fn application_report(
    state: &RmState,
    app: &ApplicationRecord,
    caller: &str,
    view_access: bool,
    now_ms: i64,
) -> pb::ApplicationReportProto {
    let id = ApplicationId::new(state.cluster_timestamp_ms, app.sequence);
    let unmanaged = is_unmanaged(app);
    let public = pb::ApplicationReportProto {
        application_id: Some(id.into()),
        user: app.user.clone(),
        queue: app.queue.clone(),
        name: app.name.clone(),
        yarn_application_state: application_state(app.state).into(),
        start_time: app.submit_time_ms,
        finish_time: app.finish_time_ms,
        final_application_status: final_status(app.final_status).into(),
        application_type: app.application_type.clone(),
        application_tags: app.tags.clone(),
        unmanaged_application: unmanaged,
        priority: Some(pb::PriorityProto {
            priority: app.priority,
        }),
        app_timeouts: vec![LifetimeTimeout::of(state, app, now_ms).to_proto()],
        ..Default::default()
    };
    if !view_access {
        return pb::ApplicationReportProto {
            host: UNAVAILABLE.to_owned(),
            rpc_port: -1,
            tracking_url: UNAVAILABLE.to_owned(),
            original_tracking_url: UNAVAILABLE.to_owned(),
            diagnostics: UNAVAILABLE.to_owned(),
            app_resource_usage: Some(unavailable_resource_usage()),
            ..public
        };
    }
    let current = app.attempts.last();
    let am_rm_token = (unmanaged
        && caller == app.user
        && app.state == ApplicationState::Accepted
        && app.current_attempt > 0)
        .then(|| TokenIssuer::from_state(state))
        .flatten()
        .map(|issuer| issuer.amrm_token(ApplicationAttemptId::new(id, app.current_attempt)));
    let tracking_url = current.map(|a| a.tracking_url.clone()).unwrap_or_default();
    pb::ApplicationReportProto {
        host: current.map(|a| a.host.clone()).unwrap_or_default(),
        rpc_port: current.map_or(0, |a| a.rpc_port),
        // No web proxy rewrites the AM's URL here: the original is the one reported.
        original_tracking_url: tracking_url.clone(),
        tracking_url,
        diagnostics: app.diagnostics.clone(),
        current_application_attempt_id: (app.current_attempt > 0)
            .then(|| ApplicationAttemptId::new(id, app.current_attempt).into()),
        progress: if app.state.is_final() { 1.0 } else { 0.0 },
        am_rm_token,
        app_resource_usage: Some(resource_usage(state, app.sequence, now_ms)),
        ..public
    }
}

/// Hadoop's stand-in for the resource usage of an application the caller may not view: -1
/// containers and -1 resources.
fn unavailable_resource_usage() -> pb::ApplicationResourceUsageReportProto {
    let unknown = pb::ResourceProto {
        memory: -1,
        virtual_cores: -1,
        ..Default::default()
    };
    pb::ApplicationResourceUsageReportProto {
        num_used_containers: -1,
        num_reserved_containers: -1,
        used_resources: Some(unknown.clone()),
        reserved_resources: Some(unknown.clone()),
        needed_resources: Some(unknown),
        ..Default::default()
    }
}

/// What application `application_seq`'s containers hold now and have held until `now_ms`,
/// and what those killed as PREEMPTED held, and for how long.
fn resource_usage(
    state: &RmState,
    application_seq: i32,
    now_ms: i64,
) -> pb::ApplicationResourceUsageReportProto {
    let mut usage = pb::ApplicationResourceUsageReportProto::default();
    let (mut memory, mut vcores) = (0i64, 0i32);
    for record in state.containers.of_application(application_seq) {
        let record_memory = i64::try_from(record.memory_mb).unwrap_or(i64::MAX);
        let record_vcores = i32::try_from(record.vcores).unwrap_or(i32::MAX);
        let end_ms = if record.is_live() {
            usage.num_used_containers = usage.num_used_containers.saturating_add(1);
            memory = memory.saturating_add(record_memory);
            vcores = vcores.saturating_add(record_vcores);
            now_ms
        } else {
            state
                .containers
                .completed_at_ms(&record.key)
                .unwrap_or(record.allocated_at_ms)
        };
        let seconds = end_ms.saturating_sub(record.allocated_at_ms).max(0) / 1000;
        let memory_seconds = seconds.saturating_mul(record_memory);
        let vcore_seconds = seconds.saturating_mul(i64::from(record.vcores));
        usage.memory_seconds = usage.memory_seconds.saturating_add(memory_seconds);
        usage.vcore_seconds = usage.vcore_seconds.saturating_add(vcore_seconds);
        if record.was_preempted() {
            usage.preempted_memory_mb = usage.preempted_memory_mb.saturating_add(record_memory);
            usage.preempted_vcores = usage
                .preempted_vcores
                .saturating_add(i64::from(record.vcores));
            usage.preempted_memory_seconds = usage
                .preempted_memory_seconds
                .saturating_add(memory_seconds);
            usage.preempted_vcore_seconds =
                usage.preempted_vcore_seconds.saturating_add(vcore_seconds);
            let count = if record.is_am {
                &mut usage.num_am_containers_preempted
            } else {
                &mut usage.num_non_am_containers_preempted
            };
            *count = count.saturating_add(1);
        }
    }
    usage.used_resources = Some(pb::ResourceProto {
        memory,
        virtual_cores: vcores,
        ..Default::default()
    });
    usage
}

/// Whether `app` was submitted with an unmanaged AM, which the RM neither allocates nor
/// launches. A submission context that does not decode counts as managed.
fn is_unmanaged(app: &ApplicationRecord) -> bool {
    pb::ApplicationSubmissionContextProto::decode(app.submission_context.as_slice())
        .is_ok_and(|context| context.unmanaged_am)
}

/// The reports of `app`'s attempts, oldest first.
pub fn attempt_reports(
    state: &RmState,
    app: &ApplicationRecord,
) -> Vec<pb::ApplicationAttemptReportProto> {
    let id = ApplicationId::new(state.cluster_timestamp_ms, app.sequence);
    let unmanaged = is_unmanaged(app);
    app.attempts
        .iter()
        .map(|attempt| attempt_report(state, id, app.sequence, unmanaged, attempt))
        .collect()
}

fn attempt_report(
    state: &RmState,
    application: ApplicationId,
    application_seq: i32,
    unmanaged: bool,
    attempt: &AttemptRecord,
) -> pb::ApplicationAttemptReportProto {
    let attempt_id = ApplicationAttemptId::new(application, attempt.attempt_id);
    let am_container = state
        .containers
        .of_application(application_seq)
        .find(|record| record.is_am && record.attempt_id == attempt.attempt_id)
        .and_then(|record| ContainerId::from_raw(attempt_id, record.key.container_id).ok());
    let state_proto = match attempt.state {
        // Nothing is allocated or launched for an unmanaged AM: YARN counts its attempt as
        // launched as soon as it is stored, and waits for the AM to register.
        AttemptState::Scheduled if unmanaged => {
            YarnApplicationAttemptStateProto::AppAttemptLaunched
        }
        AttemptState::Scheduled if am_container.is_some() => {
            YarnApplicationAttemptStateProto::AppAttemptAllocated
        }
        AttemptState::Scheduled => YarnApplicationAttemptStateProto::AppAttemptScheduled,
        AttemptState::Running => YarnApplicationAttemptStateProto::AppAttemptRunning,
        AttemptState::Finished => YarnApplicationAttemptStateProto::AppAttemptFinished,
        AttemptState::Failed => YarnApplicationAttemptStateProto::AppAttemptFailed,
        AttemptState::Killed => YarnApplicationAttemptStateProto::AppAttemptKilled,
    };
    pb::ApplicationAttemptReportProto {
        application_attempt_id: Some(attempt_id.into()),
        host: attempt.host.clone(),
        rpc_port: attempt.rpc_port,
        tracking_url: attempt.tracking_url.clone(),
        diagnostics: attempt.diagnostics.clone(),
        yarn_application_attempt_state: state_proto.into(),
        am_container_id: am_container.map(Into::into),
        original_tracking_url: attempt.tracking_url.clone(),
        start_time: attempt.start_time_ms,
        finish_time: attempt.finish_time_ms,
    }
}

/// The reports of `attempt`'s containers, in id order; empty for an unknown attempt. A
/// completed container's finish time is when the RM recorded its completion (0 while it runs,
/// and for a completion recorded before completion times were kept), as in YARN.
pub fn container_reports(
    state: &RmState,
    attempt: ApplicationAttemptId,
) -> Vec<pb::ContainerReportProto> {
    if attempt.application_id.cluster_timestamp != state.cluster_timestamp_ms {
        return Vec::new();
    }
    state
        .containers
        .of_application(attempt.application_id.id)
        .filter(|record| record.attempt_id == attempt.attempt_id)
        .filter_map(|record| container_report(state, attempt, record))
        .collect()
}

fn container_report(
    state: &RmState,
    attempt: ApplicationAttemptId,
    record: &ContainerRecord,
) -> Option<pb::ContainerReportProto> {
    let id = ContainerId::from_raw(attempt, record.key.container_id).ok()?;
    let node = record.node.parse::<NodeId>().ok();
    let (container_state, exit_status, diagnostics) = match &record.state {
        ContainerState::Allocated => (pb::ContainerStateProto::CRunning, None, String::new()),
        ContainerState::Completed {
            exit_status,
            diagnostics,
        } => (
            pb::ContainerStateProto::CComplete,
            Some(*exit_status),
            diagnostics.clone(),
        ),
    };
    Some(pb::ContainerReportProto {
        container_id: Some(id.into()),
        resource: Some(resource(record)),
        node_id: node.as_ref().map(Into::into),
        priority: Some(pb::PriorityProto {
            priority: record.priority,
        }),
        creation_time: record.allocated_at_ms,
        finish_time: state.containers.completed_at_ms(&record.key).unwrap_or(0),
        diagnostics_info: diagnostics,
        container_exit_status: exit_status,
        container_state: container_state.into(),
        execution_type: execution_type(record.execution_type).into(),
        ..Default::default()
    })
}

/// Fills in where each of `reports` runs on the web: its node's web address (as `host:port`,
/// from the node's registration with this leader) and the node's log page of the container,
/// Hadoop's `<scheme>://<node web address>/node/containerlogs/<container>/<user>`. A container
/// on a node this leader has not heard from keeps both empty.
pub fn locate_containers(
    reports: &mut [pb::ContainerReportProto],
    tracker: &NodeTracker,
    user: &str,
    scheme: &str,
) {
    for report in reports {
        let node = report
            .node_id
            .clone()
            .and_then(|node| NodeId::try_from(node).ok());
        let Some((node, tracked)) = node.and_then(|node| tracker.get(&node).map(|t| (node, t)))
        else {
            continue;
        };
        let Some(container) = report
            .container_id
            .and_then(|id| ContainerId::try_from(id).ok())
        else {
            continue;
        };
        report.node_http_address = format!("{}:{}", node.host, tracked.http_port);
        report.log_url = format!(
            "{scheme}://{}/node/containerlogs/{container}/{user}",
            report.node_http_address
        );
    }
}

/// The reports of the nodes `tracker` knows, in the given states (all when `states` is empty),
/// with their use computed from the live containers of `state`, and their opportunistic load
/// from their last heartbeat.
pub fn node_reports(
    state: &RmState,
    tracker: &NodeTracker,
    states: &[pb::NodeStateProto],
) -> Vec<pb::NodeReportProto> {
    tracker
        .nodes()
        .filter_map(|(node, tracked)| {
            let node_state = match tracked.state {
                NodeState::Running => pb::NodeStateProto::NsRunning,
                NodeState::Lost => pb::NodeStateProto::NsLost,
            };
            let node_state = if state.decommissioned_nodes.contains(&node.to_string()) {
                pb::NodeStateProto::NsDecommissioned
            } else {
                node_state
            };
            if !states.is_empty() && !states.contains(&node_state) {
                return None;
            }
            let name = node.to_string();
            let (mut memory, mut vcores, mut count) = (0i64, 0i32, 0i32);
            for record in state.containers.live_on(&name) {
                if record.execution_type == ExecutionType::Guaranteed {
                    memory = memory.saturating_add(i64::try_from(record.memory_mb).unwrap_or(0));
                    vcores = vcores.saturating_add(i32::try_from(record.vcores).unwrap_or(0));
                }
                count = count.saturating_add(1);
            }
            let load = &tracked.opportunistic;
            Some(pb::NodeReportProto {
                node_id: Some(node.into()),
                http_address: format!("{}:{}", node.host, tracked.http_port),
                rack_name: tracked.rack.clone(),
                used: Some(pb::ResourceProto {
                    memory,
                    virtual_cores: vcores,
                    ..Default::default()
                }),
                capability: Some(tracked.resource.clone()),
                num_containers: count,
                node_state: node_state.into(),
                node_labels: Some(state.node_labels.partition_of(node))
                    .filter(|label| !label.is_empty())
                    .map(str::to_owned)
                    .into_iter()
                    .collect(),
                num_running_opportunistic_containers: load.running_opport_containers,
                num_queued_opportunistic_containers: load.queued_opport_containers,
                opportunistic_memory_used: load.opport_memory_used,
                opportunistic_vcores_used: load.opport_cores_used,
                ..Default::default()
            })
        })
        .collect()
}

/// The cluster's node counts, from its `overview`, and the leader's opportunistic `counts`.
pub fn cluster_metrics(
    overview: &ClusterOverview,
    counts: OpportunisticCounts,
) -> pb::YarnClusterMetricsProto {
    let count = |n: u64| i32::try_from(n).unwrap_or(i32::MAX);
    pb::YarnClusterMetricsProto {
        num_node_managers: count(overview.active_nodes),
        num_active_nms: count(overview.active_nodes),
        num_lost_nms: count(overview.lost_nodes),
        num_decommissioned_nms: count(overview.decommissioned_nodes),
        num_opportunistic_containers_requested_centrally: saturating_i64(
            counts.requested_centrally,
        ),
        num_opportunistic_containers_allocated_centrally: saturating_i64(
            counts.allocated_centrally,
        ),
        num_opportunistic_containers_allocated_distributed: saturating_i64(
            counts.allocated_distributed,
        ),
        ..Default::default()
    }
}

fn saturating_i64(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// The wire form of an application state.
pub fn application_state(state: ApplicationState) -> YarnApplicationStateProto {
    match state {
        ApplicationState::Submitted => YarnApplicationStateProto::Submitted,
        ApplicationState::Accepted => YarnApplicationStateProto::Accepted,
        ApplicationState::Running => YarnApplicationStateProto::Running,
        ApplicationState::Finished => YarnApplicationStateProto::Finished,
        ApplicationState::Failed => YarnApplicationStateProto::Failed,
        ApplicationState::Killed => YarnApplicationStateProto::Killed,
    }
}

fn final_status(status: FinalStatus) -> pb::FinalApplicationStatusProto {
    match status {
        FinalStatus::Undefined => pb::FinalApplicationStatusProto::AppUndefined,
        FinalStatus::Succeeded => pb::FinalApplicationStatusProto::AppSucceeded,
        FinalStatus::Failed => pb::FinalApplicationStatusProto::AppFailed,
        FinalStatus::Killed => pb::FinalApplicationStatusProto::AppKilled,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::{
        TIMESTAMP, initialize_master_keys, running_application,
    };

    /// Application 1 of the fixtures as an unmanaged one whose attempt 1 waits for its AM to
    /// register, with every token key in place.
    fn unmanaged_waiting_for_its_am() -> RmState {
        let mut state = running_application(&[], &[]);
        initialize_master_keys(&mut state);
        let app = state.applications.get_mut(&1).unwrap();
        app.state = ApplicationState::Accepted;
        app.attempts[0].state = AttemptState::Scheduled;
        app.submission_context = pb::ApplicationSubmissionContextProto {
            unmanaged_am: true,
            ..Default::default()
        }
        .encode_to_vec();
        state
    }

    #[test]
    fn an_unmanaged_attempts_amrm_token_goes_to_its_owner_until_the_am_registers() {
        let mut state = unmanaged_waiting_for_its_am();
        let attempt = ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, 1), 1);
        let report = application_report(&state, &state.applications[&1], "alice", true, 0);
        assert!(report.unmanaged_application);
        let token = report.am_rm_token.expect("the owner gets the AMRMToken");
        let issuer = TokenIssuer::from_state(&state).unwrap();
        assert_eq!(issuer.verify_amrm(token).map(|(a, _)| a), Ok(attempt));
        let attempts = attempt_reports(&state, &state.applications[&1]);
        assert_eq!(
            attempts[0].yarn_application_attempt_state(),
            YarnApplicationAttemptStateProto::AppAttemptLaunched
        );
        assert_eq!(attempts[0].am_container_id, None);

        let stranger = application_report(&state, &state.applications[&1], "mallory", true, 0);
        assert_eq!(stranger.am_rm_token, None, "only the owner gets it");

        state.applications.get_mut(&1).unwrap().state = ApplicationState::Running;
        let registered = application_report(&state, &state.applications[&1], "alice", true, 0);
        assert_eq!(registered.am_rm_token, None, "not once the AM registered");
    }

    #[test]
    fn a_managed_application_never_reports_an_amrm_token() {
        let mut state = unmanaged_waiting_for_its_am();
        state.applications.get_mut(&1).unwrap().submission_context = Vec::new();
        let report = application_report(&state, &state.applications[&1], "alice", true, 0);
        assert!(!report.unmanaged_application);
        assert_eq!(report.am_rm_token, None);
    }

    #[test]
    fn an_attempts_containers_are_reported_with_their_end() {
        let state = running_application(&[(2, "n1:8041"), (3, "n2:8041")], &[3]);
        let attempt = ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, 1), 1);
        let reports = container_reports(&state, attempt);
        assert_eq!(reports.len(), 2);
        assert_eq!(
            reports[0].container_state(),
            pb::ContainerStateProto::CRunning
        );
        assert_eq!(reports[0].container_exit_status, None);
        assert_eq!(
            reports[1].container_state(),
            pb::ContainerStateProto::CComplete
        );
        assert_eq!(reports[1].container_exit_status, Some(0));
        assert_eq!(
            (reports[0].finish_time, reports[1].finish_time),
            (0, TIMESTAMP),
            "a running container has no finish time; a completed one has its completion's"
        );
        let other = ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, 1), 2);
        assert!(container_reports(&state, other).is_empty());
    }

    #[test]
    fn the_application_report_carries_its_attempt_and_final_status() {
        let state = running_application(&[], &[]);
        let app = &state.applications[&1];
        let report = application_report(&state, app, "alice", true, 0);
        assert_eq!(
            report.yarn_application_state(),
            YarnApplicationStateProto::Running
        );
        assert_eq!(
            report.final_application_status(),
            pb::FinalApplicationStatusProto::AppUndefined
        );
        assert_eq!(
            report.current_application_attempt_id,
            Some(ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, 1), 1).into())
        );
        let attempts = attempt_reports(&state, app);
        assert_eq!(attempts.len(), 1);
        assert_eq!(
            attempts[0].yarn_application_attempt_state(),
            YarnApplicationAttemptStateProto::AppAttemptRunning
        );
    }

    /// A caller without VIEW_APP access sees what identifies the application and where it
    /// stands, and YARN's stand-ins for every other detail.
    #[test]
    fn a_caller_without_view_access_gets_yarns_stand_ins_for_the_details() {
        let mut state = running_application(&[(2, "h1:8041")], &[]);
        let app = state.applications.get_mut(&1).unwrap();
        app.diagnostics = "the AM said why".to_owned();
        app.tags = vec!["nightly".to_owned()];
        app.priority = 3;
        app.attempts[0].host = "am-host".to_owned();
        app.attempts[0].rpc_port = 4000;
        app.attempts[0].tracking_url = "http://am-host:8080/".to_owned();
        let app = &state.applications[&1];
        let now = TIMESTAMP + 10_000;

        let full = application_report(&state, app, "alice", true, now);
        assert_eq!((full.host.as_str(), full.rpc_port), ("am-host", 4000));
        assert_eq!(full.tracking_url, "http://am-host:8080/");
        assert_eq!(full.original_tracking_url, "http://am-host:8080/");
        assert_eq!(full.diagnostics, "the AM said why");
        assert!(full.current_application_attempt_id.is_some());
        assert_eq!(
            full.app_resource_usage
                .as_ref()
                .unwrap()
                .num_used_containers,
            1
        );

        let hidden = application_report(&state, app, "mallory", false, now);
        let unknown = pb::ResourceProto {
            memory: -1,
            virtual_cores: -1,
            ..Default::default()
        };
        let expected = pb::ApplicationReportProto {
            host: UNAVAILABLE.to_owned(),
            rpc_port: -1,
            tracking_url: UNAVAILABLE.to_owned(),
            original_tracking_url: UNAVAILABLE.to_owned(),
            diagnostics: UNAVAILABLE.to_owned(),
            current_application_attempt_id: None,
            progress: 0.0,
            am_rm_token: None,
            app_resource_usage: Some(pb::ApplicationResourceUsageReportProto {
                num_used_containers: -1,
                num_reserved_containers: -1,
                used_resources: Some(unknown.clone()),
                reserved_resources: Some(unknown.clone()),
                needed_resources: Some(unknown),
                ..Default::default()
            }),
            // Id, user, queue, name, state, final status, times, type, tags and priority.
            ..full
        };
        assert_eq!(hidden, expected);
    }

    /// Live containers count in full up to the report's time, completed ones up to their
    /// completion.
    #[test]
    fn resource_usage_counts_live_containers_and_what_every_container_held() {
        // Two live 1 GB containers and one completed at once, all allocated at TIMESTAMP.
        let state = running_application(&[(2, "h1:8041"), (3, "h1:8041"), (4, "h2:8041")], &[4]);
        let now = TIMESTAMP + 10_000;
        let report = application_report(&state, &state.applications[&1], "alice", true, now);
        let usage = report.app_resource_usage.expect("a usage report");
        assert_eq!(usage.num_used_containers, 2);
        let used = usage.used_resources.expect("resources in use");
        assert_eq!((used.memory, used.virtual_cores), (2048, 2));
        assert_eq!(usage.memory_seconds, 2 * 1024 * 10);
        assert_eq!(usage.vcore_seconds, 2 * 10);
        assert_eq!(
            (
                usage.preempted_memory_mb,
                usage.num_non_am_containers_preempted
            ),
            (0, 0),
            "none preempted"
        );
    }
}
