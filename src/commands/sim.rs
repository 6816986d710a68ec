//! `yarn-ha sim`: the deterministic simulation of a ResourceManager group, run by `yarn_sim`.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use yarn_rm_ha::storage::{FAILPOINTS_VARIABLE, Failpoints};
use yarn_sim::{SimOptions, SimOutcome, Simulation, run_seeds};

use crate::cli::SimArgs;

/// Runs one seed with its whole trace, or a batch with one line per failing seed and a
/// summary; exits 0 only if every seed passed.
pub fn run(args: &SimArgs) -> anyhow::Result<ExitCode> {
    if ![3, 5].contains(&args.replicas) {
        bail!(
            "--replicas {}: the simulation runs 3 or 5 replicas",
            args.replicas
        );
    }
    if std::env::var_os(FAILPOINTS_VARIABLE).is_some() && !Failpoints::COMPILED {
        bail!(
            "{FAILPOINTS_VARIABLE} is set, but this yarn-ha was built without failpoints (test \
             builds have them): the planted bugs would not be planted"
        );
    }
    if args.applications > 0 && args.nodes == 0 {
        bail!(
            "--applications {}: applications need NodeManagers (--nodes 1 or more)",
            args.applications
        );
    }
    let mut options = SimOptions {
        replicas: args.replicas,
        nodes: args.nodes,
        applications: args.applications,
        node_reboots: !args.no_node_reboots,
        amrm_proxies: args.amrm_proxies,
        failpoints: Failpoints::from_env().context("reading the planted bugs")?,
        ..SimOptions::default()
    };
    if let Some(duration) = args.duration {
        options.fault_time = duration;
    }
    let planted = std::env::var(FAILPOINTS_VARIABLE)
        .map(|failpoints| format!("{FAILPOINTS_VARIABLE}={failpoints} "))
        .unwrap_or_default();
    let reboots = if options.node_reboots {
        ""
    } else {
        " --no-node-reboots"
    };
    let replay_with = |seed: u64| {
        format!(
            "{planted}yarn-ha sim --seed {seed} --replicas {} --nodes {} --applications {} \
             --duration {}ms --amrm-proxies {}{reboots}",
            options.replicas,
            options.nodes,
            options.applications,
            options.fault_time.as_millis(),
            options.amrm_proxies
        )
    };
    let passed = match args.seed {
        Some(seed) => replay(seed, options.clone(), &replay_with)?,
        None => batch(args, &options, &replay_with)?,
    };
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn replay(
    seed: u64,
    options: SimOptions,
    replay_with: &(dyn Fn(u64) -> String + Sync),
) -> anyhow::Result<bool> {
    let outcome = Simulation::new(seed, options).run()?;
    for line in &outcome.trace {
        println!("{line}");
    }
    report(&outcome, replay_with);
    Ok(outcome.passed())
}

fn batch(
    args: &SimArgs,
    options: &SimOptions,
    replay_with: &(dyn Fn(u64) -> String + Sync),
) -> anyhow::Result<bool> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let seeds = args.first_seed..args.first_seed.saturating_add(args.seeds);
    println!(
        "simulating seeds {}..{} ({} replicas, {:?} of faults each) on {threads} threads",
        seeds.start, seeds.end, options.replicas, options.fault_time
    );
    let started = Instant::now();
    let found = run_seeds(seeds, options, threads, &|outcome| {
        if !outcome.passed() {
            report(outcome, replay_with);
        }
    })?;
    println!(
        "{} seeds, {} failed, {} writes acknowledged, in {:.1} s",
        found.runs,
        found.failures.len(),
        found.acknowledged,
        started.elapsed().as_secs_f64()
    );
    Ok(found.failures.is_empty())
}

/// Prints a run's verdict; a failure names its seed, what broke, the faults and leaderships
/// that led there (the acknowledged writes are left to the replay), and the command that
/// replays it.
fn report(outcome: &SimOutcome, replay_with: &dyn Fn(u64) -> String) {
    if outcome.passed() {
        println!(
            "seed {} passed: {} writes acknowledged in {:.1} s simulated",
            outcome.seed,
            outcome.acknowledged,
            outcome.simulated.as_secs_f64()
        );
        return;
    }
    println!("seed {} FAILED:", outcome.seed);
    for violation in &outcome.violations {
        println!("  violation: {violation}");
    }
    for line in outcome
        .trace
        .iter()
        .filter(|line| !line.contains(" acknowledged sequence number "))
    {
        println!("  {line}");
    }
    println!("  replay with: {}", replay_with(outcome.seed));
}
