//! A master key: the HMAC-SHA256 secret that signs one generation of tokens.

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use yarn_proto::pb;

use crate::Error;

type HmacSha256 = Hmac<Sha256>;

/// A master key: an id that token identifiers name, and 32 secret bytes.
///
/// `Debug` prints the id only, never the secret, so keys may appear in logs and in the debug
/// output of the replicated state. `PartialEq` compares the secret in variable time; it exists
/// for state comparison in tests and snapshots, and token checks never use it (they go through
/// [`TokenSecretManager::verify`](crate::TokenSecretManager::verify), which compares passwords in
/// constant time).
#[derive(Clone, PartialEq, Eq)]
pub struct MasterKey {
    key_id: i32,
    bytes: [u8; MasterKey::LEN],
}

impl MasterKey {
    /// Length of the secret in bytes: one SHA-256 output, the strength HMAC-SHA256 offers.
    pub const LEN: usize = 32;

    /// A key with the given id and secret. Pure: the caller supplies the randomness.
    pub fn new(key_id: i32, bytes: [u8; MasterKey::LEN]) -> Self {
        MasterKey { key_id, bytes }
    }

    /// A key with the given id and a fresh secret from the thread-local cryptographically secure
    /// generator (`rand::rng()`, seeded from the operating system). This is the one place the
    /// crate draws randomness; call it in the shell that proposes a key, never inside Raft
    /// `apply`.
    pub fn generate(key_id: i32) -> Self {
        let mut bytes = [0_u8; MasterKey::LEN];
        rand::fill(&mut bytes);
        MasterKey { key_id, bytes }
    }

    /// The id token identifiers carry to name this key.
    pub fn key_id(&self) -> i32 {
        self.key_id
    }

    /// The secret bytes, for persisting the key (Raft state, NM state store). Never log them.
    pub fn bytes(&self) -> &[u8; MasterKey::LEN] {
        &self.bytes
    }

    /// HMAC-SHA256 of `message` under this key.
    pub(crate) fn sign(&self, message: &[u8]) -> Vec<u8> {
        self.mac(message).finalize().into_bytes().to_vec()
    }

    /// Whether `password` is the HMAC-SHA256 of `message` under this key, compared in constant
    /// time (the comparison does not stop at the first differing byte, so response timing does
    /// not reveal how much of a forged password was right).
    pub(crate) fn verifies(&self, message: &[u8], password: &[u8]) -> bool {
        self.mac(message).verify_slice(password).is_ok()
    }

    fn mac(&self, message: &[u8]) -> HmacSha256 {
        // HMAC accepts keys of every length (long ones are hashed first), so this cannot fail.
        let mut mac = HmacSha256::new_from_slice(&self.bytes)
            .expect("HMAC-SHA256 accepts a key of any length");
        mac.update(message);
        mac
    }
}

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MasterKey")
            .field("key_id", &self.key_id)
            .field("bytes", &format_args!("<redacted>"))
            .finish()
    }
}

impl From<&MasterKey> for pb::MasterKeyProto {
    fn from(key: &MasterKey) -> Self {
        pb::MasterKeyProto {
            key_id: key.key_id,
            bytes: key.bytes.to_vec(),
        }
    }
}

impl From<MasterKey> for pb::MasterKeyProto {
    fn from(key: MasterKey) -> Self {
        pb::MasterKeyProto::from(&key)
    }
}

impl TryFrom<pb::MasterKeyProto> for MasterKey {
    type Error = Error;

    /// # Errors
    /// [`Error::InvalidMasterKey`] when the secret is not exactly [`MasterKey::LEN`] bytes.
    fn try_from(proto: pb::MasterKeyProto) -> Result<Self, Self::Error> {
        let bytes = <[u8; MasterKey::LEN]>::try_from(proto.bytes.as_slice()).map_err(|_| {
            Error::InvalidMasterKey {
                key_id: proto.key_id,
                length: proto.bytes.len(),
                expected: MasterKey::LEN,
            }
        })?;
        Ok(MasterKey::new(proto.key_id, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_the_id_but_not_the_secret() {
        let key = MasterKey::new(7, [0x5A; MasterKey::LEN]);
        let debug = format!("{key:?}");
        assert_eq!(debug, "MasterKey { key_id: 7, bytes: <redacted> }");
        assert!(!debug.contains("90"), "secret byte printed: {debug}");
    }

    #[test]
    fn proto_round_trip_keeps_id_and_secret() {
        let key = MasterKey::new(-3, [9; MasterKey::LEN]);
        let proto = pb::MasterKeyProto::from(&key);
        assert_eq!(proto.key_id, -3);
        assert_eq!(proto.bytes, vec![9; MasterKey::LEN]);
        assert_eq!(MasterKey::try_from(proto).unwrap(), key);
    }

    #[test]
    fn proto_with_wrong_secret_length_is_refused() {
        for length in [0, 16, 33] {
            let proto = pb::MasterKeyProto {
                key_id: 4,
                bytes: vec![1; length],
            };
            let err = MasterKey::try_from(proto).unwrap_err();
            assert!(
                matches!(err, Error::InvalidMasterKey { key_id: 4, length: l, expected: 32 } if l == length),
                "{err:?}"
            );
            let message = err.to_string();
            assert!(message.contains("master key 4"), "{message}");
            assert!(message.contains(&format!("{length} bytes")), "{message}");
        }
    }

    #[test]
    fn generated_keys_differ_and_sign_verifiably() {
        let a = MasterKey::generate(1);
        let b = MasterKey::generate(1);
        assert_ne!(a.bytes(), b.bytes());
        let password = a.sign(b"identifier");
        assert!(a.verifies(b"identifier", &password));
        assert!(!b.verifies(b"identifier", &password));
        assert!(!a.verifies(b"identifiex", &password));
        assert!(!a.verifies(b"identifier", &password[..31]));
    }
}
