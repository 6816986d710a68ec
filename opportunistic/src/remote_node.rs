//! [`RemoteNode`]: a node the opportunistic allocator may place containers on.

/// A candidate node for opportunistic placement, as in YARN's `RemoteNode`: the RM's
/// least-loaded list hands these to its own allocator and, over heartbeats, to every NM's
/// distributed scheduler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteNode {
    /// The node id, `host:port`.
    pub node_id: String,
    /// The node's host name, matched against host asks and the blacklist.
    pub host: String,
    /// The node's rack, matched against rack asks and the blacklist.
    pub rack: String,
    /// How many more containers the node's queue can take, when known: the RM's monitor knows
    /// it, while an NM's copy of the list does not (`None`), and the NM that receives a
    /// container rejects it if its queue is full. The allocator never places more than this on
    /// the node in one call.
    pub queue_room: Option<u32>,
}
