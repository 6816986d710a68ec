//! [`SchedulerApplication`]: an accepted application, its current attempt and its usage.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

use crate::Resource;
use crate::allocation::Allocation;
use crate::ask_table::AskTable;
use crate::pending_reason::PendingReason;
use crate::resource_request::ResourceRequest;

/// The order applications are served in within a leaf queue: higher application priority
/// first, then submission order (FIFO).
pub(crate) type AppOrder = (Reverse<i32>, u64, ApplicationId);

/// An application the scheduler has accepted.
#[derive(Debug, Clone)]
pub(crate) struct SchedulerApplication {
    pub(crate) id: ApplicationId,
    pub(crate) user: String,
    /// Full path of the leaf queue.
    pub(crate) queue: String,
    /// Index of the leaf queue in the scheduler's queue table.
    pub(crate) leaf: usize,
    pub(crate) priority: i32,
    pub(crate) submission_order: u64,
    pub(crate) attempt: Option<Attempt>,
    /// Resources of every live container, AM included, across attempts and partitions.
    pub(crate) used: Resource,
    /// The part of `used` on labelled nodes, by label.
    pub(crate) labelled_used: BTreeMap<String, Resource>,
    /// The label of asks and the AM that name none: the submission's, else the queue's
    /// `default-node-label-expression` (`""`: the default partition).
    pub(crate) default_label: String,
    /// The label of the AM container: its own expression, else `default_label`.
    pub(crate) am_label: String,
    pub(crate) containers: BTreeSet<ContainerId>,
    /// The next container sequence number; recovery moves it past every recovered container.
    pub(crate) next_sequence: i64,
}

/// The current attempt and where it stands on the way to running.
#[derive(Debug, Clone)]
pub(crate) struct Attempt {
    pub(crate) id: ApplicationAttemptId,
    /// Normalized AM container size, charged against AM limits while the attempt is active.
    pub(crate) am_resource: Resource,
    /// Whether the AM container still has to be allocated.
    pub(crate) am_pending: bool,
    /// Passed `max-parallel-apps`.
    pub(crate) runnable: bool,
    /// Passed the AM limits: scheduled and charged as running.
    pub(crate) active: bool,
    pub(crate) pending_reason: Option<PendingReason>,
    pub(crate) asks: AskTable,
    /// Hosts and racks the AM asked not to get containers on.
    pub(crate) blacklist: BTreeSet<String>,
    /// Running OPPORTUNISTIC containers waiting to become GUARANTEED, each pinned to its node.
    pub(crate) promotions: BTreeMap<ContainerId, Allocation>,
    /// Running GUARANTEED containers waiting to grow, each to the size asked for.
    pub(crate) increases: BTreeMap<ContainerId, Resource>,
    /// Containers allocated to the attempt that its AM has not acquired, with the asks each
    /// was taken from (one container each).
    pub(crate) unacquired: BTreeMap<ContainerId, Vec<ResourceRequest>>,
}

impl SchedulerApplication {
    /// What the application uses in the default partition.
    pub(crate) fn default_used(&self) -> Resource {
        self.labelled_used
            .values()
            .fold(self.used, |rest, labelled| rest.saturating_sub(*labelled))
    }

    pub(crate) fn order(&self) -> AppOrder {
        (Reverse(self.priority), self.submission_order, self.id)
    }

    /// Whether the application is active and wants a container.
    pub(crate) fn has_demand(&self) -> bool {
        self.attempt
            .as_ref()
            .is_some_and(|a| a.active && (a.am_pending || a.asks.has_outstanding()))
    }

    /// Whether the application is active and wants a container in `partition`: its AM
    /// container (when `with_am`) or an ask for that partition.
    pub(crate) fn has_demand_in(&self, partition: &str, with_am: bool) -> bool {
        self.attempt.as_ref().is_some_and(|a| {
            a.active
                && if a.am_pending {
                    with_am && self.am_label == partition
                } else {
                    a.asks.has_outstanding_in(partition)
                }
        })
    }
}
