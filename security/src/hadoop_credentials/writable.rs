//! Hadoop's `Writable` primitives as the credentials file uses them: `WritableUtils`'
//! variable-length integers (VInt, VLong) and `Text` (a VInt byte length, then UTF-8).
//!
//! A VLong is not a protobuf varint. Values from -112 to 127 take one byte, the value itself.
//! Any other value takes a marker byte, then its magnitude big-endian with leading zero bytes
//! dropped (at most 8 bytes). A negative value stores its one's complement (`!v`, which is not
//! negative). The marker says both the sign and how many bytes follow:
//!
//! ```text
//! marker (as i8)   meaning                  example
//! -113 ..= -120    positive, 1 ..= 8 bytes  128        -> 8F 80
//! -121 ..= -128    negative, 1 ..= 8 bytes  -113       -> 87 70   (!-113 = 112 = 0x70)
//! -112 ..= 127     the value itself         -1         -> FF
//! ```
//!
//! A VInt is a VLong that must fit in an `i32`; Hadoop writes every length and count as one.

use super::{CredentialsField, CredentialsProblem};
use crate::Error;

/// Appends `value` to `out` as Hadoop's `WritableUtils.writeVLong` does.
pub(super) fn write_vlong(out: &mut Vec<u8>, value: i64) {
    if (-112..=127).contains(&value) {
        // The range check makes the truncation exact.
        out.push(value as i8 as u8);
        return;
    }
    let (magnitude, first_marker) = if value < 0 {
        (!value, -120_i32)
    } else {
        (value, -112_i32)
    };
    // `magnitude` is not negative, so its byte count is that of its unsigned form.
    let bytes = magnitude.to_be_bytes();
    let skip = bytes.iter().take_while(|byte| **byte == 0).count();
    let length = bytes.len() - skip;
    // `length` is 1 ..= 8, so the marker is -113 ..= -128 and fits in an i8.
    let marker = first_marker - i32::try_from(length).unwrap_or(8);
    out.push(marker as i8 as u8);
    out.extend_from_slice(&bytes[skip..]);
}

/// Appends a byte count as a VInt: a length Hadoop writes with `WritableUtils.writeVInt`.
///
/// A count beyond `i64::MAX` cannot occur in memory; one beyond `i32::MAX` is written as the
/// VLong it is, which Hadoop's reader (like [`Reader::vint`]) refuses.
pub(super) fn write_length(out: &mut Vec<u8>, length: usize) {
    write_vlong(out, i64::try_from(length).unwrap_or(i64::MAX));
}

/// Appends `bytes` as a VInt length and the bytes.
pub(super) fn write_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    write_length(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// Appends `text` as Hadoop's `Text.write` does: its UTF-8 length as a VInt, then the bytes.
pub(super) fn write_text(out: &mut Vec<u8>, text: &str) {
    write_bytes(out, text.as_bytes());
}

/// Reads Writable primitives from a byte slice, keeping the offset for error messages.
#[derive(Debug)]
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes` whose first byte is at `offset` in the file, so that errors name
    /// offsets in the file.
    pub(super) fn new(bytes: &'a [u8], offset: usize) -> Self {
        Self { bytes, offset }
    }

    /// The offset in the file of the next byte to read.
    pub(super) fn offset(&self) -> usize {
        self.offset
    }

    /// The bytes not yet read.
    pub(super) fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    /// Takes the next `count` bytes.
    ///
    /// # Errors
    ///
    /// [`CredentialsProblem::Truncated`] at the current offset when fewer remain.
    pub(super) fn take(
        &mut self,
        field: CredentialsField,
        count: usize,
    ) -> Result<&'a [u8], Error> {
        if count > self.bytes.len() {
            return Err(self.error(CredentialsProblem::Truncated {
                field,
                needed: count,
                available: self.bytes.len(),
            }));
        }
        let (taken, rest) = self.bytes.split_at(count);
        self.bytes = rest;
        self.offset += count;
        Ok(taken)
    }

    /// Reads a VLong as `WritableUtils.readVLong` does. Like Hadoop, it accepts a value written
    /// in more bytes than needed.
    ///
    /// # Errors
    ///
    /// [`CredentialsProblem::Truncated`] when the bytes its marker announces are missing; the
    /// offset is that of the marker.
    pub(super) fn vlong(&mut self, field: CredentialsField) -> Result<i64, Error> {
        let start = self.offset;
        let rest = self.bytes;
        let Some(&first) = rest.first() else {
            return Err(self.error(CredentialsProblem::Truncated {
                field,
                needed: 1,
                available: 0,
            }));
        };
        let marker = first as i8;
        if marker >= -112 {
            self.take(field, 1)?;
            return Ok(i64::from(marker));
        }
        let (negative, following) = if marker < -120 {
            (true, usize::from((-120 - marker).unsigned_abs()))
        } else {
            (false, usize::from((-112 - marker).unsigned_abs()))
        };
        if rest.len() < 1 + following {
            return Err(Error::MalformedCredentials {
                offset: start,
                problem: CredentialsProblem::Truncated {
                    field,
                    needed: 1 + following,
                    available: rest.len(),
                },
            });
        }
        let encoded = self.take(field, 1 + following)?;
        let magnitude = encoded[1..]
            .iter()
            .fold(0_u64, |value, byte| (value << 8) | u64::from(*byte));
        // Up to 8 bytes: the bit pattern of an i64, as Hadoop's shifts build it.
        let value = magnitude as i64;
        Ok(if negative { !value } else { value })
    }

    /// Reads a VInt: a VLong that fits in an `i32`, as `WritableUtils.readVInt` requires.
    ///
    /// # Errors
    ///
    /// Those of [`vlong`](Self::vlong), and [`CredentialsProblem::VIntOutOfRange`] at the
    /// VInt's offset for a value beyond `i32`.
    pub(super) fn vint(&mut self, field: CredentialsField) -> Result<i32, Error> {
        let start = self.offset;
        let value = self.vlong(field)?;
        i32::try_from(value).map_err(|_| Error::MalformedCredentials {
            offset: start,
            problem: CredentialsProblem::VIntOutOfRange { field, value },
        })
    }

    /// Reads a VInt length or count and checks it: not negative and at most `limit`.
    ///
    /// # Errors
    ///
    /// Those of [`vint`](Self::vint), [`CredentialsProblem::NegativeLength`] and
    /// [`CredentialsProblem::OverLimit`], at the VInt's offset.
    pub(super) fn length(&mut self, field: CredentialsField, limit: usize) -> Result<usize, Error> {
        let start = self.offset;
        let value = self.vint(field)?;
        let length = usize::try_from(value).map_err(|_| Error::MalformedCredentials {
            offset: start,
            problem: CredentialsProblem::NegativeLength {
                field,
                length: value,
            },
        })?;
        if length > limit {
            return Err(Error::MalformedCredentials {
                offset: start,
                problem: CredentialsProblem::OverLimit {
                    field,
                    length,
                    limit,
                },
            });
        }
        Ok(length)
    }

    /// Reads a VInt length of at most `limit` and that many bytes.
    ///
    /// # Errors
    ///
    /// Those of [`length`](Self::length) and [`take`](Self::take).
    pub(super) fn bytes(
        &mut self,
        field: CredentialsField,
        limit: usize,
    ) -> Result<Vec<u8>, Error> {
        let length = self.length(field, limit)?;
        Ok(self.take(field, length)?.to_vec())
    }

    /// Reads a `Text` of at most `limit` bytes. Hadoop's `Text` holds any bytes, but every text
    /// of a credentials file (alias, kind, service) is written from a Java string, so bytes
    /// that are not UTF-8 mean a damaged file.
    ///
    /// # Errors
    ///
    /// Those of [`bytes`](Self::bytes), and [`CredentialsProblem::InvalidUtf8`] at the offset
    /// of the text's first byte.
    pub(super) fn text(&mut self, field: CredentialsField, limit: usize) -> Result<String, Error> {
        let length = self.length(field, limit)?;
        let start = self.offset;
        let bytes = self.take(field, length)?;
        utf8(bytes, field, start)
    }

    fn error(&self, problem: CredentialsProblem) -> Error {
        Error::MalformedCredentials {
            offset: self.offset,
            problem,
        }
    }
}

/// `bytes` as a string, or the error naming `field` and the offset `start` of its bytes.
pub(super) fn utf8(bytes: &[u8], field: CredentialsField, start: usize) -> Result<String, Error> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.to_owned()),
        Err(err) => Err(Error::MalformedCredentials {
            offset: start,
            problem: CredentialsProblem::InvalidUtf8 {
                field,
                valid_up_to: err.valid_up_to(),
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const FIELD: CredentialsField = CredentialsField::TokenCount;

    fn vlong_bytes(value: i64) -> Vec<u8> {
        let mut out = Vec::new();
        write_vlong(&mut out, value);
        out
    }

    fn read_vlong(bytes: &[u8]) -> Result<i64, Error> {
        Reader::new(bytes, 0).vlong(FIELD)
    }

    /// The offset and problem of a [`Error::MalformedCredentials`].
    fn malformed(err: Error) -> (usize, CredentialsProblem) {
        match err {
            Error::MalformedCredentials { offset, problem } => (offset, problem),
            other => panic!("not a malformed-credentials error: {other:?}"),
        }
    }

    /// Every size class of `WritableUtils.writeVLong`, derived by hand from its rules: one byte
    /// for -112 ..= 127; otherwise a marker of -112 - n (positive) or -120 - n (negative, the
    /// one's complement stored) and the n significant bytes.
    #[test]
    fn each_size_class_encodes_as_hadoop_writes_it() {
        let cases: &[(i64, &[u8])] = &[
            (0, &[0x00]),
            (1, &[0x01]),
            (127, &[0x7F]),
            (-1, &[0xFF]),
            (-112, &[0x90]),
            // Positive, marker -113 (0x8F) for one byte up to -120 (0x88) for eight.
            (128, &[0x8F, 0x80]),
            (255, &[0x8F, 0xFF]),
            (256, &[0x8E, 0x01, 0x00]),
            (65_535, &[0x8E, 0xFF, 0xFF]),
            (65_536, &[0x8D, 0x01, 0x00, 0x00]),
            (1 << 24, &[0x8C, 0x01, 0x00, 0x00, 0x00]),
            (i64::from(i32::MAX), &[0x8C, 0x7F, 0xFF, 0xFF, 0xFF]),
            (1 << 32, &[0x8B, 0x01, 0x00, 0x00, 0x00, 0x00]),
            (1 << 40, &[0x8A, 0x01, 0, 0, 0, 0, 0]),
            (1 << 48, &[0x89, 0x01, 0, 0, 0, 0, 0, 0]),
            (
                i64::MAX,
                &[0x88, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            ),
            // Negative, marker -121 (0x87) for one byte up to -128 (0x80) for eight.
            (-113, &[0x87, 0x70]),
            (-256, &[0x87, 0xFF]),
            (-257, &[0x86, 0x01, 0x00]),
            (-65_537, &[0x85, 0x01, 0x00, 0x00]),
            (i64::from(i32::MIN), &[0x84, 0x7F, 0xFF, 0xFF, 0xFF]),
            (-(1 << 32) - 1, &[0x83, 0x01, 0x00, 0x00, 0x00, 0x00]),
            (
                i64::MIN,
                &[0x80, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            ),
        ];
        for (value, bytes) in cases {
            assert_eq!(vlong_bytes(*value), *bytes, "encoding {value}");
            assert_eq!(read_vlong(bytes).unwrap(), *value, "decoding {bytes:02X?}");
        }
    }

    #[test]
    fn a_value_written_in_more_bytes_than_needed_reads_as_hadoop_reads_it() {
        assert_eq!(read_vlong(&[0x8F, 0x05]).unwrap(), 5);
        assert_eq!(read_vlong(&[0x8E, 0x00, 0x05]).unwrap(), 5);
        assert_eq!(read_vlong(&[0x87, 0x00]).unwrap(), -1);
    }

    #[test]
    fn a_vlong_cut_short_is_truncated_at_its_marker() {
        let err = Reader::new(&[0x8E, 0x01], 40).vlong(FIELD).unwrap_err();
        assert_eq!(
            malformed(err),
            (
                40,
                CredentialsProblem::Truncated {
                    field: FIELD,
                    needed: 3,
                    available: 2,
                }
            )
        );
        let err = Reader::new(&[], 7).vlong(FIELD).unwrap_err();
        assert!(
            matches!(
                err,
                Error::MalformedCredentials {
                    offset: 7,
                    problem: CredentialsProblem::Truncated {
                        needed: 1,
                        available: 0,
                        ..
                    },
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn a_vint_beyond_i32_is_refused_as_hadoop_refuses_it() {
        let bytes = vlong_bytes(i64::from(i32::MAX) + 1);
        let err = Reader::new(&bytes, 3).vint(FIELD).unwrap_err();
        assert_eq!(
            malformed(err),
            (
                3,
                CredentialsProblem::VIntOutOfRange {
                    field: FIELD,
                    value: i64::from(i32::MAX) + 1,
                }
            )
        );
        let bytes = vlong_bytes(i64::from(i32::MIN));
        assert_eq!(Reader::new(&bytes, 0).vint(FIELD).unwrap(), i32::MIN);
    }

    #[test]
    fn lengths_are_checked_for_sign_and_limit_before_any_byte_is_taken() {
        let mut bytes = vlong_bytes(-1);
        let err = Reader::new(&bytes, 0).length(FIELD, 10).unwrap_err();
        assert!(
            matches!(
                err,
                Error::MalformedCredentials {
                    offset: 0,
                    problem: CredentialsProblem::NegativeLength { length: -1, .. },
                }
            ),
            "{err:?}"
        );
        bytes = vlong_bytes(11);
        let err = Reader::new(&bytes, 0).length(FIELD, 10).unwrap_err();
        assert!(
            matches!(
                err,
                Error::MalformedCredentials {
                    offset: 0,
                    problem: CredentialsProblem::OverLimit {
                        length: 11,
                        limit: 10,
                        ..
                    },
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn text_is_a_vint_length_and_utf8() {
        let mut out = Vec::new();
        write_text(&mut out, "héllo");
        assert_eq!(out, b"\x06h\xC3\xA9llo");
        assert_eq!(Reader::new(&out, 0).text(FIELD, 100).unwrap(), "héllo");

        let err = Reader::new(b"\x03a\xFFb", 10).text(FIELD, 100).unwrap_err();
        assert_eq!(
            malformed(err),
            (
                11,
                CredentialsProblem::InvalidUtf8 {
                    field: FIELD,
                    valid_up_to: 1,
                }
            )
        );
    }

    proptest! {
        #[test]
        fn every_vlong_round_trips(value in prop_oneof![
            any::<i64>(),
            -300_i64..300,
            Just(i64::MIN),
            Just(i64::MAX),
        ]) {
            let bytes = vlong_bytes(value);
            let mut reader = Reader::new(&bytes, 0);
            prop_assert_eq!(reader.vlong(FIELD).unwrap(), value);
            prop_assert!(reader.rest().is_empty());
            // The size Hadoop's getVIntSize predicts: one byte, or a marker and the bytes of
            // the magnitude.
            let magnitude = if value < 0 { !value } else { value };
            let expected = if (-112..=127).contains(&value) {
                1
            } else {
                1 + (64 - magnitude.leading_zeros() as usize).div_ceil(8)
            };
            prop_assert_eq!(bytes.len(), expected);
        }
    }
}
