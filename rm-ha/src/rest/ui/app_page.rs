//! One application's page (`/cluster/app/{id}`): its report, its attempts, and each attempt's
//! containers with links to their logs on their nodes.

use std::time::Duration;

use axum::extract::{Path, State};
use maud::{Markup, html};
use yarn_proto::pb;

use super::ui_refusal::UiRefusal;
use super::{elapsed, render, timestamp};
use crate::operations::RmError;
use crate::rest::RestApi;
use crate::rest::app_attempt_info::AppAttemptInfo;
use crate::rest::app_info::AppInfo;
use crate::rest::container_info::ContainerInfo;
use crate::rest::rest_api::{
    RestCaller, application_report, attempts_with_containers, parse_app_id,
};
use crate::scheduling::RecordedActivity;
use yarn_security::now_ms;

pub(super) async fn app(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
) -> Result<Markup, UiRefusal> {
    let id = parse_app_id(&app_id)?;
    let now = now_ms();
    let app = AppInfo::describe(&application_report(&api, &caller, &app_id).await?, now);
    // A caller without VIEW_APP sees the report's public part, as the API shows it, and
    // is told why the attempts are missing rather than refused the whole page.
    let (attempts, withheld) = match attempts_with_containers(&api, &caller, id).await {
        Ok(attempts) => (describe_attempts(&attempts, now), None),
        Err(RmError::AccessDenied { message, .. }) => (Vec::new(), Some(message)),
        Err(err) => return Err(err.into()),
    };
    // Viewing the page records the application's next passes for a few seconds, as Hadoop's
    // page asks its activities with both actions: a reload shows what they decided.
    let activities = if withheld.is_none() {
        match api
            .operations
            .app_activities(&caller, id, Some(ACTIVITIES_RECORDING), true)
            .await
        {
            Ok(recorded) => Ok(recorded.unwrap_or_default()),
            Err(RmError::PreconditionFailed { message }) => Err(message),
            Err(err) => return Err(err.into()),
        }
    } else {
        Ok(Vec::new())
    };
    let content = html! {
        h2 { "Application Overview" }
        table #app-overview {
            tr { th { "User" } td { (app.user) } }
            tr { th { "Name" } td { (app.name) } }
            tr { th { "Application Type" } td { (app.application_type) } }
            tr { th { "Application Tags" } td { (app.application_tags) } }
            tr { th { "Application Priority" } td { (app.priority) } }
            tr { th { "YarnApplicationState" } td { (app.state) } }
            tr { th { "Queue" } td { (app.queue) } }
            tr { th { "FinalStatus Reported by AM" } td { (app.final_status) } }
            tr { th { "Started" } td { (timestamp(app.started_time)) } }
            tr { th { "Elapsed" } td { (elapsed(app.elapsed_time)) } }
            tr { th { "Tracking URL" } td {
                @match &app.tracking_url {
                    Some(url) => a href=(url) { (app.tracking_ui) },
                    None => (app.tracking_ui),
                }
            } }
            tr { th { "Diagnostics" } td { pre { (app.diagnostics) } } }
            tr { th { "Unmanaged Application" } td { (app.unmanaged_application) } }
            tr { th { "Running Containers" } td { (app.running_containers) } }
            tr { th { "Allocated Resources" } td {
                "<memory:" (app.allocated_mb) ", vCores:" (app.allocated_vcores) ">"
            } }
            tr { th { "Aggregate Resource Allocation" } td {
                (app.memory_seconds) " MB-seconds, " (app.vcore_seconds) " vcore-seconds"
            } }
            tr { th { "Total Resource Preempted" } td {
                "<memory:" (app.preempted_resource_mb) ", vCores:"
                (app.preempted_resource_v_cores) ">"
            } }
            tr { th { "Total Number of Non-AM Containers Preempted" } td {
                (app.num_non_a_m_container_preempted)
            } }
            tr { th { "Total Number of AM Containers Preempted" } td {
                (app.num_a_m_container_preempted)
            } }
            tr { th { "Aggregate Preempted Resource Allocation" } td {
                (app.preempted_memory_seconds) " MB-seconds, " (app.preempted_vcore_seconds)
                " vcore-seconds"
            } }
        }
        @if let Some(reason) = &withheld {
            p.refusal { (reason) }
        }
        @if withheld.is_none() {
            h2 { "Activities" }
            (activities_table(&activities))
        }
        h2 { "Application Attempts" }
        table #app-attempts {
            tr {
                th { "Attempt ID" } th { "Started" } th { "State" } th { "AM Container" }
                th { "Node" } th { "Logs" }
            }
            @for (attempt, _) in &attempts {
                tr {
                    td { (attempt.app_attempt_id) }
                    td { (timestamp(attempt.start_time)) }
                    td { (attempt.app_attempt_state) }
                    td { (attempt.container_id) }
                    td { (node_link(&attempt.node_http_address, &attempt.node_id, &api)) }
                    td { @if !attempt.logs_link.is_empty() {
                        a href=(attempt.logs_link) { "Logs" }
                    } }
                }
            }
        }
        @for (attempt, containers) in &attempts {
            h3 { "Containers of " (attempt.app_attempt_id) }
            table.containers data-attempt=(attempt.app_attempt_id) {
                tr {
                    th { "Container ID" } th { "Execution Type" } th { "State" }
                    th { "Node" } th { "Resource" } th { "Priority" } th { "Started" }
                    th { "Finished" } th { "Exit Status" } th { "Diagnostics" } th { "Logs" }
                }
                @for container in containers {
                    tr {
                        td { (container.container_id) }
                        td { (container.execution_type) }
                        td { (container.container_state) }
                        td { (node_link(&container.node_http_address, &container.node_id, &api)) }
                        td { "<memory:" (container.allocated_mb) ", vCores:"
                             (container.allocated_v_cores) ">" }
                        td.num { (container.priority) }
                        td { (timestamp(container.started_time)) }
                        td { (timestamp(container.finished_time)) }
                        td.num { @if container.container_state == "COMPLETE" {
                            (container.container_exit_status)
                        } }
                        td { (container.diagnostics_info) }
                        td { @if !container.log_url.is_empty() {
                            a href=(container.log_url) { "Logs" }
                        } }
                    }
                }
            }
        }
    };
    Ok(render(
        &api,
        &caller,
        &format!("Application {}", app.id),
        &content,
    ))
}

/// How long a view of the page records the application's activities.
const ACTIVITIES_RECORDING: Duration = Duration::from_secs(3);

/// The most activities the page lists, newest first.
const ACTIVITIES_SHOWN: usize = 20;

/// What the scheduler decided for the application lately, one row per request tried, or why
/// there is nothing to show.
fn activities_table(activities: &Result<Vec<RecordedActivity>, String>) -> Markup {
    let recorded = match activities {
        Ok(recorded) if recorded.is_empty() => {
            return html! { p #app-activities { "Recording the next scheduling passes: reload the page to see what they decided." } };
        }
        Ok(recorded) => recorded,
        Err(reason) => return html! { p #app-activities { (reason) } },
    };
    html! {
        table #app-activities {
            tr {
                th { "Time" } th { "Queue" } th { "Partition" } th { "Application" }
                th { "Request (priority, id)" } th { "Request" } th { "Node" } th { "Diagnostic" }
            }
            @for entry in recorded.iter().take(ACTIVITIES_SHOWN) {
                @let record = &entry.activity;
                @if record.requests.is_empty() {
                    tr {
                        td { (timestamp(entry.at_ms)) } td { (record.queue) } td { (record.partition) }
                        td { (record.state.as_str()) } td {} td {} td {}
                        td { (record.diagnostic.as_ref().map(ToString::to_string).unwrap_or_default()) }
                    }
                }
                @for request in &record.requests {
                    tr {
                        td { (timestamp(entry.at_ms)) } td { (record.queue) } td { (record.partition) }
                        td { (record.state.as_str()) }
                        td { (request.priority) ", " (request.allocation_request_id) }
                        td { (request.state.as_str()) }
                        td { (request.node.as_ref().map(ToString::to_string).unwrap_or_default()) }
                        td {
                            (request.diagnostic.as_ref().or(record.diagnostic.as_ref())
                                .map(ToString::to_string).unwrap_or_default())
                        }
                    }
                }
            }
        }
    }
}

/// The attempts and their containers as the page shows them, containers in id order.
fn describe_attempts(
    attempts: &[(
        pb::ApplicationAttemptReportProto,
        Vec<pb::ContainerReportProto>,
    )],
    now: i64,
) -> Vec<(AppAttemptInfo, Vec<ContainerInfo>)> {
    attempts
        .iter()
        .map(|(attempt, containers)| {
            let mut described: Vec<ContainerInfo> = containers
                .iter()
                .map(|report| ContainerInfo::describe(report, now))
                .collect();
            described.sort_by(|a, b| a.container_id.cmp(&b.container_id));
            (AppAttemptInfo::describe(attempt, containers), described)
        })
        .collect()
}

/// A node's id, linked to its own web page where its web address is known.
fn node_link(http_address: &str, node_id: &str, api: &RestApi) -> Markup {
    let scheme = if api.tls { "https" } else { "http" };
    html! {
        @if http_address.is_empty() {
            (node_id)
        } @else {
            a href=(format!("{scheme}://{http_address}/node")) { (node_id) }
        }
    }
}
