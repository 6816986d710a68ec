//! `yarn-ha bench raft`: commit latency and failover time of a three-replica cluster of real
//! ResourceManager processes.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use yarn_minicluster::{REPLICAS, RunningCluster, millis};

use crate::bench_dir::BenchDir;
use crate::commit_load::measure_commits;
use crate::failover_trial::{STABLE_FOR, failover_trial};
use crate::interrupts::{Interrupted, Interrupts};
use crate::machine::Machine;
use crate::raft_bench_options::RaftBenchOptions;
use crate::raft_bench_report::{FailoverResult, RaftBenchReport};

/// The unrecorded warm-up before each commit-latency run.
pub const WARMUP: Duration = Duration::from_secs(1);

/// Runs the benchmark described by `options` with `exe`, the `yarn-ha` executable the
/// replicas run as (`<exe> resourcemanager`), and returns its figures. Blocks the calling
/// thread; it runs its own multi-threaded Tokio runtime. Progress is logged with `tracing`.
///
/// The cluster is laid out in `options.dir`, or else in a fresh directory under the system's
/// temporary directory that is removed at the end, unless the benchmark failed (other than by
/// a signal): then it is kept for the daemons' logs and the error names it.
///
/// The daemons are always stopped: at the end, on an error, on SIGINT, SIGTERM or SIGHUP
/// (which end the benchmark with an error), and on a panic (the supervisor's drop SIGKILLs
/// them as the runtime shuts down).
///
/// # Errors
///
/// When `options` are invalid (the message names the flag), the directory cannot be created
/// or laid out, a daemon cannot be started, the cluster elects no leader or does not settle
/// between trials, a failover does not complete within 30 seconds, stopping the daemons fails,
/// or a signal interrupted the run.
pub fn raft_bench(options: &RaftBenchOptions, exe: &Path) -> anyhow::Result<RaftBenchReport> {
    options.validate()?;
    BenchDir::run(
        options.dir.as_deref(),
        "yarn-ha-bench-",
        |base| async move { run(options, &base, exe).await },
    )
}

/// Starts the cluster, measures, and stops the cluster whatever happened.
async fn run(
    options: &RaftBenchOptions,
    base_dir: &Path,
    exe: &Path,
) -> anyhow::Result<RaftBenchReport> {
    // Installed before any daemon starts, so that from here on these signals stop the daemons
    // instead of killing this process and orphaning them.
    let mut interrupts = Interrupts::install()?;
    let mut cluster = RunningCluster::start(base_dir, exe).await?;
    tracing::info!(
        "started {REPLICAS} ResourceManagers in {}",
        base_dir.display()
    );
    let measured = tokio::select! {
        measured = measure(&mut cluster, options) => measured,
        signal = interrupts.recv() => Err(Interrupted { signal }.into()),
    };
    let stopped = cluster.stop().await;
    let report = measured?;
    stopped.context("stopping the ResourceManagers after the benchmark")?;
    Ok(report)
}

async fn measure(
    cluster: &mut RunningCluster,
    options: &RaftBenchOptions,
) -> anyhow::Result<RaftBenchReport> {
    let leader = cluster.wait_stable(STABLE_FOR).await?;
    tracing::info!("{leader} leads; measuring commit latency");
    let mut commit = Vec::with_capacity(options.proposers.len());
    for &proposers in &options.proposers {
        commit.push(measure_commits(cluster, proposers, WARMUP, options.duration).await?);
    }
    let mut trials = Vec::with_capacity(options.failover_trials);
    for number in 1..=options.failover_trials {
        tracing::info!("failover trial {number} of {}", options.failover_trials);
        trials.push(failover_trial(cluster).await?);
    }
    Ok(RaftBenchReport {
        machine: Machine::detect(),
        replicas: REPLICAS,
        warmup_ms: millis(WARMUP),
        duration_secs: options.duration.as_secs_f64(),
        commit,
        failover: FailoverResult::new(trials),
    })
}
