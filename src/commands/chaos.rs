//! `yarn-ha chaos run|list|failpoints`: seeded fault drills against a local cluster of real
//! processes, run by `yarn_chaos`.

use std::process::ExitCode;

use anyhow::Context;
use yarn_chaos::{ChaosOptions, fresh_seed, parse_faults};
use yarn_rm_ha::storage::{FAILPOINTS_VARIABLE, Failpoints};

use crate::cli::{ChaosCommand, ChaosRunArgs};

/// Runs one `chaos` subcommand. `run` prints its progress and report on stdout and exits 0
/// only when no invariant was violated (1 otherwise, or when the run itself failed).
pub fn run(command: ChaosCommand) -> anyhow::Result<ExitCode> {
    match command {
        ChaosCommand::List => {
            print!("{}", yarn_chaos::catalog());
            Ok(ExitCode::SUCCESS)
        }
        ChaosCommand::Run(args) => run_drill(args),
        ChaosCommand::Failpoints => Ok(failpoints()),
    }
}

/// `chaos failpoints`: the failpoints this binary takes, one per line, or why it takes none.
fn failpoints() -> ExitCode {
    if !Failpoints::COMPILED {
        eprintln!(
            "this yarn-ha was built without the failpoints feature (test builds have it); \
             {FAILPOINTS_VARIABLE} is ignored"
        );
        return ExitCode::FAILURE;
    }
    for (failpoint, description) in Failpoints::CATALOG {
        println!("{failpoint}\t{description}");
    }
    ExitCode::SUCCESS
}

fn run_drill(args: ChaosRunArgs) -> anyhow::Result<ExitCode> {
    let mut options =
        ChaosOptions::from_profile(args.profile, args.seed.unwrap_or_else(fresh_seed));
    if let Some(rms) = args.rms {
        options.rms = rms;
    }
    if let Some(nms) = args.nms {
        options.nms = nms;
    }
    if let Some(duration) = args.duration {
        options.duration = duration;
    }
    if let Some(faults) = &args.faults {
        options.faults = parse_faults(faults).map_err(anyhow::Error::msg)?;
    }
    options.report = args.report;
    options.dir = args.dir;
    if let Some(drain) = args.drain {
        options.drain_deadline = drain;
    }
    options.network = args.network;
    options.disks = args.disks;
    let exe = std::env::current_exe().context("finding the yarn-ha executable to run daemons")?;
    let report = yarn_chaos::run_blocking(&options, &exe, &mut std::io::stdout())?;
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
