//! openraft's type configuration for the ResourceManager group.

use std::io::Cursor;

use serde::{Deserialize, Serialize};

use crate::state_machine::{RmCommand, RmResponse};

/// A replica's Raft node id.
///
/// Raft ids are derived from the order of `yarn.resourcemanager.ha.rm-ids`: the rm-id at
/// position `i` (zero-based) has node id `i + 1`, so 0 never names a member. Reordering
/// `rm-ids` in a running cluster therefore changes identities and is not allowed.
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

/// The Raft node id of `rm_id` given the configured `rm-ids` in order, or `None` when `rm_id`
/// is not among them.
pub fn node_id_of<'a>(rm_ids: impl IntoIterator<Item = &'a str>, rm_id: &str) -> Option<RmNodeId> {
    let position = rm_ids.into_iter().position(|id| id == rm_id)?;
    u64::try_from(position).ok().map(|p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_follow_rm_id_order_from_one() {
        let ids = ["rm1", "rm2", "rm3"];
        assert_eq!(node_id_of(ids, "rm1"), Some(1));
        assert_eq!(node_id_of(ids, "rm3"), Some(3));
        assert_eq!(node_id_of(ids, "rm4"), None);
    }
}
