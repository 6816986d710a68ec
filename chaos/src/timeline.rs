//! [`TimelineEntry`]: what happened to each scheduled fault.

use serde::{Deserialize, Serialize};

use crate::fault::{Fault, FaultPlan};
use crate::run_clock::RunClock;
use crate::schedule::ScheduledFault;

/// Whether a scheduled fault was injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultStatus {
    /// Injected (and healed unless `heal_error` says otherwise).
    Injected,
    /// Not injected: the cluster did not allow it then (`reason` says why).
    Skipped,
    /// Injection failed (`reason` is the error).
    Failed,
}

/// One scheduled fault and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineEntry {
    /// Its position in the schedule.
    pub seq: usize,
    /// The fault.
    pub fault: Fault,
    /// When the schedule placed it, on the run clock.
    pub scheduled_at_ms: u64,
    /// How long the schedule held it.
    pub hold_ms: u64,
    /// Whether it was injected.
    pub status: FaultStatus,
    /// Why it was skipped, the error it failed with, or how an injected fault took effect
    /// otherwise than planned.
    pub reason: Option<String>,
    /// What it hit (`rm2`, `nm1 <-> ResourceManagers`, `rm1 -> rm3`).
    pub target: Option<String>,
    /// The leader just before it.
    pub leader_before: Option<String>,
    /// Whether it took the leader away.
    pub targets_leader: bool,
    /// The NodeManagers it hit directly.
    pub nodes: Vec<String>,
    /// When it was injected.
    pub injected_at_ms: Option<u64>,
    /// When it was healed.
    pub healed_at_ms: Option<u64>,
    /// The error healing it gave, if any (the final heal-everything step retries).
    pub heal_error: Option<String>,
    /// What injecting and healing did, step by step, for faults made of several steps (a
    /// membership change: the spare started, added, a voter, removed, stopped); empty for the
    /// others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<FaultStep>,
}

/// One step of a fault's injection or healing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultStep {
    /// When it happened, on the run clock.
    pub at_ms: u64,
    /// What happened (`rm4 is a voter (added by rm2)`).
    pub what: String,
}

/// Records a fault's steps as they happen, stamped with the run clock.
#[derive(Debug, Clone)]
pub struct FaultSteps {
    clock: RunClock,
    steps: Vec<FaultStep>,
}

impl FaultSteps {
    /// No steps yet, stamped by `clock`.
    pub fn new(clock: RunClock) -> Self {
        Self {
            clock,
            steps: Vec::new(),
        }
    }

    /// Records `what` as happening now.
    pub fn record(&mut self, what: impl Into<String>) {
        self.steps.push(FaultStep {
            at_ms: self.clock.now_ms(),
            what: what.into(),
        });
    }

    /// The steps recorded, in order.
    pub fn into_steps(self) -> Vec<FaultStep> {
        self.steps
    }
}

impl TimelineEntry {
    /// The entry of a fault that was not injected.
    pub fn not_injected(scheduled: &ScheduledFault, status: FaultStatus, reason: String) -> Self {
        Self {
            seq: scheduled.seq,
            fault: scheduled.fault,
            scheduled_at_ms: scheduled.at_ms,
            hold_ms: scheduled.hold_ms,
            status,
            reason: Some(reason),
            target: None,
            leader_before: None,
            targets_leader: false,
            nodes: Vec::new(),
            injected_at_ms: None,
            healed_at_ms: None,
            heal_error: None,
            steps: Vec::new(),
        }
    }

    /// The entry of a fault injected at `injected_at_ms` as `plan` says.
    pub fn injected(scheduled: &ScheduledFault, plan: &FaultPlan, injected_at_ms: u64) -> Self {
        Self {
            seq: scheduled.seq,
            fault: scheduled.fault,
            scheduled_at_ms: scheduled.at_ms,
            hold_ms: scheduled.hold_ms,
            status: FaultStatus::Injected,
            reason: None,
            target: Some(plan.target.clone()),
            leader_before: plan.leader.clone(),
            targets_leader: plan.targets_leader,
            nodes: plan.nodes.clone(),
            injected_at_ms: Some(injected_at_ms),
            healed_at_ms: None,
            heal_error: None,
            steps: Vec::new(),
        }
    }

    /// When the fault was in force, `(injected, healed)`; an unhealed fault lasts until
    /// `end_ms`. `None` if it was never injected.
    pub fn window(&self, end_ms: u64) -> Option<(u64, u64)> {
        let start = self.injected_at_ms?;
        Some((start, self.healed_at_ms.unwrap_or(end_ms).max(start)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scheduled() -> ScheduledFault {
        ScheduledFault {
            seq: 0,
            at_ms: 3_000,
            fault: Fault::AddRemoveRm,
            hold_ms: 2_000,
            pick: 0,
        }
    }

    #[test]
    fn steps_are_stamped_in_order_and_absent_from_the_json_when_there_are_none() {
        let mut entry = TimelineEntry::not_injected(&scheduled(), FaultStatus::Skipped, "x".into());
        let json = serde_json::to_value(&entry).unwrap();
        assert!(json.get("steps").is_none(), "{json}");
        // Reports written before steps existed still read.
        assert_eq!(
            serde_json::from_value::<TimelineEntry>(json).unwrap(),
            entry
        );

        let mut steps = FaultSteps::new(RunClock::start());
        steps.record("rm4 started on empty storage");
        steps.record(String::from("rm4 stopped"));
        entry.steps = steps.into_steps();
        let whats: Vec<&str> = entry.steps.iter().map(|step| step.what.as_str()).collect();
        assert_eq!(whats, ["rm4 started on empty storage", "rm4 stopped"]);
        assert!(entry.steps[0].at_ms <= entry.steps[1].at_ms);
        let json = serde_json::to_string(&entry).unwrap();
        assert_eq!(serde_json::from_str::<TimelineEntry>(&json).unwrap(), entry);
    }
}
