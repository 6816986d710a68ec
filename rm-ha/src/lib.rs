//! The yarn-ha ResourceManager replica.
//!
//! One process of a Raft group that together acts as YARN's ResourceManager: it keeps
//! applications and attempts, queue configuration, token master keys and every container
//! allocation in a Raft log on sled, and serves the client, ApplicationMaster, admin and
//! NodeManager protocols over mutual TLS; only the leader serves them.
//!
//! May depend on `proto`, `conf`, `security`, `web`, `opportunistic` and `scheduler`; never on
//! `nodemanager`, `amrmproxy`, `client` or `chaos`.
//!
//! - [`replica`]: the replica process ([`ResourceManager`]): the leadership monitor, the
//!   [`Leadership`] of each epoch and its leader-only services, the leader gate, the one Raft
//!   proposer, elections with pre-vote and leadership transfer;
//! - [`operations`]: what users, ApplicationMasters, administrators and NodeManagers can do,
//!   apart from any transport, with one error type ([`operations::RmError`]); the gRPC
//!   services are thin adapters onto them, and so are the REST and IPC front doors;
//! - [`state_machine`]: the replicated state and its versioned commands; `apply` is
//!   deterministic and re-validates what the leader proposed;
//! - [`scheduling`]: the leader's CapacityScheduler (from `scheduler`) kept in step with the
//!   replicated state, the scheduling loop's passes, opportunistic placement, queue refreshes;
//! - [`applications`]: AM sessions, tokens handed to AMs, allocate responses, submission and
//!   diagnostics limits, reports;
//! - `rest`: Hadoop's REST API on the webapp address, another front door onto the operations;
//! - [`nodes`]: the leader's soft state about NodeManagers;
//! - [`storage`]: the Raft log and state-machine stores on sled;
//! - [`raft_network`]: the Raft transport between replicas over gRPC with mutual TLS, and who
//!   may speak it;
//! - [`RmConfig`]: the replica's typed configuration, which `yarn-ha conf check` validates.

pub mod applications;
mod config;
mod error;
mod grpc;
mod hadoop_ipc;
pub mod nodes;
pub mod operations;
pub mod raft_network;
mod raft_runtime;
mod raft_types;
pub mod replica;
mod rest;
pub mod scheduling;
pub mod state_machine;
pub mod storage;
mod telemetry;

pub use config::{RaftSettings, RmConfig};
pub use error::{Error, Record};
pub use raft_network::{RaftGrpcNetwork, RaftGrpcNetworkFactory, RaftGrpcService};
pub use raft_types::{RmNode, RmNodeId, RmTypeConfig, node_id_of};
pub use replica::{Leadership, ResourceManager, RmListeners, Serving};
