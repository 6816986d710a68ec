//! [`TaskStreamRun`]: what one simulated stream of short tasks achieved.

use serde::{Deserialize, Serialize};

/// The figures of one simulated run at one OPPORTUNISTIC share, counted over the measured
/// window (the run after its warm-up).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStreamRun {
    /// The share of the ApplicationMaster's backlog asked for as OPPORTUNISTIC, in percent.
    pub opportunistic_percent: u32,
    /// Tasks that ran to their end, per simulated second.
    pub tasks_per_second: f64,
    /// The mean share of the cluster's memory held by running containers (killed ones until
    /// their kill), from 0 to 1.
    pub utilization: f64,
    /// GUARANTEED tasks that ran to their end.
    pub completed_guaranteed: u64,
    /// OPPORTUNISTIC tasks that ran to their end.
    pub completed_opportunistic: u64,
    /// OPPORTUNISTIC containers a NodeManager killed to make room for GUARANTEED ones.
    pub killed_opportunistic: u64,
    /// OPPORTUNISTIC containers a NodeManager refused because its queue was full.
    pub rejected_opportunistic: u64,
    /// Queued OPPORTUNISTIC containers a NodeManager dropped to meet the RM's queue limit.
    pub shed_opportunistic: u64,
}

impl TaskStreamRun {
    /// Tasks that ran to their end, of both types.
    pub fn completed(&self) -> u64 {
        self.completed_guaranteed + self.completed_opportunistic
    }

    /// How much more throughput this run had than `baseline`, in percent; `None` when the
    /// baseline completed nothing.
    pub fn gain_over(&self, baseline: &TaskStreamRun) -> Option<f64> {
        (baseline.tasks_per_second > 0.0)
            .then(|| (self.tasks_per_second / baseline.tasks_per_second - 1.0) * 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(percent: u32, tasks_per_second: f64) -> TaskStreamRun {
        TaskStreamRun {
            opportunistic_percent: percent,
            tasks_per_second,
            utilization: 0.5,
            completed_guaranteed: 3,
            completed_opportunistic: 4,
            killed_opportunistic: 0,
            rejected_opportunistic: 0,
            shed_opportunistic: 0,
        }
    }

    #[test]
    fn the_gain_is_relative_to_the_baseline_in_percent() {
        let baseline = run(0, 80.0);
        assert_eq!(run(100, 120.0).gain_over(&baseline), Some(50.0));
        assert_eq!(run(50, 60.0).gain_over(&baseline), Some(-25.0));
        assert_eq!(run(100, 1.0).gain_over(&run(0, 0.0)), None);
        assert_eq!(baseline.completed(), 7);
    }
}
