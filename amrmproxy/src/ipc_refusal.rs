//! The one place AMRMProxy errors become the Hadoop exceptions ApplicationMasters on Hadoop IPC
//! receive; the counterpart of `status.rs` for gRPC, deciding the same way.

use yarn_ipc::{CallError, ExceptionClass};
use yarn_proto::token_metadata::is_not_registered;

use crate::Error;

impl From<Error> for CallError {
    /// Maps each error to the exception a Hadoop AM's client acts on:
    /// - authentication failures: `InvalidToken`;
    /// - an RM that says the AM is not registered: `ApplicationMasterNotRegisteredException`,
    ///   on which Hadoop's AMRMClient registers again;
    /// - an RM group that could not be reached or whose outcome is unknown, and throttling:
    ///   `RetriableException`, which the AM's retry policy repeats (every call is idempotent);
    /// - bad asks: `InvalidResourceRequestException`;
    /// - anything else: `YarnException` with the error's message.
    fn from(err: Error) -> Self {
        CallError::Application {
            class: class_of(&err),
            message: err.to_string(),
        }
    }
}

/// The exception for `err`; a failed re-registration takes its cause's.
fn class_of(err: &Error) -> ExceptionClass {
    match err {
        err if err.is_authentication() => ExceptionClass::InvalidToken,
        Error::Rm { source, .. } => rm_class(source),
        Error::Reregistration { source, .. } => class_of(source),
        Error::InvalidAsk { .. } | Error::OpportunisticAsksRefused { .. } => {
            ExceptionClass::InvalidResourceRequestException
        }
        Error::Throttled { .. } => ExceptionClass::RetriableException,
        _ => ExceptionClass::YarnException,
    }
}

/// The exception for a failed call to the RM group.
fn rm_class(source: &yarn_client::Error) -> ExceptionClass {
    match source {
        yarn_client::Error::CallFailed { status, .. } if is_not_registered(status) => {
            ExceptionClass::ApplicationMasterNotRegisteredException
        }
        yarn_client::Error::CallFailed { status, .. } => match status.code() {
            tonic::Code::Unavailable
            | tonic::Code::DeadlineExceeded
            | tonic::Code::Unknown
            | tonic::Code::Internal => ExceptionClass::RetriableException,
            _ => ExceptionClass::YarnException,
        },
        yarn_client::Error::OutcomeUnknown { .. }
        | yarn_client::Error::AttemptsExhausted { .. } => ExceptionClass::RetriableException,
        _ => ExceptionClass::YarnException,
    }
}
