//! [`Queue`]: a queue of the runtime tree, with its configuration and usage.

use std::collections::{BTreeMap, BTreeSet};

use crate::Resource;
use crate::application::AppOrder;
use crate::effective_capacity::EffectiveCapacity;
use crate::queue_conf::{ApplicationLimits, QueueConf};

/// One queue of the scheduler's tree. Parents aggregate their descendants' usage and counts;
/// only leaves hold applications and users.
#[derive(Debug, Clone)]
pub(crate) struct Queue {
    pub(crate) conf: QueueConf,
    pub(crate) parent: Option<usize>,
    pub(crate) children: Vec<usize>,
    /// The capacities in force for the cluster as it is.
    pub(crate) effective: EffectiveCapacity,
    /// The application limits for that share of the cluster.
    pub(crate) application_limits: ApplicationLimits,
    /// Resources of the containers in this queue and its descendants.
    pub(crate) used: Resource,
    /// Accepted applications (pending and active) here and below.
    pub(crate) num_applications: usize,
    /// Attempts that passed `max-parallel-apps` here and below.
    pub(crate) num_runnable: usize,
    /// Active attempts here and below.
    pub(crate) num_active: usize,
    /// AM resources of active attempts whose AM label is the default partition's (leaves).
    pub(crate) am_used: Resource,
    /// Per-user accounting (leaves).
    pub(crate) users: BTreeMap<String, LeafUser>,
    /// Applications in serving order (leaves).
    pub(crate) apps: BTreeSet<AppOrder>,
    /// The capacities and usage in each labelled partition; `effective` and `used` above are
    /// the default partition's.
    pub(crate) labelled: BTreeMap<String, LabelledShare>,
}

/// The capacities of a queue in a partition it has no share of.
const NO_CAPACITY: EffectiveCapacity = EffectiveCapacity {
    guaranteed: Resource::ZERO,
    maximum: Resource::ZERO,
    capacity: 0.0,
    maximum_capacity: 0.0,
    absolute_capacity: 0.0,
    absolute_maximum_capacity: 0.0,
};

/// A queue's capacities and usage in one labelled partition.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LabelledShare {
    pub(crate) effective: EffectiveCapacity,
    pub(crate) used: Resource,
    /// AM resources of active attempts whose AM label is the partition's (leaves).
    pub(crate) am_used: Resource,
}

/// A user's accounting within one leaf queue.
#[derive(Debug, Clone, Default)]
pub(crate) struct LeafUser {
    pub(crate) used: Resource,
    pub(crate) am_used: Resource,
    pub(crate) num_applications: usize,
    pub(crate) num_active: usize,
}

impl Queue {
    pub(crate) fn new(conf: QueueConf, parent: Option<usize>) -> Self {
        Self {
            conf,
            parent,
            children: Vec::new(),
            effective: EffectiveCapacity::default(),
            application_limits: ApplicationLimits::default(),
            used: Resource::ZERO,
            num_applications: 0,
            num_runnable: 0,
            num_active: 0,
            am_used: Resource::ZERO,
            users: BTreeMap::new(),
            apps: BTreeSet::new(),
            labelled: BTreeMap::new(),
        }
    }

    pub(crate) fn is_leaf(&self) -> bool {
        self.conf.is_leaf()
    }

    /// The queue's capacities in force in `partition` (`""`: the default partition); nothing
    /// in a partition it has no share of. By reference: the scheduling pass reads it for every
    /// child of every parent it descends through.
    #[inline]
    pub(crate) fn effective_in(&self, partition: &str) -> &EffectiveCapacity {
        if partition.is_empty() {
            &self.effective
        } else {
            self.labelled
                .get(partition)
                .map_or(&NO_CAPACITY, |share| &share.effective)
        }
    }

    /// What the queue and its descendants use in `partition`.
    #[inline]
    pub(crate) fn used_in(&self, partition: &str) -> Resource {
        if partition.is_empty() {
            self.used
        } else {
            self.labelled
                .get(partition)
                .map_or(Resource::ZERO, |share| share.used)
        }
    }

    /// The AM resources of the active attempts whose AM label is `partition` (leaves).
    #[inline]
    pub(crate) fn am_used_in(&self, partition: &str) -> Resource {
        if partition.is_empty() {
            self.am_used
        } else {
            self.labelled
                .get(partition)
                .map_or(Resource::ZERO, |share| share.am_used)
        }
    }

    /// Adds `resource` to what the queue uses in `partition`, or takes it back.
    pub(crate) fn charge_in(&mut self, partition: &str, resource: Resource, add: bool) {
        change(self.usage_mut(partition).0, resource, add);
    }

    /// Adds an AM's `resource` to what the queue's AMs use in `partition`, or takes it back.
    pub(crate) fn charge_am_in(&mut self, partition: &str, resource: Resource, add: bool) {
        change(self.usage_mut(partition).1, resource, add);
    }

    /// The usage and AM usage of `partition`, to change.
    fn usage_mut(&mut self, partition: &str) -> (&mut Resource, &mut Resource) {
        if partition.is_empty() {
            (&mut self.used, &mut self.am_used)
        } else {
            let share = self.labelled.entry(partition.to_owned()).or_default();
            (&mut share.used, &mut share.am_used)
        }
    }
}

/// Adds `by` to `value`, or takes it back.
pub(crate) fn change(value: &mut Resource, by: Resource, add: bool) {
    *value = if add {
        value.saturating_add(by)
    } else {
        value.saturating_sub(by)
    };
}
