//! [`ClusterView`]: what a fault needs to know about the cluster to pick its target.

use std::collections::BTreeSet;

/// The cluster as the harness sees it just before a fault: its daemons, which of them run, and
/// the leader if one is known. Pure data, so fault planning is a pure function of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterView {
    /// Every ResourceManager's rm id, in `rm-ids` order.
    pub rms: Vec<String>,
    /// Every NodeManager's name, in order.
    pub nms: Vec<String>,
    /// The ResourceManager that reports ACTIVE, if one does.
    pub leader: Option<String>,
    /// The daemons whose process runs (a paused one counts as running).
    pub running: BTreeSet<String>,
    /// Why the daemons' binary cannot take failpoints (it was built without them), so the disk
    /// faults cannot be injected; `None` when it can.
    pub failpoints_missing: Option<String>,
    /// Why links cannot be slowed (the netns mode on a kernel without netem), so the latency
    /// fault cannot be injected; `None` when they can.
    pub delay_missing: Option<String>,
    /// Why a replica's disk cannot lose power (the run is on real disks), so the power-loss
    /// faults cannot be injected; `None` when it can.
    pub volatile_disks_missing: Option<String>,
}

impl ClusterView {
    /// The running ResourceManagers, in order.
    pub fn running_rms(&self) -> Vec<&str> {
        self.running_of(&self.rms)
    }

    /// The running NodeManagers, in order.
    pub fn running_nms(&self) -> Vec<&str> {
        self.running_of(&self.nms)
    }

    /// The running ResourceManagers other than the leader, in order.
    pub fn followers(&self) -> Vec<&str> {
        self.running_rms()
            .into_iter()
            .filter(|id| Some(*id) != self.leader.as_deref())
            .collect()
    }

    /// Whether every ResourceManager runs, so one more can be taken away and a majority is left.
    pub fn all_rms_running(&self) -> bool {
        self.rms.iter().all(|id| self.running.contains(id))
    }

    fn running_of<'a>(&'a self, ids: &'a [String]) -> Vec<&'a str> {
        ids.iter()
            .filter(|id| self.running.contains(*id))
            .map(String::as_str)
            .collect()
    }
}

#[cfg(test)]
impl ClusterView {
    /// rm1-rm3 and nm1-nm2 with `running` up and `leader` leading, for the fault planners'
    /// tests.
    pub(crate) fn of_three_rms(running: &[&str], leader: Option<&str>) -> Self {
        Self {
            rms: vec!["rm1".into(), "rm2".into(), "rm3".into()],
            nms: vec!["nm1".into(), "nm2".into()],
            leader: leader.map(str::to_owned),
            running: running.iter().map(|id| (*id).to_owned()).collect(),
            failpoints_missing: None,
            delay_missing: None,
            volatile_disks_missing: None,
        }
    }
}
