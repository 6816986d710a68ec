//! Varint-delimited messages: a protobuf varint length, then the message's bytes. Hadoop writes
//! every header and body inside a frame this way (`writeDelimitedTo`).

use bytes::{Buf, BufMut, Bytes, BytesMut};
use prost::Message;

use crate::CodecError;

/// The longest varint protobuf writes (a 64-bit value).
const MAX_VARINT_LEN: usize = 10;

/// Takes the bytes of one delimited message off the front of `frame`, without parsing them.
///
/// # Errors
///
/// [`CodecError::TruncatedVarint`], [`CodecError::OverlongVarint`] or
/// [`CodecError::TruncatedMessage`], each naming `message`. `frame` is left unchanged then.
pub fn take_delimited(frame: &mut Bytes, message: &'static str) -> Result<Bytes, CodecError> {
    let (declared, prefix_len) = read_varint(frame, message)?;
    let available = frame.len() - prefix_len;
    let length = usize::try_from(declared)
        .ok()
        .filter(|length| *length <= available)
        .ok_or(CodecError::TruncatedMessage {
            message,
            declared,
            available,
        })?;
    frame.advance(prefix_len);
    Ok(frame.split_to(length))
}

/// Reads and parses one delimited message off the front of `frame`.
///
/// Protobuf's proto2 `required` labels are not enforced: a missing required field reads as its
/// default, as prost decodes it.
///
/// # Errors
///
/// As [`take_delimited`], and [`CodecError::Undecodable`] when the bytes are not a valid
/// encoding of `M`.
pub fn decode_delimited<M: Message + Default>(
    frame: &mut Bytes,
    message: &'static str,
) -> Result<M, CodecError> {
    let bytes = take_delimited(frame, message)?;
    M::decode(bytes).map_err(|source| CodecError::Undecodable { message, source })
}

/// Appends `message` with its varint length, as Java's `writeDelimitedTo` does.
pub fn put_delimited<M: Message>(out: &mut BytesMut, message: &M) {
    message
        .encode_length_delimited(out)
        .expect("a BytesMut grows to fit");
}

/// Appends already-encoded message bytes with their varint length.
pub fn put_delimited_bytes(out: &mut BytesMut, bytes: &[u8]) {
    prost::encoding::encode_varint(bytes.len() as u64, out);
    out.put_slice(bytes);
}

/// Reads a varint at the front of `bytes` without consuming it: its value and its length.
fn read_varint(bytes: &[u8], message: &'static str) -> Result<(u64, usize), CodecError> {
    let mut value: u64 = 0;
    for (index, byte) in bytes.iter().take(MAX_VARINT_LEN).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * index);
        if byte & 0x80 == 0 {
            return Ok((value, index + 1));
        }
    }
    if bytes.len() >= MAX_VARINT_LEN {
        Err(CodecError::OverlongVarint { message })
    } else {
        Err(CodecError::TruncatedVarint { message })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pb::{IpcConnectionContextProto, UserInformationProto};

    fn context() -> IpcConnectionContextProto {
        IpcConnectionContextProto {
            user_info: Some(UserInformationProto {
                effective_user: Some("alice".into()),
                real_user: None,
            }),
            protocol: Some("org.apache.hadoop.yarn.api.ApplicationClientProtocolPB".into()),
        }
    }

    #[test]
    fn messages_round_trip_one_after_another() {
        let mut out = BytesMut::new();
        put_delimited(&mut out, &context());
        put_delimited_bytes(&mut out, b"raw");
        let mut frame = out.freeze();
        let read: IpcConnectionContextProto = decode_delimited(&mut frame, "context").unwrap();
        assert_eq!(read, context());
        assert_eq!(take_delimited(&mut frame, "raw").unwrap(), &b"raw"[..]);
        assert!(frame.is_empty());
    }

    #[test]
    fn a_long_length_prefix_is_read_across_bytes() {
        let body = vec![7_u8; 300];
        let mut out = BytesMut::new();
        put_delimited_bytes(&mut out, &body);
        assert_eq!(&out[..2], &[0xac, 0x02], "300 as a varint");
        assert_eq!(take_delimited(&mut out.freeze(), "body").unwrap(), body);
    }

    #[test]
    fn an_empty_frame_has_a_truncated_varint() {
        assert_eq!(
            take_delimited(&mut Bytes::new(), "RpcRequestHeaderProto"),
            Err(CodecError::TruncatedVarint {
                message: "RpcRequestHeaderProto"
            })
        );
    }

    #[test]
    fn a_varint_cut_by_the_frame_end_is_truncated() {
        let mut frame = Bytes::from_static(&[0x80, 0x80]);
        let err = take_delimited(&mut frame, "RpcSaslProto").unwrap_err();
        assert_eq!(
            err,
            CodecError::TruncatedVarint {
                message: "RpcSaslProto"
            }
        );
        assert_eq!(frame.len(), 2, "nothing consumed on error");
    }

    #[test]
    fn a_varint_past_ten_bytes_is_overlong() {
        let mut frame = Bytes::from(vec![0xff_u8; 11]);
        assert_eq!(
            take_delimited(&mut frame, "RequestHeaderProto"),
            Err(CodecError::OverlongVarint {
                message: "RequestHeaderProto"
            })
        );
    }

    #[test]
    fn a_length_past_the_frame_end_is_refused() {
        let mut frame = Bytes::from_static(&[0x05, 1, 2]);
        assert_eq!(
            take_delimited(&mut frame, "request"),
            Err(CodecError::TruncatedMessage {
                message: "request",
                declared: 5,
                available: 2
            })
        );
    }

    #[test]
    fn the_largest_varint_does_not_overflow() {
        let mut frame =
            Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        let err = take_delimited(&mut frame, "request").unwrap_err();
        assert!(
            matches!(
                err,
                CodecError::TruncatedMessage {
                    declared: u64::MAX,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn bytes_that_do_not_parse_are_undecodable() {
        // Field 2 as a length-delimited field whose length runs past the message.
        let mut frame = Bytes::from_static(&[0x02, 0x12, 0x05]);
        let err =
            decode_delimited::<IpcConnectionContextProto>(&mut frame, "IpcConnectionContextProto")
                .unwrap_err();
        assert!(
            matches!(
                err,
                CodecError::Undecodable {
                    message: "IpcConnectionContextProto",
                    ..
                }
            ),
            "{err:?}"
        );
    }
}
