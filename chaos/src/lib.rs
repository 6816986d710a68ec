//! The yarn-ha chaos harness: `yarn-ha chaos run` and `yarn-ha chaos list`. It starts a cluster
//! of real processes (with `yarn-minicluster`), injects faults from a seeded schedule, and checks
//! that nothing was lost.
//!
//! Only the binary depends on this crate. As a harness (not a library other crates build on) it
//! reports errors with `anyhow`. A run draws its fault schedule and its workload's choices from
//! its seed, which it prints; [`run`] stops every daemon before it returns, whatever happened;
//! a violated invariant is a verdict in the [`ChaosReport`], not an error.
//!
//! A run starts a cluster of real processes behind fault-injecting proxies (or, in the netns
//! mode, in a network namespace of its own where [`KernelNetwork`] drops and delays packets),
//! runs a workload, injects faults from a seeded schedule, heals everything, waits for the
//! cluster to settle, checks every invariant, and writes a report.
//!
//! ```text
//!                       ┌──────────── ChaosCluster ────────────────────────────────────┐
//!  Workload ──────────▶ │ ProxyFleet: a TcpProxy on every RM endpoint's front          │
//!  (jobs, refreshes,    │   rules: NetworkRules (drop / delay, per direction, per peer) │
//!   reads; History)     │   callers placed by connection_source (/proc)                │
//!                       │      │                                                       │
//!  FaultSchedule(seed)  │   rm1 ◀─raft─▶ rm2 ◀─raft─▶ rm3     nm1  nm2 (heartbeats,    │
//!   ─▶ Fault::plan      │      (each RM sees its peers' fronts)      their AMs' calls) │
//!      (ClusterView)    │ MiniCluster supervisor: signals, restarts                    │
//!   ─▶ inject / heal    └──────────────────────────────────────────────────────────────┘
//!                          ▲ real addresses, past the proxies
//!  Observers: leader_observer (GetServiceStatus), write_prober (GetNewApplication),
//!             node_observer (NodeManager /ws/v1/node/containers)      ─▶ Observations
//!
//!  History + Observations + timeline + failovers ─▶ invariants::check_all ─▶ ChaosReport
//! ```
//!
//! Main types: [`ChaosOptions`] and [`Profile`]; [`Fault`] (with [`FaultPlan`], one file per
//! family: [`process_fault`], [`network_fault`], [`leadership_fault`], [`disk_fault`],
//! [`membership_fault`] with its [`SpareReplica`]); [`NetworkRules`], made by a
//! [`NetworkControl`]: [`TcpProxy`]s or the [`KernelNetwork`] of [`NetworkMode::Netns`];
//! [`VolatileDisks`] under the replicas' Raft storage for the power losses of
//! [`DiskMode::Volatile`];
//! [`FaultSchedule`] over [`SplitMix64`](yarn_minicluster::SplitMix64); [`Workload`] recording
//! a [`History`]; [`Observations`]; [`invariants`], one module per invariant; [`ChaosReport`];
//! [`run`] and [`run_blocking`]; [`catalog`] for `chaos list`.

mod catalog;
mod chaos_cluster;
mod cluster_view;
mod connection_source;
mod crash_fault;
pub mod disk_fault;
mod disk_mode;
mod dshell_job;
mod failover;
mod fault;
mod history;
mod https_get;
pub mod invariants;
mod kernel_network;
mod leader_observer;
pub mod leadership_fault;
mod leftovers;
mod log_scan;
pub mod membership_fault;
mod network_control;
pub mod network_fault;
mod network_mode;
mod network_rules;
mod node_observer;
mod observations;
mod options;
mod packet_filter;
pub mod process_fault;
mod profile;
mod proxy_fleet;
mod report;
mod run;
mod run_clock;
mod schedule;
mod tcp_proxy;
mod timeline;
mod token_probe;
mod volatile_disks;
mod workload;
mod write_prober;

pub use catalog::catalog;
pub use chaos_cluster::{ChaosCluster, NODE_MEMORY_MB, NODE_VCORES, NodeEndpoint};
pub use cluster_view::ClusterView;
pub use connection_source::{DaemonPids, ProcSources, SourceResolver};
pub use disk_mode::DiskMode;
pub use dshell_job::DshellJob;
pub use failover::{Failover, failovers};
pub use fault::{Fault, FaultAction, FaultPlan};
pub use history::{
    ContainerList, History, HistoryRecorder, Operation, OperationKind, OperationResult, Outcome,
    PendingOperation, RmContainer,
};
pub use https_get::{http1_client, https_get};
pub use invariants::{CheckInput, Invariant, InvariantResult, Verdict, check_all};
pub use kernel_network::{KernelNetwork, KernelPeer, enter_private_network};
pub use leader_observer::{LEADER_POLL, observe_leaders};
pub use leftovers::kill_leftovers;
pub use log_scan::{log_files, panics_in, scan};
pub use membership_fault::SpareReplica;
pub use network_control::NetworkControl;
pub use network_mode::{NetworkMode, OBSERVER_ADDRESS};
pub use network_rules::{Direction, LinkEffect, LinkRule, NetworkRules, Peer, PeerSelector};
pub use node_observer::{NODE_POLL, observe_nodes, parse_containers};
pub use observations::{
    ContainerView, FinalApplication, FinalReport, LeaderSample, LogPanic, NodeInfo, NodeSnapshot,
    Observations, ReplicaAnswer, ReplicaDigest, ReplicaStatus, StateDigestAnswer, WriteSample,
    application_of_container,
};
pub use options::{
    ChaosOptions, DEFAULT_DRAIN_DEADLINE, MAX_DAEMONS, MIN_RMS, fresh_seed, parse_duration,
    parse_faults,
};
pub use profile::Profile;
pub use proxy_fleet::ProxyFleet;
pub use report::{ChaosReport, ReportFiles, RunSettings, WorkloadSummary};
pub use run::{run, run_blocking};
pub use run_clock::RunClock;
pub use schedule::{FaultSchedule, Pacing, ScheduledFault};
pub use tcp_proxy::{MAX_CONNECTIONS, RulesReceiver, TcpProxy};
pub use timeline::{FaultStatus, FaultStep, FaultSteps, TimelineEntry};
pub use volatile_disks::VolatileDisks;
pub use workload::Workload;
pub use write_prober::probe_writes;
