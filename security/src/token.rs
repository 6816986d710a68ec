//! A signed token as it travels between YARN daemons and applications.

use std::fmt;

use yarn_proto::pb;

use crate::{Error, TokenKind};

/// A YARN token: a protobuf-encoded identifier and the HMAC-SHA256 of those bytes under the
/// master key the identifier names, as in Hadoop's `Token<T>`.
///
/// The password is the secret a holder proves possession with, so `Debug` prints only its length.
/// A `Token` is built by [`TokenSecretManager::sign`](crate::TokenSecretManager::sign) and
/// checked by [`TokenSecretManager::verify`](crate::TokenSecretManager::verify); holding one
/// proves nothing until it has been verified.
#[derive(Clone, PartialEq, Eq)]
pub struct Token {
    /// The encoded identifier (`AMRMTokenIdentifierProto`, `ContainerTokenIdentifierProto` or
    /// `NMTokenIdentifierProto`, as `kind` says).
    pub identifier: Vec<u8>,
    /// HMAC-SHA256 of `identifier` under the master key whose id the identifier carries.
    pub password: Vec<u8>,
    /// Which identifier `identifier` holds.
    pub kind: TokenKind,
    /// The service the token is for: the NodeManager's `host:port` for container and NM tokens,
    /// the scheduler address(es) for an AMRMToken; empty when the issuer does not bind one.
    pub service: String,
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Token")
            .field("kind", &self.kind)
            .field("service", &self.service)
            .field("identifier", &self.identifier)
            .field(
                "password",
                &format_args!("<{} bytes redacted>", self.password.len()),
            )
            .finish()
    }
}

impl From<Token> for pb::TokenProto {
    fn from(token: Token) -> Self {
        pb::TokenProto {
            identifier: token.identifier,
            password: token.password,
            kind: token.kind.name().to_owned(),
            service: token.service,
        }
    }
}

impl TryFrom<pb::TokenProto> for Token {
    type Error = Error;

    /// Checks only that the kind is one yarn-ha issues; the identifier and password are checked
    /// by [`TokenSecretManager::verify`](crate::TokenSecretManager::verify).
    ///
    /// # Errors
    /// [`Error::UnknownTokenKind`] when `kind` is not a kind name of [`TokenKind`].
    fn try_from(proto: pb::TokenProto) -> Result<Self, Self::Error> {
        Ok(Token {
            kind: proto.kind.parse()?,
            identifier: proto.identifier,
            password: proto.password,
            service: proto.service,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proto_round_trip_keeps_every_field() {
        let token = Token {
            identifier: vec![8, 1],
            password: vec![7; 32],
            kind: TokenKind::AmRm,
            service: "rm1:8030".to_owned(),
        };
        let proto = pb::TokenProto::from(token.clone());
        assert_eq!(proto.kind, "YARN_AM_RM_TOKEN");
        assert_eq!(Token::try_from(proto).unwrap(), token);
    }

    #[test]
    fn proto_with_an_unknown_kind_is_refused() {
        let proto = pb::TokenProto {
            kind: "HDFS_DELEGATION_TOKEN".to_owned(),
            ..Default::default()
        };
        let err = Token::try_from(proto).unwrap_err();
        assert!(
            matches!(&err, Error::UnknownTokenKind { kind } if kind == "HDFS_DELEGATION_TOKEN"),
            "{err:?}"
        );
    }

    #[test]
    fn debug_hides_the_password() {
        let token = Token {
            identifier: vec![1, 2, 3],
            password: vec![0xAB; 32],
            kind: TokenKind::Nm,
            service: "nm1:8041".to_owned(),
        };
        let debug = format!("{token:?}");
        assert!(debug.contains("<32 bytes redacted>"), "{debug}");
        assert!(!debug.contains("171"), "password byte printed: {debug}");
        assert!(debug.contains("nm1:8041"), "{debug}");
    }
}
