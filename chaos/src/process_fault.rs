//! Process faults: SIGKILL (healed by a restart) and SIGSTOP (healed by SIGCONT) of a
//! ResourceManager or NodeManager.

use anyhow::Context;
use yarn_nodemanager::executor::Signal;

use crate::chaos_cluster::ChaosCluster;
use crate::cluster_view::ClusterView;
use crate::fault::{Fault, FaultAction, FaultPlan, choose};

/// What a process fault does to its daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessSignal {
    /// SIGKILL; healing starts the daemon again (on the same storage and recovery directories).
    Kill,
    /// SIGSTOP; healing sends SIGCONT.
    Stop,
}

/// A process fault resolved to its daemon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessAction {
    /// The daemon's id.
    pub daemon: String,
    /// What is done to it.
    pub signal: ProcessSignal,
}

/// Plans a process fault: the leader, a ResourceManager or a NodeManager, picked by `pick`.
///
/// # Errors
///
/// When no leader is known for a leader fault, when a ResourceManager is already down (one
/// more loss could cost the majority), or when no NodeManager runs.
pub(crate) fn plan(fault: Fault, view: &ClusterView, pick: u64) -> Result<FaultPlan, String> {
    let (daemon, signal) = match fault {
        Fault::KillLeader | Fault::RestartLeader => (leader(view)?, ProcessSignal::Kill),
        Fault::PauseLeader => (leader(view)?, ProcessSignal::Stop),
        Fault::KillRm => {
            whole_group(view)?;
            let rms = view.running_rms();
            let rm = choose(&rms, pick, || "no ResourceManager runs".to_owned())?;
            (rm.to_owned(), ProcessSignal::Kill)
        }
        Fault::KillNm | Fault::PauseNm => {
            let nms = view.running_nms();
            let nm = choose(&nms, pick, || "no NodeManager runs".to_owned())?;
            let signal = if fault == Fault::KillNm {
                ProcessSignal::Kill
            } else {
                ProcessSignal::Stop
            };
            (nm.to_owned(), signal)
        }
        other => return Err(format!("{other} is not a process fault")),
    };
    let is_nm = view.nms.contains(&daemon);
    Ok(FaultPlan {
        fault,
        target: daemon.clone(),
        leader: view.leader.clone(),
        targets_leader: view.leader.as_deref() == Some(daemon.as_str()),
        nodes: if is_nm {
            vec![daemon.clone()]
        } else {
            Vec::new()
        },
        action: FaultAction::Process(ProcessAction { daemon, signal }),
    })
}

/// The leader, if faults on it may be injected now.
fn leader(view: &ClusterView) -> Result<String, String> {
    whole_group(view)?;
    view.leader
        .clone()
        .ok_or_else(|| "no ResourceManager reports ACTIVE".to_owned())
}

/// Refuses to take a ResourceManager away while another is down.
fn whole_group(view: &ClusterView) -> Result<(), String> {
    if view.all_rms_running() {
        Ok(())
    } else {
        Err(format!(
            "only {} of {} ResourceManagers run; another loss could cost the majority",
            view.running_rms().len(),
            view.rms.len()
        ))
    }
}

impl ProcessAction {
    /// Sends SIGKILL or SIGSTOP to the daemon's process.
    ///
    /// # Errors
    ///
    /// When the daemon has no running process or the signal fails.
    pub async fn inject(&self, cluster: &ChaosCluster) -> anyhow::Result<()> {
        let signal = match self.signal {
            ProcessSignal::Kill => Signal::Kill,
            ProcessSignal::Stop => Signal::Stop,
        };
        cluster.signal(&self.daemon, signal)
    }

    /// Starts a killed daemon again, or resumes a stopped one.
    ///
    /// # Errors
    ///
    /// When the supervisor refuses the restart or the signal fails.
    pub async fn heal(&self, cluster: &ChaosCluster) -> anyhow::Result<()> {
        match self.signal {
            ProcessSignal::Kill => cluster
                .restart(&self.daemon)
                .await
                .with_context(|| format!("restarting {}", self.daemon)),
            ProcessSignal::Stop => cluster.signal(&self.daemon, Signal::Cont),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(running: &[&str], leader: Option<&str>) -> ClusterView {
        ClusterView::of_three_rms(running, leader)
    }

    const ALL: &[&str] = &["rm1", "rm2", "rm3", "nm1", "nm2"];

    #[test]
    fn leader_faults_hit_the_leader_and_say_so() {
        let plan = Fault::KillLeader.plan(&view(ALL, Some("rm2")), 0).unwrap();
        assert_eq!(plan.target, "rm2");
        assert!(plan.targets_leader);
        assert_eq!(
            plan.action,
            FaultAction::Process(ProcessAction {
                daemon: "rm2".into(),
                signal: ProcessSignal::Kill
            })
        );
        let pause = Fault::PauseLeader.plan(&view(ALL, Some("rm3")), 9).unwrap();
        assert!(matches!(
            pause.action,
            FaultAction::Process(ProcessAction {
                signal: ProcessSignal::Stop,
                ..
            })
        ));
    }

    #[test]
    fn a_kill_that_could_cost_the_majority_or_has_no_leader_is_unavailable() {
        let one_down = view(&["rm1", "rm2", "nm1"], Some("rm1"));
        assert!(
            Fault::KillRm
                .plan(&one_down, 0)
                .unwrap_err()
                .contains("majority")
        );
        assert!(Fault::KillLeader.plan(&one_down, 0).is_err());
        let leaderless = view(ALL, None);
        assert!(
            Fault::PauseLeader
                .plan(&leaderless, 0)
                .unwrap_err()
                .contains("ACTIVE")
        );
    }

    #[test]
    fn node_faults_pick_a_running_node_and_name_it() {
        let plan = Fault::PauseNm
            .plan(&view(&["rm1", "nm2"], None), 5)
            .unwrap();
        assert_eq!(plan.target, "nm2");
        assert_eq!(plan.nodes, ["nm2"]);
        assert!(!plan.targets_leader);
        assert!(Fault::KillNm.plan(&view(&["rm1"], None), 0).is_err());
    }
}
