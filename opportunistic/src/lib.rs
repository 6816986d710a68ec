//! Pure logic for opportunistic containers, shared by the ResourceManager and the NodeManager.
//!
//! Nothing here owns a socket, spawns a task or reads a clock: callers feed node load reports
//! and asks, and get decisions back. It depends on no daemon crate, so the RM's centralized
//! allocator and the NM's distributed scheduler run the same code.
//!
//! ```text
//!   NM heartbeats ──> NodeLoad ──> NodeQueueLoadMonitor ──sort_nodes──> QueueLimitCalculator
//!                                   │  (LoadComparator order,                  │
//!                                   │   full / decommissioning left out)       │
//!                                   │                                          v
//!                                   │           ContainerQueuingLimit in heartbeat responses
//!                                   v
//!                  least_loaded_nodes(k): Vec<RemoteNode>
//!                                   │      (the RM's own allocator, or NMs via heartbeats)
//!   AM OpportunisticAsks ──────────>│<─── blacklist
//!                                   v
//!                  OpportunisticContainerAllocator: node-local, rack-local, off-switch,
//!                                   │               round-robin, one per node per round
//!                                   v
//!            OpportunisticPlacements + remaining asks
//!                (on the RM: NodeQueueLoadMonitor::record_placements reserves queue room)
//! ```
//!
//! - [`NodeQueueLoadMonitor`] keeps each node's latest [`NodeLoad`], ranks nodes at every
//!   sort and feeds the [`QueueLimitCalculator`], whose [`ContainerQueuingLimit`] NMs enforce.
//! - [`OpportunisticContainerAllocator`] turns an attempt's [`OpportunisticAsk`]s into
//!   [`OpportunisticPlacement`]s on the [`RemoteNode`]s it is given; the caller builds the
//!   containers and tokens; [`merge_asks`] takes an AM's new asks into an attempt's table
//!   before that, on the RM and on an AMRMProxy alike.

mod ask_table;
mod error;
mod load_comparator;
mod node_load;
mod node_queue_load_monitor;
mod opportunistic_allocator;
mod opportunistic_ask;
mod opportunistic_placement;
mod queue_limit;
mod remote_node;

pub use ask_table::merge_asks;
pub use error::Error;
pub use load_comparator::LoadComparator;
pub use node_load::NodeLoad;
pub use node_queue_load_monitor::NodeQueueLoadMonitor;
pub use opportunistic_allocator::{OpportunisticAllocation, OpportunisticContainerAllocator};
pub use opportunistic_ask::OpportunisticAsk;
pub use opportunistic_placement::{Locality, OpportunisticPlacement};
pub use queue_limit::{ContainerQueuingLimit, QueueLimitCalculator};
pub use remote_node::RemoteNode;
pub use yarn_proto::{ANY, Resource};
