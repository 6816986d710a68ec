//! A running ResourceManager replica.
//!
//! ```text
//!   RmListeners ─ Incoming (mutual TLS) ─┬─ RaftGrpcService ─▶ Raft ◀── storage (sled)
//!                                        └─ grpc services ─▶ operations ─▶ Proposer ─┘
//!                                                                  │
//!                                               LeaderGate ─▶ Leadership (one per epoch)
//!                                              (Serving)  ▲
//!                                     LeadershipMonitor ──┴─▶ LeaderServices
//!                                                   (one JoinSet and CancellationToken per
//!                                                    leadership)
//! ```

mod am_launcher;
mod am_liveness_monitor;
mod application_retirer;
mod async_scheduler;
mod auto_queue_deleter;
mod election_timer;
mod leader_gate;
mod leader_services;
mod leadership;
mod leadership_monitor;
mod leadership_transfer;
mod lifetime_monitor;
mod master_key_service;
mod member_changes;
mod nm_liveness_monitor;
mod periodic;
mod plan_follower;
mod preemption_monitor;
mod proposer;
mod queue_file_committer;
mod queue_manager;
mod raft_core;
mod raft_proposer;
mod recovered_ticker;
#[cfg(feature = "failpoints")]
mod reissued_container_ids;
mod replica_services;
mod resource_manager;

pub use async_scheduler::PassThreads;
pub use leader_gate::{LeaderGate, Serving};
pub use leadership::Leadership;
pub use leadership_monitor::LeadershipMonitor;
pub(crate) use leadership_monitor::leader_rm_id;
pub(crate) use leadership_transfer::LeadershipTransfer;
pub use master_key_service::SecretSource;
pub use member_changes::{MemberChangeError, MemberChanges};
pub(crate) use proposer::Proposer;
pub use raft_core::RaftCore;
pub use replica_services::{ReplicaServices, ServiceWiring};
pub use resource_manager::{ResourceManager, RmListeners};
