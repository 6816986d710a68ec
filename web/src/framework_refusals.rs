//! [`FrameworkRefusals`]: the refusals the web framework writes itself, answered in Hadoop's
//! `RemoteException` form like every other.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::{HadoopException, RemoteExceptionResponse};

/// The most of a framework refusal's text that is read to become the message.
const MAX_MESSAGE_BYTES: usize = 16 * 1024;

/// The middleware for refusals made before a handler ran: a path or query that does not parse,
/// a body over the size limit (413) or of the wrong type, a method the path does not take.
/// axum answers those in plain text (or with no body); this gives them the same
/// `RemoteException` body, naming what was wrong, that the daemon's own refusals carry, so a
/// client reads every refusal in one place. Answers with a JSON or HTML body, and successful
/// answers, pass untouched.
#[derive(Debug, Clone, Copy)]
pub struct FrameworkRefusals;

impl FrameworkRefusals {
    /// Runs the rest of the stack and rewrites a plain-text refusal.
    pub async fn layer(request: Request, next: Next) -> Response {
        let method = request.method().clone();
        let path = request.uri().path().to_owned();
        let response = next.run(request).await;
        let status = response.status();
        let plain = response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_none_or(|value| value.as_bytes().starts_with(b"text/plain"));
        if !(status.is_client_error() || status.is_server_error()) || !plain {
            return response;
        }
        let (mut parts, body) = response.into_parts();
        let text = axum::body::to_bytes(body, MAX_MESSAGE_BYTES)
            .await
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        let message = match status {
            StatusCode::METHOD_NOT_ALLOWED => format!("{path} does not take {method}"),
            _ if text.is_empty() => format!(
                "{method} {path}: {}",
                status.canonical_reason().unwrap_or("refused")
            ),
            _ => format!("{method} {path}: {text}"),
        };
        let exception = match status {
            StatusCode::NOT_FOUND => HadoopException::NOT_FOUND,
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => HadoopException::AUTHORIZATION,
            StatusCode::SERVICE_UNAVAILABLE => HadoopException::SERVICE_UNAVAILABLE,
            _ if status.is_client_error() => HadoopException::BAD_REQUEST,
            _ => HadoopException::YARN_RUNTIME,
        };
        let body = axum::Json(RemoteExceptionResponse::new(exception, message)).into_response();
        let (body_parts, body) = body.into_parts();
        parts.headers.remove(header::CONTENT_LENGTH);
        parts.headers.insert(
            header::CONTENT_TYPE,
            body_parts
                .headers
                .get(header::CONTENT_TYPE)
                .cloned()
                .unwrap_or(HeaderValue::from_static("application/json")),
        );
        Response::from_parts(parts, Body::new(body))
    }
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::extract::{DefaultBodyLimit, Query};
    use axum::routing::{get, post};
    use serde::Deserialize;
    use serde_json::Value;
    use tower::ServiceExt;

    use super::*;

    #[derive(Deserialize)]
    struct Limit {
        limit: u32,
    }

    fn router() -> Router {
        Router::new()
            .route(
                "/q",
                get(|Query(query): Query<Limit>| async move { query.limit.to_string() }),
            )
            .route("/body", post(|_: axum::body::Bytes| async { "ok" }))
            .route(
                "/json",
                get(|| async { StatusCode::CONFLICT.into_response() }),
            )
            .layer(DefaultBodyLimit::max(8))
            .layer(axum::middleware::from_fn(FrameworkRefusals::layer))
    }

    async fn call(method: &str, uri: &str, body: &'static str) -> (StatusCode, String, Value) {
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .body(Body::from(body))
            .unwrap();
        let response = router().oneshot(request).await.unwrap();
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|value| value.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (status, content_type, json)
    }

    #[tokio::test]
    async fn a_query_that_does_not_parse_is_a_bad_request_exception_naming_it() {
        let (status, content_type, body) = call("GET", "/q?limit=many", "").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(content_type, "application/json");
        let refusal = &body["RemoteException"];
        assert_eq!(refusal["exception"], "BadRequestException", "{body}");
        let message = refusal["message"].as_str().unwrap();
        assert!(message.starts_with("GET /q: "), "{message}");
        assert!(message.contains("limit"), "{message}");
    }

    #[tokio::test]
    async fn an_oversized_body_is_a_413_with_a_reason() {
        let (status, _, body) = call("POST", "/body", "a body longer than eight bytes").await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(body["RemoteException"]["exception"], "BadRequestException");
        assert!(
            body["RemoteException"]["message"]
                .as_str()
                .unwrap()
                .contains("length limit"),
            "{body}"
        );
    }

    #[tokio::test]
    async fn a_wrong_method_names_the_path_and_the_method() {
        let (status, _, body) = call("DELETE", "/q", "").await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(
            body["RemoteException"]["message"],
            "/q does not take DELETE"
        );
    }

    #[tokio::test]
    async fn success_passes_and_an_empty_refusal_gets_a_body() {
        let (status, _, _) = call("GET", "/q?limit=3", "").await;
        assert_eq!(status, StatusCode::OK);
        let (status, _, body) = call("GET", "/json", "").await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(
            body["RemoteException"]["exception"], "BadRequestException",
            "an empty refusal gets a body: {body}"
        );
    }
}
