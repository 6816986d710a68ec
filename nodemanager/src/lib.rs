//! The yarn-ha NodeManager.
//!
//! Registers with the leader ResourceManager, heartbeats with RESYNC handling, starts containers
//! as real processes after checking their tokens, queues opportunistic containers, and hosts the
//! AMRMProxy.
//!
//! May depend on `proto`, `conf`, `security`, `opportunistic` and `amrmproxy`; never on `rm-ha`
//! or `chaos`.
//!
//! [`NmConfig`] is its typed configuration, which `yarn-ha conf check` validates.
//!
//! [`container_scheduler`] is the pure core that decides which containers start, wait in the
//! opportunistic queue, or are killed to make room for guaranteed ones; its async shell only
//! carries out the [`SchedulerAction`](container_scheduler::SchedulerAction)s it returns.
//!
//! [`executor`] runs containers: as real processes in their own process groups with their
//! memory checked ([`executor::ProcessExecutor`]), or as timers for scale tests
//! ([`executor::SimulatedExecutor`]), behind one [`ContainerExecutor`].
//!
//! [`state_store`] keeps what a restarted NodeManager recovers (containers, master keys,
//! replay records, the RM epoch) in sled under `yarn.nodemanager.recovery.dir`, behind one
//! [`NmStateStore`] that is disabled when recovery is off.
//!
//! [`node_status_updater`] holds the node's side of registration and heartbeats: the response-id
//! sequence, RESYNC (new starts refused until registered again) and SHUTDOWN.
//!
//! [`container_manager`] serves ContainerManagementProtocol: it checks container and NM tokens
//! per container, hands containers to the container scheduler, carries out its decisions in
//! order through the executor and the state store, reports statuses to application masters and
//! heartbeats, and rebuilds itself from the state store after a restart.
//!
//! [`web`] serves Hadoop's NodeManager REST API (`/ws/v1/node/info`, `/ws/v1/node/containers`)
//! on `yarn.nodemanager.webapp.address`, over the same mutual TLS as the RPC endpoint.

pub mod amrm_proxy;
mod config;
pub mod container_manager;
pub mod container_scheduler;
mod error;
pub mod executor;
pub mod localizer;
mod node_manager;
pub mod node_status_updater;
mod simulated_nodes;
pub mod state_store;
pub mod token_check;
pub mod web;

pub use config::NmConfig;
pub use error::Error;
pub use executor::{ContainerExecutor, ExecutorKind};
pub use node_manager::NodeManager;
pub use simulated_nodes::simulated_node_config;
pub use state_store::NmStateStore;
