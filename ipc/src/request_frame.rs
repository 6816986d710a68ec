//! Client frames, for clients of this crate and for tests.

use bytes::{Bytes, BytesMut};

use crate::delimited::{put_delimited, put_delimited_bytes};
use crate::frame::put_frame;
use crate::pb::rpc_request_header_proto::OperationProto;
use crate::pb::{
    IpcConnectionContextProto, RequestHeaderProto, RpcKindProto, RpcRequestHeaderProto,
    RpcSaslProto,
};
use crate::{CONNECTION_CONTEXT_CALL_ID, PING_CALL_ID, SASL_CALL_ID};

/// Encodes the frames a Hadoop client sends, as Hadoop 3's `Client` writes them.
#[derive(Debug)]
pub struct RequestFrame;

impl RequestFrame {
    /// The request header Hadoop's client writes: protocol buffers, final packet.
    pub fn header(call_id: i32, retry_count: i32, client_id: &[u8]) -> RpcRequestHeaderProto {
        RpcRequestHeaderProto {
            rpc_kind: Some(RpcKindProto::RpcProtocolBuffer as i32),
            rpc_op: Some(OperationProto::RpcFinalPacket as i32),
            call_id,
            client_id: Bytes::copy_from_slice(client_id),
            retry_count: Some(retry_count),
            ..Default::default()
        }
    }

    /// The connection context frame (call id -3, no retry count).
    pub fn context(client_id: &[u8], context: &IpcConnectionContextProto) -> Bytes {
        let mut body = BytesMut::new();
        put_delimited(
            &mut body,
            &Self::header(CONNECTION_CONTEXT_CALL_ID, -1, client_id),
        );
        put_delimited(&mut body, context);
        framed(&body)
    }

    /// A SASL frame (call id -33, empty client id, no retry count).
    pub fn sasl(message: &RpcSaslProto) -> Bytes {
        let mut body = BytesMut::new();
        put_delimited(&mut body, &Self::header(SASL_CALL_ID, -1, &[]));
        put_delimited(&mut body, message);
        framed(&body)
    }

    /// A ping (call id -4, no retry count), which a server does not answer.
    pub fn ping(client_id: &[u8]) -> Bytes {
        let mut body = BytesMut::new();
        put_delimited(&mut body, &Self::header(PING_CALL_ID, -1, client_id));
        framed(&body)
    }

    /// A call: `header`, the call header, then the encoded request message.
    pub fn call(
        header: &RpcRequestHeaderProto,
        call: &RequestHeaderProto,
        request: &[u8],
    ) -> Bytes {
        let mut body = BytesMut::new();
        put_delimited(&mut body, header);
        put_delimited(&mut body, call);
        put_delimited_bytes(&mut body, request);
        framed(&body)
    }
}

fn framed(body: &[u8]) -> Bytes {
    let mut out = BytesMut::with_capacity(4 + body.len());
    put_frame(&mut out, body);
    out.freeze()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_ids_are_zigzag_encoded_as_hadoop_3_clients_send_them() {
        let ping = RequestFrame::ping(&[]);
        // length, header length, rpcKind 2, rpcOp 0, callId -4 as zigzag 7, empty clientId,
        // retryCount -1 as zigzag 1.
        assert_eq!(
            &ping[..],
            &[0, 0, 0, 11, 10, 0x08, 2, 0x10, 0, 0x18, 7, 0x22, 0, 0x28, 1][..]
        );
    }
}
