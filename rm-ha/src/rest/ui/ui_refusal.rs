//! [`UiRefusal`]: a page the ResourceManager refused, shown as a page.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use maud::html;

use crate::operations::RmError;
use crate::rest::rest_refusal::RestRefusal;

/// A refused page: the REST API's refusal (the same status and reason, from the one mapping
/// in [`RestRefusal`]) drawn as a small HTML document rather than a `RemoteException` object,
/// because a browser asked for it.
#[derive(Debug)]
pub(super) struct UiRefusal(pub(super) RestRefusal);

impl From<RmError> for UiRefusal {
    fn from(err: RmError) -> Self {
        Self(err.into())
    }
}

impl From<RestRefusal> for UiRefusal {
    fn from(refusal: RestRefusal) -> Self {
        Self(refusal)
    }
}

impl IntoResponse for UiRefusal {
    fn into_response(self) -> Response {
        let (status, exception) = self.0.status_and_exception();
        let message = self.0.message();
        // The REST answer carries the headers a refusal needs (`Retry-After` on a 503): keep
        // them, replace the body.
        let mut response = self.0.into_response();
        let page = html! {
            (maud::DOCTYPE)
            html lang="en" {
                head { meta charset="utf-8"; title { (status.as_u16()) " " (exception.name) } }
                body {
                    h1 { (status.as_u16()) " " (status.canonical_reason().unwrap_or_default()) }
                    p.refusal { (exception.name) ": " (message) }
                    p { a href="/cluster" { "Back to the cluster overview" } }
                }
            }
        };
        *response.body_mut() = axum::body::Body::from(page.into_string());
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        response.headers_mut().remove(header::CONTENT_LENGTH);
        response
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;

    use super::*;

    #[tokio::test]
    async fn a_refusal_keeps_its_status_and_reads_as_html() {
        let refusal = UiRefusal::from(RmError::invalid("sort", "no such column \"<b>\""));
        let response = refusal.into_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        let body = String::from_utf8(body.to_vec()).unwrap();
        assert!(body.contains("400 Bad Request"), "{body}");
        assert!(body.contains("BadRequestException"), "{body}");
        assert!(body.contains("&lt;b&gt;"), "{body}");
    }
}
