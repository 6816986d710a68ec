//! Crashes of ResourceManager machines: every replica SIGKILLed at once ([`Fault::KillAllRms`]),
//! and power losses ([`Fault::PowerLoss`] of one replica, [`Fault::PowerLossAllRms`] of the
//! whole group) that also drop every write the replicas' volatile disks held unsynced. The
//! replicas are started again on their storage when healed.
//!
//! A group crash shows whether an acknowledged write was really durable on a majority: a
//! replica that acknowledged an append it had not flushed comes back without it after a
//! SIGKILL, and one that acknowledged an append it had not fsync'd comes back without it after
//! a power loss. A group crash waits for the workload to have a submission acknowledged since
//! the previous fault healed, so that there is always something to lose.

use std::time::Duration;

use anyhow::Context;
use yarn_nodemanager::executor::Signal;

use crate::chaos_cluster::ChaosCluster;
use crate::cluster_view::ClusterView;
use crate::fault::{Fault, FaultAction, FaultPlan, choose};
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

/// A crash resolved to the replicas it kills, and whether their disks lose power too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashAction {
    /// The ResourceManagers killed, in `rm-ids` order.
    pub rms: Vec<String>,
    /// Whether their machines lose power: once each process is gone, every write its disk
    /// held unsynced is dropped (volatile disks only).
    pub power_loss: bool,
}

/// Plans a crash: of every ResourceManager ([`Fault::KillAllRms`], [`Fault::PowerLossAllRms`])
/// or of one picked by `pick`, maybe the leader ([`Fault::PowerLoss`]).
///
/// # Errors
///
/// When a ResourceManager is already down (a group crash is of a whole running group, and one
/// more loss could cost the majority), or a power loss is drawn in a run on real disks.
pub(crate) fn plan(fault: Fault, view: &ClusterView, pick: u64) -> Result<FaultPlan, String> {
    let power_loss = fault.is_power_loss();
    if let (true, Some(missing)) = (power_loss, &view.volatile_disks_missing) {
        return Err(missing.clone());
    }
    if !view.all_rms_running() {
        return Err(format!(
            "only {} of {} ResourceManagers run; a crash takes ResourceManagers from a whole \
             running group",
            view.running_rms().len(),
            view.rms.len()
        ));
    }
    let rms = if fault == Fault::PowerLoss {
        let rms = view.running_rms();
        vec![choose(&rms, pick, || "no ResourceManager runs".to_owned())?.to_owned()]
    } else {
        view.rms.clone()
    };
    let targets_leader = view
        .leader
        .as_ref()
        .is_some_and(|leader| rms.contains(leader));
    Ok(FaultPlan {
        fault,
        target: rms.join(", "),
        leader: view.leader.clone(),
        targets_leader,
        nodes: Vec::new(),
        action: FaultAction::Crash(CrashAction { rms, power_loss }),
    })
}

impl CrashAction {
    /// SIGKILLs every replica, one right after the other; for a power loss then waits for each
    /// killed one to be gone and drops what its disk held unsynced. Returns a note for the timeline: what each disk lost, and any replica that
    /// could not be killed or kept its power. Once one replica is down the fault counts as
    /// injected, so that healing restarts it.
    ///
    /// # Errors
    ///
    /// When no replica could be killed; the message names each and why.
    pub async fn inject(&self, cluster: &ChaosCluster) -> anyhow::Result<Option<String>> {
        let mut killed = Vec::new();
        let mut notes = Vec::new();
        for rm in &self.rms {
            match cluster.signal(rm, Signal::Kill) {
                Ok(()) => killed.push(rm),
                Err(err) => notes.push(format!("{rm} was not killed: {err:#}")),
            }
        }
        anyhow::ensure!(!killed.is_empty(), "{}", notes.join("; "));
        if self.power_loss {
            for rm in killed {
                notes.push(match cluster.power_loss(rm).await {
                    Ok(lost) => format!(
                        "{rm} lost {} unsynced bytes in {} files",
                        lost.bytes, lost.files
                    ),
                    Err(err) => format!("{rm} kept its power: {err:#}"),
                });
            }
        }
        Ok((!notes.is_empty()).then(|| notes.join("; ")))
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
                rms: vec!["rm1".into(), "rm2".into(), "rm3".into()],
                power_loss: false,
            })
        );
    }

    #[test]
    fn a_group_already_missing_a_replica_is_not_crashed() {
        let err = Fault::KillAllRms
            .plan(&view(&["rm1", "rm3", "nm1"], Some("rm1")), 0)
            .unwrap_err();
        assert!(err.contains("only 2 of 3"), "{err}");
        let err = Fault::PowerLoss
            .plan(&view(&["rm1", "rm3", "nm1"], Some("rm1")), 0)
            .unwrap_err();
        assert!(err.contains("only 2 of 3"), "{err}");
    }

    #[test]
    fn a_power_loss_takes_one_replica_picked_by_the_seed_or_the_whole_group() {
        let running = view(&["rm1", "rm2", "rm3", "nm1"], Some("rm2"));
        let one = Fault::PowerLoss.plan(&running, 1).unwrap();
        assert_eq!(one.target, "rm2");
        assert!(one.targets_leader);
        assert_eq!(
            one.action,
            FaultAction::Crash(CrashAction {
                rms: vec!["rm2".into()],
                power_loss: true,
            })
        );
        let follower = Fault::PowerLoss.plan(&running, 2).unwrap();
        assert_eq!(follower.target, "rm3");
        assert!(!follower.targets_leader);
        let all = Fault::PowerLossAllRms.plan(&running, 0).unwrap();
        assert_eq!(all.target, "rm1, rm2, rm3");
        assert!(matches!(
            all.action,
            FaultAction::Crash(CrashAction {
                power_loss: true,
                ..
            })
        ));
    }

    #[test]
    fn a_power_loss_on_real_disks_is_refused_with_the_reason() {
        let mut real = view(&["rm1", "rm2", "rm3", "nm1"], Some("rm2"));
        real.volatile_disks_missing = Some("on real disks (run with --disks volatile)".into());
        for fault in [Fault::PowerLoss, Fault::PowerLossAllRms] {
            let err = fault.plan(&real, 0).unwrap_err();
            assert!(err.contains("--disks volatile"), "{fault}: {err}");
        }
        assert!(Fault::KillAllRms.plan(&real, 0).is_ok());
    }
}
