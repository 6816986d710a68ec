//! The two kinds of master key the ResourceManager ships to a NodeManager.

use std::fmt;

use yarn_security::TokenKind;

/// Which master key an [`NmTokenKeys`](super::NmTokenKeys) operation is about. The RM ships both
/// in `RegisterNodeManagerResponseProto` and `NodeHeartbeatResponseProto`
/// (`container_token_master_key`, `nm_token_master_key`), and the NM reports the last one it
/// knows of each in `NodeHeartbeatRequestProto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NmKeyKind {
    /// The key that signs container tokens (`ContainerToken`).
    ContainerToken,
    /// The key that signs NM tokens (`NMToken`).
    NmToken,
}

impl NmKeyKind {
    /// Both kinds, container token first.
    pub const ALL: [NmKeyKind; 2] = [NmKeyKind::ContainerToken, NmKeyKind::NmToken];

    /// The kind of token this key signs.
    pub fn token_kind(self) -> TokenKind {
        match self {
            NmKeyKind::ContainerToken => TokenKind::Container,
            NmKeyKind::NmToken => TokenKind::Nm,
        }
    }
}

/// Prints Hadoop's name of the token kind the key signs (`ContainerToken`, `NMToken`).
impl fmt::Display for NmKeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.token_kind().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_token_kind_it_signs() {
        assert_eq!(NmKeyKind::ContainerToken.to_string(), "ContainerToken");
        assert_eq!(NmKeyKind::NmToken.to_string(), "NMToken");
    }
}
