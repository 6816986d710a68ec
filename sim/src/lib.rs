//! Deterministic simulation of a yarn-ha cluster.
//!
//! One process runs three or five ResourceManager replicas, NodeManagers, ApplicationMasters
//! and a client on simulated time, a simulated network (turmoil 0.7) and simulated disks
//! ([`SimDisk`]), over the real code: each replica's [`RaftCore`] (the Raft stores, openraft,
//! the state machine, the Raft gRPC service and client, the election timer with pre-vote) and
//! its [`ReplicaServices`] (front doors, leader services), the real NodeManager with the
//! simulated executor and, in half the seeds, its AMRMProxy, the distributed shell
//! ApplicationMaster and `YarnClient`. A seed draws
//! the faults ([`FaultSchedule`]: crashes, power losses of one machine or of a majority,
//! partitions both ways and one way, held and slow messages, slow disks, leadership transfers,
//! members removed and added back, the links of NodeManagers and the client failing,
//! NodeManager machines rebooting, and ApplicationMasters killed); leaders write and
//! applications run while
//! faults strike; then every fault is undone, and the applications must finish and the group
//! recover and agree ([`Simulation`] states the invariants). A failure prints its seed, and
//! `yarn-ha sim --seed S` replays it event for event (`docs/simulation.md` says what that rests
//! on).
//!
//! What is simulated rather than real: TLS (see `sim_network`), the disk, time and the wall
//! clock. What does not run here yet: NodeManager recovery, distributed scheduling in the
//! AMRMProxy, wall-clock jumps, and the REST and Hadoop IPC front doors.
//!
//! [`RaftCore`]: yarn_rm_ha::replica::RaftCore
//! [`ReplicaServices`]: yarn_rm_ha::replica::ReplicaServices

mod am_processes;
mod amrm_proxies;
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

pub use amrm_proxies::AmrmProxies;
pub use error::SimError;
pub use fault_schedule::{Fault, FaultSchedule, ScheduledFault};
pub use seed_runs::{SeedRuns, run_seeds};
pub use sim_disk::{SimDisk, SimTree};
pub use simulation::{SimOptions, SimOutcome, Simulation};
