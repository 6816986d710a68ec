//! [`run_seeds`]: many seeds, spread over threads.

use std::ops::Range;
use std::sync::Mutex;

use crate::error::SimError;
use crate::simulation::{SimOptions, SimOutcome, Simulation};

/// What a batch of seeds found.
#[derive(Debug, Default)]
pub struct SeedRuns {
    /// Seeds run.
    pub runs: u64,
    /// Writes acknowledged over every run.
    pub acknowledged: usize,
    /// The runs that found a violation, in seed order.
    pub failures: Vec<SimOutcome>,
}

/// Runs every seed of `seeds` with `options` on `threads` threads (each run is one thread's
/// deterministic simulation; threads only share the work list), calling `progress` after each.
///
/// # Errors
///
/// The first [`SimError`] of a run that could not start, or a panicked thread.
pub fn run_seeds(
    seeds: Range<u64>,
    options: &SimOptions,
    threads: usize,
    progress: &(dyn Fn(&SimOutcome) + Sync),
) -> Result<SeedRuns, SimError> {
    let next = Mutex::new(seeds);
    let found = Mutex::new(SeedRuns::default());
    let take = || next.lock().map_or(None, |mut seeds| seeds.next());
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| -> Result<(), SimError> {
                    while let Some(seed) = take() {
                        let outcome = Simulation::new(seed, options.clone()).run()?;
                        progress(&outcome);
                        let mut found = found.lock().map_err(|_| SimError::Panicked {
                            reason: "a thread panicked holding the results".to_owned(),
                        })?;
                        found.runs += 1;
                        found.acknowledged += outcome.acknowledged;
                        if !outcome.passed() {
                            found.failures.push(outcome);
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        for worker in workers {
            worker.join().map_err(|panic| SimError::Panicked {
                reason: crate::error::panic_message(panic.as_ref()),
            })??;
        }
        Ok(())
    })?;
    let mut found = found.into_inner().map_err(|_| SimError::Panicked {
        reason: "a thread panicked holding the results".to_owned(),
    })?;
    found.failures.sort_by_key(|outcome| outcome.seed);
    Ok(found)
}
