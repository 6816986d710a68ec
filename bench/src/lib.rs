//! The yarn-ha benchmarks: `yarn-ha bench raft` on real clusters, `yarn-ha bench scheduler` on
//! the pure CapacityScheduler core and through the leader's scheduling loop of in-process
//! replicas, `yarn-ha bench allocate` on real clusters and in a simulation driven by the real
//! cores, `yarn-ha bench allocate-am`, the ApplicationMaster the allocate benchmark runs, and
//! `yarn-ha bench rest`, the REST API over a large state on real clusters.
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
//!
//!  rest_bench(options, exe)
//!   ├─ 3 RMs, no NodeManager process; NM and AM expiry raised to 1 h
//!   ├─ load: N simulated nodes register (ResourceTracker, a NodeManager certificate issued
//!   │    from the cluster CA); M unmanaged applications submitted by a second user, every
//!   │    50th made RUNNING by registering its AM; the leader's /metrics must count exactly that
//!   ├─ LeaderProbes on an idle leader: NodeHeartbeat of node 0, GetNewApplication (Raft write)
//!   ├─ per RestEndpoint: C HTTP/2 clients (harness user) ══mTLS══▶ leader's web address,
//!   │    R requests in all, while the probes run ─▶ EndpointRun
//!   └─ /metrics checked again, same leader ─▶ RestBenchReport (table or JSON)
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
mod am_rm_calls;
mod amrm_transport;
mod app_load;
mod bench_dir;
mod bounded_tasks;
mod commit_load;
mod commit_probe;
mod endpoint_load;
mod failover_trial;
mod hadoop_am_rm_client;
mod heartbeat_probe;
mod interrupts;
mod issued_identity;
mod latency_cell;
mod leader_probes;
mod leader_scheduler_bench;
mod locality_bench;
mod machine;
mod node_registration;
mod preemption_bench;
mod probe;
mod raft_bench;
mod raft_bench_options;
mod raft_bench_report;
mod reservation_bench;
mod rest_bench;
mod rest_bench_options;
mod rest_bench_report;
mod rest_client;
mod rest_endpoint;
mod scheduler_bench;
mod storage_soak;
mod storage_soak_report;
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
pub use amrm_transport::AmrmTransport;
pub use app_load::RUNNING_EVERY;
pub use failover_trial::STABLE_FOR;
pub use leader_probes::ProbeTallies;
pub use leader_scheduler_bench::{AskPath, LeaderSchedulerBenchRun, leader_scheduler_bench};
pub use locality_bench::{
    LOCALITY_SETTINGS, LocalityBenchRow, LocalityBenchRun, LocalityBenchShape, LocalitySetting,
    locality_bench,
};
pub use machine::Machine;
pub use preemption_bench::{PreemptionBenchRun, PreemptionBenchShape, preemption_bench};
pub use probe::{PROBE_PAUSE, ProbeTally};
pub use raft_bench::{WARMUP, raft_bench};
pub use raft_bench_options::{
    MAX_DURATION_SECS, MAX_FAILOVER_TRIALS, MAX_PROPOSERS, RaftBenchOptions,
};
pub use raft_bench_report::{
    CommitRun, FAILOVER_TARGET, FailoverResult, FailoverTrial, RaftBenchReport,
};
pub use reservation_bench::{ReservationBenchRun, ReservationBenchShape, reservation_bench};
pub use rest_bench::{IDLE_PROBE, SUBMITTER, rest_bench};
pub use rest_bench_options::{
    FIRST_NODE_PORT, MAX_APPS, MAX_CONCURRENCY, MAX_REQUESTS, MAX_REST_NODES, RestBenchOptions,
};
pub use rest_bench_report::{
    EndpointRun, ProbeSummaries, ProbeSummary, RequestTally, RestBenchReport,
};
pub use rest_client::REQUEST_TIMEOUT;
pub use rest_endpoint::{LoadedState, RUNNING_LIMIT, RestEndpoint};
pub use scheduler_bench::{QueueLayout, SchedulerBenchRun, SchedulerBenchShape, scheduler_bench};
pub use storage_soak::{StorageSoakOptions, storage_soak};
pub use storage_soak_report::{BOUNDED_RATIO, StorageSample, StorageSoakReport};
pub use task_stream::TaskStream;
pub use task_stream_run::TaskStreamRun;
pub use task_stream_sim::{
    AM_HEARTBEAT_MS, BACKLOG_PER_SLOT, NM_QUEUE_LENGTH, SIM_SEED, SLOT_MB, SLOTS_PER_NODE,
    START_DELAY_MAX_MS, TASK_MS, TaskStreamShape, TaskStreamSim, WARMUP_SECONDS,
    simulate_task_stream,
};
