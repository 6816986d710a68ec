//! The one place AMRMProxy errors become the gRPC statuses ApplicationMasters receive.

use tonic::{Code, Status};
use yarn_proto::token_metadata::{is_not_registered, not_registered};

use crate::Error;

impl From<Error> for Status {
    /// Maps each error to the code an AM's client acts on:
    /// - authentication failures: PERMISSION_DENIED (the AM cannot fix them by retrying);
    /// - an RM's definitive answer: the RM's own code, and its "not registered" marker kept, so
    ///   the AM registers again when the proxy could not do it for it;
    /// - an RM group that could not be reached or whose outcome is unknown: UNAVAILABLE, which
    ///   the AM retries (every call is idempotent);
    /// - bad asks: INVALID_ARGUMENT; throttling: RESOURCE_EXHAUSTED;
    /// - configuration, storage and interceptor faults on this node: INTERNAL or
    ///   FAILED_PRECONDITION.
    fn from(err: Error) -> Self {
        let message = err.to_string();
        match err {
            err if err.is_authentication() => Status::permission_denied(message),
            Error::Rm { source, .. } => rm_status(*source, message),
            Error::Reregistration { source, .. } => {
                Status::new(Status::from(*source).code(), message)
            }
            Error::InvalidAsk { .. } | Error::OpportunisticAsksRefused { .. } => {
                Status::invalid_argument(message)
            }
            Error::Throttled { .. } => Status::resource_exhausted(message),
            Error::ContainerIdsExhausted { .. } | Error::IncompleteRmResponse { .. } => {
                Status::failed_precondition(message)
            }
            _ => Status::internal(message),
        }
    }
}

/// The status for a failed RM call described by `message`.
fn rm_status(source: yarn_client::Error, message: String) -> Status {
    match source {
        yarn_client::Error::CallFailed { status, .. } => {
            if is_not_registered(&status) {
                return not_registered(message);
            }
            match status.code() {
                // Transport trouble with the RM is not the AM's fault: let it retry.
                Code::Unavailable | Code::DeadlineExceeded | Code::Unknown | Code::Internal => {
                    Status::unavailable(message)
                }
                code => Status::new(code, message),
            }
        }
        yarn_client::Error::OutcomeUnknown { .. }
        | yarn_client::Error::AttemptsExhausted { .. } => Status::unavailable(message),
        _ => Status::internal(message),
    }
}
