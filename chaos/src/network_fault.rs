//! Network faults: partitions, one-way partitions and latency, as [`NetworkRules`] that the
//! cluster's [`NetworkControl`](super::NetworkControl) puts in force.
//!
//! In the proxy mode the proxies see connections that daemons, their containers and the
//! harness open *to* a ResourceManager. Connections a ResourceManager opens to a NodeManager
//! (to launch an ApplicationMaster) and those an ApplicationMaster opens to a NodeManager go
//! direct, since a NodeManager advertises its own address; so cutting a NodeManager off loses
//! its heartbeats and its containers' calls to the ResourceManagers, not the launches sent to
//! it. In the netns mode the kernel filters every connection between daemons, those too.

use std::time::Duration;

use crate::chaos_cluster::ChaosCluster;
use crate::cluster_view::ClusterView;
use crate::fault::{Fault, FaultAction, FaultPlan, choose};
use crate::network_rules::{LinkEffect, LinkRule, NetworkRules, PeerSelector};

/// The least and most latency [`Fault::SlowNetwork`] adds each way.
const SLOW_NETWORK_DELAY_MS: (u64, u64) = (20, 200);

/// A network fault resolved to the rules it puts in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkAction {
    /// The rules, in force from injection until healing.
    pub rules: Vec<LinkRule>,
}

/// Plans a network fault against the leader, a follower or a NodeManager picked by `pick`, or
/// against every link.
///
/// # Errors
///
/// When no leader is known for a leader fault, a ResourceManager is already down (a partition
/// could then cost the majority), or no follower or NodeManager runs.
pub(crate) fn plan(fault: Fault, view: &ClusterView, pick: u64) -> Result<FaultPlan, String> {
    let leader = || {
        if !view.all_rms_running() {
            return Err(format!(
                "only {} of {} ResourceManagers run; partitioning another could cost the \
                 majority",
                view.running_rms().len(),
                view.rms.len()
            ));
        }
        view.leader
            .clone()
            .ok_or_else(|| "no ResourceManager reports ACTIVE".to_owned())
    };
    let (target, rules, nodes) = match fault {
        Fault::IsolateLeader => {
            let leader = leader()?;
            (leader.clone(), isolate(&leader), Vec::new())
        }
        Fault::IsolateFollower => {
            leader()?;
            let followers = view.followers();
            let follower = choose(&followers, pick, || {
                "no standby ResourceManager runs".into()
            })?;
            (follower.to_owned(), isolate(follower), Vec::new())
        }
        Fault::CutNm => {
            let nms = view.running_nms();
            let nm = choose(&nms, pick, || "no NodeManager runs".to_owned())?;
            (
                format!("{nm} <-> ResourceManagers"),
                isolate(nm),
                vec![nm.to_owned()],
            )
        }
        Fault::DropToLeader => {
            let leader = leader()?;
            let rule = lose(PeerSelector::Anyone, PeerSelector::Daemon(leader.clone()));
            (format!("* -> {leader}"), vec![rule], Vec::new())
        }
        Fault::DropFromLeader => {
            let leader = leader()?;
            let rule = lose(PeerSelector::Daemon(leader.clone()), PeerSelector::Anyone);
            (format!("{leader} -> *"), vec![rule], Vec::new())
        }
        Fault::SlowNetwork => {
            if let Some(missing) = &view.delay_missing {
                return Err(format!("links cannot be slowed here: {missing}"));
            }
            let (low, high) = SLOW_NETWORK_DELAY_MS;
            // The upper half of the pick, so the delay does not follow the target choice of
            // other faults drawn from the same number.
            let millis = low + (pick >> 32) % (high - low + 1);
            let rule = LinkRule {
                from: PeerSelector::Anyone,
                to: PeerSelector::Anyone,
                effect: LinkEffect::Delay(Duration::from_millis(millis)),
            };
            (format!("every link +{millis} ms"), vec![rule], Vec::new())
        }
        other => return Err(format!("{other} is not a network fault")),
    };
    let targets_leader = matches!(
        fault,
        Fault::IsolateLeader | Fault::DropToLeader | Fault::DropFromLeader
    );
    Ok(FaultPlan {
        fault,
        target,
        leader: view.leader.clone(),
        targets_leader,
        nodes,
        action: FaultAction::Network(NetworkAction { rules }),
    })
}

/// Both directions between `daemon` and everyone else dropped.
fn isolate(daemon: &str) -> Vec<LinkRule> {
    vec![
        lose(
            PeerSelector::Daemon(daemon.to_owned()),
            PeerSelector::Anyone,
        ),
        lose(
            PeerSelector::Anyone,
            PeerSelector::Daemon(daemon.to_owned()),
        ),
    ]
}

fn lose(from: PeerSelector, to: PeerSelector) -> LinkRule {
    LinkRule {
        from,
        to,
        effect: LinkEffect::Drop,
    }
}

impl NetworkAction {
    /// Puts the rules in force.
    ///
    /// # Errors
    ///
    /// In the netns mode, when the kernel's filter cannot be changed.
    pub async fn inject(&self, cluster: &ChaosCluster) -> anyhow::Result<()> {
        cluster
            .set_network(NetworkRules::new(self.rules.clone()))
            .await
    }

    /// Lifts every rule.
    ///
    /// # Errors
    ///
    /// As [`inject`](Self::inject).
    pub async fn heal(&self, cluster: &ChaosCluster) -> anyhow::Result<()> {
        cluster.set_network(NetworkRules::healthy()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network_rules::{Direction, Peer};

    fn view() -> ClusterView {
        ClusterView {
            rms: vec!["rm1".into(), "rm2".into(), "rm3".into()],
            nms: vec!["nm1".into()],
            leader: Some("rm1".into()),
            running: ["rm1", "rm2", "rm3", "nm1"]
                .into_iter()
                .map(str::to_owned)
                .collect(),
            failpoints_missing: None,
            delay_missing: None,
            volatile_disks_missing: None,
        }
    }

    fn rules(plan: &FaultPlan) -> NetworkRules {
        match &plan.action {
            FaultAction::Network(action) => NetworkRules::new(action.rules.clone()),
            other => panic!("not a network plan: {other:?}"),
        }
    }

    fn peer(id: &str) -> Peer {
        Peer::Daemon(id.to_owned())
    }

    #[test]
    fn isolating_the_leader_cuts_it_off_from_peers_nodes_and_clients_both_ways() {
        let plan = Fault::IsolateLeader.plan(&view(), 0).unwrap();
        assert!(plan.targets_leader);
        let rules = rules(&plan);
        for other in [peer("rm2"), peer("nm1"), Peer::Harness] {
            assert_eq!(
                rules.connection(&other, &peer("rm1")),
                (Direction::Drop, Direction::Drop)
            );
        }
        assert_eq!(
            rules.connection(&peer("rm2"), &peer("rm3")),
            (Direction::Pass, Direction::Pass)
        );
    }

    #[test]
    fn a_follower_partition_never_picks_the_leader() {
        for pick in 0..8 {
            let plan = Fault::IsolateFollower.plan(&view(), pick).unwrap();
            assert_ne!(plan.target, "rm1");
            assert!(!plan.targets_leader);
        }
    }

    #[test]
    fn one_way_faults_drop_one_direction_only() {
        let to = rules(&Fault::DropToLeader.plan(&view(), 0).unwrap());
        assert_eq!(to.direction(&peer("rm2"), &peer("rm1")), Direction::Drop);
        assert_eq!(to.direction(&peer("rm1"), &peer("rm2")), Direction::Pass);
        let from = rules(&Fault::DropFromLeader.plan(&view(), 0).unwrap());
        assert_eq!(from.direction(&peer("rm1"), &peer("rm2")), Direction::Drop);
        assert_eq!(from.direction(&peer("rm2"), &peer("rm1")), Direction::Pass);
    }

    #[test]
    fn cutting_a_node_names_it_and_slowing_picks_a_delay_in_range() {
        let cut = Fault::CutNm.plan(&view(), 0).unwrap();
        assert_eq!(cut.nodes, ["nm1"]);
        assert_eq!(
            rules(&cut).direction(&peer("nm1"), &peer("rm2")),
            Direction::Drop
        );
        for pick in [0, u64::MAX, 0x1234_5678_9abc_def0] {
            let slow = rules(&Fault::SlowNetwork.plan(&view(), pick).unwrap());
            match slow.direction(&Peer::Harness, &peer("rm1")) {
                Direction::Delay(delay) => {
                    assert!((20..=200).contains(&delay.as_millis()), "{delay:?}")
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn links_are_not_slowed_where_the_kernel_cannot_delay_packets() {
        let without_netem = ClusterView {
            delay_missing: Some("the kernel has no netem qdisc".into()),
            ..view()
        };
        let err = Fault::SlowNetwork.plan(&without_netem, 0).unwrap_err();
        assert!(err.contains("no netem"), "{err}");
        // Partitions need no delay.
        assert!(Fault::IsolateLeader.plan(&without_netem, 0).is_ok());
    }
}
