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

mod config;

pub use config::NmConfig;
