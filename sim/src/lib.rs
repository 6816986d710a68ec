//! Deterministic simulation of a yarn-ha ResourceManager group.
//!
//! One process runs three or five replicas on simulated time, a simulated network (turmoil
//! 0.7) and simulated disks ([`SimDisk`]), over the real replica code ([`RaftCore`]: the Raft
//! stores, openraft, the state machine, the Raft gRPC service and client, the election timer
//! with pre-vote). A seed draws the faults ([`FaultSchedule`]: crashes, power losses of one
//! machine or of a majority, partitions both ways and one way, held and slow messages, slow
//! disks, leadership transfers, members removed and added back); leaders write while faults strike; then every fault is undone and the group must
//! recover and agree ([`Simulation`] states the invariants). A run is a pure function of its
//! seed, so any failure replays exactly with `yarn-ha sim --seed S`.
//!
//! What is simulated rather than real: TLS (see `sim_network`), the disk, and time. What does
//! not run here yet: the leader services, NodeManagers, ApplicationMasters, clients and clock
//! jumps.
//!
//! [`RaftCore`]: yarn_rm_ha::replica::RaftCore

mod application_masters;
mod client_host;
mod error;
mod fault_schedule;
mod history;
mod host_actions;
mod node_host;
mod replica_host;
mod seed_runs;
mod sim_disk;
mod sim_network;
mod simulation;

pub use error::SimError;
pub use fault_schedule::{Fault, FaultSchedule, ScheduledFault};
pub use seed_runs::{SeedRuns, run_seeds};
pub use sim_disk::{SimDisk, SimTree};
pub use simulation::{SimOptions, SimOutcome, Simulation};
