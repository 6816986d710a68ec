//! What the ResourceManager knows about NodeManagers.

mod node_registry;
mod node_tracker;

pub use node_registry::NodeRegistry;
pub use node_tracker::{HeartbeatVerdict, NodeState, NodeTracker, TrackedNode};
