//! The group crash ([`Fault::KillAllRms`]): every ResourceManager is SIGKILLed at once, as in a
//! power cut of the whole group, and all are started again on their storage when healed.
//!
//! Nothing but what each replica flushed survives, so this is the fault that shows whether an
//! acknowledged write was really durable on a majority: a replica that acknowledged an append
//! it had not flushed comes back without it. The crash waits for the workload to have a
//! submission acknowledged since the previous fault healed, so that there is always something
//! to lose.

use std::time::Duration;

use anyhow::Context;
use yarn_nodemanager::executor::Signal;

use crate::chaos_cluster::ChaosCluster;
use crate::cluster_view::ClusterView;
use crate::fault::{Fault, FaultAction, FaultPlan};
use crate::history::HistoryRecorder;

/// How long a group crash waits for the workload to get a submission acknowledged first.
pub(crate) const EVIDENCE_WAIT: Duration = Duration::from_secs(20);

/// Waits, at most [`EVIDENCE_WAIT`], until the workload has had a submission acknowledged at
/// `since_ms` or later (on the run clock); returns whether it had.
///
/// A crash of every replica shows whether acknowledged writes were durable only if something
/// was acknowledged since the replicas last had to flush; on a loaded machine the workload may
/// not have got a submission through by the scheduled time, and a run whose evidence depends on
/// that is a run whose verdict depends on timing. Waiting for the evidence makes a planted
/// unflushed-append bug fail the run whatever the load.
pub(crate) async fn await_acknowledged_write(recorder: &HistoryRecorder, since_ms: u64) -> bool {
    let deadline = tokio::time::Instant::now() + EVIDENCE_WAIT;
    loop {
        if recorder.history().acknowledged_since(since_ms) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The group crash resolved to the replicas it kills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashAction {
    /// Every ResourceManager of the group, in `rm-ids` order.
    pub rms: Vec<String>,
}

/// Plans the crash of every ResourceManager.
///
/// # Errors
///
/// When a ResourceManager is already down: the crash is of a whole, running group.
pub(crate) fn plan(view: &ClusterView) -> Result<FaultPlan, String> {
    if !view.all_rms_running() {
        return Err(format!(
            "only {} of {} ResourceManagers run; the crash takes down a whole running group",
            view.running_rms().len(),
            view.rms.len()
        ));
    }
    Ok(FaultPlan {
        fault: Fault::KillAllRms,
        target: view.rms.join(", "),
        leader: view.leader.clone(),
        targets_leader: view.leader.is_some(),
        nodes: Vec::new(),
        action: FaultAction::Crash(CrashAction {
            rms: view.rms.clone(),
        }),
    })
}

impl CrashAction {
    /// SIGKILLs every replica, one right after the other, before looking at any outcome.
    ///
    /// # Errors
    ///
    /// When a replica had no running process or the signal failed; the others were still
    /// killed.
    pub fn inject(&self, cluster: &ChaosCluster) -> anyhow::Result<()> {
        let outcomes: Vec<anyhow::Result<()>> = self
            .rms
            .iter()
            .map(|rm| cluster.signal(rm, Signal::Kill))
            .collect();
        outcomes.into_iter().collect()
    }

    /// Starts every replica again on its own storage.
    ///
    /// # Errors
    ///
    /// When the supervisor refuses a restart; the message names the replica. The replicas
    /// after it are still restarted.
    pub async fn heal(&self, cluster: &ChaosCluster) -> anyhow::Result<()> {
        let mut first_error = None;
        for rm in &self.rms {
            if let Err(err) = cluster
                .restart(rm)
                .await
                .with_context(|| format!("restarting {rm}"))
            {
                first_error.get_or_insert(err);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(running: &[&str], leader: Option<&str>) -> ClusterView {
        ClusterView::of_three_rms(running, leader)
    }

    #[test]
    fn the_crash_takes_every_replica_and_the_leader_with_them() {
        let plan = Fault::KillAllRms
            .plan(&view(&["rm1", "rm2", "rm3", "nm1"], Some("rm2")), 7)
            .unwrap();
        assert_eq!(plan.target, "rm1, rm2, rm3");
        assert!(plan.targets_leader);
        assert_eq!(plan.leader.as_deref(), Some("rm2"));
        assert!(plan.nodes.is_empty());
        assert_eq!(
            plan.action,
            FaultAction::Crash(CrashAction {
                rms: vec!["rm1".into(), "rm2".into(), "rm3".into()]
            })
        );
    }

    #[test]
    fn a_group_already_missing_a_replica_is_not_crashed() {
        let err = Fault::KillAllRms
            .plan(&view(&["rm1", "rm3", "nm1"], Some("rm1")), 0)
            .unwrap_err();
        assert!(err.contains("only 2 of 3"), "{err}");
    }
}
