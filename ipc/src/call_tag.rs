//! What a response echoes of its request.

use bytes::Bytes;

use crate::pb::RpcRequestHeaderProto;

/// The call id an answer goes to, with the client id and retry count it echoes. Hadoop's client
/// matches answers to calls by call id and checks that a non-empty client id is its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTag {
    /// The request's call id; goes out as an unsigned 32-bit value (-33 as 0xFFFFFFDF).
    pub call_id: i32,
    /// The request's retry count, or -1.
    pub retry_count: i32,
    /// The request's client id, or empty.
    pub client_id: Bytes,
}

impl CallTag {
    /// Call id -1, no retry count, no client id: what Hadoop answers on when no request is to
    /// blame (a bad preamble, a refused auth protocol, a frame that cannot be read).
    pub const fn connection() -> Self {
        CallTag {
            call_id: -1,
            retry_count: -1,
            client_id: Bytes::new(),
        }
    }

    /// Call id -33 with no client id: SASL answers.
    pub const fn sasl() -> Self {
        CallTag {
            call_id: crate::SASL_CALL_ID,
            retry_count: -1,
            client_id: Bytes::new(),
        }
    }

    /// The request's call id and retry count without its client id, as Hadoop answers a request
    /// the IPC layer itself refuses.
    pub fn refusing(header: &RpcRequestHeaderProto) -> Self {
        CallTag {
            call_id: header.call_id,
            retry_count: header.retry_count(),
            client_id: Bytes::new(),
        }
    }

    /// Everything the request carried, as a served call's answer echoes it.
    pub fn answering(header: &RpcRequestHeaderProto) -> Self {
        CallTag {
            call_id: header.call_id,
            retry_count: header.retry_count(),
            client_id: header.client_id.clone(),
        }
    }
}
