//! Benchmarks: `yarn-ha bench raft` on real clusters, `yarn-ha bench scheduler` on the pure
//! CapacityScheduler core and through the leader's scheduling loop of in-process replicas.
//!
//! ```text
//!  raft_bench(options, exe)
//!   ├─ minicluster::init(dir, 3 RMs) ─▶ BenchCluster: MiniCluster supervisor task, admin clients
//!   ├─ commit latency, per proposer count N:
//!   │    N proposers ══mTLS══▶ leader's client address: GetNewApplication, one at a time
//!   │    (each a Raft entry replicated, fsync'd on a quorum and applied)
//!   ├─ failover, per trial: wait for 1 s of agreement on a leader ─▶ SIGKILL it (t0)
//!   │    ─▶ GetNewApplication to each survivor in turn until one commits (t1)
//!   │    ─▶ restart the killed replica, wait until it has caught up
//!   └─ RaftBenchReport: LatencySummary (nearest-rank p50, p99, max) per run and for failover
//! ```
//!
//! The pure parts (option checks, percentiles, the report and its table) have their own files
//! and unit tests; the measuring parts need real processes and are exercised by the
//! `bench_cli` test of the `yarn-ha` binary.

mod bench_cluster;
mod commit_load;
mod failover_trial;
mod latency_summary;
mod leader_scheduler_bench;
mod machine;
mod raft_bench;
mod raft_bench_options;
mod raft_bench_report;
mod scheduler_bench;

pub use bench_cluster::{BenchCluster, REPLICAS};
pub use failover_trial::STABLE_FOR;
pub use latency_summary::{LatencySummary, nearest_rank};
pub use leader_scheduler_bench::{LeaderSchedulerBenchRun, leader_scheduler_bench};
pub use machine::Machine;
pub use raft_bench::{WARMUP, raft_bench};
pub use raft_bench_options::{
    MAX_DURATION_SECS, MAX_FAILOVER_TRIALS, MAX_PROPOSERS, RaftBenchOptions,
};
pub use raft_bench_report::{
    CommitRun, FAILOVER_TARGET, FailoverResult, FailoverTrial, RaftBenchReport,
};
pub use scheduler_bench::{SchedulerBenchRun, SchedulerBenchShape, scheduler_bench};
