//! [`QueueInfo`]: a queue's configuration and usage, for `yarn-ha queue -status` and REST.

use serde::{Deserialize, Serialize};

use crate::auto_created_queues::CreationMethod;

use crate::Resource;
use crate::ordering_policy::OrderingPolicy;
use crate::queue_capacity::QueueCapacity;
use crate::queue_ordering_policy::QueueOrderingPolicy;
use crate::queue_state::QueueState;

/// A snapshot of one queue, as YARN's `QueueInfo` plus the user-limit figures of a leaf.
///
/// Capacities are the effective ones, for the cluster as it is, as percentages: `capacity` and
/// `maximum_capacity` of the parent's, `absolute_*` of the cluster, `used_capacity` of the
/// queue's own guarantee (so it exceeds 100 when the queue uses idle capacity of others),
/// `absolute_used_capacity` of the cluster; the configured ones are beside them, as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueInfo {
    /// Last path component.
    pub queue_name: String,
    /// Full path.
    pub queue_path: String,
    /// RUNNING, STOPPED, or DRAINING (stopped with applications left).
    pub state: QueueState,
    /// Guaranteed share of the parent, percent.
    pub capacity: f64,
    /// Hard limit as a share of the parent, percent.
    pub maximum_capacity: f64,
    /// Guaranteed share of the cluster, percent.
    pub absolute_capacity: f64,
    /// Hard limit as a share of the cluster, percent.
    pub absolute_maximum_capacity: f64,
    /// `capacity` as configured, in its mode (`40`, `3w`, `[memory=10240,vcores=12]`).
    pub configured_capacity: QueueCapacity,
    /// `maximum-capacity` as configured, in its mode.
    pub configured_maximum_capacity: QueueCapacity,
    /// How a leaf orders its applications (`fifo` for a parent).
    pub ordering_policy: OrderingPolicy,
    /// How a parent orders its children (`utilization` for a leaf).
    pub queue_ordering_policy: QueueOrderingPolicy,
    /// `priority`, which counts under a `priority-utilization` parent.
    pub priority: i32,
    /// Usage relative to the guarantee, percent.
    pub used_capacity: f64,
    /// Usage relative to the cluster, percent.
    pub absolute_used_capacity: f64,
    /// Resources in use.
    pub resources_used: Resource,
    /// The guarantee in resources.
    pub guaranteed_resource: Resource,
    /// The hard limit in resources.
    pub maximum_resource: Resource,
    /// Accepted applications, here and below.
    pub num_applications: usize,
    /// Active (running) applications, here and below.
    pub num_active_applications: usize,
    /// Accepted applications not yet active, here and below.
    pub num_pending_applications: usize,
    /// Live GUARANTEED containers of the queue's applications, here and below (OPPORTUNISTIC
    /// ones use no queue capacity, so neither `resources_used` nor this counts them).
    pub num_containers: usize,
    /// What the queue's current attempts still ask for, here and below: outstanding containers
    /// times their normalized size, a not yet allocated AM container included.
    pub pending_resource: Resource,
    /// The containers `pending_resource` adds up.
    pub pending_containers: u64,
    /// `acl_submit_applications` configured on this queue, in Hadoop's canonical string form
    /// (`*`, `" "` for nobody, or users, a space and groups: never empty); `None` when the queue
    /// has no list of its own and relies on its ancestors' (`root` defaults to `*`).
    pub acl_submit_applications: Option<String>,
    /// `acl_administer_queue` configured on this queue, with the same form and meaning of
    /// `None`.
    pub acl_administer_queue: Option<String>,
    /// Priority given to applications submitted without one.
    pub default_application_priority: i32,
    /// `disable_preemption`, as inherited: the queue's containers are never preempted.
    pub disable_preemption: bool,
    /// `intra-queue-preemption.disable_preemption`, as inherited, or `disable_preemption`: the
    /// queue never preempts among its own applications.
    pub intra_queue_disable_preemption: bool,
    /// False for a plan queue whose reservation queues the scheduler's web pages hide
    /// (`show-reservations-as-queues`, false by default); true for every other queue.
    pub shows_reservation_queues: bool,
    /// `minimum-user-limit-percent`.
    pub minimum_user_limit_percent: f64,
    /// `user-limit-factor`.
    pub user_limit_factor: f64,
    /// Accepted-application limit of the queue.
    pub maximum_applications: u32,
    /// Accepted-application limit per user.
    pub maximum_applications_per_user: u32,
    /// The queue's own `max-parallel-apps` (`None` = unlimited).
    pub max_parallel_apps: Option<u32>,
    /// The queue's AM limit (leaves; zero for parents).
    pub am_resource_limit: Resource,
    /// AM resources of active applications (leaves).
    pub am_resource_used: Resource,
    /// Per-user figures (leaves).
    pub users: Vec<UserInfo>,
    /// Names of the child queues.
    pub child_queues: Vec<String>,
    /// Whether it takes applications (no children, and creates none).
    pub is_leaf: bool,
    /// Whether it was configured or created by a submission.
    pub creation_method: CreationMethod,
    /// How it creates queues under it, as Hadoop's REST API names it
    /// (`autoCreationEligibility`): `off`, `legacy` (a managed parent) or `flexible`.
    pub auto_creation_eligibility: &'static str,
    /// `accessible-node-labels`, as inherited: `["*"]` for every label.
    pub accessible_node_labels: Vec<String>,
    /// `default-node-label-expression`, as inherited (`""`: the default partition).
    pub default_node_label_expression: String,
    /// The queue's capacities and usage in each labelled partition of the cluster, by label.
    /// The figures above are the default partition's.
    pub partitions: Vec<PartitionInfo>,
}

/// A queue's capacities and usage in one labelled partition, as [`QueueInfo`] gives them for
/// the default partition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionInfo {
    /// The label.
    pub label: String,
    /// Guaranteed share of the parent's share of the partition, percent.
    pub capacity: f64,
    /// Hard limit as a share of the parent's, percent.
    pub maximum_capacity: f64,
    /// Guaranteed share of the partition, percent.
    pub absolute_capacity: f64,
    /// Hard limit as a share of the partition, percent.
    pub absolute_maximum_capacity: f64,
    /// Resources in use on the partition's nodes.
    pub resources_used: Resource,
    /// The guarantee in resources.
    pub guaranteed_resource: Resource,
    /// The hard limit in resources.
    pub maximum_resource: Resource,
}

/// One user's figures in a leaf queue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserInfo {
    /// The user.
    pub user: String,
    /// Resources of the user's containers in the queue.
    pub resources_used: Resource,
    /// AM resources of the user's active applications.
    pub am_resources_used: Resource,
    /// The user's active applications.
    pub num_active_applications: usize,
    /// The user's accepted applications not yet active.
    pub num_pending_applications: usize,
    /// Live GUARANTEED containers of the user's applications in the queue.
    pub num_containers: usize,
    /// What the user's current attempts in the queue still ask for, as
    /// [`QueueInfo::pending_resource`] counts it.
    pub pending_resource: Resource,
    /// The containers `pending_resource` adds up.
    pub pending_containers: u64,
    /// The user's limit (shared by all users of the queue, weighted).
    pub user_limit: Resource,
    /// The user's weight.
    pub weight: f64,
}
