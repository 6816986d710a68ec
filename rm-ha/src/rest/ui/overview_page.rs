//! The overview page (`/cluster`, `/cluster/cluster`): the cluster's figures and every
//! ResourceManager of the group with its Raft role.

use axum::extract::State;
use maud::{Markup, html};
use openraft::{RaftMetrics, ServerState};
use yarn_conf::RmHaConfig;

use super::ui_refusal::UiRefusal;
use super::{render, timestamp};
use crate::raft_types::{RmNode, RmNodeId, node_id_of};
use crate::replica::leader_rm_id;
use crate::rest::RestApi;
use crate::rest::cluster_metrics_info::ClusterMetricsInfo;
use crate::rest::rest_api::RestCaller;

/// One ResourceManager of the group as this replica sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ReplicaRow {
    /// Its rm-id.
    pub(super) rm_id: String,
    /// Its web address, a link target.
    pub(super) web_address: String,
    /// `active`, `standby`, `learner` or `not a member`, as the Raft membership says.
    pub(super) role: &'static str,
    /// The last log entry the leader knows it holds; only the leader knows, and only for others.
    pub(super) matched_index: Option<u64>,
}

/// The rows of the configured `ha` members, from this replica's Raft `metrics`: the leader of
/// its term is `active`, other voters `standby`.
pub(super) fn replica_rows(
    ha: &RmHaConfig,
    metrics: &RaftMetrics<RmNodeId, RmNode>,
) -> Vec<ReplicaRow> {
    let leader = leader_rm_id(metrics);
    let membership = metrics.membership_config.membership();
    ha.members
        .iter()
        .map(|member| {
            let node = node_id_of(&member.rm_id);
            let role = if leader.as_deref() == Some(member.rm_id.as_str()) {
                "active"
            } else if membership.voter_ids().any(|id| id == node) {
                "standby"
            } else if membership.learner_ids().any(|id| id == node) {
                "learner"
            } else {
                "not a member"
            };
            let matched_index = metrics
                .replication
                .as_ref()
                .and_then(|replication| replication.get(&node))
                .and_then(|matched| matched.map(|log_id| log_id.index));
            ReplicaRow {
                rm_id: member.rm_id.clone(),
                web_address: member.webapp.to_string(),
                role,
                matched_index,
            }
        })
        .collect()
}

pub(super) async fn overview(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
) -> Result<Markup, UiRefusal> {
    let overview = api.operations.cluster_overview().await?;
    let figures = ClusterMetricsInfo::describe(&overview).cluster_metrics;
    let metrics = api.raft.metrics().borrow().clone();
    let replicas = replica_rows(&api.ha, &metrics);
    let scheme = if api.tls { "https" } else { "http" };
    let own_role = match metrics.state {
        ServerState::Leader => "leader",
        ServerState::Candidate => "candidate",
        ServerState::Learner => "learner",
        ServerState::Follower => "follower",
        ServerState::Shutdown => "shut down",
    };
    let content = html! {
        h2 { "Cluster Metrics" }
        table #cluster-metrics {
            tr {
                th { "Apps Submitted" } th { "Apps Pending" } th { "Apps Running" }
                th { "Apps Completed" } th { "Apps Failed" } th { "Apps Killed" }
                th { "Containers Running" } th { "Memory Used" } th { "Memory Total" }
                th { "VCores Used" } th { "VCores Total" }
            }
            tr {
                td.num { (figures.apps_submitted) } td.num { (figures.apps_pending) }
                td.num { (figures.apps_running) } td.num { (figures.apps_completed) }
                td.num { (figures.apps_failed) } td.num { (figures.apps_killed) }
                td.num { (figures.containers_allocated) }
                td.num { (figures.allocated_mb) " MB" } td.num { (figures.total_mb) " MB" }
                td.num { (figures.allocated_virtual_cores) }
                td.num { (figures.total_virtual_cores) }
            }
        }
        h2 { "Cluster Nodes Metrics" }
        table #node-metrics {
            tr { th { "Active Nodes" } th { "Decommissioned Nodes" } th { "Lost Nodes" } }
            tr {
                td.num { a href="/cluster/nodes" { (figures.active_nodes) } }
                td.num { (figures.decommissioned_nodes) }
                td.num { (figures.lost_nodes) }
            }
        }
        h2 { "ResourceManagers" }
        p {
            "As replica " (api.rm_id) " sees them: its Raft term is " (metrics.current_term)
            " and it is a " (own_role) "; it started on " (timestamp(api.operations.started_on_ms)) "."
        }
        table #resource-managers {
            tr { th { "RM id" } th { "Role" } th { "Web address" } th { "Replicated up to" } }
            @for replica in &replicas {
                tr {
                    td { (replica.rm_id) }
                    td { (replica.role) }
                    td { a href=(format!("{scheme}://{}/cluster", replica.web_address)) {
                        (replica.web_address)
                    } }
                    td.num {
                        @match replica.matched_index {
                            Some(index) => (index),
                            None => "",
                        }
                    }
                }
            }
        }
    };
    Ok(render(&api, &caller, "About the Cluster", &content))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use openraft::{LogId, Membership, StoredMembership};
    use yarn_conf::Configuration;

    use super::*;

    fn ha() -> RmHaConfig {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", "rm1,rm2,rm3");
        for (id, host) in [("rm1", "h1"), ("rm2", "h2"), ("rm3", "h3")] {
            conf.set(&format!("yarn.resourcemanager.hostname.{id}"), host);
        }
        RmHaConfig::from_conf(&conf).unwrap()
    }

    #[test]
    fn the_leader_is_active_voters_standby_and_the_rest_named_as_they_are() {
        let node = |id: &str| {
            (
                node_id_of(id),
                RmNode {
                    rm_id: id.to_owned(),
                    raft_address: String::new(),
                },
            )
        };
        let membership = Membership::new(
            vec![BTreeSet::from([node_id_of("rm1"), node_id_of("rm2")])],
            BTreeMap::from([node("rm1"), node("rm2")]),
        );
        let mut metrics = RaftMetrics::new_initial(node_id_of("rm1"));
        metrics.current_leader = Some(node_id_of("rm1"));
        metrics.membership_config = std::sync::Arc::new(StoredMembership::new(None, membership));
        metrics.replication = Some(BTreeMap::from([(
            node_id_of("rm2"),
            Some(LogId::new(
                openraft::CommittedLeaderId::new(3, node_id_of("rm1")),
                42,
            )),
        )]));
        let rows = replica_rows(&ha(), &metrics);
        let roles: Vec<(&str, &str, Option<u64>)> = rows
            .iter()
            .map(|row| (row.rm_id.as_str(), row.role, row.matched_index))
            .collect();
        assert_eq!(
            roles,
            [
                ("rm1", "active", None),
                ("rm2", "standby", Some(42)),
                ("rm3", "not a member", None)
            ]
        );
        assert_eq!(rows[1].web_address, "h2:8088");
    }
}
