//! [`OpportunisticPlacement`]: one container the allocator placed, and its [`Locality`].

use crate::Resource;

/// How well a placement matched the ask's locality (YARN's `NodeType`, and the node-local,
/// rack-local and off-switch counters of `OpportunisticSchedulerMetrics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Locality {
    /// On a host the key asked for.
    NodeLocal,
    /// On a rack the key asked for.
    RackLocal,
    /// Anywhere else.
    OffSwitch,
}

/// One OPPORTUNISTIC container to create on `node_id` for the ask with this scheduler key.
///
/// The caller turns it into a container: id, normalized size, container token and NM token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpportunisticPlacement {
    /// The ask's priority.
    pub priority: i32,
    /// The ask's allocation request id.
    pub allocation_request_id: i64,
    /// The node id, `host:port`, the container goes to.
    pub node_id: String,
    /// That node's host name.
    pub host: String,
    /// The container size: the `"*"` ask's capability.
    pub capability: Resource,
    /// Which locality phase placed it.
    pub locality: Locality,
}
