//! The minicluster: a local cluster of real `yarn-ha` daemon processes on loopback.
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
//! header line) and `supervisor.sock` (while the supervisor runs).

mod capacity_scheduler;
mod cluster_manifest;
mod cluster_state;
mod control;
mod daemon_addresses;
mod daemon_role;
mod daemon_spec;
mod init;
mod json_file;
mod leader_probe;
mod mini_cluster;
mod start;

pub use capacity_scheduler::{CAPACITY_SCHEDULER_XML, capacity_scheduler_xml};
pub use cluster_manifest::{ClusterManifest, ManifestDaemon};
pub use cluster_state::{ClusterState, DaemonExit, DaemonRecord, DaemonState};
pub use control::{restart, restart_with_env};
pub use daemon_addresses::daemon_addresses;
pub use daemon_role::DaemonRole;
pub use daemon_spec::DaemonSpec;
pub use init::{init, init_with};
pub use leader_probe::{Leader, LeaderProbe};
pub(crate) use mini_cluster::spawn_in_cgroup;
pub use mini_cluster::{DEFAULT_STOP_TIMEOUT, MiniCluster};
pub use start::{LEADER_WAIT, StartEvent, start};
