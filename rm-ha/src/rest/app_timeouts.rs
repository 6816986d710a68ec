//! Hadoop's application timeout endpoints of the REST API
//! (`/ws/v1/cluster/apps/{appid}/timeouts`, `.../timeouts/{type}` and `PUT .../timeout`), and
//! the `timeouts` object of an `app`, as pure functions of the client protocol's reports.

use axum::Router;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::{Deserialize, Serialize};
use yarn_proto::expiry_time::UNLIMITED;
use yarn_proto::pb;

use super::rest_api::{RestApi, RestCaller, application_report, parse_app_id, parse_body};
use super::rest_refusal::RestRefusal;
use crate::operations::RmError;

/// The one timeout type, as Hadoop names it in paths and bodies.
const LIFETIME: &str = "LIFETIME";

/// The timeout routes.
pub(super) fn routes() -> Router<RestApi> {
    Router::new()
        .route("/ws/v1/cluster/apps/{app_id}/timeouts", get(timeouts))
        .route(
            "/ws/v1/cluster/apps/{app_id}/timeouts/{timeout_type}",
            get(timeout),
        )
        .route(
            "/ws/v1/cluster/apps/{app_id}/timeout",
            axum::routing::put(put_timeout),
        )
}

/// Hadoop's `timeout` object: `{"type", "expiryTime", "remainingTimeInSeconds"}`, `UNLIMITED`
/// and -1 without a lifetime.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppTimeoutInfo {
    #[serde(rename = "type")]
    kind: &'static str,
    expiry_time: String,
    remaining_time_in_seconds: i64,
}

/// `{"timeout": [...]}`: the `timeouts` object of an `app`, and the body of `.../timeouts`
/// under the key `timeouts`. Always the LIFETIME one, as Hadoop reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct AppTimeoutsInfo {
    timeout: Vec<AppTimeoutInfo>,
}

impl AppTimeoutsInfo {
    /// The timeouts of `report`.
    pub(crate) fn of(report: &pb::ApplicationReportProto) -> Self {
        Self {
            timeout: vec![lifetime_of(report)],
        }
    }
}

/// The LIFETIME timeout of `report`; `UNLIMITED` when the report has none.
fn lifetime_of(report: &pb::ApplicationReportProto) -> AppTimeoutInfo {
    let timeout = report
        .app_timeouts
        .iter()
        .filter_map(|entry| entry.application_timeout.as_ref())
        .find(|timeout| {
            timeout.application_timeout_type()
                == pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime
        });
    match timeout {
        Some(timeout) => AppTimeoutInfo {
            kind: LIFETIME,
            expiry_time: timeout.expire_time.clone(),
            remaining_time_in_seconds: timeout.remaining_time,
        },
        None => AppTimeoutInfo {
            kind: LIFETIME,
            expiry_time: UNLIMITED.to_owned(),
            remaining_time_in_seconds: -1,
        },
    }
}

#[derive(Serialize)]
struct TimeoutsResponse {
    timeouts: AppTimeoutsInfo,
}

#[derive(Serialize)]
struct TimeoutResponse {
    timeout: AppTimeoutInfo,
}

/// The body of `PUT .../timeout`: `{"timeout": {"type": "LIFETIME", "expiryTime": "..."}}`.
#[derive(Deserialize)]
struct TimeoutUpdate {
    timeout: RequestedTimeout,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestedTimeout {
    #[serde(rename = "type")]
    kind: Option<String>,
    expiry_time: Option<String>,
}

async fn timeouts(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
) -> Result<Response, RestRefusal> {
    let report = application_report(&api, &caller, &app_id).await?;
    let body = TimeoutsResponse {
        timeouts: AppTimeoutsInfo::of(&report),
    };
    Ok(axum::Json(body).into_response())
}

async fn timeout(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path((app_id, timeout_type)): Path<(String, String)>,
) -> Result<Response, RestRefusal> {
    let report = application_report(&api, &caller, &app_id).await?;
    check_type(&timeout_type)?;
    let body = TimeoutResponse {
        timeout: lifetime_of(&report),
    };
    Ok(axum::Json(body).into_response())
}

/// Hadoop's `PUT .../timeout`: moves the end of the application's lifetime and answers with
/// its timeout afterwards (the queue's maximum lifetime may have brought it earlier).
async fn put_timeout(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Path(app_id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Response, RestRefusal> {
    let id = parse_app_id(&app_id)?;
    let update: TimeoutUpdate = parse_body(&body, "timeout")?;
    // An unknown application is refused first, as Hadoop does.
    application_report(&api, &caller, &app_id).await?;
    let (Some(kind), Some(expire_time)) = (update.timeout.kind, update.timeout.expiry_time) else {
        return Err(RmError::invalid("timeout", "Timeout type or ExpiryTime is null.").into());
    };
    check_type(&kind)?;
    api.operations
        .update_application_timeouts(
            &caller,
            pb::UpdateApplicationTimeoutsRequestProto {
                application_id: Some(id.into()),
                application_timeouts: vec![pb::ApplicationUpdateTimeoutMapProto {
                    application_timeout_type: pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime
                        .into(),
                    expire_time,
                }],
            },
        )
        .await?;
    let report = application_report(&api, &caller, &app_id).await?;
    let body = TimeoutResponse {
        timeout: lifetime_of(&report),
    };
    Ok(axum::Json(body).into_response())
}

/// Refuses any type but LIFETIME (trimmed, in any case, as Hadoop reads it), with Hadoop's
/// words.
fn check_type(kind: &str) -> Result<(), RmError> {
    if kind.trim().eq_ignore_ascii_case(LIFETIME) {
        Ok(())
    } else {
        Err(RmError::invalid(
            "timeout",
            format!("Invalid application-state {kind} specified. It should be one of [LIFETIME]"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(timeout: Option<(&str, i64)>) -> pb::ApplicationReportProto {
        let kind = pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime;
        pb::ApplicationReportProto {
            app_timeouts: timeout
                .map(|(expire_time, remaining_time)| pb::AppTimeoutsMapProto {
                    application_timeout_type: kind.into(),
                    application_timeout: Some(pb::ApplicationTimeoutProto {
                        application_timeout_type: kind.into(),
                        expire_time: expire_time.to_owned(),
                        remaining_time,
                    }),
                })
                .into_iter()
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn timeouts_read_as_hadoops_json() {
        let set = report(Some(("2026-11-30T07:10:00.000+0000", 42)));
        assert_eq!(
            serde_json::to_value(TimeoutsResponse {
                timeouts: AppTimeoutsInfo::of(&set)
            })
            .unwrap(),
            serde_json::json!({"timeouts": {"timeout": [{
                "type": "LIFETIME",
                "expiryTime": "2026-11-30T07:10:00.000+0000",
                "remainingTimeInSeconds": 42,
            }]}})
        );
        assert_eq!(
            lifetime_of(&report(None)),
            AppTimeoutInfo {
                kind: "LIFETIME",
                expiry_time: "UNLIMITED".to_owned(),
                remaining_time_in_seconds: -1,
            }
        );
    }

    #[test]
    fn only_lifetime_is_a_timeout_type() {
        assert!(check_type("LIFETIME").is_ok());
        assert!(check_type(" lifetime").is_ok());
        let err = check_type("deadline").unwrap_err();
        assert!(
            err.to_string().contains(
                "Invalid application-state deadline specified. It should be one of [LIFETIME]"
            ),
            "{err}"
        );
    }
}
