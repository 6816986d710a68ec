//! [`RestRefusal`]: the one mapping of [`RmError`] to what Hadoop's REST clients expect, an
//! HTTP status and a `RemoteException` body.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use yarn_web::{HadoopException, RemoteExceptionResponse};

use crate::operations::RmError;

/// How long a client is told to wait before asking a replica that knows no leader again.
const RETRY_AFTER_SECONDS: &str = "1";

/// A REST request the ResourceManager refused: an [`RmError`] from the operations, or a
/// request that did not reach them because its path or query was wrong.
#[derive(Debug)]
pub(crate) enum RestRefusal {
    /// The operation's error.
    Operation(RmError),
    /// Nothing is served at this path.
    NoSuchResource {
        /// The path asked for.
        path: String,
    },
    /// The caller's certificate is not a user's.
    NotAUser {
        /// Who called, as the certificate names them.
        caller: String,
    },
}

impl From<RmError> for RestRefusal {
    fn from(err: RmError) -> Self {
        Self::Operation(err)
    }
}

impl RestRefusal {
    /// The HTTP status and Hadoop exception this refusal is answered with.
    pub(super) fn status_and_exception(&self) -> (StatusCode, HadoopException) {
        match self {
            Self::NoSuchResource { .. } => (StatusCode::NOT_FOUND, HadoopException::NOT_FOUND),
            Self::NotAUser { .. } => (StatusCode::FORBIDDEN, HadoopException::FORBIDDEN),
            Self::Operation(err) => match err {
                RmError::ApplicationNotFound { .. }
                | RmError::AttemptNotFound { .. }
                | RmError::ContainerNotFound { .. }
                | RmError::NotFound { .. } => (StatusCode::NOT_FOUND, HadoopException::NOT_FOUND),
                RmError::InvalidRequest { .. }
                | RmError::PreconditionFailed { .. }
                | RmError::Conflict { .. }
                | RmError::ContainersRefused { .. } => {
                    (StatusCode::BAD_REQUEST, HadoopException::BAD_REQUEST)
                }
                RmError::AccessDenied { .. } => {
                    (StatusCode::FORBIDDEN, HadoopException::AUTHORIZATION)
                }
                RmError::Unauthenticated { .. } | RmError::NotRegistered { .. } => {
                    (StatusCode::UNAUTHORIZED, HadoopException::AUTHORIZATION)
                }
                RmError::NotLeader(_) | RmError::Unavailable { .. } | RmError::TimedOut { .. } => (
                    StatusCode::SERVICE_UNAVAILABLE,
                    HadoopException::SERVICE_UNAVAILABLE,
                ),
                RmError::Unsupported { .. } => {
                    (StatusCode::NOT_IMPLEMENTED, HadoopException::UNSUPPORTED)
                }
                RmError::Exhausted { .. } | RmError::Internal { .. } => (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    HadoopException::YARN_RUNTIME,
                ),
            },
        }
    }

    /// What was wrong, naming the input.
    pub(super) fn message(&self) -> String {
        match self {
            Self::Operation(err) => err.to_string(),
            Self::NoSuchResource { path } => format!(
                "no ResourceManager web resource at {path}; see /ws/v1/cluster/info, \
                 /ws/v1/cluster/metrics, /ws/v1/cluster/apps and /ws/v1/cluster/nodes"
            ),
            Self::NotAUser { caller } => format!(
                "the ResourceManager's REST API serves users; certificate {caller} is not a \
                 user's"
            ),
        }
    }
}

/// The status and body; a replica that is not the leader and cannot name it also says when to
/// ask again (`Retry-After`), as a standby without an active does.
impl IntoResponse for RestRefusal {
    fn into_response(self) -> Response {
        let (status, exception) = self.status_and_exception();
        let body = RemoteExceptionResponse::new(exception, self.message());
        let mut response = (status, axum::Json(body)).into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from_static(RETRY_AFTER_SECONDS),
            );
        }
        response
    }
}
