//! Pure logic for opportunistic containers, shared by the ResourceManager and the NodeManager.
//!
//! Nothing here owns a socket, spawns a task or reads a clock: callers feed node load reports
//! and get decisions back. It depends on no daemon crate, so the RM's central allocator and the
//! NM's distributed scheduler run the same code.
//!
//! ```text
//!   NM heartbeats ──> load reports ──> LoadComparator order ──> QueueLimitCalculator
//!                                                                    │
//!                      ContainerQueuingLimit in heartbeat responses <┘
//! ```
//!
//! The opportunistic allocator (least-loaded placement) joins this crate with the opportunistic
//! containers work.

mod error;
mod load_comparator;
mod queue_limit;

pub use error::Error;
pub use load_comparator::LoadComparator;
pub use queue_limit::{ContainerQueuingLimit, QueueLimitCalculator};
