//! Hadoop's reservation endpoints of the REST API (`/ws/v1/cluster/reservation/...`), on the
//! same client operations as the client protocol's.

use axum::Router;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use yarn_proto::pb;

use super::reservation_info::{
    NewReservation, ReservationDeleteInfo, ReservationListInfo, ReservationSubmissionInfo,
    ReservationUpdateInfo, parse,
};
use super::rest_api::{RestApi, RestCaller, unwrapped};
use super::rest_refusal::RestRefusal;
use crate::operations::RmError;

/// The reservation routes.
pub(super) fn routes() -> Router<RestApi> {
    Router::new()
        .route(
            "/ws/v1/cluster/reservation/new-reservation",
            post(new_reservation),
        )
        .route("/ws/v1/cluster/reservation/submit", post(submit))
        .route("/ws/v1/cluster/reservation/update", post(update))
        .route("/ws/v1/cluster/reservation/delete", post(delete))
        .route("/ws/v1/cluster/reservation/list", get(list))
}

async fn new_reservation(
    State(api): State<RestApi>,
    _caller: RestCaller,
) -> Result<Response, RestRefusal> {
    let response = api.operations.get_new_reservation().await?;
    Ok(unwrapped(
        StatusCode::OK,
        "new-reservation",
        &NewReservation::of(&response),
    ))
}

/// Hadoop answers an accepted submission 202 with no body.
async fn submit(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    body: axum::body::Bytes,
) -> Result<Response, RestRefusal> {
    let request = parse::<ReservationSubmissionInfo>(&body, "reservation-submission-context")?
        .into_proto()?;
    api.operations.submit_reservation(&caller, request).await?;
    Ok(StatusCode::ACCEPTED.into_response())
}

async fn update(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    body: axum::body::Bytes,
) -> Result<Response, RestRefusal> {
    let request =
        parse::<ReservationUpdateInfo>(&body, "reservation-update-context")?.into_proto()?;
    api.operations.update_reservation(&caller, request).await?;
    Ok(unwrapped(
        StatusCode::OK,
        "reservation-update-response-info",
        &serde_json::json!({}),
    ))
}

async fn delete(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    body: axum::body::Bytes,
) -> Result<Response, RestRefusal> {
    let request =
        parse::<ReservationDeleteInfo>(&body, "reservation-delete-context")?.into_proto()?;
    api.operations.delete_reservation(&caller, request).await?;
    Ok(unwrapped(
        StatusCode::OK,
        "reservation-delete-response-info",
        &serde_json::json!({}),
    ))
}

/// Hadoop's query: `queue` ("default"), `reservation-id`, `start-time` (0), `end-time` (-1, no
/// end) and `include-resource-allocations` (false).
async fn list(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Response, RestRefusal> {
    let mut request = pb::ReservationListRequestProto {
        queue: "default".to_owned(),
        ..Default::default()
    };
    for (name, value) in query {
        let number = |field: &'static str| {
            value.trim().parse::<i64>().map_err(|_| {
                RmError::invalid(field, format!("{field}={value:?} is not a number of ms"))
            })
        };
        match name.as_str() {
            "queue" => request.queue = value.clone(),
            "reservation-id" => request.reservation_id = value.clone(),
            "start-time" => request.start_time = number("start-time")?,
            "end-time" => request.end_time = Some(number("end-time")?),
            // Hadoop's pseudo authentication, read by the web server.
            "user.name" => {}
            "include-resource-allocations" => {
                request.include_resource_allocations = match value.trim() {
                    v if v.eq_ignore_ascii_case("true") => true,
                    v if v.eq_ignore_ascii_case("false") => false,
                    _ => {
                        return Err(RmError::invalid(
                            "include-resource-allocations",
                            format!("include-resource-allocations={value:?} is not true or false"),
                        )
                        .into());
                    }
                }
            }
            other => {
                return Err(RmError::invalid(
                    "query",
                    format!(
                        "unknown query parameter {other:?}: the list takes queue, reservation-id, \
                         start-time, end-time and include-resource-allocations"
                    ),
                )
                .into());
            }
        }
    }
    let response = api.operations.list_reservations(&caller, request).await?;
    Ok(unwrapped(
        StatusCode::OK,
        "reservationListInfo",
        &ReservationListInfo::of(&response),
    ))
}
