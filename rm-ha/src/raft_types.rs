//! openraft's type configuration for the ResourceManager group.

use std::io::Cursor;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::state_machine::{RmCommand, RmResponse};

/// A replica's Raft node id, derived from its rm-id by [`node_id_of`].
pub type RmNodeId = u64;

openraft::declare_raft_types!(
    /// The ResourceManager group's Raft types: commands are [`RmCommand`], results
    /// [`RmResponse`], members [`RmNode`], and snapshots travel as in-memory byte buffers.
    pub RmTypeConfig:
        D = RmCommand,
        R = RmResponse,
        NodeId = RmNodeId,
        Node = RmNode,
        SnapshotData = Cursor<Vec<u8>>,
        AsyncRuntime = crate::raft_runtime::RmRuntime,
);

/// A member of the group as Raft membership records it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RmNode {
    /// The member's rm-id from `yarn.resourcemanager.ha.rm-ids`.
    pub rm_id: String,
    /// `host:port` of the member's Raft endpoint
    /// (`yarn.resourcemanager.ha.raft.address.<rm-id>`).
    pub raft_address: String,
}

/// The Raft node id of `rm_id`: the first eight bytes of its SHA-256, big-endian.
///
/// Derived from the id alone, so every replica computes the same id for a member whatever the
/// order of `yarn.resourcemanager.ha.rm-ids` in its configuration, and a member added with
/// `rmadmin -addToCluster` needs no allocated number. Two distinct rm-ids collide with
/// probability about 2^-64 per pair; [`RmNode`] also records the rm-id, so a collision would be
/// visible in the membership rather than silent.
pub fn node_id_of(rm_id: &str) -> RmNodeId {
    let digest = Sha256::digest(rm_id.as_bytes());
    let mut first = [0_u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_depend_on_the_rm_id_only() {
        assert_eq!(node_id_of("rm1"), node_id_of("rm1"));
        assert_ne!(node_id_of("rm1"), node_id_of("rm2"));
        assert_ne!(node_id_of("rm1"), node_id_of("rm1 "));
    }
}
