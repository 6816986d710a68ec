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
//! validates; the replica itself arrives with the ResourceManager-replicas work.

mod config;

pub use config::RmConfig;
