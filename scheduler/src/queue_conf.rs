//! [`QueueConf`]: one queue's resolved configuration.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Resource;
use crate::access_control_list::AccessControlList;
use crate::queue_acl::QueueAcl;
use crate::queue_capacity::QueueCapacity;
use crate::queue_state::QueueState;
use crate::reservation::ReservationQueueConf;

/// The resolved configuration of one queue, built by
/// [`CapacitySchedulerConfiguration::new`](crate::CapacitySchedulerConfiguration::new).
///
/// `capacity` and `maximum_capacity` are configured relative to the parent ([`QueueCapacity`]);
/// the `absolute_*` values are percentages (0 to 100) of the whole cluster (products down the
/// tree). Invariants: `capacity.percent() <= maximum_capacity.percent()`, `absolute_capacity <=
/// absolute_maximum_capacity`, and the capacities of a parent's children sum to 100 percent (or
/// to 0 under a parent of capacity 0).
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
    /// Guaranteed share of the cluster, percent.
    pub absolute_capacity: f64,
    /// Hard limit as a share of the cluster, percent.
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
    /// Applications (pending and running) the queue accepts: `maximum-applications`, or the
    /// global value scaled by the absolute capacity.
    pub maximum_applications: u32,
    /// Applications one user may have in the queue, derived from `maximum_applications`, the
    /// user limit and the user-limit factor.
    pub maximum_applications_per_user: u32,
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
    /// `disable_preemption`, inherited from the parent when unset (false at the root): no
    /// container is taken back from the queue, and what it uses above its guarantee is left to
    /// it when the cluster is divided.
    pub disable_preemption: bool,
    /// `intra-queue-preemption.disable_preemption`, inherited from the parent when unset
    /// (false at the root): the queue never preempts among its own applications. A queue with
    /// `disable_preemption` does not either.
    pub intra_queue_disable_preemption: bool,
    /// How the queue runs its plan when it is `reservable` (a leaf); `None` otherwise.
    pub reservation: Option<ReservationQueueConf>,
}

impl QueueConf {
    /// Whether the queue has no children and so takes applications.
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    /// The list configured on this queue for `acl` (ancestors' lists not included); `None`
    /// when the queue has none of its own.
    pub fn acl(&self, acl: QueueAcl) -> Option<&AccessControlList> {
        match acl {
            QueueAcl::SubmitApplications => self.acl_submit_applications.as_ref(),
            QueueAcl::AdministerQueue => self.acl_administer_queue.as_ref(),
        }
    }

    /// The weight of `user` in user-limit computations.
    pub fn user_weight(&self, user: &str) -> f64 {
        self.user_weights.get(user).copied().unwrap_or(1.0)
    }
}
