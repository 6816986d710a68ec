//! [`RestApi`]: Hadoop's ResourceManager REST API (`/ws/v1/cluster/...`) on the operations.

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, Query, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use openraft::Raft;
use yarn_conf::RmHaConfig;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_security::{Caller, Role};
use yarn_web::{DeclaredBodyLimit, FrameworkRefusals, RemoteUser};

use super::app_attempt_info::AppAttemptsResponse;
use super::app_filter::AppFilter;
use super::app_info::{AppInfo, AppPriority, AppQueue, AppResponse, AppStateInfo, AppsResponse};
use super::app_statistics::AppStatistics;
use super::blocking_json::blocking_json;
use super::cluster_info::{ClusterInfo, ReplicaRole};
use super::cluster_metrics_info::ClusterMetricsInfo;
use super::container_info::{ContainerInfo, ContainerResponse, ContainersResponse};
use super::node_info::{NodeInfo, NodeResponse, NodesResponse};
use super::rest_refusal::RestRefusal;
use super::sched_conf_info::SchedConfInfo;
use super::scheduler_info::SchedulerResponse;
use super::standby_redirect::StandbyRedirect;
use super::submission_context_info::SubmissionContextInfo;
use super::xml_negotiation::{XmlNegotiation, XmlRoot};
use crate::operations::{AdminOperations, ClientOperations, RmError};
use crate::raft_types::RmTypeConfig;
use crate::replica::leader_rm_id;
use crate::state_machine::StateView;
use crate::telemetry::{RaftFigures, RmMetrics};
use yarn_security::now_ms;

/// How long `/metrics` waits for the leader's confirmation before rendering without the
/// leader's figures (Prometheus's scrape timeout defaults to 10 s).
const LEADER_FIGURES_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// The largest request body the API reads; a larger one is answered 413.
const MAX_BODY_BYTES: usize = 1024 * 1024;

/// What the REST handlers read from: the client operations (every read and write of an
/// application or node goes through them, as over gRPC) and, for `clusterInfo`, this
/// replica's own Raft view.
#[derive(Clone)]
pub(crate) struct RestApi {
    pub(crate) operations: Arc<ClientOperations>,
    /// The admin operations, for the mutation API of the queue configuration.
    pub(crate) admin: Arc<AdminOperations>,
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) state: StateView,
    pub(crate) rm_id: String,
    /// Whether the web address speaks HTTPS (`yarn.tls.enabled`), for the URLs answers name.
    pub(crate) tls: bool,
    /// What `/metrics` renders.
    pub(crate) metrics: Arc<RmMetrics>,
    /// The group's members and their addresses, for the overview page.
    pub(crate) ha: RmHaConfig,
}

impl RestApi {
    /// The routes, behind the standby redirect.
    ///
    /// JSON by default, Hadoop's XML when `Accept` asks for it ([`XmlNegotiation`]).
    pub(crate) fn router(self, redirect: StandbyRedirect) -> Router {
        Router::new()
            .route("/metrics", get(prometheus_metrics))
            .route("/ws/v1/cluster", get(cluster_info))
            .route("/ws/v1/cluster/info", get(cluster_info))
            .route("/ws/v1/cluster/metrics", get(cluster_metrics))
            .route("/ws/v1/cluster/scheduler", get(scheduler))
            .route(
                "/ws/v1/cluster/scheduler-conf",
                get(scheduler_conf).put(update_scheduler_conf),
            )
            .route(
                "/ws/v1/cluster/scheduler-conf/version",
                get(scheduler_conf_version),
            )
            .route(
                "/ws/v1/cluster/scheduler-conf/format",
                get(format_scheduler_conf),
            )
            .route("/ws/v1/cluster/apps", get(apps).post(submit_application))
            .route("/ws/v1/cluster/apps/new-application", post(new_application))
            .route("/ws/v1/cluster/apps/{app_id}", get(app))
            .route(
                "/ws/v1/cluster/apps/{app_id}/state",
                get(app_state).put(put_app_state),
            )
            .route(
                "/ws/v1/cluster/apps/{app_id}/appattempts",
                get(app_attempts),
            )
            .route(
                "/ws/v1/cluster/apps/{app_id}/appattempts/{attempt_id}/containers",
                get(attempt_containers),
            )
            .route(
                "/ws/v1/cluster/apps/{app_id}/appattempts/{attempt_id}/containers/{container_id}",
                get(attempt_container),
            )
            .route(
                "/ws/v1/cluster/apps/{app_id}/queue",
                get(app_queue).put(put_app_queue),
            )
            .route(
                "/ws/v1/cluster/apps/{app_id}/priority",
                get(app_priority).put(put_app_priority),
            )
            .route("/ws/v1/cluster/appstatistics", get(app_statistics))
            .route("/ws/v1/cluster/nodes", get(nodes))
            .route("/ws/v1/cluster/nodes/{node_id}", get(node))
            .route(
                "/ws/v1/cluster/get-node-labels",
                get(super::node_labels_info::get_node_labels),
            )
            .merge(super::reservation_api::routes())
            .merge(super::activities_api::routes())
            .merge(super::app_timeouts::routes())
            .merge(super::ui::routes())
            .fallback(no_such_resource)
            .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
            .layer(middleware::from_fn_with_state(
                MAX_BODY_BYTES,
                DeclaredBodyLimit::layer,
            ))
            .layer(middleware::from_fn(FrameworkRefusals::layer))
            .layer(middleware::from_fn(XmlNegotiation::layer))
            .layer(middleware::from_fn_with_state(
                redirect,
                StandbyRedirect::layer,
            ))
            .with_state(self)
    }
}

/// The caller of one request, as the web server named it ([`RemoteUser`]): a user
/// certificate, Hadoop's pseudo authentication (`user.name`) without TLS, or for a read the
/// operator let through anonymously, `dr.who`; the server has already refused anonymous
/// writes. Certificates of daemons (replicas, nodes) are refused here.
pub(super) struct RestCaller(pub(super) Caller);

impl FromRequestParts<RestApi> for RestCaller {
    type Rejection = RestRefusal;

    async fn from_request_parts(parts: &mut Parts, _api: &RestApi) -> Result<Self, RestRefusal> {
        let RemoteUser(caller) = parts
            .extensions
            .get::<RemoteUser>()
            .cloned()
            .ok_or_else(|| RmError::internal("the web server named no user for a request"))?;
        match caller {
            Caller::Peer(identity) if identity.role != Role::User => Err(RestRefusal::NotAUser {
                caller: identity.to_string(),
            }),
            caller => Ok(Self(caller)),
        }
    }
}

async fn cluster_info(State(api): State<RestApi>, _caller: RestCaller) -> Response {
    let metrics = api.raft.metrics().borrow().clone();
    let role = ReplicaRole {
        active: api.operations.proposer.gate.require_leader().is_ok(),
        term: metrics.current_term,
        leader: leader_rm_id(&metrics),
    };
    let cluster_id = api.state.read(|state| state.cluster_timestamp_ms);
    axum::Json(ClusterInfo::describe(
        cluster_id,
        api.operations.started_on_ms,
        &api.rm_id,
        &role,
    ))
    .into_response()
}

/// The Prometheus text page of this replica, leader or not (every replica answers it itself:
/// see the standby redirect). Any certificate of the cluster may scrape it.
async fn prometheus_metrics(State(api): State<RestApi>) -> Response {
    let metrics = api.raft.metrics().borrow().clone();
    let leading = api.operations.proposer.gate.require_leader().is_ok();
    let raft = RaftFigures {
        term: metrics.current_term,
        leader: leading,
        last_log_index: metrics.last_log_index.unwrap_or(0),
        applied_index: metrics.last_applied.map_or(0, |id| id.index),
        snapshot_index: metrics.snapshot.map_or(0, |id| id.index),
    };
    // The leader's figures only from a leader that confirms it within a second; one that just
    // lost its leadership or its quorum renders Raft's view alone, in time for the scrape,
    // rather than an error.
    let leader = if leading {
        tokio::time::timeout(LEADER_FIGURES_WAIT, api.operations.leader_figures())
            .await
            .ok()
            .and_then(Result::ok)
    } else {
        None
    };
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        api.metrics.render(raft, leader.as_ref()),
    )
        .into_response()
}

async fn cluster_metrics(
    State(api): State<RestApi>,
    _caller: RestCaller,
) -> Result<Response, RestRefusal> {
    let overview = api.operations.cluster_overview().await?;
    Ok(axum::Json(ClusterMetricsInfo::describe(&overview)).into_response())
}

async fn scheduler(
    State(api): State<RestApi>,
    _caller: RestCaller,
) -> Result<Response, RestRefusal> {
    let queues = api.operations.queue_infos().await?;
    let figures = api.operations.queue_preemptions();
    let preemption = api.operations.preemption_report(&figures);
    Ok(axum::Json(SchedulerResponse::of(&queues, preemption)).into_response())
}

/// Hadoop's `GET /scheduler-conf` for administrators: `{"property": [{"name", "value"}]}`,
/// in XML `<configuration><property>...</property></configuration>`, names in order.
/// With `?version=N` (a yarn-ha extension), a replaced version the state keeps.
async fn scheduler_conf(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Response, RestRefusal> {
    #[derive(serde::Serialize)]
    struct Property {
        name: String,
        value: String,
    }
    #[derive(serde::Serialize)]
    struct ConfInfo {
        property: Vec<Property>,
    }
    let mut version = None;
    for (name, value) in &query {
        match name.as_str() {
            "version" => {
                version = Some(value.trim().parse::<u64>().map_err(|_| {
                    RmError::invalid("version", format!("version={value:?} is not a version"))
                })?);
            }
            // The caller's name without TLS, which the web layer reads.
            "user.name" => {}
            other => {
                return Err(RmError::invalid(
                    "query",
                    format!(
                        "unknown query parameter {other:?}: only version (and user.name) are \
                         read"
                    ),
                )
                .into());
            }
        }
    }
    let conf = api
        .admin
        .get_scheduler_configuration(named(&caller)?, version)
        .await?;
    let conf = ConfInfo {
        property: conf
            .properties
            .into_iter()
            .map(|param| Property {
                name: param.key,
                value: param.value.unwrap_or_default(),
            })
            .collect(),
    };
    Ok(unwrapped(StatusCode::OK, "configuration", &conf))
}

/// `caller`, refused when anonymous: the scheduler configuration is read and changed by named
/// users only, as Hadoop's writable endpoints ask for a user name.
fn named(caller: &Caller) -> Result<&Caller, RmError> {
    match caller {
        Caller::Peer(_) => Ok(caller),
        Caller::Anonymous => Err(RmError::Unauthenticated {
            message: "Unable to obtain user name, user not authenticated: present a \
                      certificate (or user.name without TLS)"
                .to_owned(),
        }),
    }
}

/// `PUT /ws/v1/cluster/scheduler-conf`: Hadoop's mutation of the queue configuration, its
/// `sched-conf` body in XML (when the content type says so) or JSON.
async fn update_scheduler_conf(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, RestRefusal> {
    let xml = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.to_ascii_lowercase().contains("xml"));
    let update = SchedConfInfo::parse(&body, xml)?;
    api.admin
        .update_scheduler_configuration(named(&caller)?, update)
        .await?;
    Ok((StatusCode::OK, "Configuration change successfully applied.").into_response())
}

/// `GET /ws/v1/cluster/scheduler-conf/version`: the version of the queue configuration in
/// force, which each committed change raises by one.
async fn scheduler_conf_version(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
) -> Result<Response, RestRefusal> {
    #[derive(serde::Serialize)]
    struct ConfigVersionInfo {
        #[serde(rename = "versionID")]
        version_id: u64,
    }
    let conf = api
        .admin
        .get_scheduler_configuration(named(&caller)?, None)
        .await?;
    Ok(unwrapped(
        StatusCode::OK,
        "configversion",
        &ConfigVersionInfo {
            version_id: conf.version,
        },
    ))
}

/// `GET /ws/v1/cluster/scheduler-conf/format`: commits `capacity-scheduler.xml` again in
/// place of a mutable configuration.
async fn format_scheduler_conf(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
) -> Result<Response, RestRefusal> {
    api.admin
        .format_scheduler_configuration(named(&caller)?)
        .await?;
    Ok((
        StatusCode::OK,
        "Configuration under store successfully formatted.",
    )
        .into_response())
}

async fn apps(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Response, RestRefusal> {
    let filter = AppFilter::parse(&query)?;
    let apps = select_apps(&api, &caller, &filter).await?;
    Ok(blocking_json(AppsResponse::of(apps)).await?)
}

/// The applications `filter` selects, as `caller` may see them, newest first.
pub(super) async fn select_apps(
    api: &RestApi,
    caller: &Caller,
    filter: &AppFilter,
) -> Result<Vec<AppInfo>, RmError> {
    let reports = api
        .operations
        .get_applications(caller, filter.request())
        .await?
        .applications;
    let now = now_ms();
    Ok(reports
        .iter()
        .filter(|report| filter.admits(report))
        .take(filter.limit())
        .map(|report| AppInfo::describe(report, now))
        .collect())
}

/// Hadoop's `POST /apps`: submits the `application-submission-context` in the body and answers
/// 202 Accepted with the application's resource in `Location`, as Hadoop does.
async fn submit_application(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, RestRefusal> {
    let context = SubmissionContextInfo::parse(&body)?.into_proto()?;
    let id = context
        .application_id
        .and_then(|id| ApplicationId::try_from(id).ok());
    api.operations
        .submit_application(
            &caller,
            pb::SubmitApplicationRequestProto {
                application_submission_context: Some(context),
            },
        )
        .await?;
    let location = format!(
        "{}/{}",
        request_url(&api, &uri, &headers),
        id.map(|id| id.to_string()).unwrap_or_default()
    );
    match axum::http::HeaderValue::try_from(location) {
        Ok(location) => Ok((
            StatusCode::ACCEPTED,
            [(axum::http::header::LOCATION, location)],
        )
            .into_response()),
        // The host came from the request and the rest from a parsed id: only a host header
        // that is no header value can fail here, and the submission stands without it.
        Err(_) => Ok(StatusCode::ACCEPTED.into_response()),
    }
}

async fn app(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
) -> Result<Response, RestRefusal> {
    let report = application_report(&api, &caller, &app_id).await?;
    Ok(axum::Json(AppResponse {
        app: AppInfo::describe(&report, now_ms()),
    })
    .into_response())
}

async fn app_state(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
) -> Result<Response, RestRefusal> {
    let report = application_report(&api, &caller, &app_id).await?;
    Ok(unwrapped(
        StatusCode::OK,
        "appstate",
        &AppStateInfo::of(&report),
    ))
}

/// Hadoop's `PUT .../state` with `{"state": "KILLED"}`, in Hadoop's order: an unknown
/// application is a 404; the state it is in already answers 200 with it; a target other than
/// KILLED is a 400; a kill answers 200 once the application has ended, otherwise 202 with the
/// state resource in `Location`, to be asked again.
async fn put_app_state(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, RestRefusal> {
    let id = parse_app_id(&app_id)?;
    let before = application_report(&api, &caller, &app_id).await?;
    let wanted: AppStateInfo = parse_body(&body, "state")?;
    let current = AppStateInfo::of(&before);
    if wanted.state == current.state {
        return Ok(unwrapped(StatusCode::OK, "appstate", &current));
    }
    if wanted.state != "KILLED" {
        return Err(RmError::invalid(
            "state",
            format!(
                "Only 'KILLED' is allowed as a target state, not {:?}",
                wanted.state
            ),
        )
        .into());
    }
    if current.is_final() {
        return Ok(unwrapped(StatusCode::OK, "appstate", &current));
    }
    api.operations
        .force_kill_application(
            &caller,
            pb::KillApplicationRequestProto {
                application_id: Some(id.into()),
                diagnostics: wanted.diagnostics.unwrap_or_default(),
            },
        )
        .await?;
    let after = AppStateInfo::of(&application_report(&api, &caller, &app_id).await?);
    if after.is_final() {
        return Ok(unwrapped(StatusCode::OK, "appstate", &after));
    }
    let mut response = unwrapped(StatusCode::ACCEPTED, "appstate", &after);
    if let Ok(location) = axum::http::HeaderValue::try_from(request_url(&api, &uri, &headers)) {
        response
            .headers_mut()
            .insert(axum::http::header::LOCATION, location);
    }
    Ok(response)
}

async fn app_queue(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
) -> Result<Response, RestRefusal> {
    let report = application_report(&api, &caller, &app_id).await?;
    let queue = AppQueue {
        queue: report.queue,
    };
    Ok(unwrapped(StatusCode::OK, "appqueue", &queue))
}

/// Hadoop's `PUT .../queue` with `{"queue": "..."}`: moves the application (a request for the
/// queue it is in changes nothing) and answers with the queue it is in afterwards.
async fn put_app_queue(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Response, RestRefusal> {
    let id = parse_app_id(&app_id)?;
    let wanted: AppQueue = parse_body(&body, "queue")?;
    let before = application_report(&api, &caller, &app_id).await?;
    if before.queue != wanted.queue {
        api.operations
            .move_application_across_queues(
                &caller,
                pb::MoveApplicationAcrossQueuesRequestProto {
                    application_id: Some(id.into()),
                    target_queue: wanted.queue,
                },
            )
            .await?;
    }
    let after = application_report(&api, &caller, &app_id).await?;
    let queue = AppQueue { queue: after.queue };
    Ok(unwrapped(StatusCode::OK, "appqueue", &queue))
}

async fn app_priority(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
) -> Result<Response, RestRefusal> {
    let report = application_report(&api, &caller, &app_id).await?;
    let priority = AppPriority {
        priority: report.priority.map_or(0, |priority| priority.priority),
    };
    Ok(unwrapped(StatusCode::OK, "applicationpriority", &priority))
}

/// Hadoop's `PUT .../priority` with `{"priority": n}`: answers with the priority the
/// application has afterwards (capped at `yarn.cluster.max-application-priority`).
async fn put_app_priority(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Response, RestRefusal> {
    let id = parse_app_id(&app_id)?;
    let wanted: AppPriority = parse_body(&body, "priority")?;
    let changed = api
        .operations
        .update_application_priority(
            &caller,
            pb::UpdateApplicationPriorityRequestProto {
                application_id: Some(id.into()),
                application_priority: Some(pb::PriorityProto {
                    priority: wanted.priority,
                }),
            },
        )
        .await?;
    let priority = AppPriority {
        priority: changed
            .application_priority
            .map_or(wanted.priority, |priority| priority.priority),
    };
    Ok(unwrapped(StatusCode::OK, "applicationpriority", &priority))
}

async fn app_attempts(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
) -> Result<Response, RestRefusal> {
    let id = parse_app_id(&app_id)?;
    let attempts = attempts_with_containers(&api, &caller, id).await?;
    Ok(axum::Json(AppAttemptsResponse::of(&attempts)).into_response())
}

/// The attempts of application `id`, oldest first, each with its containers' reports, if
/// `caller` may view the application.
pub(super) async fn attempts_with_containers(
    api: &RestApi,
    caller: &Caller,
    id: ApplicationId,
) -> Result<
    Vec<(
        pb::ApplicationAttemptReportProto,
        Vec<pb::ContainerReportProto>,
    )>,
    RmError,
> {
    let attempts = api
        .operations
        .get_application_attempts(
            caller,
            pb::GetApplicationAttemptsRequestProto {
                application_id: Some(id.into()),
            },
        )
        .await?
        .application_attempts;
    let mut described = Vec::with_capacity(attempts.len());
    for attempt in attempts {
        let containers = api
            .operations
            .get_containers(
                caller,
                pb::GetContainersRequestProto {
                    application_attempt_id: attempt.application_attempt_id,
                },
            )
            .await?
            .containers;
        described.push((attempt, containers));
    }
    Ok(described)
}

async fn attempt_containers(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path((app_id, attempt_id)): Path<(String, String)>,
) -> Result<Response, RestRefusal> {
    let reports = attempt_container_reports(&api, &caller, &app_id, &attempt_id).await?;
    Ok(axum::Json(ContainersResponse::of(&reports, now_ms())).into_response())
}

async fn attempt_container(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path((app_id, attempt_id, container_id)): Path<(String, String, String)>,
) -> Result<Response, RestRefusal> {
    let wanted: ContainerId = container_id.parse().map_err(|err| {
        RmError::invalid(
            "containerid",
            format!("Invalid ContainerId: {container_id}: {err}"),
        )
    })?;
    let reports = attempt_container_reports(&api, &caller, &app_id, &attempt_id).await?;
    let report = reports
        .iter()
        .find(|report| {
            report
                .container_id
                .and_then(|id| ContainerId::try_from(id).ok())
                == Some(wanted)
        })
        .ok_or_else(|| RmError::NotFound {
            message: format!("container {container_id} is not one of attempt {attempt_id}'s"),
        })?;
    Ok(axum::Json(ContainerResponse {
        container: ContainerInfo::describe(report, now_ms()),
    })
    .into_response())
}

/// The container reports of attempt `attempt_id` of application `app_id`: 400 for ids that do
/// not parse or an attempt of another application, 404 for an attempt the application does
/// not have.
async fn attempt_container_reports(
    api: &RestApi,
    caller: &Caller,
    app_id: &str,
    attempt_id: &str,
) -> Result<Vec<pb::ContainerReportProto>, RmError> {
    let app = parse_app_id(app_id)?;
    let attempt: ApplicationAttemptId = attempt_id.parse().map_err(|err| {
        RmError::invalid(
            "appattemptid",
            format!("Invalid AppAttemptId: {attempt_id}: {err}"),
        )
    })?;
    if attempt.application_id != app {
        return Err(RmError::invalid(
            "appattemptid",
            format!("{attempt_id} is not an attempt of {app_id}"),
        ));
    }
    let attempts = api
        .operations
        .get_application_attempts(
            caller,
            pb::GetApplicationAttemptsRequestProto {
                application_id: Some(app.into()),
            },
        )
        .await?
        .application_attempts;
    let known = attempts.iter().any(|report| {
        report
            .application_attempt_id
            .and_then(|id| ApplicationAttemptId::try_from(id).ok())
            == Some(attempt)
    });
    if !known {
        return Err(RmError::NotFound {
            message: format!("appattempt, {attempt_id}, is not found"),
        });
    }
    Ok(api
        .operations
        .get_containers(
            caller,
            pb::GetContainersRequestProto {
                application_attempt_id: Some(attempt.into()),
            },
        )
        .await?
        .containers)
}

async fn app_statistics(
    State(api): State<RestApi>,
    _caller: RestCaller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Response, RestRefusal> {
    let statistics = AppStatistics::parse(&query)?;
    let states = api
        .operations
        .application_states(statistics.application_types())
        .await?;
    Ok(axum::Json(statistics.count(&states)).into_response())
}

async fn new_application(
    State(api): State<RestApi>,
    _caller: RestCaller,
) -> Result<Response, RestRefusal> {
    let response = api.operations.get_new_application().await?;
    let application = super::app_info::NewApplication::of(&response);
    Ok(unwrapped(StatusCode::OK, "NewApplication", &application))
}

async fn nodes(
    State(api): State<RestApi>,
    _caller: RestCaller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Response, RestRefusal> {
    let nodes = select_nodes(&api, &query).await?;
    Ok(blocking_json(NodesResponse::of(nodes)).await?)
}

/// The nodes in the states `query` asks for (`states`, Hadoop's filter; every state without
/// it).
pub(super) async fn select_nodes(
    api: &RestApi,
    query: &[(String, String)],
) -> Result<Vec<NodeInfo>, RmError> {
    let states = super::node_info::requested_states(query)?;
    let reports = api
        .operations
        .get_cluster_nodes(pb::GetClusterNodesRequestProto {
            node_states: states.into_iter().map(Into::into).collect(),
        })
        .await?
        .node_reports;
    Ok(reports.iter().map(NodeInfo::describe).collect())
}

async fn node(
    State(api): State<RestApi>,
    _caller: RestCaller,
    Path(node_id): Path<String>,
) -> Result<Response, RestRefusal> {
    let wanted: NodeId = node_id
        .parse()
        .map_err(|err| RmError::invalid("nodeid", format!("invalid node id {node_id:?}: {err}")))?;
    let reports = api
        .operations
        .get_cluster_nodes(pb::GetClusterNodesRequestProto::default())
        .await?
        .node_reports;
    let report = reports
        .iter()
        .find(|report| {
            report
                .node_id
                .clone()
                .and_then(|id| NodeId::try_from(id).ok())
                .is_some_and(|id| id == wanted)
        })
        .ok_or_else(|| RmError::NotFound {
            message: format!("nodeId, {node_id}, is not found"),
        })?;
    Ok(axum::Json(NodeResponse {
        node: NodeInfo::describe(report),
    })
    .into_response())
}

async fn no_such_resource(request: axum::extract::Request) -> RestRefusal {
    RestRefusal::NoSuchResource {
        path: request.uri().path().to_owned(),
    }
}

/// The URL a request was sent to, from its authority or `Host` header and its path.
fn request_url(api: &RestApi, uri: &axum::http::Uri, headers: &axum::http::HeaderMap) -> String {
    let host = uri
        .authority()
        .map(ToString::to_string)
        .or_else(|| {
            headers
                .get(axum::http::header::HOST)
                .and_then(|host| host.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let scheme = if api.tls { "https" } else { "http" };
    format!("{scheme}://{host}{}", uri.path())
}

/// `value` as the JSON answer of Hadoop's root-unwrapped kinds (`{"state": ...}`), which in
/// XML sit under their own root element, `root`.
pub(super) fn unwrapped<T: serde::Serialize>(
    status: StatusCode,
    root: &'static str,
    value: &T,
) -> Response {
    let mut response = (status, axum::Json(value)).into_response();
    response.extensions_mut().insert(XmlRoot(root));
    response
}

/// The JSON body of a write, whose one field is `field`.
pub(super) fn parse_body<T: serde::de::DeserializeOwned>(
    body: &[u8],
    field: &'static str,
) -> Result<T, RmError> {
    serde_json::from_slice(body).map_err(|err| {
        RmError::invalid(
            field,
            format!("the body is not a {{\"{field}\": ...}} object: {err}"),
        )
    })
}

pub(super) fn parse_app_id(app_id: &str) -> Result<ApplicationId, RmError> {
    app_id
        .parse()
        .map_err(|err| RmError::invalid("appid", format!("Invalid ApplicationId: {app_id}: {err}")))
}

pub(super) async fn application_report(
    api: &RestApi,
    caller: &Caller,
    app_id: &str,
) -> Result<pb::ApplicationReportProto, RmError> {
    let id = parse_app_id(app_id)?;
    api.operations
        .get_application_report(
            caller,
            pb::GetApplicationReportRequestProto {
                application_id: Some(id.into()),
            },
        )
        .await?
        .application_report
        .ok_or(RmError::ApplicationNotFound { id })
}
