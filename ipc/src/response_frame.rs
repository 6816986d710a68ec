//! Server frames: a response header, then the answer on success.

use bytes::{Bytes, BytesMut};

use crate::delimited::{decode_delimited, put_delimited, put_delimited_bytes, take_delimited};
use crate::frame::put_frame;
use crate::pb::rpc_response_header_proto::RpcStatusProto;
use crate::pb::{RpcResponseHeaderProto, RpcSaslProto};
use crate::{CallTag, CodecError, IPC_VERSION, RpcFailure};

/// Encodes the frames a server sends, and decodes them for clients (and tests).
///
/// Every header carries `serverIpcVersionNum` 9 and the [`CallTag`]'s call id (as `uint32`),
/// client id (present, possibly empty) and retry count, as Hadoop's server writes them.
#[derive(Debug)]
pub struct ResponseFrame;

impl ResponseFrame {
    /// A SUCCESS frame carrying `answer`, the encoded response message.
    pub fn success(tag: &CallTag, answer: &[u8]) -> Bytes {
        let header = header(tag, RpcStatusProto::Success);
        let mut body = BytesMut::new();
        put_delimited(&mut body, &header);
        put_delimited_bytes(&mut body, answer);
        framed(&body)
    }

    /// An ERROR or FATAL frame: `exceptionClassName`, `errorMsg` and `errorDetail`, no body.
    pub fn failure(tag: &CallTag, failure: &RpcFailure) -> Bytes {
        let mut header = header(tag, failure.status());
        header.exception_class_name = Some(failure.class.java_name().to_owned());
        header.error_msg = Some(failure.message.clone());
        header.set_error_detail(failure.code);
        let mut body = BytesMut::new();
        put_delimited(&mut body, &header);
        framed(&body)
    }

    /// A SASL answer: a SUCCESS header on call id -33, then the SASL message.
    pub fn sasl(message: &RpcSaslProto) -> Bytes {
        let header = header(&CallTag::sasl(), RpcStatusProto::Success);
        let mut body = BytesMut::new();
        put_delimited(&mut body, &header);
        put_delimited(&mut body, message);
        framed(&body)
    }

    /// Reads a frame body (its length prefix already taken off): the header, and what follows
    /// it, which is the delimited answer on SUCCESS and empty otherwise.
    ///
    /// # Errors
    ///
    /// A [`CodecError`] when the header is cut short or does not parse.
    pub fn decode(mut body: Bytes) -> Result<(RpcResponseHeaderProto, Bytes), CodecError> {
        let header = decode_delimited(&mut body, "RpcResponseHeaderProto")?;
        Ok((header, body))
    }

    /// Reads a frame body (its length prefix already taken off) as a client does: the header,
    /// and the answer message's bytes, present on SUCCESS only.
    ///
    /// # Errors
    ///
    /// As [`decode`](Self::decode); [`CodecError::TrailingBytes`] when anything follows the
    /// answer, or the header of an answer without a body.
    pub fn decode_answer(
        body: Bytes,
    ) -> Result<(RpcResponseHeaderProto, Option<Bytes>), CodecError> {
        let (header, mut rest) = Self::decode(body)?;
        if rest.is_empty() {
            return Ok((header, None));
        }
        let answer = take_delimited(&mut rest, "the answer")?;
        if !rest.is_empty() {
            return Err(CodecError::TrailingBytes {
                message: "the answer",
                count: rest.len(),
            });
        }
        Ok((header, Some(answer)))
    }
}

fn header(tag: &CallTag, status: RpcStatusProto) -> RpcResponseHeaderProto {
    RpcResponseHeaderProto {
        // Hadoop sends the signed call id's 32 bits as an unsigned varint.
        call_id: tag.call_id as u32,
        status: status as i32,
        server_ipc_version_num: Some(u32::from(IPC_VERSION)),
        client_id: Some(tag.client_id.clone()),
        retry_count: Some(tag.retry_count),
        ..Default::default()
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
    use crate::ExceptionClass;
    use crate::frame::FrameDecoder;
    use crate::pb::rpc_response_header_proto::RpcErrorCodeProto;
    use crate::pb::rpc_sasl_proto::SaslState;

    fn body_of(frame: Bytes) -> Bytes {
        let mut buf = BytesMut::from(&frame[..]);
        let body = FrameDecoder::new(1 << 20)
            .decode(&mut buf)
            .unwrap()
            .unwrap();
        assert!(buf.is_empty(), "exactly one frame");
        body
    }

    fn tag() -> CallTag {
        CallTag {
            call_id: 7,
            retry_count: 2,
            client_id: Bytes::from_static(&[0xab; 16]),
        }
    }

    #[test]
    fn a_success_echoes_the_call_and_carries_the_answer() {
        let (header, mut rest) =
            ResponseFrame::decode(body_of(ResponseFrame::success(&tag(), b"answer"))).unwrap();
        assert_eq!(header.call_id, 7);
        assert_eq!(header.status(), RpcStatusProto::Success);
        assert_eq!(header.server_ipc_version_num, Some(9));
        assert_eq!(header.client_id.as_deref(), Some(&[0xab; 16][..]));
        assert_eq!(header.retry_count, Some(2));
        assert_eq!(header.exception_class_name, None);
        assert_eq!(take_delimited(&mut rest, "answer").unwrap(), &b"answer"[..]);
        assert!(rest.is_empty(), "Hadoop's client refuses trailing bytes");
    }

    #[test]
    fn a_client_reads_the_answer_or_none_and_refuses_trailing_bytes() {
        let (_, answer) =
            ResponseFrame::decode_answer(body_of(ResponseFrame::success(&tag(), b"abc"))).unwrap();
        assert_eq!(answer.as_deref(), Some(&b"abc"[..]));
        let failure = RpcFailure::error(
            RpcErrorCodeProto::ErrorApplication,
            ExceptionClass::StandbyException,
            "standby",
        );
        let (header, answer) =
            ResponseFrame::decode_answer(body_of(ResponseFrame::failure(&tag(), &failure)))
                .unwrap();
        assert_eq!((header.status(), answer), (RpcStatusProto::Error, None));
        let mut trailing = BytesMut::from(&body_of(ResponseFrame::success(&tag(), b"abc"))[..]);
        trailing.extend_from_slice(b"xy");
        assert_eq!(
            ResponseFrame::decode_answer(trailing.freeze()).unwrap_err(),
            CodecError::TrailingBytes {
                message: "the answer",
                count: 2
            }
        );
    }

    #[test]
    fn an_empty_answer_is_still_delimited() {
        let (_, rest) =
            ResponseFrame::decode(body_of(ResponseFrame::success(&tag(), b""))).unwrap();
        assert_eq!(rest, &[0_u8][..]);
    }

    #[test]
    fn a_failure_carries_class_message_and_code_and_no_body() {
        let failure = RpcFailure::error(
            RpcErrorCodeProto::ErrorNoSuchMethod,
            ExceptionClass::RpcNoSuchMethodException,
            "Unknown method frob called on p protocol.",
        );
        let (header, rest) =
            ResponseFrame::decode(body_of(ResponseFrame::failure(&tag(), &failure))).unwrap();
        assert_eq!(header.status(), RpcStatusProto::Error);
        assert_eq!(
            header.exception_class_name.as_deref(),
            Some("org.apache.hadoop.ipc.RpcNoSuchMethodException")
        );
        assert_eq!(
            header.error_msg.as_deref(),
            Some("Unknown method frob called on p protocol.")
        );
        assert_eq!(header.error_detail(), RpcErrorCodeProto::ErrorNoSuchMethod);
        assert_eq!(header.call_id, 7);
        assert!(rest.is_empty());
    }

    #[test]
    fn negative_call_ids_go_out_as_unsigned_32_bit_values() {
        let failure = RpcFailure::fatal(
            RpcErrorCodeProto::FatalUnauthorized,
            ExceptionClass::AccessControlException,
            "no",
        );
        let (header, _) = ResponseFrame::decode(body_of(ResponseFrame::failure(
            &CallTag::connection(),
            &failure,
        )))
        .unwrap();
        assert_eq!(header.call_id, 0xFFFF_FFFF);
        assert_eq!(header.status(), RpcStatusProto::Fatal);
        assert_eq!(header.client_id.as_deref(), Some(&b""[..]));
        assert_eq!(header.retry_count, Some(-1));

        let frame = ResponseFrame::sasl(&RpcSaslProto {
            state: SaslState::Success as i32,
            ..Default::default()
        });
        let (header, mut rest) = ResponseFrame::decode(body_of(frame)).unwrap();
        assert_eq!(header.call_id, 0xFFFF_FFDF);
        assert_eq!(header.call_id as i32, -33);
        let sasl: RpcSaslProto = decode_delimited(&mut rest, "RpcSaslProto").unwrap();
        assert_eq!(sasl.state(), SaslState::Success);
    }

    #[test]
    fn the_header_bytes_are_hadoops() {
        // callId 0xFFFFFFDF as a 5-byte varint, status SUCCESS, version 9, empty clientId,
        // retryCount -1 as zigzag 1.
        let frame = ResponseFrame::sasl(&RpcSaslProto {
            state: SaslState::Success as i32,
            ..Default::default()
        });
        let body = body_of(frame);
        let header_len = body[0] as usize;
        assert_eq!(
            &body[1..=header_len],
            &[
                0x08, 0xdf, 0xff, 0xff, 0xff, 0x0f, 0x10, 0x00, 0x18, 0x09, 0x3a, 0x00, 0x40, 0x01
            ][..]
        );
    }
}
