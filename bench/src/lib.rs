//! The yarn-ha benchmarks: `yarn-ha bench raft` on real clusters, `yarn-ha bench scheduler` on
//! the pure CapacityScheduler core and through the leader's scheduling loop of in-process
//! replicas, `yarn-ha bench allocate` on real clusters and in a simulation driven by the real
//! cores, and `yarn-ha bench allocate-am`, the ApplicationMaster the allocate benchmark runs.
//!
//! Only the binary depends on this crate. It builds its clusters with `yarn-minicluster`
//! ([`RunningCluster`](yarn_minicluster::RunningCluster)) and reports errors with `anyhow`.
//! A benchmark on real clusters stops every daemon it started, also when SIGINT, SIGTERM or
//! SIGHUP ends it early; its cluster directory is kept when the user named it, or when the run
//! failed other than by such a signal (for the daemons' logs), and removed otherwise.
//!
//! ```text
//!  raft_bench(options, exe)
//!   ├─ yarn_minicluster::init(dir, 3 RMs) ─▶ RunningCluster: supervisor task, admin clients
//!   ├─ commit latency, per proposer count N:
//!   │    N proposers ══mTLS══▶ leader's client address: GetNewApplication, one at a time
//!   │    (each a Raft entry replicated, fsync'd on a quorum and applied)
//!   ├─ failover, per trial: wait for 1 s of agreement on a leader ─▶ SIGKILL it (t0)
//!   │    ─▶ GetNewApplication to each survivor in turn until one commits (t1)
//!   │    ─▶ restart the killed replica, wait until it has caught up
//!   └─ RaftBenchReport: LatencySummary (nearest-rank p50, p99, max) per run and for failover
//!
//!  allocate_bench(options, exe)
//!   ├─ per cluster (AMRMProxy + distributed scheduling on; then both off via LayoutOptions):
//!   │    submit one application per AllocationPath, its AM container running
//!   │    `yarn-ha bench allocate-am` (run_allocate_am): rounds of ask ─▶ all in hand ─▶ release
//!   │    ─▶ samples file; the RM's OPPORTUNISTIC counters confirm who placed them
//!   ├─ TaskStreamSim per OPPORTUNISTIC share (0, 50, 100%): simulated time, real cores
//!   │    (CapacityScheduler, OpportunisticScheduling + NodeQueueLoadMonitor, ContainerScheduler)
//!   └─ AllocateBenchReport: latency per path, throughput and utilization per share
//! ```
//!
//! The pure parts (option checks, the reports and their tables) have their own files
//! and unit tests; the measuring parts need real processes and are exercised by the
//! `bench_cli` test of the `yarn-ha` binary.

mod allocate_am;
mod allocate_am_options;
mod allocate_bench;
mod allocate_bench_options;
mod allocate_bench_report;
mod allocation_path;
mod am_fleet;
mod bench_dir;
mod commit_load;
mod failover_trial;
mod interrupts;
mod leader_scheduler_bench;
mod machine;
mod raft_bench;
mod raft_bench_options;
mod raft_bench_report;
mod scheduler_bench;
mod task_stream;
mod task_stream_run;
mod task_stream_sim;

pub use allocate_am::{
    AllocateAmSamples, CONTAINER_MB, POLL_PAUSE, ROUND_LIMIT, ROUND_PAUSE, run_allocate_am,
};
pub use allocate_am_options::{
    ALLOCATE_AM_SUBCOMMAND, AllocateAmOptions, AskedExecutionType, MAX_CONTAINERS, MAX_ROUNDS,
};
pub use allocate_bench::{APPLICATION_NAME, allocate_bench};
pub use allocate_bench_options::{
    AllocateBenchOptions, CONTAINERS_PER_NODE, MAX_NODES, MAX_SIM_NODES, MAX_SIM_SECONDS,
};
pub use allocate_bench_report::{
    AllocateBenchReport, AllocationLatency, MERCURY_GAIN_PERCENT, OPPORTUNISTIC_SHARES,
    OpportunisticCounterGrowth, ThroughputResult,
};
pub use allocation_path::AllocationPath;
pub use failover_trial::STABLE_FOR;
pub use leader_scheduler_bench::{AskPath, LeaderSchedulerBenchRun, leader_scheduler_bench};
pub use machine::Machine;
pub use raft_bench::{WARMUP, raft_bench};
pub use raft_bench_options::{
    MAX_DURATION_SECS, MAX_FAILOVER_TRIALS, MAX_PROPOSERS, RaftBenchOptions,
};
pub use raft_bench_report::{
    CommitRun, FAILOVER_TARGET, FailoverResult, FailoverTrial, RaftBenchReport,
};
pub use scheduler_bench::{SchedulerBenchRun, SchedulerBenchShape, scheduler_bench};
pub use task_stream::TaskStream;
pub use task_stream_run::TaskStreamRun;
pub use task_stream_sim::{
    AM_HEARTBEAT_MS, BACKLOG_PER_SLOT, NM_QUEUE_LENGTH, SIM_SEED, SLOT_MB, SLOTS_PER_NODE,
    START_DELAY_MAX_MS, TASK_MS, TaskStreamShape, TaskStreamSim, WARMUP_SECONDS,
    simulate_task_stream,
};
