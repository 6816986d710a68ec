//! `yarn-ha bench raft`: Raft commit latency and failover time on a local cluster of real
//! ResourceManager processes; `yarn-ha bench scheduler`: the allocation rate of the
//! CapacityScheduler core and through the leader's Raft-committed scheduling loop. Both
//! measured by `yarn_chaos::bench`.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use yarn_chaos::bench::{self, RaftBenchOptions, SchedulerBenchShape};

use crate::cli::{BenchCommand, BenchRaftArgs, BenchSchedulerArgs};

/// Runs one `bench` subcommand: the figures go to stdout (a table, or JSON with `--json`),
/// progress to the log on stderr. Exits 0 when the benchmark ran, whether or not the figures
/// meet their targets (the output says).
pub fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Raft(args) => raft(args),
        BenchCommand::Scheduler(args) => scheduler(args),
    }
}

fn scheduler(args: BenchSchedulerArgs) -> anyhow::Result<ExitCode> {
    for nodes in args.nodes {
        let shape = SchedulerBenchShape {
            nodes,
            queues: args.queues,
            applications: args.applications,
            containers_per_application: args.containers_per_application,
        };
        println!("{}", bench::scheduler_bench(shape)?);
        let dir = tempfile::tempdir().context("a directory for the benchmark cluster")?;
        println!(
            "{}",
            bench::leader_scheduler_bench(shape, &dir.path().join("cluster"))?
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn raft(args: BenchRaftArgs) -> anyhow::Result<ExitCode> {
    let options = RaftBenchOptions {
        dir: args.dir,
        proposers: args.proposers,
        duration: Duration::from_secs(args.duration_secs),
        failover_trials: args.failover_trials,
    };
    let exe = std::env::current_exe().context("finding the yarn-ha executable to run daemons")?;
    let report = bench::raft_bench(&options, &exe)?;
    if args.json {
        println!("{}", report.to_json()?);
    } else {
        print!("{report}");
    }
    Ok(ExitCode::SUCCESS)
}
