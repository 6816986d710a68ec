//! `yarn-ha bench raft`: Raft commit latency and failover time on a local cluster of real
//! ResourceManager processes; `yarn-ha bench scheduler`: the allocation rate of the
//! CapacityScheduler core and through the leader's Raft-committed scheduling loop;
//! `yarn-ha bench preemption`: one preemption round on a full cluster, what holds the
//! scheduler and what does not; `yarn-ha bench allocate`: allocation latency per execution type and path, and simulated
//! short-task throughput per OPPORTUNISTIC share (with `bench allocate-am`, its
//! ApplicationMaster); `yarn-ha bench rest`: the REST API's latency over a large state and
//! what it costs the leader's node heartbeats. All measured by `yarn_bench`.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use yarn_bench::{
    AllocateAmOptions, AllocateBenchOptions, AskPath, PreemptionBenchShape, RaftBenchOptions,
    RestBenchOptions, SchedulerBenchShape, StorageSoakOptions,
};
use yarn_conf::Configuration;

use crate::cli::{
    BenchAllocateAmArgs, BenchAllocateArgs, BenchCommand, BenchLocalityArgs, BenchPreemptionArgs,
    BenchRaftArgs, BenchReservationArgs, BenchRestArgs, BenchSchedulerArgs, BenchStorageArgs,
};

/// Runs one `bench` subcommand: the figures go to stdout (a table, or JSON with `--json`),
/// progress to the log on stderr. Exits 0 when the benchmark ran, whether or not the figures
/// meet their targets (the output says). `conf_dir` matters only to `allocate-am`, which runs
/// inside the cluster.
pub fn run(conf_dir: Option<&Path>, command: BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Raft(args) => raft(args),
        BenchCommand::Scheduler(args) => scheduler(args),
        BenchCommand::Locality(args) => locality(args),
        BenchCommand::Preemption(args) => preemption(args),
        BenchCommand::Reservation(args) => reservation(args),
        BenchCommand::Allocate(args) => allocate(args),
        BenchCommand::AllocateAm(args) => allocate_am(conf_dir, args),
        BenchCommand::Rest(args) => rest(args),
        BenchCommand::Storage(args) => storage(args),
    }
}

fn storage(args: BenchStorageArgs) -> anyhow::Result<ExitCode> {
    let report = yarn_bench::storage_soak(&StorageSoakOptions {
        dir: args.dir,
        duration: args.duration,
        entry_bytes: args.entry_bytes,
        sample_every: args.sample_every,
    })?;
    print!("{report}");
    Ok(ExitCode::SUCCESS)
}

fn rest(args: BenchRestArgs) -> anyhow::Result<ExitCode> {
    let options = RestBenchOptions {
        dir: args.dir,
        apps: args.apps,
        nodes: args.nodes,
        requests: args.requests,
        concurrency: args.concurrency,
    };
    let exe = std::env::current_exe().context("finding the yarn-ha executable to run daemons")?;
    let report = yarn_bench::rest_bench(&options, &exe)?;
    if args.json {
        println!("{}", report.to_json()?);
    } else {
        print!("{report}");
    }
    Ok(ExitCode::SUCCESS)
}

fn allocate(args: BenchAllocateArgs) -> anyhow::Result<ExitCode> {
    let options = AllocateBenchOptions {
        dir: args.dir,
        rounds: args.rounds,
        containers: args.containers,
        nodes: args.nodes,
        sim_nodes: args.sim_nodes,
        sim_seconds: args.sim_seconds,
    };
    let exe = std::env::current_exe()
        .context("finding the yarn-ha executable to run daemons and ApplicationMasters")?;
    let report = yarn_bench::allocate_bench(&options, &exe)?;
    if args.json {
        println!("{}", report.to_json()?);
    } else {
        print!("{report}");
    }
    Ok(ExitCode::SUCCESS)
}

fn allocate_am(conf_dir: Option<&Path>, args: BenchAllocateAmArgs) -> anyhow::Result<ExitCode> {
    let dir = conf_dir.context(
        "bench allocate-am needs a configuration directory: pass --conf-dir DIR or set \
         YARN_CONF_DIR",
    )?;
    let conf = Configuration::load_dir(dir)?;
    let options = AllocateAmOptions {
        execution_type: args.mode,
        transport: args.transport,
        rounds: args.rounds,
        containers: args.containers,
        out: args.out,
    };
    yarn_bench::run_allocate_am(&conf, &options)?;
    Ok(ExitCode::SUCCESS)
}

fn scheduler(args: BenchSchedulerArgs) -> anyhow::Result<ExitCode> {
    for nodes in args.nodes {
        let shape = SchedulerBenchShape {
            nodes,
            queues: args.queues,
            applications: args.applications,
            containers_per_application: args.containers_per_application,
            layout: args.layout,
            activities: false,
        };
        println!("{}", yarn_bench::scheduler_bench(shape)?);
        if args.activities {
            let recording = SchedulerBenchShape {
                activities: true,
                ..shape
            };
            println!("{}", yarn_bench::scheduler_bench(recording)?);
        }
        let paths: &[AskPath] = if args.through_ams {
            &[AskPath::Scheduler, AskPath::AmProtocol]
        } else {
            &[AskPath::Scheduler]
        };
        for &path in paths {
            let dir = tempfile::tempdir().context("a directory for the benchmark cluster")?;
            println!(
                "{}",
                yarn_bench::leader_scheduler_bench(shape, path, &dir.path().join("cluster"))?
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn locality(args: BenchLocalityArgs) -> anyhow::Result<ExitCode> {
    let shape = yarn_bench::LocalityBenchShape {
        nodes: args.nodes,
        rack_size: args.rack_size,
        slots: args.slots,
        applications: args.applications,
        tasks_per_application: args.tasks,
    };
    print!("{}", yarn_bench::locality_bench(shape)?);
    Ok(ExitCode::SUCCESS)
}

fn preemption(args: BenchPreemptionArgs) -> anyhow::Result<ExitCode> {
    let shape = PreemptionBenchShape {
        nodes: args.nodes,
        queues: args.queues,
        containers: args.containers,
        rounds: args.rounds,
        intra_queue: args.intra_queue,
    };
    println!("{}", yarn_bench::preemption_bench(shape)?);
    Ok(ExitCode::SUCCESS)
}

fn reservation(args: BenchReservationArgs) -> anyhow::Result<ExitCode> {
    let shape = yarn_bench::ReservationBenchShape {
        reservations: args.reservations,
        admissions: args.admissions,
        capacity_gb: args.capacity_gb,
        users: args.users,
    };
    println!("{}", yarn_bench::reservation_bench(shape)?);
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
    let report = yarn_bench::raft_bench(&options, &exe)?;
    if args.json {
        println!("{}", report.to_json()?);
    } else {
        print!("{report}");
    }
    Ok(ExitCode::SUCCESS)
}
