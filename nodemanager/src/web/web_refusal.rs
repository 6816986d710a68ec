//! [`WebRefusal`]: why a REST request got no resource, answered in Hadoop's `RemoteException`
//! JSON shape.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use yarn_proto::ProtoError;
use yarn_proto::ids::{ContainerId, NodeId};
use yarn_web::{HadoopException, RemoteExceptionResponse};

/// A REST request the node cannot answer with a resource.
///
/// A domain outcome, not a fault: it becomes a 404 or 400 response whose body is
/// `{"RemoteException": {"exception", "message", "javaClassName"}}`, as Hadoop's web services
/// answer, so Hadoop's clients read the reason where they expect it.
#[derive(Debug, thiserror::Error)]
pub enum WebRefusal {
    /// The path names a container id that does not parse.
    #[error("{source}")]
    InvalidContainerId {
        /// Why it does not parse, naming the input.
        #[source]
        source: ProtoError,
    },
    /// The container is unknown to this node: never started here, or forgotten since.
    #[error("container {container_id} not found on node {node_id}")]
    ContainerNotFound {
        /// The container asked for.
        container_id: ContainerId,
        /// This node.
        node_id: NodeId,
    },
    /// The caller may not read the logs of a container: only its application's owner may.
    #[error("user {caller} may not read the logs of {container_id}, which runs for {owner}")]
    LogAccessDenied {
        /// Who asked.
        caller: String,
        /// The container.
        container_id: ContainerId,
        /// The application's owner.
        owner: String,
    },
    /// The container has no log file of that name.
    #[error("container {container_id} has no log file {file:?}")]
    LogFileNotFound {
        /// The container.
        container_id: ContainerId,
        /// The name asked for.
        file: String,
    },
    /// A log file that exists could not be read.
    #[error("cannot read log file {file:?} of container {container_id}: {reason}")]
    LogFileUnreadable {
        /// The container.
        container_id: ContainerId,
        /// The file.
        file: String,
        /// The error.
        reason: String,
    },
    /// Nothing is served at the path.
    #[error(
        "no NodeManager web resource at {path}; see /node, /ws/v1/node/info and /ws/v1/node/containers"
    )]
    NoSuchResource {
        /// The path asked for.
        path: String,
    },
}

impl WebRefusal {
    /// The HTTP status: 400 for a malformed request, 404 for a missing resource.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::InvalidContainerId { .. } => StatusCode::BAD_REQUEST,
            Self::ContainerNotFound { .. }
            | Self::NoSuchResource { .. }
            | Self::LogFileNotFound { .. } => StatusCode::NOT_FOUND,
            Self::LogAccessDenied { .. } => StatusCode::FORBIDDEN,
            Self::LogFileUnreadable { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The response body.
    pub fn remote_exception(&self) -> RemoteExceptionResponse {
        let exception = match self {
            Self::InvalidContainerId { .. } => HadoopException::BAD_REQUEST,
            Self::ContainerNotFound { .. }
            | Self::NoSuchResource { .. }
            | Self::LogFileNotFound { .. } => HadoopException::NOT_FOUND,
            Self::LogAccessDenied { .. } => HadoopException::FORBIDDEN,
            Self::LogFileUnreadable { .. } => HadoopException::YARN_RUNTIME,
        };
        RemoteExceptionResponse::new(exception, self.to_string())
    }
}

impl IntoResponse for WebRefusal {
    fn into_response(self) -> Response {
        (self.status(), axum::Json(self.remote_exception())).into_response()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;

    #[test]
    fn an_unknown_container_is_a_404_not_found_exception_naming_it() {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        let refusal = WebRefusal::ContainerNotFound {
            container_id: ContainerId::new(attempt, 0, 9).unwrap(),
            node_id: NodeId::new("node1.example.com", 45454),
        };
        assert_eq!(refusal.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            serde_json::to_value(refusal.remote_exception()).unwrap(),
            json!({"RemoteException": {
                "exception": "NotFoundException",
                "message": "container container_1700000000000_0001_01_000009 not found on node \
                            node1.example.com:45454",
                "javaClassName": "org.apache.hadoop.yarn.webapp.NotFoundException",
            }})
        );
    }

    #[test]
    fn a_malformed_container_id_is_a_400_bad_request_exception_naming_it() {
        let source = "container_x".parse::<ContainerId>().unwrap_err();
        let refusal = WebRefusal::InvalidContainerId { source };
        assert_eq!(refusal.status(), StatusCode::BAD_REQUEST);
        let body = refusal.remote_exception().remote_exception;
        assert_eq!(body.exception, "BadRequestException");
        assert_eq!(
            body.java_class_name,
            "org.apache.hadoop.yarn.webapp.BadRequestException"
        );
        assert!(body.message.contains("\"container_x\""), "{}", body.message);
    }
}
