//! [`TimelineEntry`]: what happened to each scheduled fault.

use serde::{Deserialize, Serialize};

use super::fault::{Fault, FaultPlan};
use super::schedule::ScheduledFault;

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
        }
    }

    /// When the fault was in force, `(injected, healed)`; an unhealed fault lasts until
    /// `end_ms`. `None` if it was never injected.
    pub fn window(&self, end_ms: u64) -> Option<(u64, u64)> {
        let start = self.injected_at_ms?;
        Some((start, self.healed_at_ms.unwrap_or(end_ms).max(start)))
    }
}
