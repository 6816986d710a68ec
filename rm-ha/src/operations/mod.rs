//! The ResourceManager's operations, apart from any transport: what users, ApplicationMasters
//! (and AMRMProxies), administrators and NodeManagers can do, as plain async methods taking the
//! caller's authenticated identity and the protocol's request records, and returning the
//! response records or an [`RmError`].
//!
//! Every front door calls these and nothing else: the gRPC services (`grpc`) today, the REST
//! API and the Hadoop IPC listener next, each mapping [`RmError`] its own way in one place.
//!
//! ```text
//!  gRPC ─┐                    ┌ ClientOperations ──────────┐
//!  REST ─┼─ authenticate ─▶  ├ AmOperations ──────────────┼─ Proposer ─▶ Raft ─▶ state machine
//!  IPC  ─┘   (identity)       ├ AdminOperations ───────────┤  LeaderGate ─▶ Leadership
//!                             └ ResourceTrackerOperations ─┘   (soft state of one epoch)
//! ```

mod admin_acl;
mod admin_node_labels;
mod admin_operations;
mod admin_scheduler_conf;
mod am_operations;
mod client_activities;
mod client_lifetimes;
mod client_node_labels;
mod client_operations;
mod client_reservations;
mod distributed_scheduling;
mod not_leader;
mod reservation_records;
mod resource_tracker_operations;
mod rm_error;

pub(crate) use admin_operations::AdminOperations;
pub(crate) use am_operations::{AmCaller, AmOperations};
pub(crate) use client_activities::NodeFilter;
pub(crate) use client_operations::ClientOperations;
pub(crate) use client_reservations::ReservationDesk;
pub use not_leader::NotLeader;
pub(crate) use resource_tracker_operations::ResourceTrackerOperations;
pub use rm_error::RmError;
