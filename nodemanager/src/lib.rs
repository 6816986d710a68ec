//! The yarn-ha NodeManager.
//!
//! Registers with the leader ResourceManager, heartbeats with RESYNC handling, starts containers
//! as real processes after checking their tokens, queues opportunistic containers, and hosts the
//! AMRMProxy.
//!
//! May depend on `proto`, `conf`, `security`, `opportunistic` and `amrmproxy`; never on `rm-ha`
//! or `chaos`.
//!
//! Today it holds the NodeManager's typed configuration, [`NmConfig`], which `yarn-ha conf check`
//! validates; the daemon arrives with the NodeManager work.
//!
//! [`container_scheduler`] is the pure core that decides which containers start, wait in the
//! opportunistic queue, or are killed to make room for guaranteed ones; its async shell only
//! carries out the [`SchedulerAction`](container_scheduler::SchedulerAction)s it returns.
//!
//! [`executor`] runs containers: as real processes in their own process groups with their
//! memory checked ([`executor::ProcessExecutor`]), or as timers for scale tests
//! ([`executor::SimulatedExecutor`]), behind one [`ContainerExecutor`].

mod config;
pub mod container_scheduler;
mod error;
pub mod executor;

pub use config::NmConfig;
pub use error::Error;
pub use executor::{ContainerExecutor, ExecutorKind};
