//! The 7 bytes that open every Hadoop IPC connection.

use crate::CodecError;

/// The magic that opens a connection.
pub const MAGIC: [u8; 4] = *b"hrpc";

/// The only IPC version served: Hadoop's version 9, current since Hadoop 2.
pub const IPC_VERSION: u8 = 9;

/// The preamble's length: magic, version, service class, auth protocol.
pub const PREAMBLE_LEN: usize = 7;

/// How the client means to authenticate, the preamble's last byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthProtocol {
    /// `0`: no SASL exchange; the connection context names the user (Hadoop's SIMPLE).
    None,
    /// `-33` (`0xDF`): a SASL exchange on call id -33 comes first.
    Sasl,
}

impl AuthProtocol {
    /// The byte as Hadoop writes it.
    pub const fn code(self) -> i8 {
        match self {
            AuthProtocol::None => 0,
            AuthProtocol::Sasl => -33,
        }
    }

    /// Reads the byte; `None` for any other value.
    pub const fn from_code(code: i8) -> Option<Self> {
        match code {
            0 => Some(AuthProtocol::None),
            -33 => Some(AuthProtocol::Sasl),
            _ => None,
        }
    }
}

/// A decoded connection preamble.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preamble {
    /// Hadoop's service class (a QoS hint for its call queues); yarn-ha reads and ignores it.
    pub service_class: u8,
    /// How the client will authenticate.
    pub auth_protocol: AuthProtocol,
}

impl Preamble {
    /// Reads a preamble, checking in Hadoop's order: the magic, then the version, then the auth
    /// protocol.
    ///
    /// # Errors
    ///
    /// [`CodecError::WrongMagic`], [`CodecError::UnsupportedVersion`] or
    /// [`CodecError::UnknownAuthProtocol`].
    pub fn decode(bytes: &[u8; PREAMBLE_LEN]) -> Result<Self, CodecError> {
        let [m0, m1, m2, m3, version, service_class, auth] = *bytes;
        let found = [m0, m1, m2, m3];
        if found != MAGIC {
            return Err(CodecError::WrongMagic { found });
        }
        if version != IPC_VERSION {
            return Err(CodecError::UnsupportedVersion { version });
        }
        let code = auth as i8;
        let auth_protocol =
            AuthProtocol::from_code(code).ok_or(CodecError::UnknownAuthProtocol { code })?;
        Ok(Preamble {
            service_class,
            auth_protocol,
        })
    }

    /// The 7 bytes a version-9 client sends for this preamble.
    pub fn encode(&self) -> [u8; PREAMBLE_LEN] {
        let [m0, m1, m2, m3] = MAGIC;
        let auth = self.auth_protocol.code() as u8;
        [m0, m1, m2, m3, IPC_VERSION, self.service_class, auth]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simple_preamble_round_trips() {
        let preamble = Preamble {
            service_class: 0,
            auth_protocol: AuthProtocol::None,
        };
        assert_eq!(preamble.encode(), *b"hrpc\x09\x00\x00");
        assert_eq!(Preamble::decode(&preamble.encode()), Ok(preamble));
    }

    #[test]
    fn a_sasl_preamble_carries_minus_33_as_0xdf() {
        let bytes = *b"hrpc\x09\x03\xdf";
        let preamble = Preamble::decode(&bytes).unwrap();
        assert_eq!(preamble.auth_protocol, AuthProtocol::Sasl);
        assert_eq!(preamble.service_class, 3);
        assert_eq!(preamble.encode(), bytes);
    }

    #[test]
    fn wrong_magic_is_named_with_the_bytes_found() {
        let err = Preamble::decode(b"GET / H").unwrap_err();
        assert_eq!(err, CodecError::WrongMagic { found: *b"GET " });
        assert!(err.to_string().contains("not \"hrpc\""), "{err}");
    }

    #[test]
    fn the_magic_is_checked_before_the_version() {
        let err = Preamble::decode(b"hrpX\x07\x00\x00").unwrap_err();
        assert!(matches!(err, CodecError::WrongMagic { .. }), "{err:?}");
    }

    #[test]
    fn another_version_is_refused() {
        assert_eq!(
            Preamble::decode(b"hrpc\x0a\x00\x00"),
            Err(CodecError::UnsupportedVersion { version: 10 })
        );
        assert_eq!(
            Preamble::decode(b"hrpc\x08\x00\x00"),
            Err(CodecError::UnsupportedVersion { version: 8 })
        );
    }

    #[test]
    fn an_unknown_auth_protocol_is_refused_as_a_signed_byte() {
        assert_eq!(
            Preamble::decode(b"hrpc\x09\x00\x50"),
            Err(CodecError::UnknownAuthProtocol { code: 80 })
        );
        assert_eq!(
            Preamble::decode(b"hrpc\x09\x00\xff"),
            Err(CodecError::UnknownAuthProtocol { code: -1 })
        );
    }
}
