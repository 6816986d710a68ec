//! [`RemoteExceptionResponse`]: how Hadoop's web services answer a request they refuse.

use serde::Serialize;

use crate::HadoopException;

/// `{"RemoteException": {...}}`, the body of every refused REST request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteExceptionResponse {
    /// The refusal.
    #[serde(rename = "RemoteException")]
    pub remote_exception: RemoteException,
}

/// Hadoop's `RemoteException` object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteException {
    /// The exception's simple class name, e.g. `NotFoundException`.
    pub exception: &'static str,
    /// What was wrong, naming the input.
    pub message: String,
    /// The exception's fully qualified Java class name.
    pub java_class_name: &'static str,
}

impl RemoteExceptionResponse {
    /// The body refusing with `exception`, saying `message`.
    pub fn new(exception: HadoopException, message: String) -> Self {
        Self {
            remote_exception: RemoteException {
                exception: exception.name,
                message,
                java_class_name: exception.class,
            },
        }
    }
}
