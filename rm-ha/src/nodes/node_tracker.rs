//! The leader's soft state about NodeManagers: registrations, heartbeat sequence and liveness.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;
use yarn_opportunistic::{NodeLoad, NodeQueueLoadMonitor, OpportunisticPlacement, RemoteNode};
use yarn_proto::ids::NodeId;
use yarn_proto::pb;
use yarn_scheduler::Resource;

use super::{AwaitingIncrease, UnconfirmedIncreases};
use crate::state_machine::ContainerResize;

/// Heartbeats kept per tracked node, on average, for a scheduling loop that has not taken them:
/// a few seconds' worth at the default interval. A loop stalled longer loses the rest, which
/// delays relaxing locality and, under heartbeat-driven scheduling, a node's next turn.
const HEARTBEATS_KEPT_PER_NODE: usize = 4;

/// A NodeManager's state as the leader sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeState {
    /// Registered and heartbeating.
    Running,
    /// Silent for longer than the expiry interval; its containers are lost. It must register
    /// again to come back.
    Lost,
}

/// One registered node.
#[derive(Debug, Clone)]
pub struct TrackedNode {
    /// Its rack, as the topology mapping placed it when it registered.
    pub rack: String,
    /// What the node offers to the scheduler.
    pub resource: pb::ResourceProto,
    /// Its web port.
    pub http_port: i32,
    /// Running or lost.
    pub state: NodeState,
    /// The last response sent, kept whole so a duplicate heartbeat gets it again.
    pub last_response: pb::NodeHeartbeatResponseProto,
    /// When the node was last heard from.
    pub last_seen: Instant,
    /// Its opportunistic load as of its last heartbeat.
    pub opportunistic: pb::OpportunisticContainersStatusProto,
    /// The increases it has not applied, since when.
    pub unconfirmed: UnconfirmedIncreases,
}

/// What to answer a heartbeat, decided from the tracked state alone.
#[derive(Debug, Clone, PartialEq)]
pub enum HeartbeatVerdict {
    /// A new heartbeat: apply its statuses and answer with this response id.
    Accept {
        /// The response id of the answer: one more than the last.
        response_id: i32,
    },
    /// The same heartbeat again: answer with the last response, apply nothing.
    Duplicate(Box<pb::NodeHeartbeatResponseProto>),
    /// Unknown node, lost node or out-of-sequence heartbeat: the node must re-register.
    Resync {
        /// Why, for the response's diagnostics and the log.
        reason: String,
    },
}

/// The nodes a scheduler may place containers on, listed at one tracker revision.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedulableNodes {
    /// The [`NodeTracker::revision`] they were listed at.
    pub revision: u64,
    /// Each running node, in node order.
    pub nodes: Vec<SchedulableNode>,
}

/// A running node as the scheduler takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulableNode {
    /// The node.
    pub id: NodeId,
    /// Its rack.
    pub rack: String,
    /// What it offers.
    pub capability: Resource,
}

/// Registrations and heartbeat sequencing of every NodeManager, for one leadership.
///
/// Soft state by design, as in YARN: a new leader starts with an empty tracker, answers every
/// node's first heartbeat with RESYNC, and rebuilds the tracker from re-registrations, which
/// carry every running container. Pure: times are passed in.
#[derive(Debug, Default)]
pub struct NodeTracker {
    nodes: BTreeMap<NodeId, TrackedNode>,
    /// Bumped whenever [`schedulable`](Self::schedulable) may change.
    revision: u64,
    /// The nodes whose heartbeats were accepted since the scheduler last took them, once per
    /// heartbeat: its scheduling opportunities.
    heartbeats: Vec<NodeId>,
    /// Node loads for opportunistic placement; `None` when it is off.
    load: Option<LoadRanking>,
}

/// The load monitor and when it last ranked the nodes.
#[derive(Debug)]
struct LoadRanking {
    monitor: NodeQueueLoadMonitor,
    sorting_interval: Duration,
    last_sort: Option<Instant>,
}

impl NodeTracker {
    /// A tracker that also ranks nodes by the load they report with `monitor` (if any),
    /// re-ranking at most every `sorting_interval`.
    pub fn with_load_monitor(
        monitor: Option<NodeQueueLoadMonitor>,
        sorting_interval: Duration,
    ) -> Self {
        Self {
            load: monitor.map(|monitor| LoadRanking {
                monitor,
                sorting_interval,
                last_sort: None,
            }),
            ..Self::default()
        }
    }

    /// Records a (re-)registration at `now` of `node` on `rack`. A node registering again
    /// replaces its earlier registration and restarts its heartbeat sequence at response id 0.
    pub fn register(
        &mut self,
        node: NodeId,
        rack: String,
        resource: pb::ResourceProto,
        http_port: i32,
        now: Instant,
    ) {
        let tracked = TrackedNode {
            rack,
            resource,
            http_port,
            state: NodeState::Running,
            last_response: pb::NodeHeartbeatResponseProto::default(),
            last_seen: now,
            opportunistic: pb::OpportunisticContainersStatusProto::default(),
            unconfirmed: UnconfirmedIncreases::default(),
        };
        self.nodes.insert(node, tracked);
        self.revision += 1;
    }

    /// Forgets a node that unregistered; unknown nodes are fine.
    pub fn unregister(&mut self, node: &NodeId) {
        if self.nodes.remove(node).is_some() {
            self.revision += 1;
        }
        if let Some(load) = &mut self.load {
            load.monitor.remove_node(&node.to_string());
        }
    }

    /// Classifies a heartbeat from `node` that echoes `response_id` (the id of the last
    /// response the node received).
    pub fn heartbeat(&self, node: &NodeId, response_id: i32) -> HeartbeatVerdict {
        let Some(tracked) = self.nodes.get(node) else {
            return HeartbeatVerdict::Resync {
                reason: format!("node {node} is not registered with this ResourceManager"),
            };
        };
        if tracked.state == NodeState::Lost {
            return HeartbeatVerdict::Resync {
                reason: format!("node {node} was declared LOST; it must register again"),
            };
        }
        let last = tracked.last_response.response_id;
        if response_id == last {
            HeartbeatVerdict::Accept {
                response_id: last.wrapping_add(1),
            }
        } else if response_id.wrapping_add(1) == last {
            HeartbeatVerdict::Duplicate(Box::new(tracked.last_response.clone()))
        } else {
            HeartbeatVerdict::Resync {
                reason: format!(
                    "too far behind: the heartbeat from {node} echoes response id \
                     {response_id} but the last response sent was {last}"
                ),
            }
        }
    }

    /// Records the response sent for an accepted heartbeat, heard at `now`.
    pub fn responded(
        &mut self,
        node: &NodeId,
        response: pb::NodeHeartbeatResponseProto,
        now: Instant,
    ) {
        if let Some(tracked) = self.nodes.get_mut(node) {
            tracked.last_response = response;
            tracked.last_seen = now;
            if self.heartbeats.len() < self.nodes.len().saturating_mul(HEARTBEATS_KEPT_PER_NODE) {
                self.heartbeats.push(node.clone());
            }
        }
    }

    /// The nodes whose heartbeats were accepted since the last call, once per heartbeat, in
    /// the order heard; at most [`HEARTBEATS_KEPT_PER_NODE`] times the tracked nodes.
    pub fn take_heartbeats(&mut self) -> Vec<NodeId> {
        std::mem::take(&mut self.heartbeats)
    }

    /// Takes the increases `node`'s heartbeat at `now` shows it has not applied (see
    /// [`UnconfirmedIncreases`]) and returns the rollbacks due after `expiry`; none for a node
    /// not tracked.
    pub fn unconfirmed_increases(
        &mut self,
        node: &NodeId,
        awaiting: &[AwaitingIncrease],
        now: Instant,
        expiry: Duration,
    ) -> Vec<ContainerResize> {
        self.nodes.get_mut(node).map_or_else(Vec::new, |tracked| {
            tracked.unconfirmed.observe(awaiting, now, expiry)
        })
    }

    /// Records the opportunistic load a node reported; unknown nodes are ignored.
    pub fn record_load(&mut self, node: &NodeId, load: pb::OpportunisticContainersStatusProto) {
        let Some(tracked) = self.nodes.get_mut(node) else {
            return;
        };
        if let Some(ranking) = &mut self.load {
            ranking.monitor.update_node(NodeLoad {
                node_id: node.to_string(),
                host: node.host.clone(),
                rack: tracked.rack.clone(),
                queue_length: load.wait_queue_length,
                estimated_queue_wait_time_ms: load.estimated_queue_wait_time,
                queue_capacity: load.opport_queue_capacity,
                decommissioning: false,
            });
        }
        tracked.opportunistic = load;
    }

    /// The `k` least-loaded nodes for opportunistic placement, best first, re-ranked first if
    /// the sorting interval passed at `now`; empty when opportunistic placement is off or no
    /// node reported its queue yet.
    pub fn least_loaded_nodes(&mut self, now: Instant, k: usize) -> Vec<RemoteNode> {
        let Some(ranking) = &mut self.load else {
            return Vec::new();
        };
        ranking.sort_if_due(now);
        ranking.monitor.least_loaded_nodes(k)
    }

    /// The `k` least-loaded nodes as [`least_loaded_nodes`](Self::least_loaded_nodes) ranks
    /// them, in the form DistributedSchedulingAMProtocol hands to AMRMProxies (with each
    /// node's web address).
    pub fn nodes_for_scheduling(&mut self, now: Instant, k: usize) -> Vec<pb::RemoteNodeProto> {
        self.least_loaded_nodes(now, k)
            .into_iter()
            .filter_map(|remote| {
                let node: NodeId = remote.node_id.parse().ok()?;
                let tracked = self.nodes.get(&node)?;
                Some(pb::RemoteNodeProto {
                    http_address: format!("{}:{}", node.host, tracked.http_port),
                    node_id: Some((&node).into()),
                    rack_name: remote.rack,
                    node_partition: String::new(),
                })
            })
            .collect()
    }

    /// Whether `node` is registered and running.
    pub fn is_running(&self, node: &NodeId) -> bool {
        self.nodes
            .get(node)
            .is_some_and(|tracked| tracked.state == NodeState::Running)
    }

    /// Counts opportunistic containers just placed as queued on their nodes until the nodes
    /// report again.
    pub fn record_placements(&mut self, placements: &[OpportunisticPlacement]) {
        if let Some(ranking) = &mut self.load {
            ranking.monitor.record_placements(placements);
        }
    }

    /// The queue limit to send to every NodeManager, as of the ranking current at `now`;
    /// `None` when opportunistic placement is off.
    pub fn queue_limit(&mut self, now: Instant) -> Option<pb::ContainerQueuingLimitProto> {
        let ranking = self.load.as_mut()?;
        ranking.sort_if_due(now);
        let limit = ranking.monitor.queue_limit();
        // YARN's -1 means "not limited", which the proto says by leaving the field out.
        let bound = |value: i32| (value >= 0).then_some(value);
        Some(pb::ContainerQueuingLimitProto {
            max_queue_length: bound(limit.max_queue_length),
            max_queue_wait_time_in_ms: bound(limit.max_queue_wait_time_ms),
        })
    }

    /// Declares LOST every running node silent for longer than `expiry` at `now`, and returns
    /// them.
    pub fn expire(&mut self, now: Instant, expiry: Duration) -> Vec<NodeId> {
        let mut lost = Vec::new();
        for (node, tracked) in &mut self.nodes {
            if tracked.state == NodeState::Running
                && now.saturating_duration_since(tracked.last_seen) > expiry
            {
                tracked.state = NodeState::Lost;
                lost.push(node.clone());
            }
        }
        if !lost.is_empty() {
            self.revision += 1;
        }
        if let Some(ranking) = &mut self.load {
            for node in &lost {
                ranking.monitor.remove_node(&node.to_string());
            }
        }
        lost
    }

    /// A counter that differs whenever the running nodes or their capabilities may have changed
    /// since it was last read, so a poller lists them only then.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The tracked node `node`.
    pub fn get(&self, node: &NodeId) -> Option<&TrackedNode> {
        self.nodes.get(node)
    }

    /// The running nodes and what each offers the scheduler, in node order, as of this
    /// tracker's [`revision`](Self::revision).
    pub fn schedulable(&self) -> SchedulableNodes {
        let nodes = self
            .nodes
            .iter()
            .filter(|(_, node)| node.state == NodeState::Running)
            .map(|(id, node)| SchedulableNode {
                id: id.clone(),
                rack: node.rack.clone(),
                capability: Resource::from(&node.resource),
            })
            .collect();
        SchedulableNodes {
            revision: self.revision,
            nodes,
        }
    }

    /// Every tracked node.
    pub fn nodes(&self) -> impl Iterator<Item = (&NodeId, &TrackedNode)> {
        self.nodes.iter()
    }
}

impl LoadRanking {
    fn sort_if_due(&mut self, now: Instant) {
        let due = self
            .last_sort
            .is_none_or(|last| now.saturating_duration_since(last) >= self.sorting_interval);
        if due {
            self.monitor.sort_nodes();
            self.last_sort = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use yarn_scheduler::DEFAULT_RACK;

    use super::*;

    fn node() -> NodeId {
        "h1:8041".parse().unwrap()
    }

    fn response(response_id: i32) -> pb::NodeHeartbeatResponseProto {
        pb::NodeHeartbeatResponseProto {
            response_id,
            ..Default::default()
        }
    }

    #[test]
    fn heartbeats_advance_repeat_or_resync() {
        let now = Instant::now();
        let mut tracker = NodeTracker::default();
        assert!(matches!(
            tracker.heartbeat(&node(), 0),
            HeartbeatVerdict::Resync { .. }
        ));
        tracker.register(
            node(),
            DEFAULT_RACK.to_owned(),
            pb::ResourceProto::default(),
            8042,
            now,
        );
        assert_eq!(
            tracker.heartbeat(&node(), 0),
            HeartbeatVerdict::Accept { response_id: 1 }
        );
        tracker.responded(&node(), response(1), now);
        assert_eq!(
            tracker.take_heartbeats(),
            vec![node()],
            "an accepted one is an opportunity"
        );
        assert!(tracker.take_heartbeats().is_empty());
        for _ in 0..10 {
            tracker.responded(&node(), response(1), now);
        }
        assert_eq!(tracker.take_heartbeats().len(), HEARTBEATS_KEPT_PER_NODE);
        // The node did not get response 1 and sends its heartbeat again.
        assert_eq!(
            tracker.heartbeat(&node(), 0),
            HeartbeatVerdict::Duplicate(Box::new(response(1)))
        );
        assert_eq!(
            tracker.heartbeat(&node(), 1),
            HeartbeatVerdict::Accept { response_id: 2 }
        );
        let HeartbeatVerdict::Resync { reason } = tracker.heartbeat(&node(), 7) else {
            panic!("an out-of-sequence heartbeat must resync");
        };
        assert!(reason.contains("echoes response id 7"), "{reason}");
    }

    #[test]
    fn nodes_are_re_ranked_at_most_once_per_sorting_interval() {
        use yarn_opportunistic::{LoadComparator, QueueLimitCalculator};

        let interval = Duration::from_secs(1);
        let start = Instant::now();
        let calculator = QueueLimitCalculator::new(LoadComparator::QueueLength, 1.0, 5, 15)
            .expect("a valid queue limit");
        let mut tracker =
            NodeTracker::with_load_monitor(Some(NodeQueueLoadMonitor::new(calculator)), interval);
        let queued = |wait_queue_length| pb::OpportunisticContainersStatusProto {
            wait_queue_length,
            opport_queue_capacity: 10,
            ..Default::default()
        };
        let ranked = |tracker: &mut NodeTracker, now| -> Vec<String> {
            tracker
                .least_loaded_nodes(now, usize::MAX)
                .into_iter()
                .map(|remote| remote.node_id)
                .collect()
        };
        let (busy, idle): (NodeId, NodeId) =
            ("h1:8041".parse().unwrap(), "h2:8041".parse().unwrap());
        tracker.register(
            busy.clone(),
            DEFAULT_RACK.to_owned(),
            pb::ResourceProto::default(),
            8042,
            start,
        );
        tracker.record_load(&busy, queued(4));
        assert_eq!(
            ranked(&mut tracker, start),
            ["h1:8041"],
            "the first look ranks"
        );

        tracker.register(
            idle.clone(),
            DEFAULT_RACK.to_owned(),
            pb::ResourceProto::default(),
            8042,
            start,
        );
        tracker.record_load(&idle, queued(0));
        assert_eq!(
            ranked(&mut tracker, start + interval - Duration::from_millis(1)),
            ["h1:8041"],
            "a report within the interval waits for the next ranking"
        );
        assert_eq!(
            ranked(&mut tracker, start + interval),
            ["h2:8041", "h1:8041"],
            "re-ranked once the interval has passed"
        );
    }

    #[test]
    fn silent_nodes_are_lost_once_and_must_register_again() {
        let start = Instant::now();
        let expiry = Duration::from_secs(10);
        let mut tracker = NodeTracker::default();
        tracker.register(
            node(),
            DEFAULT_RACK.to_owned(),
            pb::ResourceProto::default(),
            8042,
            start,
        );
        assert!(tracker.expire(start + expiry, expiry).is_empty());
        let later = start + expiry + Duration::from_millis(1);
        let before = tracker.revision();
        assert_eq!(tracker.expire(later, expiry), vec![node()]);
        assert!(tracker.schedulable().nodes.is_empty());
        assert_ne!(
            tracker.revision(),
            before,
            "losing a node changes what can be scheduled"
        );
        assert!(tracker.expire(later, expiry).is_empty(), "lost only once");
        assert!(matches!(
            tracker.heartbeat(&node(), 0),
            HeartbeatVerdict::Resync { .. }
        ));
        tracker.register(
            node(),
            DEFAULT_RACK.to_owned(),
            pb::ResourceProto::default(),
            8042,
            later,
        );
        assert_eq!(tracker.get(&node()).unwrap().state, NodeState::Running);
    }
}
