//! What the ResourceManager knows about NodeManagers.

mod node_tracker;
mod reported_completions;

pub use node_tracker::{HeartbeatVerdict, NodeState, NodeTracker, SchedulableNodes, TrackedNode};
pub use reported_completions::{NodeCleanup, cleanup, reported_completions};
