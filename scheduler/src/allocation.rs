//! [`Allocation`]: one container the scheduler has placed.

use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};

use crate::Resource;

/// A container allocated to an application attempt on a node.
///
/// The scheduler has already charged it to the node, the queue and its ancestors, the user and
/// the application when it hands an allocation out; the same value describes a container to
/// [`recover`](crate::CapacityScheduler::recover_container) after a failover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    /// The container's id (RM epoch in the high bits, per-application sequence below).
    pub container_id: ContainerId,
    /// The attempt the container was allocated to.
    pub application_attempt_id: ApplicationAttemptId,
    /// Where it runs.
    pub node_id: NodeId,
    /// Its normalized size.
    pub resource: Resource,
    /// The container priority of the ask it satisfied (0 for the AM container).
    pub priority: i32,
    /// The ask's allocation request id (-1 for the AM container).
    pub allocation_request_id: i64,
    /// Whether this is the attempt's ApplicationMaster container.
    pub is_am: bool,
}
