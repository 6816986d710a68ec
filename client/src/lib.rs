//! yarn-ha client libraries: how users, ApplicationMasters and NodeManagers reach the
//! ResourceManager group, and the CLI commands built on them.
//!
//! May depend on `proto`, `conf` and `security`; never on a daemon crate, so the NodeManager and
//! the AMRMProxy can use it to talk to the RM.
//!
//! Today it holds [`RmFailoverTargets`], the pure rotation across RM replicas that the
//! failover-aware RPC clients are built on (Hadoop's `ConfiguredRMFailoverProxyProvider`,
//! improved by following the leader hint a follower returns). The RPC clients, `YarnClient`,
//! `AMRMClient`, `NMClient` and the CLI commands arrive with the RM-replicas and applications
//! work.

mod rm_failover_targets;
mod rm_service;

pub use rm_failover_targets::RmFailoverTargets;
pub use rm_service::RmService;
