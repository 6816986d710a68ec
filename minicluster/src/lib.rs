//! The yarn-ha minicluster: local clusters of real `yarn-ha` daemon processes on loopback, laid
//! out with a PKI of their own and supervised by this process; `yarn-ha minicluster
//! init|start|restart|demo`.
//!
//! The benchmarks (`yarn-bench`), the chaos harness (`yarn-chaos`), the binary and the process
//! tests build on this crate; it depends on no crate of theirs. As a harness (not a library the
//! daemons build on) it reports errors with `anyhow`.
//!
//! # Main types
//!
//! - [`ClusterLayout`]: lays out a local cluster on loopback: a cluster CA and one certificate
//!   per RM, NM and the harness user ([`HARNESS_USER`]), one configuration directory per daemon
//!   with distinct ports, and storage directories; [`LayoutOptions`] adds extra properties or
//!   fronts for proxies ([`LayoutOptions::proxied`], [`ProxyRoute`]).
//! - [`init`] adds the queue configuration and a manifest ([`ClusterManifest`]) to a layout;
//!   [`start`] runs it until SIGINT, SIGTERM or SIGHUP.
//! - [`MiniCluster`]: the supervisor. It starts every daemon as a child process (in a cgroup
//!   when its [`DaemonSpec`] names one, see [`spawn_in_cgroup`]), records them in
//!   `cluster.json` ([`ClusterState`]), never restarts one on its own, restarts one on request
//!   over its control socket ([`restart`]), and stops them all with SIGTERM, then SIGKILL for
//!   those still running after the stop timeout. [`LeaderProbe`] finds the active RM.
//! - [`RunningCluster`]: a three-RM cluster whose supervisor runs as a task of the caller's
//!   runtime, with admin and client channels to the RMs: what the benchmarks, the demo and the
//!   process tests drive. No daemon outlives it.
//! - [`run_demo`]: `yarn-ha minicluster demo`, a distributed-shell job that survives the
//!   SIGKILL of the active RM ([`DemoSummary`]).
//! - [`LatencySummary`] (nearest-rank percentiles of measured durations) and [`SplitMix64`]
//!   (seeded random numbers that stay the same in every build): small pieces both the
//!   benchmarks and the chaos harness use, kept here so that neither depends on the other.
//!
//! ```text
//!  init ──▶ ClusterLayout (pki, <id>/conf/yarn-site.xml) + capacity-scheduler.xml
//!           + <base>/minicluster.json (ClusterManifest)
//!  start ─▶ ClusterManifest ─▶ DaemonSpec per daemon (command line, log file, addresses)
//!           ─▶ MiniCluster (supervisor): spawns every daemon as its child,
//!              writes <base>/cluster.json (ClusterState) after every change,
//!              LeaderProbe asks each RM's admin service until one is ACTIVE,
//!              on SIGINT/SIGTERM/SIGHUP: SIGTERM all, wait, SIGKILL stragglers
//!  restart ──{"restart":{"id":..}}──▶ <base>/supervisor.sock ──▶ MiniCluster starts it again
//! ```
//!
//! Files in the cluster directory: `minicluster.json` (written once by `init`), `cluster.json`
//! (written only by the running supervisor, atomically), `logs/<id>.log` (each daemon's stdout
//! and stderr, appended across restarts, each start preceded by a `--- yarn-ha minicluster`
//! header line) and `supervisor.sock` (while the supervisor runs):
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
//!
//! The crate's only `unsafe` is [`spawn_in_cgroup`]'s hook between fork and exec.

mod capacity_scheduler;
mod cluster_layout;
mod cluster_manifest;
mod cluster_state;
mod control;
mod daemon_addresses;
mod daemon_role;
mod daemon_spec;
mod demo;
mod init;
mod json_file;
mod latency_summary;
mod layout_options;
mod leader_probe;
mod mini_cluster;
mod proxy_route;
mod rng;
mod running_cluster;
mod start;

pub use capacity_scheduler::{CAPACITY_SCHEDULER_XML, capacity_scheduler_xml};
pub use cluster_layout::{ClusterLayout, HARNESS_USER, NM_HOST, NmLayout, RmLayout};
pub use cluster_manifest::{ClusterManifest, ManifestDaemon};
pub use cluster_state::{ClusterState, DaemonExit, DaemonRecord, DaemonState};
pub use control::{restart, restart_with_env};
pub use daemon_addresses::daemon_addresses;
pub use daemon_role::DaemonRole;
pub use daemon_spec::DaemonSpec;
pub use demo::{DemoSummary, run_demo};
pub use init::{init, init_with};
pub use latency_summary::{LatencySummary, millis, nearest_rank};
pub use layout_options::LayoutOptions;
pub use leader_probe::{Leader, LeaderProbe};
pub use mini_cluster::{DEFAULT_STOP_TIMEOUT, MiniCluster, spawn_in_cgroup};
pub use proxy_route::ProxyRoute;
pub use rng::SplitMix64;
pub use running_cluster::{REPLICAS, RunningCluster};
pub use start::{LEADER_WAIT, StartEvent, start};
