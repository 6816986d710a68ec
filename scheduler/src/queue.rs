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
    /// AM resources of active attempts (leaves).
    pub(crate) am_used: Resource,
    /// Per-user accounting (leaves).
    pub(crate) users: BTreeMap<String, LeafUser>,
    /// Applications in serving order (leaves).
    pub(crate) apps: BTreeSet<AppOrder>,
    /// The capacities and usage in each labelled partition; `effective` and `used` above are
    /// the default partition's.
    pub(crate) labelled: BTreeMap<String, LabelledShare>,
}

/// A queue's capacities and usage in one labelled partition.
#[derive(Debug, Clone, Default)]
pub(crate) struct LabelledShare {
    pub(crate) effective: EffectiveCapacity,
    pub(crate) used: Resource,
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

    /// What the queue and its descendants use in `partition` (`""`: the default partition).
    pub(crate) fn used_in(&self, partition: &str) -> Resource {
        if partition.is_empty() {
            self.used
        } else {
            self.labelled
                .get(partition)
                .map_or(Resource::ZERO, |share| share.used)
        }
    }

    /// The queue's capacities in force in `partition`; nothing in a partition it has no share
    /// of.
    pub(crate) fn effective_in(&self, partition: &str) -> EffectiveCapacity {
        if partition.is_empty() {
            self.effective
        } else {
            self.labelled
                .get(partition)
                .map(|share| share.effective)
                .unwrap_or_default()
        }
    }

    /// Adds `resource` to what the queue uses in `partition`, or takes it back.
    pub(crate) fn charge_in(&mut self, partition: &str, resource: Resource, add: bool) {
        let used = if partition.is_empty() {
            &mut self.used
        } else {
            &mut self.labelled.entry(partition.to_owned()).or_default().used
        };
        *used = if add {
            used.saturating_add(resource)
        } else {
            used.saturating_sub(resource)
        };
    }

    pub(crate) fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }
}
