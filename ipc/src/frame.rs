//! Frames: a 4-byte big-endian length, then that many bytes.

use bytes::{Buf, BufMut, Bytes, BytesMut};

use crate::CodecError;

/// Hadoop's default for `ipc.maximum.data.length`: 128 MiB since Hadoop 3.3 (earlier releases
/// used 64 MiB). A frame longer than this is refused.
pub const DEFAULT_MAX_DATA_LENGTH: u32 = 128 * 1024 * 1024;

/// The length prefix's size.
pub const LENGTH_PREFIX_LEN: usize = 4;

/// Cuts a byte stream into frames, refusing a frame whose length is negative or over the
/// maximum as soon as the length arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameDecoder {
    max_length: u32,
}

impl FrameDecoder {
    /// A decoder refusing frames longer than `max_length` bytes (`ipc.maximum.data.length`).
    pub const fn new(max_length: u32) -> Self {
        FrameDecoder { max_length }
    }

    /// The longest frame body accepted.
    pub const fn max_length(&self) -> u32 {
        self.max_length
    }

    /// Takes the next whole frame's body off the front of `buf`, or returns `None` and leaves
    /// `buf` as it is when the frame is not complete yet. Nothing is reserved for a frame ahead
    /// of its bytes, so a buffer grows only as fast as the peer really sends.
    ///
    /// # Errors
    ///
    /// [`CodecError::NegativeFrameLength`] or [`CodecError::FrameTooLong`], as soon as the 4
    /// length bytes are in `buf`. The stream cannot be resynchronised after either.
    pub fn decode(&self, buf: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        let Some(prefix) = buf.get(..LENGTH_PREFIX_LEN) else {
            return Ok(None);
        };
        let length = i32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
        let length =
            u32::try_from(length).map_err(|_| CodecError::NegativeFrameLength { length })?;
        if length > self.max_length {
            return Err(CodecError::FrameTooLong {
                length,
                max: self.max_length,
            });
        }
        let total = LENGTH_PREFIX_LEN + length as usize;
        if buf.len() < total {
            return Ok(None);
        }
        buf.advance(LENGTH_PREFIX_LEN);
        Ok(Some(buf.split_to(length as usize).freeze()))
    }
}

/// Writes one frame: the 4-byte big-endian length of `body`, then `body`.
///
/// # Panics
///
/// If `body` is 4 GiB or longer, which no caller here builds.
pub fn put_frame(out: &mut BytesMut, body: &[u8]) {
    let length = u32::try_from(body.len()).expect("an IPC frame is shorter than 4 GiB");
    out.reserve(LENGTH_PREFIX_LEN + body.len());
    out.put_u32(length);
    out.put_slice(body);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &[u8]) -> BytesMut {
        let mut out = BytesMut::new();
        put_frame(&mut out, body);
        out
    }

    #[test]
    fn a_frame_is_taken_whole_and_the_rest_is_left() {
        let mut buf = framed(b"abc");
        buf.extend_from_slice(&framed(b"de"));
        let decoder = FrameDecoder::new(16);
        assert_eq!(decoder.decode(&mut buf).unwrap().unwrap(), &b"abc"[..]);
        assert_eq!(decoder.decode(&mut buf).unwrap().unwrap(), &b"de"[..]);
        assert_eq!(decoder.decode(&mut buf).unwrap(), None);
        assert!(buf.is_empty());
    }

    #[test]
    fn a_partial_frame_waits_for_its_bytes() {
        let whole = framed(b"hello");
        let decoder = FrameDecoder::new(16);
        for cut in 0..whole.len() {
            let mut buf = BytesMut::from(&whole[..cut]);
            assert_eq!(decoder.decode(&mut buf).unwrap(), None, "cut at {cut}");
            assert_eq!(
                buf.len(),
                cut,
                "nothing is consumed before the frame is whole"
            );
        }
    }

    #[test]
    fn an_empty_frame_is_a_frame() {
        let mut buf = framed(b"");
        assert_eq!(
            FrameDecoder::new(0).decode(&mut buf).unwrap().unwrap(),
            &b""[..]
        );
    }

    #[test]
    fn a_frame_at_the_limit_is_accepted_and_one_byte_more_is_refused() {
        let decoder = FrameDecoder::new(4);
        assert!(decoder.decode(&mut framed(b"1234")).unwrap().is_some());
        assert_eq!(
            decoder.decode(&mut framed(b"12345")),
            Err(CodecError::FrameTooLong { length: 5, max: 4 })
        );
    }

    #[test]
    fn an_oversized_length_is_refused_before_its_body_arrives() {
        let mut buf = BytesMut::from(&[0x08, 0x00, 0x00, 0x01][..]);
        let err = FrameDecoder::new(DEFAULT_MAX_DATA_LENGTH)
            .decode(&mut buf)
            .unwrap_err();
        assert_eq!(
            err,
            CodecError::FrameTooLong {
                length: 0x0800_0001,
                max: 128 * 1024 * 1024
            }
        );
    }

    #[test]
    fn a_negative_length_is_refused() {
        let mut buf = BytesMut::from(&[0xff, 0xff, 0xff, 0xfe][..]);
        assert_eq!(
            FrameDecoder::new(16).decode(&mut buf),
            Err(CodecError::NegativeFrameLength { length: -2 })
        );
    }
}
