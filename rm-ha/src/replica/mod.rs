//! A running ResourceManager replica.
//!
//! ```text
//!   RmListeners ─ Incoming (mutual TLS) ─┬─ RaftGrpcService ─▶ Raft ◀── storage (sled)
//!                                        ├─ AdminService  ─┐   │
//!                                        └─ ClientService ─┴─ LeaderGate ◀─ LeadershipMonitor
//!                                                              (Serving)        │
//!                                                       LeaderServices ◀────────┘
//!                                                       (one CancellationToken per leadership)
//! ```

mod admin_service;
mod am_launcher;
mod am_liveness_monitor;
mod application_master_service;
mod async_scheduler;
mod client_service;
mod clock;
mod distributed_scheduling_service;
mod election_timer;
mod leader_gate;
mod leader_services;
mod leadership;
mod leadership_monitor;
mod leadership_transfer;
mod master_key_service;
mod nm_liveness_monitor;
mod proposer;
mod queue_config_initializer;
mod raft_proposer;
#[cfg(feature = "failpoints")]
mod reissued_container_ids;
mod resource_manager;
mod resource_tracker_service;

pub use leader_gate::{LeaderGate, Serving};
pub use leadership::Leadership;
pub use resource_manager::{ResourceManager, RmListeners};
