//! [`Fault`]: every fault a chaos run can inject, and [`FaultPlan`]: one resolved against the
//! cluster, ready to inject and heal.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::chaos_cluster::ChaosCluster;
use crate::cluster_view::ClusterView;
use crate::crash_fault::CrashAction;
use crate::disk_fault::DiskAction;
use crate::leadership_fault::LeadershipAction;
use crate::membership_fault::MembershipAction;
use crate::network_fault::NetworkAction;
use crate::process_fault::ProcessAction;
use crate::timeline::FaultSteps;
use crate::{
    crash_fault, disk_fault, leadership_fault, membership_fault, network_fault, process_fault,
};

/// A kind of fault. Each has a name (`chaos list`, `--faults`, the report), a description, how
/// long it is held, and [`plan`](Fault::plan): whether it can be injected now and on what.
///
/// The families live in their own files: processes ([`process_fault`]), the network through
/// the proxies ([`network_fault`]), leadership ([`leadership_fault`]), disks
/// ([`disk_fault`], only with a binary built with failpoints), Raft membership
/// ([`membership_fault`]) and crashes of machines: of the whole group, and power losses
/// ([`crash_fault`], power losses only with volatile disks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// SIGKILL the leader; restart it when healed.
    KillLeader,
    /// SIGKILL a ResourceManager picked by the seed (maybe the leader); restart it when healed.
    KillRm,
    /// SIGKILL a NodeManager picked by the seed; restart it (on its recovery directory) when
    /// healed.
    KillNm,
    /// SIGKILL the leader and start it again at once.
    RestartLeader,
    /// SIGSTOP the leader for longer than the election timeout; SIGCONT when healed.
    PauseLeader,
    /// SIGSTOP a NodeManager; SIGCONT when healed.
    PauseNm,
    /// Partition the leader from every other process (peers, NodeManagers, clients).
    IsolateLeader,
    /// Partition a follower from every other process.
    IsolateFollower,
    /// Cut a NodeManager (and the containers it runs) off from the ResourceManagers.
    CutNm,
    /// One-way partition: everything sent to the leader is lost; what it sends arrives.
    DropToLeader,
    /// One-way partition: everything the leader sends is lost; what is sent to it arrives.
    DropFromLeader,
    /// Add latency (20 to 200 ms each way, picked by the seed) to every proxied link.
    SlowNetwork,
    /// Ask the leader to hand leadership to a follower (admin TransferLeadership).
    TransferLeadership,
    /// Restart a ResourceManager picked by the seed (maybe the leader) with every Raft log
    /// append and vote write stalled; restart it without when healed. Needs failpoints.
    StallDisk,
    /// Restart a ResourceManager picked by the seed (maybe the leader) with every Raft log
    /// append and vote write failing with ENOSPC, which stops it; restart it without when
    /// healed. Needs failpoints.
    FillDisk,
    /// Start the spare ResourceManager on empty storage and add it to the Raft group as a
    /// voter through the leader; remove it again and stop it when healed.
    AddRemoveRm,
    /// SIGKILL every ResourceManager at once; restart them all when healed.
    KillAllRms,
    /// Cut the power of a ResourceManager's machine picked by the seed (maybe the leader's):
    /// SIGKILL it, then drop every write its disk held unsynced; restart it when healed. Needs
    /// volatile disks.
    PowerLoss,
    /// Cut the power of every ResourceManager's machine at once (a rack losing power); restart
    /// them all when healed. Needs volatile disks.
    PowerLossAllRms,
}

impl Fault {
    /// Every fault, in the order `chaos list` prints them.
    pub const ALL: [Fault; 19] = [
        Fault::KillLeader,
        Fault::KillRm,
        Fault::KillNm,
        Fault::RestartLeader,
        Fault::PauseLeader,
        Fault::PauseNm,
        Fault::IsolateLeader,
        Fault::IsolateFollower,
        Fault::CutNm,
        Fault::DropToLeader,
        Fault::DropFromLeader,
        Fault::SlowNetwork,
        Fault::TransferLeadership,
        Fault::StallDisk,
        Fault::FillDisk,
        Fault::AddRemoveRm,
        Fault::KillAllRms,
        Fault::PowerLoss,
        Fault::PowerLossAllRms,
    ];

    /// The fault's name, as `--faults` and the report spell it.
    pub fn name(self) -> &'static str {
        match self {
            Fault::KillLeader => "kill-leader",
            Fault::KillRm => "kill-rm",
            Fault::KillNm => "kill-nm",
            Fault::RestartLeader => "restart-leader",
            Fault::PauseLeader => "pause-leader",
            Fault::PauseNm => "pause-nm",
            Fault::IsolateLeader => "isolate-leader",
            Fault::IsolateFollower => "isolate-follower",
            Fault::CutNm => "cut-nm",
            Fault::DropToLeader => "drop-to-leader",
            Fault::DropFromLeader => "drop-from-leader",
            Fault::SlowNetwork => "slow-network",
            Fault::TransferLeadership => "transfer-leadership",
            Fault::StallDisk => "stall-disk",
            Fault::FillDisk => "fill-disk",
            Fault::AddRemoveRm => "add-remove-rm",
            Fault::KillAllRms => "kill-all-rms",
            Fault::PowerLoss => "power-loss",
            Fault::PowerLossAllRms => "power-loss-all-rms",
        }
    }

    /// One line saying what the fault does and how it is healed.
    pub fn description(self) -> &'static str {
        match self {
            Fault::KillLeader => "SIGKILL the active ResourceManager; restarted when healed",
            Fault::KillRm => {
                "SIGKILL a ResourceManager picked by the seed (maybe the leader); restarted when \
                 healed"
            }
            Fault::KillNm => {
                "SIGKILL a NodeManager; restarted on its recovery directory when healed"
            }
            Fault::RestartLeader => "SIGKILL the active ResourceManager and restart it at once",
            Fault::PauseLeader => {
                "SIGSTOP the active ResourceManager for longer than the election timeout; \
                 SIGCONT when healed"
            }
            Fault::PauseNm => "SIGSTOP a NodeManager; SIGCONT when healed",
            Fault::IsolateLeader => {
                "partition the active ResourceManager from its peers, the NodeManagers and the \
                 clients"
            }
            Fault::IsolateFollower => {
                "partition a standby ResourceManager from its peers, the NodeManagers and the \
                 clients"
            }
            Fault::CutNm => {
                "cut a NodeManager and its containers off from every ResourceManager (their \
                 calls are lost)"
            }
            Fault::DropToLeader => {
                "one-way partition: every byte sent to the active ResourceManager is lost"
            }
            Fault::DropFromLeader => {
                "one-way partition: every byte the active ResourceManager sends is lost"
            }
            Fault::SlowNetwork => {
                "add 20-200 ms of latency each way to every proxied link (every link with \
                 --network netns, where the kernel has netem)"
            }
            Fault::TransferLeadership => {
                "hand leadership to a standby with the admin TransferLeadership RPC"
            }
            Fault::StallDisk => {
                "restart a ResourceManager (maybe the active one) with every Raft write stalled \
                 500 ms; restarted without when healed (needs failpoints)"
            }
            Fault::FillDisk => {
                "restart a ResourceManager (maybe the active one) on a full disk, which stops it \
                 at its first Raft write; restarted without when healed (needs failpoints)"
            }
            Fault::AddRemoveRm => {
                "start a spare ResourceManager on empty storage and add it to the Raft group as a \
                 voter; removed from the group and stopped when healed"
            }
            Fault::KillAllRms => {
                "SIGKILL every ResourceManager at once (their page cache is kept); all \
                 restarted on their storage when healed"
            }
            Fault::PowerLoss => {
                "cut the power of a ResourceManager's machine (maybe the active one's): SIGKILL \
                 it and drop every write its disk held unsynced; restarted when healed (needs \
                 --disks volatile)"
            }
            Fault::PowerLossAllRms => {
                "cut the power of every ResourceManager's machine at once, dropping every write \
                 their disks held unsynced; all restarted when healed (needs --disks volatile)"
            }
        }
    }

    /// Whether the fault takes down every ResourceManager at once: an outage until they
    /// restart rather than a failover, and the fault that shows whether acknowledged writes
    /// were durable on a majority.
    pub fn is_group_crash(self) -> bool {
        matches!(self, Fault::KillAllRms | Fault::PowerLossAllRms)
    }

    /// Whether the fault cuts the power of disks, which only volatile disks can lose.
    pub fn is_power_loss(self) -> bool {
        matches!(self, Fault::PowerLoss | Fault::PowerLossAllRms)
    }

    /// The shortest and longest time the fault is held before it is healed; the schedule
    /// draws the hold between them.
    pub fn hold_range(self) -> (Duration, Duration) {
        let ms = Duration::from_millis;
        match self {
            Fault::RestartLeader | Fault::TransferLeadership => (ms(0), ms(0)),
            // Longer than any election timeout (300 ms) plus the lease a follower waits.
            Fault::PauseLeader => (ms(1_000), ms(3_000)),
            Fault::KillLeader | Fault::KillRm | Fault::KillNm | Fault::PauseNm => {
                (ms(1_000), ms(4_000))
            }
            // Clients and NodeManagers retry through a short outage; a long one only adds to
            // the wait, not to what the restart proves.
            Fault::KillAllRms | Fault::PowerLossAllRms => (ms(500), ms(2_000)),
            Fault::PowerLoss => (ms(1_000), ms(4_000)),
            Fault::IsolateLeader
            | Fault::IsolateFollower
            | Fault::CutNm
            | Fault::DropToLeader
            | Fault::DropFromLeader => (ms(2_000), ms(5_000)),
            Fault::SlowNetwork => (ms(2_000), ms(6_000)),
            Fault::StallDisk => (ms(3_000), ms(6_000)),
            Fault::FillDisk => (ms(2_000), ms(5_000)),
            // How long the group runs with four voters; adding and removing take their own time.
            Fault::AddRemoveRm => (ms(2_000), ms(5_000)),
        }
    }

    /// Resolves the fault against `view`: its target (chosen among the candidates by `pick`,
    /// a number from the seeded schedule) and what to do.
    ///
    /// # Errors
    ///
    /// Why the fault cannot be injected now (no leader known, a ResourceManager is already
    /// down so another loss would cost the majority, no NodeManager runs, a disk fault with a
    /// binary built without failpoints, a membership change while a replica is down, ...); the
    /// run records the fault as skipped with that reason.
    pub fn plan(self, view: &ClusterView, pick: u64) -> Result<FaultPlan, String> {
        match self {
            Fault::KillLeader
            | Fault::KillRm
            | Fault::KillNm
            | Fault::RestartLeader
            | Fault::PauseLeader
            | Fault::PauseNm => process_fault::plan(self, view, pick),
            Fault::IsolateLeader
            | Fault::IsolateFollower
            | Fault::CutNm
            | Fault::DropToLeader
            | Fault::DropFromLeader
            | Fault::SlowNetwork => network_fault::plan(self, view, pick),
            Fault::TransferLeadership => leadership_fault::plan(view, pick),
            Fault::StallDisk | Fault::FillDisk => disk_fault::plan(self, view, pick),
            Fault::AddRemoveRm => membership_fault::plan(view),
            Fault::KillAllRms | Fault::PowerLoss | Fault::PowerLossAllRms => {
                crash_fault::plan(self, view, pick)
            }
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Fault {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Fault::ALL
            .into_iter()
            .find(|fault| fault.name() == text)
            .ok_or_else(|| {
                format!("unknown fault {text:?}; `yarn-ha chaos list` names every fault")
            })
    }
}

/// A fault resolved against the cluster: what it hits and how. Built by [`Fault::plan`].
#[derive(Debug, Clone, PartialEq)]
pub struct FaultPlan {
    /// The fault.
    pub fault: Fault,
    /// What it hits, for the timeline (`rm2`, `nm1`, `rm1 -> rm3`, `every link`).
    pub target: String,
    /// The leader when the plan was made.
    pub leader: Option<String>,
    /// Whether the fault takes the leader away (so a failover is expected and timed).
    pub targets_leader: bool,
    /// The NodeManagers the fault hits directly.
    pub nodes: Vec<String>,
    /// What injecting and healing do.
    pub action: FaultAction,
}

/// What a [`FaultPlan`] does, by family.
#[derive(Debug, Clone, PartialEq)]
pub enum FaultAction {
    /// Signals to a daemon.
    Process(ProcessAction),
    /// Rules for the proxies.
    Network(NetworkAction),
    /// An admin call to the leader.
    Leadership(LeadershipAction),
    /// A restart with a storage failpoint.
    Disk(DiskAction),
    /// A spare replica added to the Raft group, then removed.
    Membership(MembershipAction),
    /// Replicas killed at once, their disks maybe losing power, then restarted.
    Crash(CrashAction),
}

impl FaultPlan {
    /// Injects the fault; returns a note for the timeline when it took effect otherwise than
    /// planned (leadership went to another replica than the transfer's target, say). Faults
    /// made of several steps record them in `steps`, also when they fail.
    ///
    /// # Errors
    ///
    /// When the signal, the restart, the proxies or the admin call fail, or the membership
    /// change is refused or does not finish in time; the message names the daemon.
    pub async fn inject(
        &self,
        cluster: &ChaosCluster,
        steps: &mut FaultSteps,
    ) -> anyhow::Result<Option<String>> {
        match &self.action {
            FaultAction::Process(action) => action.inject(cluster).await.map(|()| None),
            FaultAction::Network(action) => action.inject(cluster).await.map(|()| None),
            FaultAction::Leadership(action) => action.inject(cluster).await,
            FaultAction::Disk(action) => action.inject(cluster).await.map(|()| None),
            FaultAction::Membership(action) => action.inject(cluster, steps).await.map(|()| None),
            FaultAction::Crash(action) => action.inject(cluster).await,
        }
    }

    /// Undoes the fault: restarts a killed daemon, resumes a paused one, lifts network rules,
    /// restarts a replica without its disk failpoint, removes the spare from the group and
    /// stops it. Steps go to `steps` as for [`inject`](Self::inject).
    ///
    /// # Errors
    ///
    /// When the restart, the signal or the membership change fail; the message names the
    /// daemon.
    pub async fn heal(&self, cluster: &ChaosCluster, steps: &mut FaultSteps) -> anyhow::Result<()> {
        match &self.action {
            FaultAction::Process(action) => action.heal(cluster).await,
            FaultAction::Network(action) => action.heal(cluster).await,
            FaultAction::Leadership(_) => Ok(()),
            FaultAction::Disk(action) => action.heal(cluster).await,
            FaultAction::Membership(action) => action.heal(cluster, steps).await,
            FaultAction::Crash(action) => action.heal(cluster).await,
        }
    }
}

/// Picks the candidate `pick` selects, or says none exists.
pub(crate) fn choose<'a>(
    candidates: &[&'a str],
    pick: u64,
    none: impl FnOnce() -> String,
) -> Result<&'a str, String> {
    if candidates.is_empty() {
        return Err(none());
    }
    let len = u64::try_from(candidates.len()).unwrap_or(u64::MAX);
    let index = usize::try_from(pick % len).unwrap_or(0);
    Ok(candidates[index])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_has_a_unique_name_that_parses_back_and_serializes_the_same() {
        for fault in Fault::ALL {
            assert_eq!(fault.name().parse::<Fault>(), Ok(fault));
            assert_eq!(
                serde_json::to_value(fault).unwrap(),
                serde_json::Value::String(fault.name().to_owned())
            );
            assert!(!fault.description().is_empty());
            let (low, high) = fault.hold_range();
            assert!(low <= high, "{fault}");
        }
        let mut names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Fault::ALL.len());
    }

    #[test]
    fn a_paused_leader_is_held_past_the_election_timeout() {
        assert!(Fault::PauseLeader.hold_range().0 >= Duration::from_millis(300));
    }

    #[test]
    fn choose_spreads_picks_over_the_candidates() {
        let candidates = ["rm1", "rm2", "rm3"];
        assert_eq!(choose(&candidates, 4, String::new), Ok("rm2"));
        assert_eq!(choose(&[], 4, || "none".to_owned()), Err("none".to_owned()));
    }
}
