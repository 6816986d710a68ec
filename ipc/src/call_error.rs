//! Why a call failed, and the one mapping of that to Hadoop's error answers.

use crate::ExceptionClass;
use crate::RpcFailure;
use crate::pb::rpc_response_header_proto::RpcErrorCodeProto;

/// Why a [`Dispatcher`](crate::Dispatcher) could not serve a call. Every variant is answered as
/// an ERROR: the connection stays open for the next call. [`CallError::to_failure`] is the one
/// place these become Hadoop's exception classes and error codes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    /// No protocol of that name is served here.
    #[error("Unknown protocol: {protocol}")]
    NoSuchProtocol {
        /// The call's `declaringClassProtocolName`.
        protocol: String,
    },

    /// The protocol is served but has no such method. Hadoop's message names the connection's
    /// protocol, which is usually the declaring one.
    #[error("Unknown method {method} called on {protocol} protocol.")]
    NoSuchMethod {
        /// The protocol named in the message.
        protocol: String,
        /// The call's `methodName`.
        method: String,
    },

    /// The protocol is served, at another version.
    #[error(
        "Protocol {protocol} version mismatch. (client = {client_version}, server = {server_version})"
    )]
    ProtocolVersionMismatch {
        /// The call's `declaringClassProtocolName`.
        protocol: String,
        /// The call's `clientProtocolVersion`.
        client_version: u64,
        /// The version served.
        server_version: u64,
    },

    /// The request message does not parse as the method's request type.
    #[error("{method}: the request does not parse: {reason}")]
    MalformedRequest {
        /// The call's `methodName`.
        method: String,
        /// What decoding found: which message or field, and what was wrong with it.
        reason: String,
    },

    /// The operation itself refused or failed, with the Hadoop exception the client should
    /// rebuild (a YARN exception, `StandbyException` on a follower, `AccessControlException`,
    /// ...).
    #[error("{message}")]
    Application {
        /// The exception class the client rebuilds.
        class: ExceptionClass,
        /// Its message.
        message: String,
    },
}

impl CallError {
    /// The refusal of a call on a connection that did not prove a token, on a protocol that
    /// serves only token holders: `AccessControlException` naming `token`, what must be proven
    /// (such as "the attempt's AMRMToken").
    pub fn token_required(protocol: &str, token: &str) -> Self {
        CallError::Application {
            class: ExceptionClass::AccessControlException,
            message: format!("{protocol} calls must prove {token} over SASL (TOKEN, DIGEST-MD5)"),
        }
    }

    /// The ERROR answer for this failure: status, `errorDetail`, class and message.
    pub fn to_failure(&self) -> RpcFailure {
        let (code, class) = match self {
            CallError::NoSuchProtocol { .. } => (
                RpcErrorCodeProto::ErrorNoSuchProtocol,
                ExceptionClass::RpcNoSuchProtocolException,
            ),
            CallError::NoSuchMethod { .. } => (
                RpcErrorCodeProto::ErrorNoSuchMethod,
                ExceptionClass::RpcNoSuchMethodException,
            ),
            CallError::ProtocolVersionMismatch { .. } => (
                RpcErrorCodeProto::ErrorRpcVersionMismatch,
                ExceptionClass::VersionMismatch,
            ),
            CallError::MalformedRequest { .. } => (
                RpcErrorCodeProto::ErrorRpcServer,
                ExceptionClass::RpcServerException,
            ),
            CallError::Application { class, .. } => (RpcErrorCodeProto::ErrorApplication, *class),
        };
        let message = match self {
            CallError::Application { message, .. } => message.clone(),
            other => other.to_string(),
        };
        RpcFailure::error(code, class, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pb::rpc_response_header_proto::RpcStatusProto;

    #[test]
    fn an_unknown_protocol_is_hadoops_rpc_no_such_protocol_exception() {
        let failure = CallError::NoSuchProtocol {
            protocol: "org.example.NoProtocolPB".into(),
        }
        .to_failure();
        assert_eq!(failure.status(), RpcStatusProto::Error);
        assert_eq!(failure.code, RpcErrorCodeProto::ErrorNoSuchProtocol);
        assert_eq!(
            failure.class.java_name(),
            "org.apache.hadoop.ipc.RpcNoSuchProtocolException"
        );
        assert_eq!(
            failure.message,
            "Unknown protocol: org.example.NoProtocolPB"
        );
    }

    #[test]
    fn an_unknown_method_is_hadoops_rpc_no_such_method_exception() {
        let failure = CallError::NoSuchMethod {
            protocol: "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB".into(),
            method: "getFrobs".into(),
        }
        .to_failure();
        assert_eq!(failure.status(), RpcStatusProto::Error);
        assert_eq!(failure.code, RpcErrorCodeProto::ErrorNoSuchMethod);
        assert_eq!(
            failure.class.java_name(),
            "org.apache.hadoop.ipc.RpcNoSuchMethodException"
        );
        assert_eq!(
            failure.message,
            "Unknown method getFrobs called on \
             org.apache.hadoop.yarn.api.ApplicationClientProtocolPB protocol."
        );
    }

    #[test]
    fn a_protocol_version_mismatch_is_an_rpc_version_mismatch() {
        let failure = CallError::ProtocolVersionMismatch {
            protocol: "p".into(),
            client_version: 2,
            server_version: 1,
        }
        .to_failure();
        assert_eq!(failure.code, RpcErrorCodeProto::ErrorRpcVersionMismatch);
        assert_eq!(
            failure.class.java_name(),
            "org.apache.hadoop.ipc.RPC$VersionMismatch"
        );
        assert_eq!(
            failure.message,
            "Protocol p version mismatch. (client = 2, server = 1)"
        );
    }

    #[test]
    fn a_malformed_request_is_refused_by_the_rpc_layer() {
        let reason = <crate::pb::TokenProto as prost::Message>::decode(&[0xff_u8][..]).unwrap_err();
        let failure = CallError::MalformedRequest {
            method: "allocate".into(),
            reason: reason.to_string(),
        }
        .to_failure();
        assert_eq!(failure.status(), RpcStatusProto::Error);
        assert_eq!(failure.code, RpcErrorCodeProto::ErrorRpcServer);
        assert!(
            failure
                .message
                .starts_with("allocate: the request does not parse"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn an_application_failure_keeps_its_class_and_message() {
        let failure = CallError::Application {
            class: ExceptionClass::StandbyException,
            message: "rm2 is not the active ResourceManager".into(),
        }
        .to_failure();
        assert_eq!(failure.status(), RpcStatusProto::Error);
        assert_eq!(failure.code, RpcErrorCodeProto::ErrorApplication);
        assert_eq!(
            failure.class.java_name(),
            "org.apache.hadoop.ipc.StandbyException"
        );
        assert_eq!(failure.message, "rm2 is not the active ResourceManager");
    }
}
