//! [`DeclaredBodyLimit`]: a body declared too large is refused before it is sent.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The middleware refusing a request whose `Content-Length` is over the limit (its state)
/// with 413 before any handler polls the body. A client that asked to continue
/// (`Expect: 100-continue`, which curl sends for large bodies) then gets the refusal instead
/// of `100 Continue` and never sends the body; without this the refusal would come only after
/// the limit had been read, racing the client's upload. A body without a declared length is
/// still bounded while it is read (axum's `DefaultBodyLimit`). The refusal is plain text, for
/// [`FrameworkRefusals`](crate::FrameworkRefusals) to put in Hadoop's form.
#[derive(Debug, Clone, Copy)]
pub struct DeclaredBodyLimit;

impl DeclaredBodyLimit {
    /// Refuses a declared length over `limit` bytes; lets everything else through.
    pub async fn layer(State(limit): State<usize>, request: Request, next: Next) -> Response {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok());
        match declared {
            Some(length) if length > limit as u64 => (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body of {length} bytes is over the limit of {limit} bytes"),
            )
                .into_response(),
            _ => next.run(request).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::body::Body;
    use axum::routing::post;
    use tower::ServiceExt;

    use super::*;

    async fn status(length: usize) -> StatusCode {
        let router = Router::new()
            .route(
                "/",
                post(|body: axum::body::Bytes| async move { body.len().to_string() }),
            )
            .layer(axum::middleware::from_fn_with_state(
                8,
                DeclaredBodyLimit::layer,
            ));
        let request = Request::builder()
            .method("POST")
            .uri("/")
            .header(header::CONTENT_LENGTH, length)
            .body(Body::from(vec![b'x'; length]))
            .unwrap();
        router.oneshot(request).await.unwrap().status()
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_refused_and_the_rest_served() {
        assert_eq!(status(9).await, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(status(8).await, StatusCode::OK);
    }
}
