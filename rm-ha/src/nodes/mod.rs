//! What the ResourceManager knows about NodeManagers.

mod expired_allocations;
mod node_tracker;
mod reported_completions;

pub use expired_allocations::{EXPIRED_CONTAINER_DIAGNOSTIC, expired_allocations};
pub use node_tracker::{HeartbeatVerdict, NodeState, NodeTracker, SchedulableNodes, TrackedNode};
pub use reported_completions::{NodeCleanup, cleanup, reported_completions};
