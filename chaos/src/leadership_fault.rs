//! Leadership faults: the leader hands over to a standby on request, under load.

use crate::chaos_cluster::ChaosCluster;
use crate::cluster_view::ClusterView;
use crate::fault::{Fault, FaultAction, FaultPlan, choose};

/// A leadership transfer resolved to its two replicas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeadershipAction {
    /// The leader asked to hand over.
    pub from: String,
    /// The standby that should take over.
    pub to: String,
}

/// Plans a transfer from the leader to the running standby `pick` selects.
///
/// # Errors
///
/// When no leader is known or no standby runs.
pub(crate) fn plan(view: &ClusterView, pick: u64) -> Result<FaultPlan, String> {
    let leader = view
        .leader
        .clone()
        .ok_or_else(|| "no ResourceManager reports ACTIVE".to_owned())?;
    let followers = view.followers();
    let to = choose(&followers, pick, || {
        "no standby ResourceManager runs".into()
    })?;
    Ok(FaultPlan {
        fault: Fault::TransferLeadership,
        target: format!("{leader} -> {to}"),
        leader: Some(leader.clone()),
        targets_leader: true,
        nodes: Vec::new(),
        action: FaultAction::Leadership(LeadershipAction {
            from: leader,
            to: to.to_owned(),
        }),
    })
}

impl LeadershipAction {
    /// Asks the leader, on its admin address, to hand leadership over. Returns a note when
    /// leadership moved, but to another replica than the target (the fault still took the
    /// leader away).
    ///
    /// # Errors
    ///
    /// When the leader refuses or does not answer (it may have lost leadership meanwhile).
    pub async fn inject(&self, cluster: &ChaosCluster) -> anyhow::Result<Option<String>> {
        let leader = cluster.transfer_leadership(&self.from, &self.to).await?;
        Ok((leader != self.to).then(|| {
            format!(
                "{} was asked to hand leadership to {}, but {leader} took over",
                self.from, self.to
            )
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transfer_goes_from_the_leader_to_a_running_standby() {
        let view = ClusterView {
            rms: vec!["rm1".into(), "rm2".into(), "rm3".into()],
            nms: Vec::new(),
            leader: Some("rm2".into()),
            running: ["rm1", "rm2"].into_iter().map(str::to_owned).collect(),
            failpoints_missing: None,
            delay_missing: None,
            volatile_disks_missing: None,
        };
        let plan = Fault::TransferLeadership.plan(&view, 7).unwrap();
        assert_eq!(
            plan.action,
            FaultAction::Leadership(LeadershipAction {
                from: "rm2".into(),
                to: "rm1".into()
            })
        );
        assert!(plan.targets_leader);
        let alone = ClusterView {
            running: ["rm2"].into_iter().map(str::to_owned).collect(),
            ..view
        };
        assert!(Fault::TransferLeadership.plan(&alone, 0).is_err());
    }
}
