//! [`FaultSchedule`]: the seeded timeline of faults a run injects.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use yarn_minicluster::SplitMix64;

use crate::fault::Fault;

/// How faults are spaced: a quiet start, then one fault at a time, each followed by a quiet gap
/// in which the cluster recovers (a restarted replica catches up, NodeManagers resync).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacing {
    /// No fault starts before this.
    pub warmup: Duration,
    /// The shortest quiet time after a fault is healed.
    pub min_gap: Duration,
    /// The longest quiet time after a fault is healed.
    pub max_gap: Duration,
}

impl Default for Pacing {
    /// 3 s of warm-up, then 2 to 4 s between faults.
    fn default() -> Self {
        Self {
            warmup: Duration::from_secs(3),
            min_gap: Duration::from_secs(2),
            max_gap: Duration::from_secs(4),
        }
    }
}

/// One fault of the schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledFault {
    /// Its position in the schedule, from 0.
    pub seq: usize,
    /// When it is injected, in milliseconds after the workload started.
    pub at_ms: u64,
    /// The fault.
    pub fault: Fault,
    /// How long it is held before healing, in milliseconds.
    pub hold_ms: u64,
    /// The number that picks its target among the candidates when it is injected.
    pub pick: u64,
}

/// The faults of one run, in injection order. A pure function of the seed, the fault list,
/// the duration and the pacing: the same inputs give the same schedule in every build.
///
/// Which daemon a fault hits can still differ between two runs with one seed, since "the
/// leader" is whoever leads at that moment; the pick that chooses among candidates is fixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultSchedule {
    /// The seed it came from.
    pub seed: u64,
    /// The faults, injected one at a time.
    pub faults: Vec<ScheduledFault>,
}

impl FaultSchedule {
    /// Draws faults from `faults` (uniformly, with repetition) until `duration` is filled:
    /// each starts after the previous one's hold and a gap, and none starts after `duration`.
    /// An empty `faults` gives an empty schedule.
    pub fn generate(seed: u64, faults: &[Fault], duration: Duration, pacing: &Pacing) -> Self {
        let mut rng = SplitMix64::new(seed);
        let mut scheduled = Vec::new();
        let end = millis(duration);
        let mut at = millis(pacing.warmup);
        let count = u64::try_from(faults.len()).unwrap_or(u64::MAX);
        while count > 0 && at < end {
            let index = usize::try_from(rng.next_u64() % count).unwrap_or(0);
            let fault = faults[index];
            let (low, high) = fault.hold_range();
            let hold_ms = rng.between(millis(low), millis(high));
            let pick = rng.next_u64();
            scheduled.push(ScheduledFault {
                seq: scheduled.len(),
                at_ms: at,
                fault,
                hold_ms,
                pick,
            });
            at += hold_ms + rng.between(millis(pacing.min_gap), millis(pacing.max_gap));
        }
        Self {
            seed,
            faults: scheduled,
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(seed: u64) -> FaultSchedule {
        FaultSchedule::generate(
            seed,
            &Fault::ALL,
            Duration::from_secs(60),
            &Pacing::default(),
        )
    }

    #[test]
    fn the_same_seed_gives_the_same_schedule_and_another_seed_another() {
        let first = schedule(42);
        assert_eq!(first, schedule(42));
        assert!(first.faults.len() >= 5, "{first:#?}");
        assert_ne!(first.faults, schedule(43).faults);
    }

    #[test]
    fn faults_fit_the_duration_one_at_a_time_with_their_holds() {
        let pacing = Pacing::default();
        for seed in 0..20 {
            let schedule = schedule(seed);
            let mut previous_end = 0;
            for (seq, fault) in schedule.faults.iter().enumerate() {
                assert_eq!(fault.seq, seq);
                assert!(fault.at_ms < 60_000);
                assert!(fault.at_ms >= previous_end + millis(pacing.min_gap) || seq == 0);
                let (low, high) = fault.fault.hold_range();
                assert!((millis(low)..=millis(high)).contains(&fault.hold_ms));
                previous_end = fault.at_ms + fault.hold_ms;
            }
            assert!(schedule.faults[0].at_ms == millis(pacing.warmup));
        }
    }

    #[test]
    fn only_the_listed_faults_are_drawn_and_an_empty_list_draws_none() {
        let only = [Fault::PauseNm, Fault::SlowNetwork];
        let schedule =
            FaultSchedule::generate(9, &only, Duration::from_secs(120), &Pacing::default());
        assert!(schedule.faults.iter().all(|f| only.contains(&f.fault)));
        assert!(schedule.faults.iter().any(|f| f.fault == Fault::PauseNm));
        let none = FaultSchedule::generate(9, &[], Duration::from_secs(120), &Pacing::default());
        assert!(none.faults.is_empty());
    }
}
