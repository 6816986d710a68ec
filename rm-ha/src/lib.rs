//! The yarn-ha ResourceManager replica.
//!
//! One process of a Raft group that together acts as YARN's ResourceManager: it will keep
//! applications, queue state, token master keys and every container allocation in a Raft log on
//! sled and serve the client, AM, admin and NodeManager protocols over mutual TLS.
//!
//! May depend on `proto`, `conf`, `security` and `opportunistic`; never on `nodemanager`,
//! `amrmproxy`, `client` or `chaos`.
//!
//! Today it holds the replica's typed configuration, [`RmConfig`], which `yarn-ha conf check`
//! validates; openraft's type configuration ([`RmTypeConfig`]); the replicated state and its
//! versioned commands ([`state_machine`]); the Raft storage on sled ([`storage`]); and the Raft
//! transport between replicas over gRPC with mutual TLS ([`raft_network`]).

pub mod applications;
mod config;
mod error;
pub mod nodes;
pub mod raft_network;
mod raft_types;
pub mod replica;
pub mod scheduling;
pub mod state_machine;
pub mod storage;

pub use config::{RaftSettings, RmConfig};
pub use error::{Error, Record};
pub use raft_network::{RaftGrpcNetwork, RaftGrpcNetworkFactory, RaftGrpcService};
pub use raft_types::{RmNode, RmNodeId, RmTypeConfig, node_id_of};
pub use replica::{ResourceManager, RmListeners, Serving};
