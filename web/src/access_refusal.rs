//! [`AccessRefusal`]: a web request refused before any handler, because it did not say who
//! calls, or not in a way the endpoint accepts.

use std::fmt;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::{HadoopException, RemoteExceptionResponse};

/// What anonymous callers may do, for the refusals' messages.
const ANONYMOUS_READS: &str = "a caller that names no user may only read (GET or HEAD), as dr.who";
/// Why anonymous callers may do nothing, for the refusals' messages.
const NO_ANONYMOUS_READS: &str =
    "anonymous callers are refused (hadoop.http.authentication.simple.anonymous.allowed is false)";

/// A web request that names no user where one is needed, or names one unreadably.
///
/// Answered before any handler runs, in Hadoop's `RemoteException` JSON: 401
/// `AuthorizationException` for a missing name, 400 `BadRequestException` for a malformed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessRefusal {
    /// Over HTTPS, a client without a certificate asked for what anonymous callers may not do:
    /// anything but a read, or anything at all when anonymous reads are off.
    CertificateRequired {
        /// The request's method and path, e.g. `POST /ws/v1/cluster/apps/new-application`.
        request: String,
        /// Whether anonymous callers may read (they may never write).
        anonymous_reads: bool,
    },
    /// With `yarn.tls.enabled=false`, a request without `user.name` asked for what anonymous
    /// callers may not do.
    UserNameRequired {
        /// The request's method and path.
        request: String,
        /// Whether anonymous callers may read.
        anonymous_reads: bool,
    },
    /// The query's `user.name` cannot be read (given twice, or the query does not parse).
    InvalidUserName {
        /// What was wrong with the query.
        reason: String,
    },
}

impl AccessRefusal {
    /// The HTTP status and Hadoop exception this refusal is answered with.
    pub fn status_and_exception(&self) -> (StatusCode, HadoopException) {
        match self {
            Self::CertificateRequired { .. } | Self::UserNameRequired { .. } => {
                (StatusCode::UNAUTHORIZED, HadoopException::AUTHORIZATION)
            }
            Self::InvalidUserName { .. } => (StatusCode::BAD_REQUEST, HadoopException::BAD_REQUEST),
        }
    }
}

impl fmt::Display for AccessRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let anonymous = |allowed: bool| {
            if allowed {
                ANONYMOUS_READS
            } else {
                NO_ANONYMOUS_READS
            }
        };
        match self {
            Self::CertificateRequired {
                request,
                anonymous_reads,
            } => write!(
                f,
                "{request} needs a client certificate signed by the cluster CA; {}",
                anonymous(*anonymous_reads)
            ),
            // Hadoop's own words first, for clients that look for them.
            Self::UserNameRequired {
                request,
                anonymous_reads,
            } => write!(
                f,
                "Unable to obtain user name, user not authenticated: {request} needs \
                 user.name=<user> in its query (Hadoop's pseudo authentication, since \
                 yarn.tls.enabled is false); {}",
                anonymous(*anonymous_reads)
            ),
            Self::InvalidUserName { reason } => {
                write!(f, "user.name: the query does not parse: {reason}")
            }
        }
    }
}

impl std::error::Error for AccessRefusal {}

impl IntoResponse for AccessRefusal {
    fn into_response(self) -> Response {
        let (status, exception) = self.status_and_exception();
        let body = RemoteExceptionResponse::new(exception, self.to_string());
        (status, axum::Json(body)).into_response()
    }
}
