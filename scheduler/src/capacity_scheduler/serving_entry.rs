//! [`ServingEntry`]: an application's place in a leaf's serving order under a policy other than
//! fifo, for one scheduling pass.

use std::cmp::Ordering;

use yarn_proto::ids::ApplicationId;

use crate::Resource;
use crate::ordering_policy::OrderingPolicy;

/// An application as a non-fifo leaf orders it: higher application priority first, then the
/// smaller [`OrderingPolicy::magnitude`], then submission order.
///
/// Only the application served changes during a pass (its usage grows by the container placed;
/// its demand, what it holds plus what it still asks for, does not), so an ordered set of these
/// stays exact when the served entry is put back [`with_more`](Self::with_more).
#[derive(Debug, Clone)]
pub(super) struct ServingEntry {
    pub(super) id: ApplicationId,
    priority: i32,
    submission_order: u64,
    used: Resource,
    demand: Resource,
    magnitude: f64,
    policy: OrderingPolicy,
}

impl ServingEntry {
    pub(super) fn new(
        id: ApplicationId,
        priority: i32,
        submission_order: u64,
        used: Resource,
        demand: Resource,
        policy: OrderingPolicy,
    ) -> Self {
        Self {
            id,
            priority,
            submission_order,
            used,
            demand,
            magnitude: policy.magnitude(used, demand),
            policy,
        }
    }

    /// The same application once `resource` more is allocated to it.
    pub(super) fn with_more(self, resource: Resource) -> Self {
        let used = self.used.saturating_add(resource);
        Self::new(
            self.id,
            self.priority,
            self.submission_order,
            used,
            self.demand,
            self.policy,
        )
    }
}

impl Ord for ServingEntry {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .priority
            .cmp(&self.priority)
            .then(self.magnitude.total_cmp(&other.magnitude))
            .then(self.submission_order.cmp(&other.submission_order))
            .then(self.id.cmp(&other.id))
    }
}

impl PartialOrd for ServingEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for ServingEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for ServingEntry {}
