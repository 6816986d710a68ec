//! The simulation over many seeds: the invariants hold, a seed replays exactly, and the planted
//! bug of an unsynced acknowledgement is found.

use yarn_rm_ha::storage::Failpoints;
use yarn_sim::{SimOptions, Simulation, run_seeds};

/// Seeds `cargo test` runs; `.ci/run` runs thousands more through `yarn-ha sim`.
const SEEDS: u64 = 200;

fn options() -> SimOptions {
    SimOptions::default()
}

#[test]
fn every_invariant_holds_over_the_seeds() {
    let found = run_seeds(0..SEEDS, &options(), 2, &|_| {}).unwrap();
    assert_eq!(found.runs, SEEDS);
    if let Some(failure) = found.failures.first() {
        panic!(
            "seed {} failed ({} of {SEEDS} seeds failed): {:#?}\ntrace:\n{}",
            failure.seed,
            found.failures.len(),
            failure.violations,
            failure.trace.join("\n")
        );
    }
    assert!(
        found.acknowledged > SEEDS as usize * 10,
        "too few writes: {}",
        found.acknowledged
    );
}

#[test]
fn a_seed_replays_to_the_same_trace() {
    for seed in [3, 1_000_003] {
        let first = Simulation::new(seed, options()).run().unwrap();
        let second = Simulation::new(seed, options()).run().unwrap();
        assert!(first.trace.iter().any(|line| line.contains("power loss")
            || line.contains("crash")
            || line.contains("partition")));
        assert_eq!(first.trace, second.trace, "seed {seed} did not replay");
    }
}

#[test]
fn an_acknowledgement_before_the_sync_is_found() {
    let planted = SimOptions {
        failpoints: Failpoints::parse("plant.unflushed-appends").unwrap(),
        ..options()
    };
    let found = run_seeds(0..60, &planted, 2, &|_| {}).unwrap();
    let caught = found.failures.iter().find(|f| {
        f.violations
            .iter()
            .any(|v| v.contains("acknowledged write was lost"))
    });
    assert!(
        caught.is_some(),
        "the planted bug went unnoticed over {} seeds",
        found.runs
    );
}

#[test]
fn an_acknowledgement_before_the_fdatasync_is_found_by_power_losses() {
    let planted = SimOptions {
        failpoints: Failpoints::parse("plant.unsynced-appends").unwrap(),
        ..options()
    };
    let found = run_seeds(0..60, &planted, 2, &|_| {}).unwrap();
    let caught: Vec<_> = found
        .failures
        .iter()
        .filter(|f| {
            f.violations
                .iter()
                .any(|v| v.contains("acknowledged write was lost"))
        })
        .collect();
    assert!(
        !caught.is_empty(),
        "the planted bug went unnoticed over {} seeds",
        found.runs
    );
    // Only a power loss takes what the kernel held: a crash keeps it.
    for failure in caught {
        assert!(
            failure.trace.iter().any(|line| line.contains("power loss")),
            "seed {} lost an acknowledged write without a power loss: {:#?}",
            failure.seed,
            failure.trace
        );
    }
}
