//! [`StoredRecord`]: which state-store record an error is about.

use std::fmt;

use yarn_security::TokenKind;

/// One record of the NodeManager state store, named in errors so that a failure says which
/// record was bad.
///
/// Container ids are kept as the stored key's text: a damaged key may not parse as an id, and
/// the error must still name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredRecord {
    /// A container's launch and state record in the `containers` tree.
    Container {
        /// The container id, as stored.
        container_id: String,
    },
    /// A container token's replay record in the `replays` tree.
    Replay {
        /// The container id, as stored.
        container_id: String,
    },
    /// The current and previous master keys of one token kind.
    MasterKeys {
        /// The kind of token the keys sign.
        kind: TokenKind,
    },
    /// The RM epoch the NodeManager last registered with.
    RmEpoch,
    /// The response id of the last heartbeat response received.
    HeartbeatResponseId,
    /// sled's monotonic counter that orders queued and started containers.
    Sequence,
    /// One of the AMRMProxy's records (its master keys, or an application's chain).
    AmrmProxy {
        /// The record's key.
        key: String,
    },
    /// A whole tree, when a scan over it fails.
    Tree {
        /// The tree's name.
        name: &'static str,
    },
}

impl fmt::Display for StoredRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Container { container_id } => write!(f, "container record {container_id}"),
            Self::Replay { container_id } => write!(f, "replay record of {container_id}"),
            Self::MasterKeys { kind } => write!(f, "{kind} master keys record"),
            Self::RmEpoch => f.write_str("RM epoch record"),
            Self::HeartbeatResponseId => f.write_str("heartbeat response id record"),
            Self::Sequence => f.write_str("container sequence counter"),
            Self::AmrmProxy { key } => write!(f, "AMRMProxy record {key:?}"),
            Self::Tree { name } => write!(f, "state store tree {name:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_record_and_its_container() {
        let id = "container_1700000000000_0001_01_000002";
        let record = StoredRecord::Container {
            container_id: id.to_owned(),
        };
        assert_eq!(record.to_string(), format!("container record {id}"));
        let keys = StoredRecord::MasterKeys {
            kind: TokenKind::Nm,
        };
        assert_eq!(keys.to_string(), "NMToken master keys record");
    }
}
