//! [`ClusterOverview`]: the cluster's figures as Hadoop's `ClusterMetrics` reports them, a pure
//! function of the replicated state and the leader's node tracker.

use super::ApplicationCounts;
use crate::nodes::{NodeState, NodeTracker};
use crate::state_machine::RmState;

/// Applications by state, resources in use and available, and nodes by state.
///
/// Counts what the state holds: every application this cluster ever accepted (those it
/// retired by what they ended as), the live containers of the container table, and the nodes
/// this leadership tracks. Capacity is that of running, not decommissioned, nodes; what yarn-ha does not have
/// (reservations, node health, reboots) is not counted here at all, so callers report it as
/// none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClusterOverview {
    /// Every application submitted to this cluster.
    pub apps_submitted: u64,
    /// Applications SUBMITTED or ACCEPTED.
    pub apps_pending: u64,
    /// Applications RUNNING.
    pub apps_running: u64,
    /// Applications FINISHED.
    pub apps_completed: u64,
    /// Applications FAILED.
    pub apps_failed: u64,
    /// Applications KILLED.
    pub apps_killed: u64,
    /// Memory of live containers, in MB.
    pub allocated_mb: u64,
    /// Virtual cores of live containers.
    pub allocated_vcores: u64,
    /// Live containers.
    pub containers_allocated: u64,
    /// Memory of running nodes, in MB.
    pub total_mb: u64,
    /// Virtual cores of running nodes.
    pub total_vcores: u64,
    /// Nodes this leadership tracks, whatever their state.
    pub total_nodes: u64,
    /// Running nodes.
    pub active_nodes: u64,
    /// Nodes declared LOST.
    pub lost_nodes: u64,
    /// Decommissioned nodes.
    pub decommissioned_nodes: u64,
}

impl ClusterOverview {
    /// The overview of `state` with the nodes `tracker` holds.
    pub fn of(state: &RmState, tracker: &NodeTracker) -> Self {
        let mut apps = ApplicationCounts::default();
        for app in state.applications.values() {
            apps.count(app.state);
        }
        for (_, _, retired) in state.retired.counts() {
            apps.count_retired(retired);
        }
        let mut overview = Self {
            apps_submitted: apps.submitted,
            apps_pending: apps.pending,
            apps_running: apps.running,
            apps_completed: apps.completed,
            apps_failed: apps.failed,
            apps_killed: apps.killed,
            ..Self::default()
        };
        for record in state.containers.iter().filter(|record| record.is_live()) {
            overview.containers_allocated += 1;
            overview.allocated_mb = overview.allocated_mb.saturating_add(record.memory_mb);
            overview.allocated_vcores = overview
                .allocated_vcores
                .saturating_add(u64::from(record.vcores));
        }
        for (node, tracked) in tracker.nodes() {
            overview.total_nodes += 1;
            if state.decommissioned_nodes.contains(&node.to_string()) {
                overview.decommissioned_nodes += 1;
                continue;
            }
            match tracked.state {
                NodeState::Lost => overview.lost_nodes += 1,
                NodeState::Running => {
                    overview.active_nodes += 1;
                    let memory = u64::try_from(tracked.resource.memory).unwrap_or(0);
                    let vcores = u64::try_from(tracked.resource.virtual_cores).unwrap_or(0);
                    overview.total_mb = overview.total_mb.saturating_add(memory);
                    overview.total_vcores = overview.total_vcores.saturating_add(vcores);
                }
            }
        }
        overview
    }

    /// Memory of running nodes not held by live containers, in MB.
    pub fn available_mb(&self) -> u64 {
        self.total_mb.saturating_sub(self.allocated_mb)
    }

    /// Virtual cores of running nodes not held by live containers.
    pub fn available_vcores(&self) -> u64 {
        self.total_vcores.saturating_sub(self.allocated_vcores)
    }
}

#[cfg(test)]
mod tests {
    use tokio::time::Instant;

    use yarn_proto::ids::NodeId;
    use yarn_proto::pb;

    use super::*;
    use crate::state_machine::test_fixtures::running_application;

    fn register(tracker: &mut NodeTracker, host: &str, memory: i64, vcores: i32) {
        let resource = pb::ResourceProto {
            memory,
            virtual_cores: vcores,
            ..Default::default()
        };
        tracker.register(
            NodeId::new(host, 8041),
            yarn_scheduler::DEFAULT_RACK.to_owned(),
            resource,
            8042,
            Instant::now(),
        );
    }

    #[test]
    fn counts_applications_live_containers_and_running_capacity() {
        // Three 1 GB containers, one of them completed.
        let state = running_application(&[(2, "h1:8041"), (3, "h1:8041"), (4, "h2:8041")], &[4]);
        let mut tracker = NodeTracker::default();
        register(&mut tracker, "h1", 8192, 8);
        register(&mut tracker, "h2", 4096, 4);
        let overview = ClusterOverview::of(&state, &tracker);
        assert_eq!(overview.apps_submitted, 1);
        assert_eq!(overview.apps_running, 1);
        assert_eq!(overview.apps_pending + overview.apps_completed, 0);
        assert_eq!(overview.containers_allocated, 2);
        assert_eq!(
            (overview.allocated_mb, overview.allocated_vcores),
            (2048, 2)
        );
        assert_eq!((overview.total_mb, overview.total_vcores), (12288, 12));
        assert_eq!(
            (overview.available_mb(), overview.available_vcores()),
            (10240, 10)
        );
        assert_eq!((overview.total_nodes, overview.active_nodes), (2, 2));
    }

    #[test]
    fn lost_and_decommissioned_nodes_offer_no_capacity() {
        let mut state = running_application(&[], &[]);
        state.decommissioned_nodes.insert("h2:8041".to_owned());
        let mut tracker = NodeTracker::default();
        register(&mut tracker, "h1", 8192, 8);
        register(&mut tracker, "h2", 4096, 4);
        let overview = ClusterOverview::of(&state, &tracker);
        assert_eq!(overview.decommissioned_nodes, 1);
        assert_eq!(overview.active_nodes, 1);
        assert_eq!(overview.total_mb, 8192);
    }
}
