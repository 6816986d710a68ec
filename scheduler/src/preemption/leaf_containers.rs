//! [`LeafContainers`]: a leaf's running applications and containers, as a preemption round
//! chooses among them.

use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::{ApplicationId, ContainerId};

use crate::Resource;
use crate::ordering_policy::OrderingPolicy;

/// A GUARANTEED container running in a leaf, as a preemption round sees it.
///
/// OPPORTUNISTIC containers are not candidates: they are not charged to their queue, so taking
/// one back gives no queue anything, and a NodeManager already stops them itself to start a
/// GUARANTEED container that needs their room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningContainer {
    /// The container.
    pub id: ContainerId,
    /// The priority it was asked for at; a greater number is less important.
    pub priority: i32,
    /// What it holds.
    pub resource: Resource,
    /// Whether it runs its application's ApplicationMaster.
    pub is_am: bool,
}

/// An application of a leaf with its running GUARANTEED containers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningApplication {
    /// The application.
    pub id: ApplicationId,
    /// Its priority; a greater number is more important.
    pub priority: i32,
    /// The user it runs as.
    pub user: String,
    /// What its current attempt still asks for; nothing while the attempt waits to be
    /// activated.
    pub pending: Resource,
    /// Its running containers.
    pub containers: Vec<RunningContainer>,
}

/// A leaf's applications, the AM limit its ApplicationMasters are kept under and what its
/// users may hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LeafContainers {
    /// The running applications.
    pub applications: Vec<RunningApplication>,
    /// What the leaf's ApplicationMasters may hold together (the queue's AM resource limit):
    /// ApplicationMasters are taken back only while those the round passed over hold more.
    pub am_limit: Resource,
    /// Each user's user limit in the leaf, for every user with an application in it.
    pub user_limits: BTreeMap<String, Resource>,
    /// `yarn.scheduler.capacity.<queue-path>.intra-queue-preemption.disable_preemption`, as
    /// inherited: the leaf never preempts for its own applications.
    pub intra_queue_preemption_disabled: bool,
    /// How the leaf serves its applications: containers are taken back in the reverse order.
    pub ordering_policy: OrderingPolicy,
}

impl RunningApplication {
    /// What its running containers hold together.
    pub fn used(&self) -> Resource {
        self.containers
            .iter()
            .fold(Resource::ZERO, |sum, container| {
                sum.saturating_add(container.resource)
            })
    }
}

impl LeafContainers {
    /// What the leaf's containers among `ids` hold together.
    pub fn held_by(&self, ids: &BTreeSet<ContainerId>) -> Resource {
        self.applications
            .iter()
            .flat_map(|application| &application.containers)
            .filter(|container| ids.contains(&container.id))
            .fold(Resource::ZERO, |sum, container| {
                sum.saturating_add(container.resource)
            })
    }
}
