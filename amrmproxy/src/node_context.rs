//! [`NodeContext`]: what the hosting NodeManager tells the AMRMProxy about its node.

use yarn_proto::ids::NodeId;
use yarn_security::MasterKey;

/// The hosting NodeManager's view of its own node, shared by every application's chain.
///
/// The NodeManager implements it over its live state: the keys change when the RM ships new ones
/// in a heartbeat response, and the proxy reads them again for every allocation, never caching
/// them. Implementations must be cheap to call (no I/O): the distributed scheduler calls them on
/// every allocate.
pub trait NodeContext: Send + Sync {
    /// This node's id, `host:port` of its container manager, as the RM knows it.
    fn node_id(&self) -> NodeId;

    /// This node's web address, `host:port`.
    fn http_address(&self) -> String;

    /// The container-token master key the RM shipped most recently; `None` until the node has
    /// registered and received one. Locally placed OPPORTUNISTIC containers are signed with it,
    /// so every NodeManager (which holds the same key from its own heartbeats) accepts them.
    fn container_token_master_key(&self) -> Option<MasterKey>;

    /// The NM-token master key the RM shipped most recently; `None` until the node has
    /// registered and received one.
    fn nm_token_master_key(&self) -> Option<MasterKey>;

    /// The node's clock: milliseconds since the Unix epoch. Every time the proxy uses (token
    /// creation and expiry, throttling, key rolls) comes from here, so tests can drive it.
    fn now_ms(&self) -> i64;
}
