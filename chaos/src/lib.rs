//! The yarn-ha chaos harness: starts clusters of real processes, injects faults from a seeded
//! schedule, and checks that nothing was lost.
//!
//! Nothing depends on this crate; it may depend on every other one. As a harness (not a
//! library other crates build on) it reports errors with `anyhow`.
//!
//! # Main types
//!
//! - [`ClusterLayout`]: lays out a local cluster on loopback: a PKI, one configuration
//!   directory per daemon with distinct ports, and storage directories.
//! - [`minicluster`]: `yarn-ha minicluster init|start|restart`. [`minicluster::init`] adds the
//!   queue configuration and a manifest to a layout; [`minicluster::MiniCluster`] supervises
//!   every daemon as a child process, records them in `cluster.json`
//!   ([`minicluster::ClusterState`]), never restarts one on its own, restarts one on request
//!   over its control socket, and stops them all with SIGTERM then SIGKILL.
//! - [`bench`]: `yarn-ha bench raft`, which runs three ResourceManager processes and measures
//!   commit latency under 1 to N concurrent proposers and the time from SIGKILL of the leader
//!   to the next committed write ([`bench::raft_bench`], [`bench::RaftBenchReport`]).
//! - [`harness`]: `yarn-ha chaos run|list`: a proxied cluster ([`LayoutOptions::proxied`],
//!   [`ProxyRoute`]), fault-injecting TCP proxies, seeded fault schedules, a recorded workload,
//!   observers, one checker per invariant, and the report ([`harness::run`]).
//! - [`Signal`] and [`process_exists`]: the signals the harness sends to daemons (stop, kill,
//!   freeze, resume) and a liveness check, the crate's only use of `unsafe`.
//!
//! ```text
//!   <base>/minicluster.json          the manifest: daemons and their conf dirs (init)
//!   <base>/cluster.json              pids, states, exit statuses, addresses (start)
//!   <base>/supervisor.sock           restart requests to the running supervisor
//!   <base>/logs/<id>.log             each daemon's stdout and stderr, across restarts
//!   <base>/pki/                      cluster CA, one certificate per RM, NM and the user
//!   <base>/rm1/conf/yarn-site.xml    shared keys + yarn.resourcemanager.ha.id and rm1's cert
//!   <base>/rm1/conf/capacity-scheduler.xml   root.default at 100% (in every conf dir)
//!   <base>/rm1/raft/                 rm1's Raft storage
//!   <base>/nm1/conf/yarn-site.xml    shared keys + nm1's addresses, dirs and cert
//!   <base>/client/conf/yarn-site.xml shared keys + the user's cert, for CLI calls
//! ```

pub mod bench;
mod cluster_layout;
mod demo;
pub mod harness;
mod layout_options;
pub mod minicluster;
mod proxy_route;

pub use cluster_layout::{ClusterLayout, HARNESS_USER, NM_HOST, NmLayout, RmLayout};
pub use demo::{DemoSummary, run_demo};
pub use layout_options::LayoutOptions;
pub use proxy_route::ProxyRoute;
pub use yarn_nodemanager::executor::{Signal, process_exists};
