//! What the secret manager needs to know about each kind of token identifier.

use yarn_proto::pb;

use crate::TokenKind;

/// A protobuf token identifier that a [`TokenSecretManager`](crate::TokenSecretManager) can sign
/// and verify.
///
/// Implemented for `AMRMTokenIdentifierProto`, `ContainerTokenIdentifierProto` and
/// `NMTokenIdentifierProto`; the identifier itself names the master key that signs it.
pub trait TokenIdentifier: prost::Message + Default {
    /// The token kind whose tokens carry this identifier.
    const KIND: TokenKind;

    /// The id of the master key this identifier is signed under.
    fn key_id(&self) -> i32;

    /// Names the master key this identifier is signed under; the secret manager sets it when it
    /// signs, so the id in the bytes and the key that made the password always agree.
    fn set_key_id(&mut self, key_id: i32);

    /// Milliseconds since the Unix epoch after which the token must be refused, for kinds that
    /// expire; `None` (the default) for kinds that stay valid as long as their key does.
    fn expiry_ms(&self) -> Option<i64> {
        None
    }
}

impl TokenIdentifier for pb::AmrmTokenIdentifierProto {
    const KIND: TokenKind = TokenKind::AmRm;

    fn key_id(&self) -> i32 {
        self.key_id
    }

    fn set_key_id(&mut self, key_id: i32) {
        self.key_id = key_id;
    }
}

impl TokenIdentifier for pb::NmTokenIdentifierProto {
    const KIND: TokenKind = TokenKind::Nm;

    fn key_id(&self) -> i32 {
        self.key_id
    }

    fn set_key_id(&mut self, key_id: i32) {
        self.key_id = key_id;
    }
}

impl TokenIdentifier for pb::ContainerTokenIdentifierProto {
    const KIND: TokenKind = TokenKind::Container;

    fn key_id(&self) -> i32 {
        self.master_key_id
    }

    fn set_key_id(&mut self, key_id: i32) {
        self.master_key_id = key_id;
    }

    fn expiry_ms(&self) -> Option<i64> {
        Some(self.expiry_time_stamp)
    }
}
