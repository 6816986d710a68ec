//! [`QueueConf`]: one queue's resolved configuration.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Resource;
use crate::access_control_list::AccessControlList;
use crate::application_lifetime::ApplicationLifetime;
use crate::auto_created_queues::{AutoQueueCreation, CreationMethod};
use crate::managed_parent_queues::ManagedParent;
use crate::ordering_policy::OrderingPolicy;
use crate::queue_acl::QueueAcl;
use crate::queue_capacity::QueueCapacity;
use crate::queue_node_labels::QueueNodeLabels;
use crate::queue_ordering_policy::QueueOrderingPolicy;
use crate::queue_state::QueueState;
use crate::reservation::ReservationQueueConf;

/// The resolved configuration of one queue, built by
/// [`CapacitySchedulerConfiguration::new`](crate::CapacitySchedulerConfiguration::new).
///
/// `capacity` and `maximum_capacity` are as configured, in their mode ([`QueueCapacity`]); the
/// `absolute_*` values are the nominal shares of the whole cluster, percent, that the
/// percentages and weights give with absolute amounts counting as nothing. What a queue has in
/// force depends on the cluster: [`EffectiveCapacity`](crate::EffectiveCapacity). Invariants:
/// the capacity rules of the queue mode hold (see
/// [`CapacitySchedulerConfiguration::new`](crate::CapacitySchedulerConfiguration::new)), and
/// `absolute_capacity <= absolute_maximum_capacity`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueConf {
    /// Full path, `root.a.a1`.
    pub path: String,
    /// Last path component, `a1`.
    pub name: String,
    /// The parent's path; `None` for `root`.
    pub parent: Option<String>,
    /// Full paths of the children, in configured order; empty for a leaf.
    pub children: Vec<String>,
    /// `capacity`: guaranteed share of the parent ([`QueueCapacity::FULL`] for `root`).
    pub capacity: QueueCapacity,
    /// `maximum-capacity`: hard limit as a share of the parent (`-1` or unset =
    /// [`QueueCapacity::FULL`]).
    pub maximum_capacity: QueueCapacity,
    /// Nominal guaranteed share of the cluster, percent.
    pub absolute_capacity: f64,
    /// Nominal hard limit as a share of the cluster, percent.
    pub absolute_maximum_capacity: f64,
    /// `state`, inherited from the parent when unset: RUNNING or STOPPED.
    pub state: QueueState,
    /// `acl_submit_applications` as configured on this queue; `None` when unset, which grants
    /// nothing here: the queue then relies on its ancestors' lists, which apply in any case.
    /// Unset on `root`, it is `*`, as in Hadoop.
    pub acl_submit_applications: Option<AccessControlList>,
    /// `acl_administer_queue` as configured on this queue, with the same meaning of `None`, the
    /// same inheritance and the same `*` default on `root`.
    pub acl_administer_queue: Option<AccessControlList>,
    /// `minimum-user-limit-percent` (100 = no user limit).
    pub minimum_user_limit_percent: f64,
    /// `user-limit-factor` (1; -1 disables it).
    pub user_limit_factor: f64,
    /// `user-settings.<user>.weight` entries (1.0 for users not listed).
    pub user_weights: BTreeMap<String, f64>,
    /// `maximum-applications` as configured on the queue; when unset the limit follows the
    /// queue's share of the cluster ([`application_limits`](Self::application_limits)).
    pub maximum_applications: Option<u32>,
    /// `max-parallel-apps` of this queue (or the global default); `None` = unlimited. Ancestors'
    /// limits also apply.
    pub max_parallel_apps: Option<u32>,
    /// `maximum-am-resource-percent` as a fraction (0.1 = 10%).
    pub maximum_am_resource_percent: f64,
    /// `maximum-allocation-{mb,vcores}`: the largest container, inherited from the parent and
    /// never above the cluster maximum.
    pub maximum_allocation: Resource,
    /// `default-application-priority`: priority of applications submitted without one.
    pub default_application_priority: i32,
    /// `maximum-application-lifetime` and `default-application-lifetime`, resolved.
    pub application_lifetime: ApplicationLifetime,
    /// `disable_preemption`, inherited from the parent when unset (false at the root): no
    /// container is taken back from the queue, and what it uses above its guarantee is left to
    /// it when the cluster is divided.
    pub disable_preemption: bool,
    /// `intra-queue-preemption.disable_preemption`, inherited from the parent when unset
    /// (false at the root): the queue never preempts among its own applications. A queue with
    /// `disable_preemption` does not either.
    pub intra_queue_disable_preemption: bool,
    /// `ordering-policy` of a leaf: how it orders its applications (fifo for a parent).
    pub ordering_policy: OrderingPolicy,
    /// `ordering-policy` of a parent: how it orders its children (utilization for a leaf).
    pub queue_ordering_policy: QueueOrderingPolicy,
    /// `priority`: how the queue ranks among its siblings under a `priority-utilization`
    /// parent (0, the default, otherwise has no effect).
    pub priority: i32,
    /// How the queue runs its plan when it is `reservable` (a leaf); `None` otherwise.
    pub reservation: Option<ReservationQueueConf>,
    /// The partitions the queue may use, its share of each and its default label.
    pub node_labels: QueueNodeLabels,
    /// Its flexible auto-creation of queues under it; `None` when it creates none.
    pub auto_queue_creation: Option<AutoQueueCreation>,
    /// Its legacy auto-creation of leaves under it; `None` unless it is a managed parent.
    pub managed_parent: Option<ManagedParent>,
    /// Whether it was configured or created by a submission.
    pub creation_method: CreationMethod,
}

/// How many applications a queue takes: [`QueueConf::application_limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ApplicationLimits {
    /// Pending and running applications in the queue.
    pub queue: u32,
    /// Pending and running applications of one user in the queue.
    pub per_user: u32,
}

impl QueueConf {
    /// Whether the queue takes applications: it has no children and creates none (a queue
    /// that may create queues is a parent, as in Hadoop, even before it has any).
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty() && !self.creates_queues()
    }

    /// Whether submissions may create queues under it (the flexible way, or as a managed
    /// parent).
    pub fn creates_queues(&self) -> bool {
        self.auto_queue_creation.is_some() || self.managed_parent.is_some()
    }

    /// The list configured on this queue for `acl` (ancestors' lists not included); `None`
    /// when the queue has none of its own.
    pub fn acl(&self, acl: QueueAcl) -> Option<&AccessControlList> {
        match acl {
            QueueAcl::SubmitApplications => self.acl_submit_applications.as_ref(),
            QueueAcl::AdministerQueue => self.acl_administer_queue.as_ref(),
        }
    }

    /// The applications (pending and running) the queue accepts, and those one user may have in
    /// it, for a queue holding `absolute_capacity` percent of the cluster: `maximum-applications`,
    /// or `global` (`yarn.scheduler.capacity.maximum-applications`) scaled by that share; per
    /// user, scaled by the user limit and the user-limit factor.
    pub fn application_limits(&self, global: u32, absolute_capacity: f64) -> ApplicationLimits {
        let queue = self
            .maximum_applications
            .unwrap_or((f64::from(global) * absolute_capacity / 100.0) as u32);
        let per_user = if self.user_limit_factor == -1.0 {
            queue
        } else {
            let scaled =
                f64::from(queue) * self.minimum_user_limit_percent / 100.0 * self.user_limit_factor;
            queue.min(scaled.min(f64::from(u32::MAX)) as u32)
        };
        ApplicationLimits { queue, per_user }
    }

    /// The weight of `user` in user-limit computations.
    pub fn user_weight(&self, user: &str) -> f64 {
        self.user_weights.get(user).copied().unwrap_or(1.0)
    }
}
