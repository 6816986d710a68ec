//! Hadoop's activities endpoints of the REST API: `GET /ws/v1/cluster/scheduler/activities`
//! and `GET /ws/v1/cluster/scheduler/app-activities/{appid}`.
//!
//! As Hadoop, a parameter that does not parse, an unknown node and an application that
//! finished are answered 200 with the reason in `diagnostic`; a caller without the right is
//! refused as everywhere else in the API.

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use yarn_security::now_ms;

use super::activities_info::{
    ActivitiesQuery, ActivitiesResponse, AppActivitiesQuery, AppActivitiesResponse,
};
use super::rest_api::{RestApi, RestCaller, parse_app_id};
use super::rest_refusal::RestRefusal;
use crate::operations::RmError;

/// The activities routes.
pub(super) fn routes() -> Router<RestApi> {
    Router::new()
        .route(
            "/ws/v1/cluster/scheduler/activities",
            get(scheduler_activities),
        )
        .route(
            "/ws/v1/cluster/scheduler/app-activities/{app_id}",
            get(app_activities),
        )
}

/// Asks the leader to record its next pass and answers with the one recorded before.
async fn scheduler_activities(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Response, RestRefusal> {
    let query = match ActivitiesQuery::parse(&query) {
        Ok(query) => query,
        Err(reason) => {
            return Ok(axum::Json(ActivitiesResponse::refusal(&reason, None)).into_response());
        }
    };
    let (node_name, filter) = query.node.clone().unzip();
    let pass = match api
        .operations
        .scheduler_activities(&caller, filter.as_ref())
        .await
    {
        Ok(pass) => pass,
        Err(RmError::NotFound { message }) => {
            let answer = ActivitiesResponse::refusal(&message, node_name.as_deref());
            return Ok(axum::Json(answer).into_response());
        }
        Err(err) => return Err(err.into()),
    };
    let answer = ActivitiesResponse::of(pass.as_deref(), node_name.as_deref(), query.group_by);
    Ok(axum::Json(answer).into_response())
}

/// Records the application's activities for `maxTime` (`actions=refresh`) and answers with
/// what is recorded (`actions=get`); both without `actions`.
async fn app_activities(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Response, RestRefusal> {
    let now = now_ms();
    let note = |diagnostic: &str| {
        Ok(axum::Json(AppActivitiesResponse::note(&app_id, diagnostic, now)).into_response())
    };
    let query = match AppActivitiesQuery::parse(&query) {
        Ok(query) => query,
        Err(reason) => return note(&reason),
    };
    let Ok(id) = parse_app_id(&app_id) else {
        return note("Cannot find application with given appId");
    };
    let record_for = query.refresh.then_some(query.max_time);
    let recorded = match api
        .operations
        .app_activities(&caller, id, record_for, query.get)
        .await
    {
        Ok(recorded) => recorded,
        Err(RmError::ApplicationNotFound { .. }) => {
            return note("Cannot find application with given appId");
        }
        Err(RmError::PreconditionFailed { message }) => return note(&message),
        Err(err) => return Err(err.into()),
    };
    let answer = AppActivitiesResponse::of(&app_id, recorded.as_deref(), &query, now);
    Ok(axum::Json(answer).into_response())
}
