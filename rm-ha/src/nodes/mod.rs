//! What the ResourceManager knows about NodeManagers.

mod node_tracker;
mod rack_resolver;
mod reported_completions;
mod reported_updates;
mod unconfirmed_increases;

pub use node_tracker::{
    HeartbeatVerdict, NodeState, NodeTracker, SchedulableNode, SchedulableNodes, TrackedNode,
};
pub use rack_resolver::{RackResolver, TopologyMapping};
pub use reported_completions::{NodeCleanup, cleanup, reported_completions};
pub use reported_updates::{AutoUpdate, awaiting_increases, containers_to_update};
pub use unconfirmed_increases::{AwaitingIncrease, UnconfirmedIncreases};
