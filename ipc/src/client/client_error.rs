//! The client's one error type.

use crate::CodecError;
use crate::pb::RpcResponseHeaderProto;
use crate::pb::rpc_response_header_proto::RpcStatusProto;

/// Why a Hadoop IPC client could not connect, authenticate or get a call answered.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Reading from or writing to the connection failed.
    #[error("Hadoop IPC connection: {during}: {source}")]
    Io {
        /// What the client was doing.
        during: &'static str,
        /// The failure.
        source: std::io::Error,
    },

    /// The server closed the connection.
    #[error("the Hadoop IPC server closed the connection while the client was {during}")]
    Closed {
        /// What the client was doing.
        during: &'static str,
    },

    /// The server's bytes are not Hadoop IPC.
    #[error("the Hadoop IPC server sent malformed bytes: {0}")]
    Codec(#[from] CodecError),

    /// The server answered out of turn: another call id, or a SASL state where another was due.
    #[error("the Hadoop IPC server answered out of turn: {0}")]
    OutOfTurn(String),

    /// The SASL exchange failed on the client's side: no method it can use was offered, a
    /// challenge it cannot answer, or a server that did not prove it knows the token.
    #[error("SASL: {0}")]
    Sasl(String),

    /// The server refused: an ERROR answer (the call failed, the connection stays usable) or a
    /// FATAL one (the server closes the connection), as Hadoop's `RemoteException`.
    #[error("{class_name}: {message}")]
    Remote {
        /// FATAL rather than ERROR.
        fatal: bool,
        /// The Java exception class the server named, such as
        /// `org.apache.hadoop.ipc.StandbyException`.
        class_name: String,
        /// The exception's message.
        message: String,
    },

    /// An earlier failure (a FATAL answer, an I/O error, a call dropped mid-way) left the
    /// connection in an unknown state; open a new one.
    #[error("the Hadoop IPC connection is unusable after an earlier failure")]
    Broken,
}

impl ClientError {
    /// `Ok` for a SUCCESS header; the refusal an ERROR or FATAL header carries otherwise.
    pub(crate) fn check_status(header: &RpcResponseHeaderProto) -> Result<(), ClientError> {
        let fatal = match header.status() {
            RpcStatusProto::Success => return Ok(()),
            RpcStatusProto::Error => false,
            RpcStatusProto::Fatal => true,
        };
        Err(ClientError::Remote {
            fatal,
            class_name: header.exception_class_name().to_owned(),
            message: header.error_msg().to_owned(),
        })
    }

    /// The Java exception class of a [`ClientError::Remote`] refusal.
    pub fn remote_class(&self) -> Option<&str> {
        match self {
            ClientError::Remote { class_name, .. } => Some(class_name),
            _ => None,
        }
    }
}
