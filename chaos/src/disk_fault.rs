//! Disk faults: a ResourceManager restarted with a storage failpoint armed, so its Raft log and
//! vote writes stall or fail as on a stalled or full disk; healed by restarting it without.
//!
//! Failpoints exist only in test builds of `yarn-ha` (the `failpoints` feature of
//! `yarn-rm-ha`), and a replica reads them once at start from `YARN_HA_FAILPOINTS`, so arming
//! one means restarting the replica with the variable set. With a binary built without them,
//! these faults are skipped as unavailable, with the reason.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Context;
use yarn_nodemanager::executor::Signal;
use yarn_rm_ha::storage::FAILPOINTS_VARIABLE;

use crate::chaos_cluster::ChaosCluster;
use crate::cluster_view::ClusterView;
use crate::fault::{Fault, FaultAction, FaultPlan, choose};

/// How long every Raft log append and vote write of a stalled disk waits: longer than the
/// election timeout (200-300 ms), so a stalled leader cannot keep its followers.
pub const DISK_STALL: Duration = Duration::from_millis(500);

/// The storage failpoint a disk fault arms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskFailpoint {
    /// Every write waits this long first.
    Stall(Duration),
    /// Every write fails with ENOSPC; the replica's Raft stops and the process exits.
    Full,
}

impl DiskFailpoint {
    /// The failpoint as `YARN_HA_FAILPOINTS` takes it (`storage.stall=500ms`, `storage.full`).
    pub fn spec(self) -> String {
        match self {
            Self::Stall(stall) => format!("storage.stall={}ms", stall.as_millis()),
            Self::Full => "storage.full".to_owned(),
        }
    }
}

/// A disk fault resolved to its ResourceManager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskAction {
    /// The rm id.
    pub daemon: String,
    /// The failpoint it is restarted with.
    pub failpoint: DiskFailpoint,
}

/// Plans a disk fault on a ResourceManager picked by `pick` (maybe the leader).
///
/// # Errors
///
/// When the binary takes no failpoints, when a ResourceManager is already down (the restart
/// takes this one away for a moment, and a full disk for good until healed), or when none runs.
pub(crate) fn plan(fault: Fault, view: &ClusterView, pick: u64) -> Result<FaultPlan, String> {
    let failpoint = match fault {
        Fault::StallDisk => DiskFailpoint::Stall(DISK_STALL),
        Fault::FillDisk => DiskFailpoint::Full,
        other => return Err(format!("{other} is not a disk fault")),
    };
    if let Some(missing) = &view.failpoints_missing {
        return Err(format!(
            "unavailable: needs a yarn-ha with failpoints; {missing}"
        ));
    }
    if !view.all_rms_running() {
        return Err(format!(
            "only {} of {} ResourceManagers run; another loss could cost the majority",
            view.running_rms().len(),
            view.rms.len()
        ));
    }
    let rms = view.running_rms();
    let daemon = choose(&rms, pick, || "no ResourceManager runs".to_owned())?.to_owned();
    Ok(FaultPlan {
        fault,
        target: daemon.clone(),
        leader: view.leader.clone(),
        targets_leader: view.leader.as_deref() == Some(daemon.as_str()),
        nodes: Vec::new(),
        action: FaultAction::Disk(DiskAction { daemon, failpoint }),
    })
}

impl DiskAction {
    /// SIGKILLs the replica and starts it again with the failpoint in its environment.
    ///
    /// # Errors
    ///
    /// When the signal or the restart fail; the message names the replica.
    pub async fn inject(&self, cluster: &ChaosCluster) -> anyhow::Result<()> {
        cluster.signal(&self.daemon, Signal::Kill)?;
        let env = BTreeMap::from([(FAILPOINTS_VARIABLE.to_owned(), self.failpoint.spec())]);
        cluster
            .restart_with_env(&self.daemon, env)
            .await
            .with_context(|| {
                format!(
                    "restarting {} with {FAILPOINTS_VARIABLE}={}",
                    self.daemon,
                    self.failpoint.spec()
                )
            })
    }

    /// SIGKILLs the replica if it still runs (on a full disk it stops by itself) and starts it
    /// again without the failpoint.
    ///
    /// # Errors
    ///
    /// When the restart fails; the message names the replica.
    pub async fn heal(&self, cluster: &ChaosCluster) -> anyhow::Result<()> {
        if cluster.is_running(&self.daemon)? {
            // It may exit on its own between the look and the signal; the restart below
            // reports a replica that is truly stuck.
            if let Err(err) = cluster.signal(&self.daemon, Signal::Kill) {
                tracing::debug!("killing {} to heal its disk: {err:#}", self.daemon);
            }
        }
        cluster
            .restart(&self.daemon)
            .await
            .with_context(|| format!("restarting {} without failpoints", self.daemon))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(failpoints_missing: Option<&str>, running: &[&str]) -> ClusterView {
        ClusterView {
            rms: vec!["rm1".into(), "rm2".into(), "rm3".into()],
            nms: vec!["nm1".into()],
            leader: Some("rm2".into()),
            running: running.iter().map(|id| (*id).to_owned()).collect(),
            failpoints_missing: failpoints_missing.map(str::to_owned),
            delay_missing: None,
            volatile_disks_missing: None,
        }
    }

    const ALL: &[&str] = &["rm1", "rm2", "rm3", "nm1"];

    #[test]
    fn disk_faults_restart_a_picked_replica_with_their_failpoint() {
        let stall = Fault::StallDisk.plan(&view(None, ALL), 1).unwrap();
        assert_eq!(stall.target, "rm2");
        assert!(stall.targets_leader);
        assert_eq!(
            stall.action,
            FaultAction::Disk(DiskAction {
                daemon: "rm2".into(),
                failpoint: DiskFailpoint::Stall(DISK_STALL)
            })
        );
        let fill = Fault::FillDisk.plan(&view(None, ALL), 2).unwrap();
        assert_eq!(fill.target, "rm3");
        assert!(!fill.targets_leader);
        assert_eq!(
            DiskFailpoint::Stall(DISK_STALL).spec(),
            "storage.stall=500ms"
        );
        assert_eq!(DiskFailpoint::Full.spec(), "storage.full");
    }

    #[test]
    fn without_failpoints_or_with_a_replica_down_a_disk_fault_is_unavailable() {
        let missing = view(Some("built without the failpoints feature"), ALL);
        for fault in [Fault::StallDisk, Fault::FillDisk] {
            let reason = fault.plan(&missing, 0).unwrap_err();
            assert!(
                reason.starts_with("unavailable") && reason.contains("failpoints feature"),
                "{reason}"
            );
        }
        let one_down = view(None, &["rm1", "rm2", "nm1"]);
        assert!(
            Fault::FillDisk
                .plan(&one_down, 0)
                .unwrap_err()
                .contains("majority")
        );
    }
}
