//! The invariants a chaos run checks, one module each: pure functions of the workload's
//! [`History`], the [`Observations`], the fault timeline and the failovers, each returning a
//! [`Verdict`] with its evidence.
//!
//! ```text
//!  History (invoke/complete/outcome) ─┐
//!  Observations (leaders, writes,     ├─▶ CheckInput ─▶ Invariant::check ─▶ Verdict
//!   node containers, final reports,   │                  (one module per invariant)
//!   replica statuses, log panics)    ─┤
//!  timeline + failovers ─────────────┘
//! ```
//!
//! Each checker has unit tests that feed it a synthetic history that breaks it and expect
//! [`Verdict::Violated`], so a checker that cannot fail is caught.

mod acknowledged_submissions;
mod allocations_survive;
mod containers_survive;
mod guaranteed_capacity;
mod no_panics;
mod replicas_converge;
mod single_leader;
mod surviving_ams_succeed;
mod tokens_survive;
mod unique_application_ids;
mod unique_container_ids;

#[cfg(test)]
pub(crate) mod fixtures;

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::failover::Failover;
use super::history::{History, OperationKind};
use super::observations::{Observations, application_of_container};
use super::timeline::TimelineEntry;

pub use replicas_converge::{replicas_agree, replicas_settled};

/// How long after a NodeManager fault is healed its effects may still show (re-registration,
/// retried container starts), during which an application touching the node is excused.
pub const NODE_FAULT_GRACE_MS: u64 = 10_000;

/// At most this many items are named in one piece of evidence.
const EVIDENCE_ITEMS: usize = 8;

/// What a checker concluded, with the evidence either way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", content = "evidence", rename_all = "kebab-case")]
pub enum Verdict {
    /// The invariant held; the evidence says over what.
    Held(String),
    /// Nothing in the run could have broken it (no failover happened, say); not a failure.
    NotExercised(String),
    /// The invariant was broken; the evidence names where.
    Violated(String),
}

impl Verdict {
    /// Whether the run may still pass: held or not exercised.
    pub fn passed(&self) -> bool {
        !matches!(self, Verdict::Violated(_))
    }

    /// The evidence.
    pub fn evidence(&self) -> &str {
        match self {
            Verdict::Held(evidence)
            | Verdict::NotExercised(evidence)
            | Verdict::Violated(evidence) => evidence,
        }
    }

    /// `held`, `not exercised` or `VIOLATED`.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Held(_) => "held",
            Verdict::NotExercised(_) => "not exercised",
            Verdict::Violated(_) => "VIOLATED",
        }
    }
}

/// Everything a checker reads.
#[derive(Debug, Clone, Copy)]
pub struct CheckInput<'a> {
    /// The workload's operations.
    pub history: &'a History,
    /// What the observers saw.
    pub observations: &'a Observations,
    /// Every scheduled fault and what became of it.
    pub timeline: &'a [TimelineEntry],
    /// The faults that took the leader away, with their first committed write.
    pub failovers: &'a [Failover],
    /// When the run's observations ended, on the run clock.
    pub end_ms: u64,
}

/// An invariant of a chaos run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Invariant {
    /// At most one leader per Raft term.
    SingleLeaderPerTerm,
    /// Every acknowledged submission exists after healing and reaches a final state.
    AcknowledgedSubmissionsSurvive,
    /// No container id is issued twice.
    UniqueContainerIds,
    /// No application id is handed out twice.
    UniqueApplicationIds,
    /// No node runs more GUARANTEED resources than its capacity.
    GuaranteedWithinCapacity,
    /// No acknowledged allocation is lost by a failover.
    AllocationsSurviveFailover,
    /// Every application whose first ApplicationMaster kept running finishes SUCCEEDED.
    SurvivingAmsSucceed,
    /// Every replica converges to the same state.
    ReplicasConverge,
    /// Containers running before a failover are still running after it.
    ContainersSurviveFailover,
    /// Tokens issued before a failover still validate after it.
    TokensSurviveFailover,
    /// No daemon or container panicked.
    NoPanics,
}

impl Invariant {
    /// Every invariant, in report order.
    pub const ALL: [Invariant; 11] = [
        Invariant::SingleLeaderPerTerm,
        Invariant::AcknowledgedSubmissionsSurvive,
        Invariant::UniqueContainerIds,
        Invariant::UniqueApplicationIds,
        Invariant::GuaranteedWithinCapacity,
        Invariant::AllocationsSurviveFailover,
        Invariant::SurvivingAmsSucceed,
        Invariant::ReplicasConverge,
        Invariant::ContainersSurviveFailover,
        Invariant::TokensSurviveFailover,
        Invariant::NoPanics,
    ];

    /// The invariant's name in the report and `chaos list`.
    pub fn name(self) -> &'static str {
        match self {
            Invariant::SingleLeaderPerTerm => "single-leader-per-term",
            Invariant::AcknowledgedSubmissionsSurvive => "acknowledged-submissions-survive",
            Invariant::UniqueContainerIds => "unique-container-ids",
            Invariant::UniqueApplicationIds => "unique-application-ids",
            Invariant::GuaranteedWithinCapacity => "guaranteed-within-capacity",
            Invariant::AllocationsSurviveFailover => "allocations-survive-failover",
            Invariant::SurvivingAmsSucceed => "surviving-ams-succeed",
            Invariant::ReplicasConverge => "replicas-converge",
            Invariant::ContainersSurviveFailover => "containers-survive-failover",
            Invariant::TokensSurviveFailover => "tokens-survive-failover",
            Invariant::NoPanics => "no-panics",
        }
    }

    /// One line saying what is checked and from what.
    pub fn description(self) -> &'static str {
        match self {
            Invariant::SingleLeaderPerTerm => {
                "no Raft term has two leaders, by every replica's own report (polled past the \
                 proxies)"
            }
            Invariant::AcknowledgedSubmissionsSurvive => {
                "every submission a client saw succeed exists after healing and reaches \
                 FINISHED, FAILED or KILLED"
            }
            Invariant::UniqueContainerIds => {
                "no container id appears on two nodes or with two shapes, in NodeManager \
                 listings, RM container reports and ApplicationMaster diagnostics"
            }
            Invariant::UniqueApplicationIds => {
                "no application id is handed out twice (the write prober's and the workload's \
                 GetNewApplication answers): a repeat means a committed entry was lost"
            }
            Invariant::GuaranteedWithinCapacity => {
                "no NodeManager listing shows RUNNING GUARANTEED containers above the node's \
                 memory or vcores"
            }
            Invariant::AllocationsSurviveFailover => {
                "a container the RM listed for an attempt before a failover is listed by the \
                 new leader too, unless it completed"
            }
            Invariant::SurvivingAmsSucceed => {
                "every application still on its first attempt finishes SUCCEEDED, unless a \
                 NodeManager it used was faulted"
            }
            Invariant::ReplicasConverge => {
                "after healing every replica reports the same applied index, then the same \
                 digest of its state machine"
            }
            Invariant::ContainersSurviveFailover => {
                "containers running before a failover are not killed by it (no ABORTED or \
                 KILLED_BY_RESOURCEMANAGER end within 10 s of the new leader)"
            }
            Invariant::TokensSurviveFailover => {
                "the token probe's AMRMToken, container tokens and NM tokens from before a \
                 failover are accepted after it; no call or task is refused for a token"
            }
            Invariant::NoPanics => "no daemon or container log reports a panic",
        }
    }

    /// Checks the invariant.
    pub fn check(self, input: &CheckInput<'_>) -> Verdict {
        match self {
            Invariant::SingleLeaderPerTerm => single_leader::check(input),
            Invariant::AcknowledgedSubmissionsSurvive => acknowledged_submissions::check(input),
            Invariant::UniqueContainerIds => unique_container_ids::check(input),
            Invariant::UniqueApplicationIds => unique_application_ids::check(input),
            Invariant::GuaranteedWithinCapacity => guaranteed_capacity::check(input),
            Invariant::AllocationsSurviveFailover => allocations_survive::check(input),
            Invariant::SurvivingAmsSucceed => surviving_ams_succeed::check(input),
            Invariant::ReplicasConverge => replicas_converge::check(input),
            Invariant::ContainersSurviveFailover => containers_survive::check(input),
            Invariant::TokensSurviveFailover => tokens_survive::check(input),
            Invariant::NoPanics => no_panics::check(input),
        }
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One invariant's result in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvariantResult {
    /// The invariant.
    pub invariant: Invariant,
    /// What it checks.
    pub description: String,
    /// The verdict and its evidence.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// Checks every invariant.
pub fn check_all(input: &CheckInput<'_>) -> Vec<InvariantResult> {
    Invariant::ALL
        .into_iter()
        .map(|invariant| InvariantResult {
            invariant,
            description: invariant.description().to_owned(),
            verdict: invariant.check(input),
        })
        .collect()
}

/// `items` joined with commas, at most [`EVIDENCE_ITEMS`] of them, then how many more.
pub(crate) fn listing(items: &[String]) -> String {
    let mut text = items
        .iter()
        .take(EVIDENCE_ITEMS)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > EVIDENCE_ITEMS {
        text.push_str(&format!("; and {} more", items.len() - EVIDENCE_ITEMS));
    }
    text
}

/// Seconds on the run clock, for evidence.
pub(crate) fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// When each NodeManager fault was in force, widened by [`NODE_FAULT_GRACE_MS`]: (node, from,
/// to, fault name and seq).
pub(crate) fn node_fault_windows(input: &CheckInput<'_>) -> Vec<(String, u64, u64, String)> {
    input
        .timeline
        .iter()
        .filter_map(|entry| {
            let (from, to) = entry.window(input.end_ms)?;
            Some(
                entry
                    .nodes
                    .iter()
                    .map(move |node| {
                        (
                            node.clone(),
                            from,
                            to + NODE_FAULT_GRACE_MS,
                            format!("{} #{}", entry.fault, entry.seq),
                        )
                    })
                    .collect::<Vec<_>>(),
            )
        })
        .flatten()
        .collect()
}

/// When an application lived, from the first submission call to its final report.
pub(crate) fn application_window(input: &CheckInput<'_>, application_id: &str) -> (u64, u64) {
    let start = input
        .history
        .operations
        .iter()
        .filter(|operation| {
            matches!(&operation.kind, OperationKind::SubmitApplication { application_id: id }
                if id == application_id)
        })
        .map(|operation| operation.invoke_ms)
        .min()
        .unwrap_or(0);
    let end = input
        .observations
        .applications
        .iter()
        .find(|app| app.application_id == application_id)
        .and_then(|app| app.report.as_ref())
        .filter(|report| report.is_final())
        .map_or(input.end_ms, |report| report.observed_at_ms);
    (start, end.max(start))
}

/// The NodeManagers an application's containers were seen on: in NodeManager listings and in
/// its ApplicationMaster's diagnostics.
pub(crate) fn application_nodes(input: &CheckInput<'_>, application_id: &str) -> BTreeSet<String> {
    let mut nodes = BTreeSet::new();
    for snapshot in &input.observations.node_snapshots {
        if snapshot.containers.iter().any(|container| {
            application_of_container(&container.id).as_deref() == Some(application_id)
        }) {
            nodes.insert(snapshot.node.clone());
        }
    }
    if let Some(report) = input
        .observations
        .applications
        .iter()
        .find(|app| app.application_id == application_id)
        .and_then(|app| app.report.as_ref())
    {
        for result in yarn_applications::dshell::parse_diagnostics(&report.diagnostics) {
            let node = input
                .observations
                .node_name(&result.node)
                .map_or(result.node.clone(), str::to_owned);
            nodes.insert(node);
        }
    }
    nodes
}

/// YARN's exit status of an OPPORTUNISTIC container the NodeManager killed to make room for
/// GUARANTEED work (`KILLED_BY_CONTAINER_SCHEDULER`).
const PREEMPTED_FOR_GUARANTEED: i32 = -108;

/// Why an application is excused from having to succeed: a NodeManager it used was faulted
/// while it lived, every task that failed was an OPPORTUNISTIC container preempted for
/// GUARANTEED work (which YARN allows at any time, fault or not), or the harness killed it
/// itself (the token probe's, when it could not finish it). `None` when nothing excuses it.
pub(crate) fn excuse(input: &CheckInput<'_>, application_id: &str) -> Option<String> {
    node_fault_excuse(input, application_id)
        .or_else(|| preemption_excuse(input, application_id))
        .or_else(|| {
            input
                .history
                .killed_by_harness(application_id)
                .then(|| "killed by the harness, which could not finish it".to_owned())
        })
}

fn preemption_excuse(input: &CheckInput<'_>, application_id: &str) -> Option<String> {
    let report = input
        .observations
        .applications
        .iter()
        .find(|app| app.application_id == application_id)?
        .report
        .as_ref()?;
    let failed: Vec<i32> = yarn_applications::dshell::parse_diagnostics(&report.diagnostics)
        .iter()
        .filter(|result| !result.succeeded())
        .map(|result| result.exit_status)
        .collect();
    (!failed.is_empty()
        && failed
            .iter()
            .all(|status| *status == PREEMPTED_FOR_GUARANTEED))
    .then(|| {
        format!(
            "{} OPPORTUNISTIC task(s) preempted for GUARANTEED work",
            failed.len()
        )
    })
}

/// Why an application is excused because a NodeManager it used was faulted while it lived.
fn node_fault_excuse(input: &CheckInput<'_>, application_id: &str) -> Option<String> {
    let (start, end) = application_window(input, application_id);
    let nodes = application_nodes(input, application_id);
    node_fault_windows(input)
        .into_iter()
        .find(|(node, from, to, _)| nodes.contains(node) && *from <= end && start <= *to)
        .map(|(node, _, _, fault)| format!("{node} hit by {fault}"))
}
