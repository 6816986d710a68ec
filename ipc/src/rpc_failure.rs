//! What an ERROR or FATAL response header carries.

use crate::ExceptionClass;
use crate::pb::rpc_response_header_proto::{RpcErrorCodeProto, RpcStatusProto};

/// A failed call (ERROR: the connection stays open) or a failed connection (FATAL: the server
/// closes it after this answer), as a response header states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcFailure {
    status: RpcStatusProto,
    /// The `errorDetail` code.
    pub code: RpcErrorCodeProto,
    /// The `exceptionClassName`.
    pub class: ExceptionClass,
    /// The `errorMsg`: the exception's message. Hadoop puts a server stack trace after it;
    /// yarn-ha sends the message alone.
    pub message: String,
}

impl RpcFailure {
    /// A failed call; the connection stays open for further calls.
    pub fn error(
        code: RpcErrorCodeProto,
        class: ExceptionClass,
        message: impl Into<String>,
    ) -> Self {
        RpcFailure {
            status: RpcStatusProto::Error,
            code,
            class,
            message: message.into(),
        }
    }

    /// A failed connection; nothing is read after it and the connection closes once it is sent.
    pub fn fatal(
        code: RpcErrorCodeProto,
        class: ExceptionClass,
        message: impl Into<String>,
    ) -> Self {
        RpcFailure {
            status: RpcStatusProto::Fatal,
            code,
            class,
            message: message.into(),
        }
    }

    /// ERROR or FATAL.
    pub fn status(&self) -> RpcStatusProto {
        self.status
    }

    /// Whether the connection closes after this answer.
    pub fn is_fatal(&self) -> bool {
        self.status == RpcStatusProto::Fatal
    }
}
