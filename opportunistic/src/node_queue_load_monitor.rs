//! [`NodeQueueLoadMonitor`]: ranks nodes from least to most loaded for opportunistic placement.

use std::collections::BTreeMap;

use crate::{
    ContainerQueuingLimit, LoadComparator, NodeLoad, OpportunisticPlacement, QueueLimitCalculator,
    RemoteNode,
};

/// The RM's view of every NodeManager's queue, YARN's `NodeQueueLoadMonitor` as a pure core.
///
/// The leader feeds it heartbeats ([`update_node`](Self::update_node)) and node removals, and
/// calls [`sort_nodes`](Self::sort_nodes) every
/// `yarn.resourcemanager.nm-container-queuing.sorting-nodes-interval-ms`. Between sorts the
/// order it hands out is fixed, so every allocation in one interval sees the same ranking.
///
/// Guarantees:
/// - a node is ranked only after a heartbeat with a queue status, and only while it is not
///   decommissioning and (with the wait-time comparator) reports a wait-time estimate;
/// - nodes are ordered by the comparator's metric, lowest first; equal metrics go to the node
///   whose report arrived most recently, as YARN breaks ties by report timestamp;
/// - nodes whose queue is full ([`NodeLoad::is_queue_full`]) are left out of the order and of
///   the queue-limit statistics;
/// - before the first sort there are no least-loaded nodes and the queue limit is the
///   calculator's minimum.
///
/// "Most recent" is the order of `update_node` calls, counted by the monitor itself, so the
/// ranking never depends on a clock.
#[derive(Debug, Clone)]
pub struct NodeQueueLoadMonitor {
    calculator: QueueLimitCalculator,
    nodes: BTreeMap<String, TrackedNode>,
    next_report: u64,
    sorted: Vec<String>,
}

#[derive(Debug, Clone)]
struct TrackedNode {
    load: NodeLoad,
    report: u64,
}

impl NodeQueueLoadMonitor {
    /// A monitor that ranks nodes by the calculator's comparator and feeds it at every sort.
    pub fn new(calculator: QueueLimitCalculator) -> Self {
        Self {
            calculator,
            nodes: BTreeMap::new(),
            next_report: 0,
            sorted: Vec::new(),
        }
    }

    /// The metric nodes are ranked by.
    pub fn comparator(&self) -> LoadComparator {
        self.calculator.comparator()
    }

    /// Records a heartbeat's queue status, replacing the node's previous one.
    ///
    /// A decommissioning node, or under the wait-time comparator a node without a wait-time
    /// estimate, is dropped instead (it was perhaps eligible before). The change shows in
    /// [`least_loaded_nodes`](Self::least_loaded_nodes) from the next sort on, except that a
    /// dropped node is left out at once.
    pub fn update_node(&mut self, load: NodeLoad) {
        let eligible = !load.decommissioning && self.comparator().metric(&load).is_some();
        if !eligible {
            self.nodes.remove(&load.node_id);
            return;
        }
        let report = self.next_report;
        self.next_report += 1;
        self.nodes
            .insert(load.node_id.clone(), TrackedNode { load, report });
    }

    /// Forgets a node that left the cluster; it is left out of the least-loaded nodes at once.
    pub fn remove_node(&mut self, node_id: &str) {
        self.nodes.remove(node_id);
    }

    /// Counts each placement as one more queued container on its node until the node's next
    /// heartbeat replaces the figure, as YARN's centralized allocator does when it reserves a
    /// queue slot. Without this the RM would keep sending containers to a queue it has
    /// already filled for the rest of the heartbeat interval. Placements on unknown nodes are
    /// ignored.
    pub fn record_placements(&mut self, placements: &[OpportunisticPlacement]) {
        for placement in placements {
            if let Some(node) = self.nodes.get_mut(&placement.node_id) {
                node.load.queue_length = node.load.queue_length.saturating_add(1);
            }
        }
    }

    /// The periodic step: ranks every eligible node whose queue is not full, least loaded
    /// first (ties to the most recent report), and recomputes the queue limit from the
    /// metrics of exactly those nodes.
    pub fn sort_nodes(&mut self) {
        let comparator = self.calculator.comparator();
        let mut ranked: Vec<(i64, u64, &str)> = self
            .nodes
            .values()
            .filter(|node| !node.load.is_queue_full())
            .filter_map(|node| {
                comparator
                    .metric(&node.load)
                    .map(|metric| (metric, node.report, node.load.node_id.as_str()))
            })
            .collect();
        // Report numbers are unique, so this order is total and independent of map order.
        ranked.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let metrics: Vec<i64> = ranked.iter().map(|(metric, _, _)| *metric).collect();
        self.sorted = ranked.iter().map(|(_, _, id)| id.to_string()).collect();
        self.calculator.update(&metrics);
    }

    /// The first `k` nodes of the last sort, least loaded first (pass `usize::MAX` for all),
    /// with their current queue room.
    ///
    /// The order changes only at a sort. Nodes removed, decommissioned or found full since
    /// then (by a heartbeat or by [`record_placements`](Self::record_placements)) are skipped,
    /// so the list may shrink between sorts but never gains a node. Empty before the first
    /// sort.
    pub fn least_loaded_nodes(&self, k: usize) -> Vec<RemoteNode> {
        self.sorted
            .iter()
            .filter_map(|node_id| self.nodes.get(node_id))
            .filter(|node| !node.load.is_queue_full())
            .take(k)
            .map(|node| RemoteNode {
                node_id: node.load.node_id.clone(),
                host: node.load.host.clone(),
                rack: node.load.rack.clone(),
                queue_room: node.load.queue_room(),
            })
            .collect()
    }

    /// The limit to send to every NM in its heartbeat response: the calculator's minimum
    /// before the first sort, then `clamp(mean + k * stdev, min, max)` as of the last sort.
    pub fn queue_limit(&self) -> ContainerQueuingLimit {
        self.calculator.limit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Locality, Resource};

    fn monitor(comparator: LoadComparator, min: i32, max: i32) -> NodeQueueLoadMonitor {
        NodeQueueLoadMonitor::new(QueueLimitCalculator::new(comparator, 1.0, min, max).unwrap())
    }

    fn load(host: &str, queue_length: i32, queue_capacity: i32) -> NodeLoad {
        NodeLoad {
            node_id: format!("{host}:8041"),
            host: host.to_string(),
            rack: "/r1".to_string(),
            queue_length,
            estimated_queue_wait_time_ms: None,
            queue_capacity,
            decommissioning: false,
        }
    }

    fn waiting(host: &str, wait_ms: Option<i32>) -> NodeLoad {
        NodeLoad {
            estimated_queue_wait_time_ms: wait_ms,
            ..load(host, 0, 10)
        }
    }

    fn hosts(monitor: &NodeQueueLoadMonitor) -> Vec<String> {
        monitor
            .least_loaded_nodes(usize::MAX)
            .into_iter()
            .map(|node| node.host)
            .collect()
    }

    fn placement(host: &str) -> OpportunisticPlacement {
        OpportunisticPlacement {
            priority: 1,
            allocation_request_id: -1,
            node_id: format!("{host}:8041"),
            host: host.to_string(),
            capability: Resource::new(1024, 1),
            locality: Locality::OffSwitch,
        }
    }

    #[test]
    fn nothing_is_ranked_and_limit_is_min_before_the_first_sort() {
        let mut monitor = monitor(LoadComparator::QueueLength, 5, 15);
        monitor.update_node(load("h1", 30, 100));
        monitor.update_node(load("h2", 40, 100));
        assert!(monitor.least_loaded_nodes(10).is_empty());
        assert_eq!(monitor.queue_limit().max_queue_length, 5);
        monitor.sort_nodes();
        assert_eq!(hosts(&monitor), ["h1", "h2"]);
        // mean 35, stdev 5, 35 + 5 = 40 clamped to the maximum 15.
        assert_eq!(monitor.queue_limit().max_queue_length, 15);
    }

    #[test]
    fn a_node_is_absent_until_its_first_status_and_a_sort() {
        let mut monitor = monitor(LoadComparator::QueueLength, 0, 10);
        monitor.update_node(load("h1", 1, 10));
        monitor.sort_nodes();
        monitor.update_node(load("h2", 0, 10));
        assert_eq!(hosts(&monitor), ["h1"]);
        monitor.sort_nodes();
        assert_eq!(hosts(&monitor), ["h2", "h1"]);
    }

    #[test]
    fn queue_length_ranks_lowest_first_with_ties_to_the_latest_report() {
        let mut monitor = monitor(LoadComparator::QueueLength, 0, 10);
        monitor.update_node(load("a", 3, 10));
        monitor.update_node(load("b", 1, 10));
        monitor.update_node(load("c", 1, 10));
        monitor.sort_nodes();
        assert_eq!(hosts(&monitor), ["c", "b", "a"]);

        // A fresh report from b makes it the more recent of the tied pair, but only from the
        // next sort on: the order is stable between sorts.
        monitor.update_node(load("b", 1, 10));
        assert_eq!(hosts(&monitor), ["c", "b", "a"]);
        monitor.sort_nodes();
        assert_eq!(hosts(&monitor), ["b", "c", "a"]);
        assert_eq!(monitor.least_loaded_nodes(2).len(), 2);
    }

    #[test]
    fn queue_wait_time_ranks_by_estimate_and_skips_nodes_without_one() {
        let mut monitor = monitor(LoadComparator::QueueWaitTime, 10, 1000);
        monitor.update_node(NodeLoad {
            queue_length: 0,
            ..waiting("a", Some(300))
        });
        monitor.update_node(NodeLoad {
            queue_length: 9,
            ..waiting("b", Some(100))
        });
        monitor.update_node(waiting("c", None));
        monitor.update_node(waiting("e", Some(-1)));
        monitor.update_node(NodeLoad {
            queue_length: 2,
            ..waiting("d", Some(100))
        });
        monitor.sort_nodes();
        // Queue lengths would put a first; wait times put the tied b and d first, d being the
        // more recent report.
        assert_eq!(hosts(&monitor), ["d", "b", "a"]);
        // Waits 100, 100, 300: mean 500 / 3 = 166; deviations -66, -66, 134; squares 4356 +
        // 4356 + 17956 = 26668; / 3 = 8889.3; sqrt 94.28 -> 94; 166 + 94 = 260.
        assert_eq!(
            monitor.queue_limit(),
            ContainerQueuingLimit {
                max_queue_length: -1,
                max_queue_wait_time_ms: 260
            }
        );

        // Losing the estimate drops a ranked node at once.
        monitor.update_node(waiting("b", None));
        assert_eq!(hosts(&monitor), ["d", "a"]);
    }

    #[test]
    fn full_queues_are_left_out_of_the_order_and_the_limit() {
        let mut monitor = monitor(LoadComparator::QueueLength, 1, 20);
        monitor.update_node(load("n1", 2, 20));
        monitor.update_node(load("full", 20, 20));
        monitor.update_node(load("n2", 4, 20));
        monitor.update_node(load("n3", 9, 20));
        monitor.update_node(load("cannot-queue", 0, 0));
        monitor.sort_nodes();
        assert_eq!(hosts(&monitor), ["cannot-queue", "n1", "n2", "n3"]);
        // Lengths 0, 2, 4, 9 (the full node's 20 left out): mean 15 / 4 = 3; deviations -3,
        // -1, 1, 6; squares 9 + 1 + 1 + 36 = 47; / 4 = 11.75; sqrt 3.43 -> 3; 3 + 1 * 3 = 6.
        // With the full node it would be mean 7, stdev 7, limit 14.
        assert_eq!(monitor.queue_limit().max_queue_length, 6);
        // A node that cannot queue stays listed; its room is unknown.
        assert_eq!(monitor.least_loaded_nodes(1)[0].queue_room, None);

        // A queue found full after the sort leaves the list at once.
        monitor.update_node(load("n2", 20, 20));
        assert_eq!(hosts(&monitor), ["cannot-queue", "n1", "n3"]);
    }

    #[test]
    fn decommissioning_nodes_are_excluded() {
        let mut monitor = monitor(LoadComparator::QueueLength, 0, 10);
        monitor.update_node(load("n1", 0, 10));
        monitor.update_node(load("n2", 1, 10));
        monitor.update_node(NodeLoad {
            decommissioning: true,
            ..load("n3", 0, 10)
        });
        monitor.sort_nodes();
        assert_eq!(hosts(&monitor), ["n1", "n2"]);

        monitor.update_node(NodeLoad {
            decommissioning: true,
            ..load("n1", 0, 10)
        });
        assert_eq!(hosts(&monitor), ["n2"]);
        monitor.sort_nodes();
        assert_eq!(hosts(&monitor), ["n2"]);
    }

    #[test]
    fn removed_nodes_leave_the_list_at_once() {
        let mut monitor = monitor(LoadComparator::QueueLength, 0, 10);
        monitor.update_node(load("n1", 0, 10));
        monitor.update_node(load("n2", 1, 10));
        monitor.sort_nodes();
        monitor.remove_node("n1:8041");
        assert_eq!(hosts(&monitor), ["n2"]);
    }

    #[test]
    fn placements_use_up_queue_room_until_the_next_report() {
        let mut monitor = monitor(LoadComparator::QueueLength, 0, 10);
        monitor.update_node(load("n1", 1, 3));
        monitor.update_node(load("n2", 5, 10));
        monitor.sort_nodes();
        let rooms = |monitor: &NodeQueueLoadMonitor| -> Vec<(String, Option<u32>)> {
            monitor
                .least_loaded_nodes(usize::MAX)
                .into_iter()
                .map(|node| (node.host, node.queue_room))
                .collect()
        };
        assert_eq!(
            rooms(&monitor),
            [("n1".to_string(), Some(2)), ("n2".to_string(), Some(5))]
        );

        monitor.record_placements(&[placement("n1"), placement("n2"), placement("gone")]);
        assert_eq!(
            rooms(&monitor),
            [("n1".to_string(), Some(1)), ("n2".to_string(), Some(4))]
        );
        monitor.record_placements(&[placement("n1")]);
        assert_eq!(rooms(&monitor), [("n2".to_string(), Some(4))]);

        monitor.update_node(load("n1", 0, 3));
        assert_eq!(
            rooms(&monitor),
            [("n1".to_string(), Some(3)), ("n2".to_string(), Some(4))]
        );
    }
}
