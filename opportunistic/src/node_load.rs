//! [`NodeLoad`]: what one NodeManager heartbeat says about its container queue.

/// The queue status a NodeManager reports in a heartbeat (YARN's
/// `OpportunisticContainersStatus`), with the node's identity and decommission state.
///
/// A heartbeat that carries no queue status is not a `NodeLoad`: such a node is never given to
/// the [`NodeQueueLoadMonitor`](crate::NodeQueueLoadMonitor), so it stays ineligible until its
/// first heartbeat with a status, as in YARN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLoad {
    /// The node id, `host:port`.
    pub node_id: String,
    /// The node's host name, matched against host asks and the blacklist.
    pub host: String,
    /// The node's rack, such as `/default-rack`, matched against rack asks and the blacklist.
    pub rack: String,
    /// Containers waiting in the node's queue: guaranteed and opportunistic ones together
    /// (YARN's `waitQueueLength`).
    pub queue_length: i32,
    /// How long, in milliseconds, a newly queued container is expected to wait; `None` (or a
    /// negative value, YARN's -1) when the node has no estimate.
    pub estimated_queue_wait_time_ms: Option<i32>,
    /// The node's opportunistic queue capacity
    /// (`yarn.nodemanager.opportunistic-containers-max-queue-length`); 0 or less means the
    /// node cannot queue opportunistic containers.
    pub queue_capacity: i32,
    /// Whether the node is being decommissioned (it takes no new opportunistic containers).
    pub decommissioning: bool,
}

impl NodeLoad {
    /// Whether the queue is full, by YARN's rule: the node has a positive capacity and at least
    /// that many queued containers. A node that cannot queue (capacity 0 or less) is never
    /// "full"; it simply has no [`queue_room`](Self::queue_room).
    pub fn is_queue_full(&self) -> bool {
        self.queue_capacity > 0 && self.queue_length >= self.queue_capacity
    }

    /// How many more containers the queue can take: `capacity - length`, never negative.
    /// `None` for a node that does not queue (capacity 0 or less): it starts an opportunistic
    /// container at once when it has the resources and kills it otherwise, so the RM cannot
    /// bound what it sends there by queue room. A negative reported length counts as an empty
    /// queue.
    pub fn queue_room(&self) -> Option<u32> {
        if self.queue_capacity <= 0 {
            return None;
        }
        let room = self.queue_capacity - self.queue_length.max(0);
        Some(u32::try_from(room).unwrap_or(0))
    }

    /// The wait-time estimate if the node has one.
    pub(crate) fn known_wait_time_ms(&self) -> Option<i32> {
        self.estimated_queue_wait_time_ms.filter(|&ms| ms >= 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(queue_length: i32, queue_capacity: i32) -> NodeLoad {
        NodeLoad {
            node_id: "h1:8041".to_string(),
            host: "h1".to_string(),
            rack: "/default-rack".to_string(),
            queue_length,
            estimated_queue_wait_time_ms: None,
            queue_capacity,
            decommissioning: false,
        }
    }

    #[test]
    fn queue_is_full_only_with_a_positive_capacity_reached() {
        assert!(!load(9, 10).is_queue_full());
        assert!(load(10, 10).is_queue_full());
        assert!(load(12, 10).is_queue_full());
        assert!(!load(3, 0).is_queue_full());
        assert!(!load(3, -1).is_queue_full());
    }

    #[test]
    fn queue_room_is_capacity_minus_length_floored_at_zero_and_unknown_without_a_queue() {
        assert_eq!(load(7, 10).queue_room(), Some(3));
        assert_eq!(load(12, 10).queue_room(), Some(0));
        assert_eq!(load(0, 0).queue_room(), None);
        assert_eq!(load(-5, 0).queue_room(), None);
        assert_eq!(load(-5, 4).queue_room(), Some(4));
    }
}
