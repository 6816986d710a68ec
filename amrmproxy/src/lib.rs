//! The AMRMProxy: a per-application chain of interceptors between an ApplicationMaster and the
//! ResourceManager, hosted by every NodeManager.
//!
//! The chain will do distributed opportunistic scheduling, swap the RM's AMRMToken for a local
//! one, throttle, and can end in an interceptor that talks to several RMs (federation).
//!
//! May depend on `proto`, `conf`, `security` and `opportunistic`; never on `rm-ha` or
//! `nodemanager` (the NodeManager hosts it, not the other way round).
//!
//! Today it holds the proxy's typed configuration, [`ProxyConfig`]; the chain arrives with the
//! opportunistic-containers and AMRMProxy work.

mod config;

pub use config::ProxyConfig;
