//! [`StateDigest`]: a fingerprint of the replicated state, with the log position it reflects,
//! so that replicas can be compared without shipping their state.

use std::fmt::Write as _;

use postcard::ser_flavors::Flavor;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The log position of the last entry a replica applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AppliedPosition {
    /// The term of the leader that appended the entry.
    pub term: u64,
    /// The entry's log index.
    pub index: u64,
}

/// A digest of a replica's [`RmState`](super::RmState) and the log position it was taken at,
/// read together so that the digest reflects exactly the entries up to `applied`.
///
/// Two replicas that report the same `applied` position have applied the same log prefix, so
/// their digests must be equal; different digests at one position mean that a replica's
/// state diverged. Digests at different positions say nothing about each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateDigest {
    /// The last entry applied; `None` before the first.
    pub applied: Option<AppliedPosition>,
    /// The SHA-256 of the state, as [`RmState::digest`](super::RmState::digest) computes it.
    pub sha256: [u8; 32],
}

impl StateDigest {
    /// The digest as 64 lowercase hexadecimal digits.
    pub fn hex(&self) -> String {
        self.sha256
            .iter()
            .fold(String::with_capacity(64), |mut hex, byte| {
                // Writing to a String cannot fail.
                let _ = write!(hex, "{byte:02x}");
                hex
            })
    }
}

/// The SHA-256 of `value`'s postcard encoding, hashed as it is produced so that no copy of the
/// encoding is held in memory.
///
/// # Errors
///
/// postcard's error when `value`'s `Serialize` implementation fails, for instance for a
/// sequence of unknown length.
pub(super) fn sha256_of_postcard<T: Serialize>(value: &T) -> Result<[u8; 32], postcard::Error> {
    postcard::serialize_with_flavor(value, HashingFlavor(Sha256::new()))
}

/// A postcard output that feeds every byte into a hasher instead of a buffer.
struct HashingFlavor(Sha256);

impl Flavor for HashingFlavor {
    type Output = [u8; 32];

    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.0.update(data);
        Ok(())
    }

    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.0.update([data]);
        Ok(())
    }

    fn finalize(self) -> postcard::Result<Self::Output> {
        Ok(self.0.finalize().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashing_while_encoding_equals_hashing_the_encoding() {
        let value = (7_u64, "queue".to_owned(), vec![1_i32, -2, 3]);
        let bytes = postcard::to_allocvec(&value).unwrap();
        let expected: [u8; 32] = Sha256::digest(&bytes).into();
        assert_eq!(sha256_of_postcard(&value).unwrap(), expected);
    }

    #[test]
    fn hex_is_64_lowercase_digits_in_byte_order() {
        let mut sha256 = [0_u8; 32];
        sha256[0] = 0xab;
        sha256[31] = 0x0f;
        let digest = StateDigest {
            applied: None,
            sha256,
        };
        let hex = digest.hex();
        assert_eq!(hex.len(), 64);
        assert!(hex.starts_with("ab00"), "{hex}");
        assert!(hex.ends_with("000f"), "{hex}");
    }
}
