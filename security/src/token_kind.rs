//! The kinds of token yarn-ha issues, with Hadoop's kind names.

use std::fmt;
use std::str::FromStr;

use crate::Error;

/// The kind of a [`Token`](crate::Token), which says how its identifier is encoded and which
/// secret manager can verify it.
///
/// The kind names are Hadoop's, so tokens read as they do in YARN's logs and credential files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// An AMRMToken: lets one application attempt call the ApplicationMasterProtocol.
    /// Kind name `YARN_AM_RM_TOKEN`.
    AmRm,
    /// A container token: authorises the start of one container on one NodeManager.
    /// Kind name `ContainerToken`.
    Container,
    /// An NM token: lets one application attempt talk to one NodeManager.
    /// Kind name `NMToken`.
    Nm,
}

impl TokenKind {
    /// Every kind, in declaration order.
    pub const ALL: [TokenKind; 3] = [TokenKind::AmRm, TokenKind::Container, TokenKind::Nm];

    /// Hadoop's kind name for this kind, as carried in `TokenProto.kind`.
    pub fn name(self) -> &'static str {
        match self {
            TokenKind::AmRm => "YARN_AM_RM_TOKEN",
            TokenKind::Container => "ContainerToken",
            TokenKind::Nm => "NMToken",
        }
    }
}

impl fmt::Display for TokenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TokenKind {
    type Err = Error;

    /// Parses Hadoop's kind name exactly (it is case-sensitive in Hadoop too).
    ///
    /// # Errors
    /// [`Error::UnknownTokenKind`] for any other string.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        TokenKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| Error::UnknownTokenKind {
                kind: name.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_round_trip_and_match_hadoop() {
        assert_eq!(TokenKind::AmRm.to_string(), "YARN_AM_RM_TOKEN");
        assert_eq!(TokenKind::Container.to_string(), "ContainerToken");
        assert_eq!(TokenKind::Nm.to_string(), "NMToken");
        for kind in TokenKind::ALL {
            assert_eq!(kind.name().parse::<TokenKind>().unwrap(), kind);
        }
    }

    #[test]
    fn unknown_kind_name_is_refused_with_the_name() {
        let err = "nmtoken".parse::<TokenKind>().unwrap_err();
        assert!(matches!(&err, Error::UnknownTokenKind { kind } if kind == "nmtoken"));
        assert!(err.to_string().contains("\"nmtoken\""), "{err}");
    }
}
