//! [`SchedulerError`]: every failure of the scheduler crate.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};

use crate::Resource;
use crate::property_reader::PREFIX;
use crate::queue_acl::QueueAcl;
use crate::queue_state::QueueState;

/// Everything the scheduler refuses, as structured values.
///
/// Configuration errors name the key or queue, the value and what was expected; refusals name
/// the application, user, queue and the limit that applied. Callers branch on variants, never on
/// message text. An operation that returns an error has changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum SchedulerError {
    // ---- configuration ----
    /// A `yarn-site.xml` value could not be read (unresolvable `${...}`, bad boolean).
    #[error("cannot read scheduler settings: {source}")]
    Conf {
        /// The configuration crate's positioned error.
        #[source]
        source: yarn_conf::ConfError,
    },

    /// A value does not parse or is out of range.
    #[error("key {key}: value {value:?} is invalid (expected {expected})")]
    InvalidValue {
        /// The property name.
        key: String,
        /// The offending value, trimmed.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },

    /// A legacy placement entry that does not parse, or names a queue that is no leaf.
    #[error("key {key}: mapping {entry:?}: {reason}")]
    QueueMapping {
        /// The property name.
        key: &'static str,
        /// The entry, as written.
        entry: String,
        /// What is wrong, in Hadoop's words where it has them.
        reason: String,
    },

    /// A JSON placement rule document that does not parse, or a rule in it that lacks a field
    /// its policy needs or names a queue that cannot be a leaf.
    #[error("key {key}: {reason}")]
    MappingRules {
        /// The property name.
        key: &'static str,
        /// What is wrong, and which rule, by position.
        reason: String,
    },

    /// A queue that creates queues whose templates configure a queue the rules refuse.
    #[error(
        "the queues {parent} would auto-create (yarn.scheduler.capacity.{parent}.{}) are \
         refused: a leaf created under it by its templates ({}) and beside its other children \
         would break a rule: {source}",
        if *legacy { "auto-create-child-queue.enabled" } else { "auto-queue-creation-v2.enabled" },
        if *legacy {
            "leaf-queue-template.*"
        } else {
            "auto-queue-creation-v2.template.*, leaf-template.*, with wildcard paths"
        }
    )]
    AutoCreatedQueueTemplate {
        /// The queue that creates queues.
        parent: String,
        /// It is a managed parent (legacy auto-creation).
        legacy: bool,
        /// What is wrong with the queue its templates configure.
        #[source]
        source: Box<SchedulerError>,
    },

    /// A capacity vector in legacy queue mode.
    #[error(
        "key {key}: value {value:?} is a capacity vector, which needs \
         yarn.scheduler.capacity.legacy-queue-mode.enabled=false"
    )]
    CapacityVectorInLegacyMode {
        /// The property name.
        key: String,
        /// The value, trimmed.
        value: String,
    },

    /// Keys of a queue that break a rule between them: capacity modes mixed where legacy queue
    /// mode forbids it, children given more than their parent has, a policy setting for a
    /// policy the queue does not use.
    #[error("key {key}: {rule}")]
    QueueRule {
        /// The key that breaks the rule (the first, when several do together).
        key: String,
        /// The rule and the values that break it.
        rule: String,
    },

    /// A Hadoop key the scheduler does not honour, set to a value that would need it to (see
    /// `yarn_conf::unhonoured`).
    #[error("key {key}: value {value:?} is refused: {reason}")]
    UnhonouredKey {
        /// The property name.
        key: String,
        /// The value, trimmed.
        value: String,
        /// What yarn-ha does instead, and the values it accepts.
        reason: String,
    },

    /// A reservation class key names a class yarn-ha does not implement.
    #[error(
        "key {key}: value {value:?} is not a reservation class yarn-ha implements (it places \
         reservations with Hadoop's greedy agent, checks them with CapacityOverTimePolicy or \
         NoOverCommitPolicy, and knows the replanner SimpleCapacityReplanner)"
    )]
    UnsupportedReservationClass {
        /// The property name.
        key: String,
        /// The class named.
        value: String,
    },

    /// A queue with children is `reservable`: only a leaf can hold a plan.
    #[error(
        "key {key}: queue {queue} has child queues, and only a leaf queue can be reservable \
         (its reservations' queues are created under it)"
    )]
    ReservableParent {
        /// The queue's path.
        queue: String,
        /// The `reservable` key.
        key: String,
    },

    /// A per-queue key names a queue that is not part of the hierarchy: no `queues` list
    /// leads to it from `root`.
    #[error(
        "key {key}: queue {queue} is not part of the queue hierarchy \
         (yarn.scheduler.capacity.{parent}.queues = {listed:?} does not list {child})",
        child = first_unlisted(queue, parent)
    )]
    QueueNotInHierarchy {
        /// The property name.
        key: String,
        /// The queue path the key configures.
        queue: String,
        /// The deepest configured queue on that path; the next component of `queue` is not
        /// one of its children.
        parent: String,
        /// The children `parent` does have, comma-separated (empty for a leaf).
        listed: String,
    },

    /// `yarn.scheduler.capacity.resource-calculator` names a class that is not supported.
    #[error(
        "key {key}: value {value:?} is not a supported resource calculator (expected \
         org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator or \
         org.apache.hadoop.yarn.util.resource.DominantResourceCalculator)"
    )]
    UnknownResourceCalculator {
        /// The property name.
        key: &'static str,
        /// The class name given.
        value: String,
    },

    /// A minimum allocation exceeds its maximum.
    #[error("{minimum_key}={minimum} exceeds {maximum_key}={maximum}")]
    InvalidAllocationRange {
        /// The minimum's key.
        minimum_key: &'static str,
        /// The minimum.
        minimum: u64,
        /// The maximum's key.
        maximum_key: &'static str,
        /// The maximum.
        maximum: u64,
    },

    /// A child queue name is not a plain name.
    #[error(
        "queue {parent}: child queue name {name:?} is invalid (expected a name without dots or whitespace)"
    )]
    InvalidQueueName {
        /// The parent whose `queues` list holds the name.
        parent: String,
        /// The bad name.
        name: String,
    },

    /// A parent lists the same child twice.
    #[error(
        "queue {parent}: child queue {queue:?} is listed more than once in yarn.scheduler.capacity.{parent}.queues"
    )]
    DuplicateQueue {
        /// The parent queue's path.
        parent: String,
        /// The repeated child name.
        queue: String,
    },

    /// A non-root queue has no capacity.
    #[error("queue {queue} has no capacity: set {key} to a percentage of its parent")]
    MissingCapacity {
        /// The queue's path.
        queue: String,
        /// The key to set.
        key: String,
    },

    /// A queue's capacity exceeds its maximum capacity.
    #[error("queue {queue}: capacity {capacity} exceeds maximum-capacity {maximum_capacity}")]
    CapacityAboveMaximum {
        /// The queue's path.
        queue: String,
        /// Its capacity, as configured.
        capacity: String,
        /// Its maximum capacity, as configured.
        maximum_capacity: String,
    },

    /// A queue's default application lifetime, its own or inherited, exceeds its maximum.
    #[error(
        "queue {queue}: default-application-lifetime {default_secs} s exceeds \
         maximum-application-lifetime {maximum_secs} s (Hadoop's \"Default lifetime \
         {default_secs} can't exceed maximum lifetime {maximum_secs}\")"
    )]
    DefaultLifetimeAboveMaximum {
        /// The queue's path.
        queue: String,
        /// Its default lifetime, seconds.
        default_secs: u64,
        /// Its maximum lifetime, seconds.
        maximum_secs: u64,
    },

    /// The capacities of a parent's children do not add up to 100.
    #[error("queue {parent}: capacities of the children {children} sum to {sum}, expected 100")]
    ChildCapacitySum {
        /// The parent queue's path.
        parent: String,
        /// The sum found.
        sum: f64,
        /// The children's paths, comma-separated.
        children: String,
    },

    /// A queue is configured RUNNING under a STOPPED parent.
    #[error("queue {queue} is configured RUNNING but its parent {parent} is STOPPED")]
    RunningChildOfStoppedParent {
        /// The child's path.
        queue: String,
        /// The stopped parent's path.
        parent: String,
    },

    /// A per-queue maximum allocation exceeds the cluster's.
    #[error(
        "queue {queue}: {key}={value} exceeds the cluster maximum {cluster_key}={cluster_maximum}"
    )]
    MaximumAllocationAboveCluster {
        /// The queue's path.
        queue: String,
        /// The per-queue key.
        key: String,
        /// The per-queue value.
        value: u64,
        /// The cluster-wide key.
        cluster_key: &'static str,
        /// The cluster-wide value.
        cluster_maximum: u64,
    },

    // ---- refresh ----
    /// A refresh removes a queue that is not STOPPED.
    #[error("refresh rejected: queue {queue} is removed but is {state}; stop it first")]
    RemovedQueueNotStopped {
        /// The removed queue's path.
        queue: String,
        /// Its current state.
        state: QueueState,
    },

    /// A refresh removes a queue that still has applications.
    #[error(
        "refresh rejected: queue {queue} is removed but still has {applications} application(s)"
    )]
    RemovedQueueHasApplications {
        /// The removed queue's path.
        queue: String,
        /// Applications in it (and its descendants).
        applications: usize,
    },

    /// A refresh turns a leaf with applications into a parent.
    #[error(
        "refresh rejected: leaf queue {queue} cannot become a parent queue while it has {applications} application(s)"
    )]
    LeafWithApplicationsBecomesParent {
        /// The queue's path.
        queue: String,
        /// Applications in it.
        applications: usize,
    },

    /// A refresh moves a queue to another parent.
    #[error("refresh rejected: queue {name} cannot move from {from} to {to}")]
    QueueMoved {
        /// The queue's name.
        name: String,
        /// Its current path.
        from: String,
        /// The path the new configuration gives it.
        to: String,
    },

    /// A refresh lowers a queue's maximum allocation.
    #[error(
        "refresh rejected: queue {queue}: the maximum allocation cannot be decreased from {current} to {requested}"
    )]
    MaximumAllocationDecreased {
        /// The queue's path.
        queue: String,
        /// The maximum allocation in effect.
        current: Resource,
        /// The smaller one requested.
        requested: Resource,
    },

    // ---- submission ----
    /// The target queue does not exist.
    #[error("application {application} submitted by user {user} to unknown queue: {queue}")]
    UnknownQueue {
        /// The application.
        application: ApplicationId,
        /// The submitting user.
        user: String,
        /// The queue as given.
        queue: String,
    },

    /// The queue name matches several queues.
    #[error(
        "application {application}: queue name {queue} is ambiguous, use the full path (one of {candidates})"
    )]
    AmbiguousQueue {
        /// The application.
        application: ApplicationId,
        /// The name as given.
        queue: String,
        /// Every matching path, comma-separated.
        candidates: String,
    },

    /// The queue is a parent queue.
    #[error("application {application} submitted by user {user} to non-leaf queue: {queue}")]
    NotLeafQueue {
        /// The application.
        application: ApplicationId,
        /// The submitting user.
        user: String,
        /// The parent queue's path.
        queue: String,
    },

    /// An application names a reservation that has no queue under its plan queue now: its
    /// window has not begun or has ended, or it belongs to another queue.
    #[error(
        "application {application} is submitted to reservation {reservation}, which is not \
         currently active in queue {queue}"
    )]
    ReservationNotActive {
        /// The application.
        application: ApplicationId,
        /// The plan queue's path.
        queue: String,
        /// The reservation id.
        reservation: String,
    },

    /// An application names a reservation but its queue is not reservable.
    #[error(
        "application {application} names reservation {reservation}, but queue {queue} is not \
         reservable (yarn.scheduler.capacity.{queue}.reservable is not true)"
    )]
    QueueNotReservable {
        /// The application.
        application: ApplicationId,
        /// The queue's path.
        queue: String,
        /// The reservation id.
        reservation: String,
    },

    /// The queue or an ancestor is not RUNNING.
    #[error(
        "queue {queue} is {state} (because of {stopped_queue}): cannot accept submission of application {application}"
    )]
    QueueNotRunning {
        /// The application.
        application: ApplicationId,
        /// The target queue's path.
        queue: String,
        /// Its reported state.
        state: QueueState,
        /// The queue whose configuration is STOPPED (the target or an ancestor).
        stopped_queue: String,
    },

    /// The user lacks a queue right.
    #[error("user {user} does not have permission {right} on queue {queue}")]
    AccessDenied {
        /// The user.
        user: String,
        /// The missing right.
        right: QueueAcl,
        /// The queue's path.
        queue: String,
    },

    /// The queue already holds its maximum number of applications.
    #[error(
        "queue {queue} already has {current} applications (maximum-applications {limit}), cannot accept submission of application {application}"
    )]
    QueueApplicationLimit {
        /// The application.
        application: ApplicationId,
        /// The queue's path.
        queue: String,
        /// Applications in the queue.
        current: usize,
        /// The queue's limit.
        limit: u32,
    },

    /// The user already holds their maximum number of applications in the queue.
    #[error(
        "queue {queue} already has {current} applications from user {user} (limit {limit}), cannot accept submission of application {application}"
    )]
    UserApplicationLimit {
        /// The application.
        application: ApplicationId,
        /// The queue's path.
        queue: String,
        /// The user.
        user: String,
        /// The user's applications in the queue.
        current: usize,
        /// The per-user limit.
        limit: u32,
    },

    /// The application is already known.
    #[error("application {application} is already submitted")]
    DuplicateApplication {
        /// The application.
        application: ApplicationId,
    },

    // ---- runtime ----
    /// No such application.
    #[error("application {application} is unknown to the scheduler")]
    UnknownApplication {
        /// The application.
        application: ApplicationId,
    },

    /// The attempt is not the application's current attempt.
    #[error("application attempt {attempt} is not the current attempt of its application")]
    UnknownAttempt {
        /// The attempt.
        attempt: ApplicationAttemptId,
    },

    /// An ask exceeds the maximum allocation.
    #[error(
        "invalid resource request from {attempt}: requested {requested} at priority {priority} \
         exceeds the maximum allocation {maximum} of queue {queue}"
    )]
    InvalidResourceRequest {
        /// The asking attempt.
        attempt: ApplicationAttemptId,
        /// The capability asked for.
        requested: Resource,
        /// The ask's priority.
        priority: i32,
        /// The queue's maximum allocation.
        maximum: Resource,
        /// The queue's path.
        queue: String,
    },

    /// The node is already registered.
    #[error("node {node} is already registered with the scheduler")]
    DuplicateNode {
        /// The node.
        node: NodeId,
    },

    /// No such node.
    #[error("node {node} is unknown to the scheduler")]
    UnknownNode {
        /// The node.
        node: NodeId,
    },

    /// A container was released by an application that does not own it.
    #[error("container {container} does not belong to application {application}")]
    ContainerNotOwned {
        /// The container.
        container: ContainerId,
        /// The application that tried to release it.
        application: ApplicationId,
    },

    /// An update named a container the scheduler does not hold (completed, or not GUARANTEED).
    #[error("container {container} is not a GUARANTEED container the scheduler holds")]
    UnknownContainer {
        /// The container.
        container: ContainerId,
    },

    /// A recovered container is already known.
    #[error("container {container} is already allocated")]
    DuplicateContainer {
        /// The container.
        container: ContainerId,
    },

    /// The epoch cannot be placed in container ids.
    #[error("epoch {epoch} is outside 0..={max}", max = ContainerId::MAX_EPOCH)]
    InvalidEpoch {
        /// The rejected epoch.
        epoch: i64,
    },

    /// The application was issued every container id its attempt can encode.
    #[error("application {application} has used up its container ids")]
    ContainerIdsExhausted {
        /// The application.
        application: ApplicationId,
    },

    // ---- node labels ----
    /// A node label name breaks Hadoop's rules.
    #[error("node label {label:?} is invalid: {reason}")]
    InvalidNodeLabel {
        /// The label as given.
        label: String,
        /// The rule broken.
        reason: &'static str,
    },

    /// A node given to `-replaceLabelsOnNode` is not `host` or `host:port`.
    #[error("node {node:?} is invalid: {reason}")]
    InvalidNodeSpec {
        /// The node as given.
        node: String,
        /// What is wrong.
        reason: &'static str,
    },

    /// A label named twice in one request, exclusive and not.
    #[error("node label {label} is given twice, with both exclusivities")]
    DuplicateNodeLabel {
        /// The label.
        label: String,
    },

    /// A node named twice in one request.
    #[error("node {node} is given twice")]
    DuplicateNodeSpec {
        /// The node as written.
        node: String,
    },

    /// A label is already in the cluster with the other exclusivity.
    #[error("exclusivity cannot be modified for an existing label: {label}")]
    NodeLabelExclusivityChange {
        /// The label.
        label: String,
    },

    /// A label the cluster does not have.
    #[error("node label {label} is not a cluster node label")]
    UnknownNodeLabel {
        /// The label.
        label: String,
    },

    /// A label a queue can still access cannot be removed.
    #[error(
        "cannot remove node label {label}: queue {queue} names it (accessible-node-labels, a \
         label capacity or default-node-label-expression); take it out of the queue's settings \
         and refresh the queues first"
    )]
    NodeLabelInUse {
        /// The label.
        label: String,
        /// The first queue found accessing it.
        queue: String,
    },

    /// An ask's node label expression the scheduler cannot serve.
    #[error(
        "invalid resource request from {attempt}: node label expression {expression:?} {reason}"
    )]
    InvalidLabelRequest {
        /// The asking attempt.
        attempt: ApplicationAttemptId,
        /// The expression as asked.
        expression: String,
        /// Why it is refused, naming the queue where it is about the queue.
        reason: String,
    },

    /// A queue named in a query does not exist or is ambiguous.
    #[error("queue {queue} does not exist (or its name is ambiguous: use the full path)")]
    NoSuchQueue {
        /// The queue as given.
        queue: String,
    },
}

/// The component of `queue` right below `parent`, its deepest configured ancestor.
impl SchedulerError {
    /// The `capacity-scheduler.xml` key a configuration error is about, so that a caller holding
    /// the file can point at its line: the key named, or for an error about a queue, the key that
    /// sets what is wrong with it (`<parent>.queues` for its children, `<queue>.capacity`,
    /// `<queue>.state`). `None` for errors that are not about one key.
    pub fn key(&self) -> Option<String> {
        let queue_key = |queue: &str, suffix: &str| Some(format!("{PREFIX}{queue}.{suffix}"));
        match self {
            Self::InvalidValue { key, .. }
            | Self::UnsupportedReservationClass { key, .. }
            | Self::ReservableParent { key, .. }
            | Self::QueueNotInHierarchy { key, .. }
            | Self::UnhonouredKey { key, .. }
            | Self::CapacityVectorInLegacyMode { key, .. }
            | Self::QueueRule { key, .. }
            | Self::MaximumAllocationAboveCluster { key, .. } => Some(key.clone()),
            Self::UnknownResourceCalculator { key, .. }
            | Self::QueueMapping { key, .. }
            | Self::MappingRules { key, .. } => Some((*key).to_owned()),
            Self::InvalidQueueName { parent, .. }
            | Self::DuplicateQueue { parent, .. }
            | Self::ChildCapacitySum { parent, .. } => queue_key(parent, "queues"),
            Self::CapacityAboveMaximum { queue, .. } => queue_key(queue, "capacity"),
            Self::RunningChildOfStoppedParent { queue, .. } => queue_key(queue, "state"),
            Self::AutoCreatedQueueTemplate {
                parent,
                legacy: true,
                ..
            } => queue_key(parent, "auto-create-child-queue.enabled"),
            Self::AutoCreatedQueueTemplate { parent, .. } => {
                queue_key(parent, "auto-queue-creation-v2.enabled")
            }
            Self::DefaultLifetimeAboveMaximum { queue, .. } => {
                queue_key(queue, "default-application-lifetime")
            }
            _ => None,
        }
    }
}

fn first_unlisted<'a>(queue: &'a str, parent: &str) -> &'a str {
    queue
        .get(parent.len() + 1..)
        .and_then(|rest| rest.split('.').next())
        .unwrap_or(queue)
}
