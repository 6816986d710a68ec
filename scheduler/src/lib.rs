//! The CapacityScheduler core of yarn-ha: YARN's CapacityScheduler as pure, deterministic,
//! synchronous logic.
//!
//! The RM leader drives a [`CapacityScheduler`] with events (nodes registering, applications
//! submitted, asks, completions) and calls [`CapacityScheduler::schedule`] for one pass over
//! all nodes; it proposes the returned [`Allocation`]s to Raft in one entry. Nothing here reads
//! a clock, draws random numbers, spawns tasks or does I/O, so replaying the same calls gives
//! the same decisions, and a new leader rebuilds the state with
//! [`recover_application`](CapacityScheduler::recover_application) and
//! [`recover_container`](CapacityScheduler::recover_container).
//!
//! # Main types
//!
//! - [`CapacitySchedulerConfiguration`]: the validated queue tree built from the replicated
//!   `capacity-scheduler.xml` properties and the [`SchedulerSettings`] from `yarn-site.xml`;
//!   [`validate_refresh`] says which changes a running scheduler accepts.
//! - [`CapacityScheduler`]: queues with usage, applications, nodes, containers; submission
//!   checks, activation (`max-parallel-apps`, AM limits), the scheduling pass, headroom,
//!   refresh, [`QueueInfo`], and the promotion of running OPPORTUNISTIC containers to
//!   GUARANTEED ([`request_promotion`](CapacityScheduler::request_promotion), granted by
//!   [`schedule_promotions`](CapacityScheduler::schedule_promotions) as a guaranteed ask pinned
//!   to the container's node).
//! - [`Resource`] and [`ResourceCalculator`] (memory-only or dominant resource fairness),
//!   [`QueueLimits`] (user limit, AM limit and headroom arithmetic).
//! - [`AccessControlList`] and [`QueueAcl`] for queue ACLs.
//! - [`SchedulerError`]: every refusal, structured.
//! - [`preemption`]: the decisions of Hadoop's proportional preemption policy, from a snapshot
//!   of the queues (what each queue should hold, and what each leaf gives back).
//! - [`reservation`]: the ReservationSystem's admission: where a reservation goes in a
//!   reservable queue's plan, and whether its user stays within the queue's sharing policy.
//!
//! # Flow of a pass
//!
//! ```text
//!   schedule()
//!     activate waiting attempts (max-parallel-apps, then AM limits)
//!     repeat until nothing more fits:
//!       root -> child its parent's ordering policy puts first -> ... -> leaf
//!       leaf -> applications by priority, then FIFO -> first one under its user limit
//!       application -> AM container, then asks by (priority, allocation_request_id)
//!       ask -> fits leaf and ancestors' maximum capacity? -> named host, else (after the
//!              locality delays) named rack, else most-free node
//!       charge node, queues, user, application; emit Allocation
//! ```
//!
//! # Differences from YARN
//!
//! Node labels are Hadoop's centralized ones with one label per node ([`NodeLabels`]); a
//! labelled partition's capacities are percentages, its users are not held to a user limit or
//! a user AM limit, and its containers are not preempted. A non-exclusive partition lends its
//! idle nodes to the default partition's asks still unplaced after the default partition's
//! pass (held back there for room, a queue maximum or a user limit alike) within the same
//! schedule, rather than after a count of missed opportunities. Delay scheduling counts a scheduling
//! opportunity for every heartbeat from a node with room, whichever applications the pass then
//! reaches ([`LocalityDelay`]). Application lifetimes are resolved
//! here ([`ApplicationLifetime`]) and enforced by the ResourceManager, which owns the clock.

mod access_control_list;
mod activities;
mod allocation;
mod application;
mod application_lifetime;
mod application_status;
mod ask_table;
mod auto_created_queues;
mod capacity_scheduler;
mod capacity_scheduler_configuration;
mod configuration_mutation;
mod effective_capacity;
mod error;
mod heartbeat_assignments;
mod locality_delay;
mod managed_parent_queues;
mod node;
mod node_labels;
mod ordering_policy;
mod pending_reason;
mod placement_rules;
pub mod preemption;
mod property_reader;
mod queue;
mod queue_acl;
mod queue_capacity;
mod queue_conf;
mod queue_info;
mod queue_limits;
mod queue_node_labels;
mod queue_ordering_policy;
mod queue_property;
mod queue_state;
mod refresh;
pub mod reservation;

mod resource_calculator;
mod resource_request;
mod scheduler_settings;

pub use access_control_list::AccessControlList;
pub use activities::{
    ActivitiesRecorder, ActivityDiagnostic, ActivityState, AppActivity, MAX_RECORDS_PER_RECORDER,
    MAX_REQUESTS_PER_RECORD, RequestActivity,
};
pub use allocation::Allocation;
pub use application_lifetime::{ApplicationLifetime, deadline_ms};
pub use application_status::{AcceptedApplication, ApplicationStatus};
pub use auto_created_queues::{
    AutoQueueCreation, CreatedAs, CreatedQueues, CreationMethod, CreationRefused,
    QUEUE_EXPIRATION_TIME_KEY, created_queues, kept_from_removal, queue_expiration,
    queues_to_create,
};
pub use capacity_scheduler::{CapacityScheduler, DEFAULT_RACK};
pub use capacity_scheduler_configuration::{
    CAPACITY_EPSILON, CapacitySchedulerConfiguration, EARLIER_COMMIT, ROOT,
};
pub use configuration_mutation::{
    ConfigurationStore, DEFAULT_MUTATION_ACL_POLICY, MutationAclPolicy,
    QUEUE_ADMIN_MUTATION_ACL_POLICY,
};
pub use effective_capacity::EffectiveCapacity;
pub use error::SchedulerError;
pub use heartbeat_assignments::{
    HeartbeatAssignments, MAXIMUM_CONTAINER_ASSIGNMENTS_KEY, MAXIMUM_OFFSWITCH_ASSIGNMENTS_KEY,
    MULTIPLE_ASSIGNMENTS_KEY, SCHEDULE_ASYNCHRONOUSLY_KEY, heartbeat_key_warnings,
};
pub use locality_delay::{
    LocalityDelay, LocationAsks, NODE_LOCALITY_DELAY_KEY, NodeType,
    RACK_LOCALITY_ADDITIONAL_DELAY_KEY, RACK_LOCALITY_FULL_RESET_KEY,
};
pub use managed_parent_queues::{
    ManagedParent, activation_fits, creation_allowed, managed_parent_of,
};
pub use node::SchedulerNode;
pub use node_labels::{MAX_LABEL_LENGTH, NodeLabel, NodeLabels, NodeSpec, check_label_name};
pub use ordering_policy::OrderingPolicy;
pub use pending_reason::PendingReason;
pub use placement_rules::{
    APP_NAME_MAPPINGS_KEY, MAPPING_RULE_FORMAT_KEY, MAPPING_RULE_JSON_FILE_KEY,
    MAPPING_RULE_JSON_KEY, Placement, PlacementRules, QUEUE_MAPPINGS_KEY,
    QUEUE_MAPPINGS_OVERRIDE_KEY, RuleSources, Submission, convert_legacy_rules,
};
pub use queue_acl::QueueAcl;
pub use queue_capacity::{CapacityEntry, QueueCapacity, ResourceType};
pub use queue_conf::{ApplicationLimits, QueueConf};
pub use queue_info::{PartitionInfo, QueueInfo, UserInfo};
pub use queue_limits::QueueLimits;
pub use queue_node_labels::{LabelCapacity, QueueNodeLabels, queue_naming_label};
pub use queue_ordering_policy::QueueOrderingPolicy;
pub use queue_property::key_verdict;
pub use queue_state::QueueState;
pub use refresh::validate_refresh;
pub use resource_calculator::{RESOURCE_CALCULATOR_KEY, ResourceCalculator};
pub use resource_request::ResourceRequest;
pub use scheduler_settings::{
    ADMIN_ACL_KEY, MAX_APPLICATION_PRIORITY_KEY, MAXIMUM_ALLOCATION_MB_KEY,
    MAXIMUM_ALLOCATION_VCORES_KEY, MINIMUM_ALLOCATION_MB_KEY, MINIMUM_ALLOCATION_VCORES_KEY,
    SchedulerSettings,
};
pub use yarn_proto::Resource;
