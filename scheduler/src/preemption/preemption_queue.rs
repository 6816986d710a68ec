//! [`PreemptionQueue`]: one queue as a preemption round sees it.

use crate::Resource;

/// A queue's resources at the start of a preemption round: its guarantee and maximum as
/// absolute resources of the cluster, what its containers use and what its applications still
/// ask for. A parent's usage and demand are its children's sums
/// ([`parent`](Self::parent) adds them up), so a snapshot is consistent by construction.
#[derive(Debug, Clone, PartialEq)]
pub struct PreemptionQueue {
    /// The queue's full path, `root.a.b`.
    pub path: String,
    /// Its absolute capacity of the cluster.
    pub guaranteed: Resource,
    /// Its absolute maximum capacity of the cluster.
    pub maximum: Resource,
    /// What its running containers hold.
    pub used: Resource,
    /// What its applications ask for and do not hold yet, within the limits that would let
    /// them have it (user limits, AM limits).
    pub pending: Resource,
    /// `yarn.scheduler.capacity.<queue-path>.disable_preemption`, inherited from the parent
    /// when unset: nothing is taken from the queue, and what it uses above its guarantee is
    /// left to it when the rest is divided.
    pub preemption_disabled: bool,
    /// Its `priority` when its parent orders its children by `priority-utilization`, 0
    /// otherwise (Hadoop's relative priority): among siblings on the same side of their
    /// guarantees, the higher is offered spare resources first.
    pub relative_priority: i32,
    /// Its child queues; none for a leaf.
    pub children: Vec<PreemptionQueue>,
}

impl PreemptionQueue {
    /// A leaf queue.
    pub fn leaf(
        path: impl Into<String>,
        guaranteed: Resource,
        maximum: Resource,
        used: Resource,
        pending: Resource,
        preemption_disabled: bool,
    ) -> Self {
        Self {
            path: path.into(),
            guaranteed,
            maximum,
            used,
            pending,
            preemption_disabled,
            relative_priority: 0,
            children: Vec::new(),
        }
    }

    /// A parent queue, whose usage and demand are its children's.
    pub fn parent(
        path: impl Into<String>,
        guaranteed: Resource,
        maximum: Resource,
        preemption_disabled: bool,
        children: Vec<PreemptionQueue>,
    ) -> Self {
        let sum = |field: fn(&PreemptionQueue) -> Resource| {
            children.iter().fold(Resource::ZERO, |sum, child| {
                sum.saturating_add(field(child))
            })
        };
        Self {
            path: path.into(),
            guaranteed,
            maximum,
            used: sum(|child| child.used),
            pending: sum(|child| child.pending),
            preemption_disabled,
            relative_priority: 0,
            children,
        }
    }

    /// The queue with `relative_priority`.
    pub fn with_relative_priority(self, relative_priority: i32) -> Self {
        Self {
            relative_priority,
            ..self
        }
    }

    /// Whether the queue has no children.
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }
}
