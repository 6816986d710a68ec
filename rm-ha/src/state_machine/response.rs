//! The result of applying one Raft log entry.

use serde::{Deserialize, Serialize};

use super::{
    AllocationRejection, ApplicationState, ContainerKey, ContainerUpdateRejection,
    MasterKeyRejection, RemoteAllocationRejection,
};

/// What applying one entry produced. Domain rejections are values here, never errors: every
/// replica reaches the same rejection for the same entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RmResponse {
    /// The entry was a blank or membership entry and carried no command.
    NoCommand,
    /// A new epoch began.
    EpochBegun {
        /// The epoch now in force.
        epoch: u64,
        /// The apply rules in force, which the new leader raises when its own are newer.
        apply_rules: u32,
    },
    /// Application sequence numbers `first .. first + count` are reserved for the proposer.
    ApplicationIdsAllocated {
        /// The first reserved sequence number.
        first: i32,
        /// How many were reserved.
        count: u32,
    },
    /// Fewer application sequence numbers remain than were asked for; nothing was reserved.
    ApplicationIdsExhausted {
        /// How many were asked for.
        requested: u32,
        /// How many remain before the sequence would overflow.
        remaining: u32,
    },
    /// The queue-configuration version was bumped.
    QueueConfigVersionSet {
        /// The new version.
        version: u64,
    },
    /// The queue-configuration version did not match; nothing changed.
    QueueConfigVersionRejected {
        /// The version the proposer expected.
        expected: u64,
        /// The version actually in force.
        actual: u64,
    },
    /// A node's decommission state was recorded.
    NodeDecommissionedSet {
        /// Whether the state differs from before.
        changed: bool,
    },
    /// A master-key change was applied.
    MasterKeyChanged,
    /// A master-key change was stale or out of order; nothing changed.
    MasterKeyChangeRejected {
        /// Why.
        reason: MasterKeyRejection,
    },
    /// The application was recorded.
    ApplicationSubmitted,
    /// An application with this id was already recorded; nothing changed.
    ApplicationAlreadySubmitted,
    /// The application id was never handed out by this cluster; nothing was recorded.
    UnknownApplicationId {
        /// The id's cluster timestamp.
        cluster_timestamp_ms: i64,
        /// The id's sequence number.
        sequence: i32,
    },
    /// Admission verdicts were applied.
    ApplicationsAdmitted {
        /// How many applications changed state.
        decided: u32,
        /// How many verdicts changed nothing: unknown applications or ones already past
        /// `Submitted`.
        ignored: u32,
    },
    /// A batch of allocations was applied.
    ContainersAllocated {
        /// How many allocations were recorded.
        recorded: u32,
        /// The allocations refused, with why; each left the state unchanged.
        rejected: Vec<AllocationRejection>,
    },
    /// Completions were applied.
    ContainersCompleted {
        /// How many live containers completed; repeats and unknown containers do not count.
        completed: u32,
    },
    /// A lost node's containers were completed.
    NodeLostRecorded {
        /// The containers that were live on the node.
        completed: Vec<ContainerKey>,
    },
    /// The application is not in the table.
    UnknownApplication {
        /// The id's sequence number.
        sequence: i32,
    },
    /// The application already reached a final state; nothing changed.
    ApplicationAlreadyFinal {
        /// The state it ended in.
        state: ApplicationState,
    },
    /// The command named an attempt that is not the application's current one.
    AttemptNotCurrent {
        /// The attempt the command named.
        attempt_id: i32,
        /// The current attempt.
        current: i32,
    },
    /// The attempt's AM has not registered, so it cannot unregister.
    AttemptNotRegistered {
        /// The attempt.
        attempt_id: i32,
    },
    /// The attempt's AM is registered and its application `Running`.
    ApplicationMasterRegistered {
        /// False when it was registered already (a repeated registration).
        first_time: bool,
    },
    /// The attempt's AM is unregistered and its application `Finished`.
    ApplicationMasterUnregistered {
        /// False when it was unregistered already (a repeated finish).
        first_time: bool,
    },
    /// The application is `Killed`.
    ApplicationKilled,
    /// The application is in the queue the command named (it may have been there already).
    ApplicationMoved,
    /// The application has the priority the command named.
    ApplicationPriorityUpdated,
    /// The attempt was failed (its AM container completed as the command said); the application
    /// has a next attempt or has failed.
    AttemptFailed {
        /// The application's state afterwards: `Accepted` with a new attempt, or `Failed`.
        application_state: ApplicationState,
    },
    /// Containers an AMRMProxy placed were recorded.
    RemoteContainersRecorded {
        /// The containers recorded by this entry.
        recorded: Vec<ContainerKey>,
        /// The containers that were recorded already (repeated reports).
        already_recorded: Vec<ContainerKey>,
    },
    /// Containers an AMRMProxy placed were refused; none of the report was recorded.
    RemoteContainersRejected {
        /// Every refused container, with why.
        rejected: Vec<RemoteAllocationRejection>,
    },
    /// A batch of execution-type updates or resizes was applied.
    ContainersUpdated {
        /// The containers updated, each with its new version.
        updated: Vec<(ContainerKey, i32)>,
        /// The updates refused, with why; each left the state unchanged.
        rejected: Vec<ContainerUpdateRejection>,
    },
    /// A NodeManager's registration was applied to the recorded incarnations.
    NodeIncarnationRegistered {
        /// The containers it no longer had, completed as lost (none unless it restarted).
        completed: Vec<ContainerKey>,
    },
    /// The apply rules were raised, or already at least as new.
    ApplyRulesAdopted {
        /// The rules now in force.
        rules: u32,
    },
    /// A preemption round was applied.
    PreemptionRoundApplied {
        /// The containers chosen for the first time, whose ApplicationMasters are now told.
        announced: Vec<ContainerKey>,
        /// The containers killed, completed as `PREEMPTED`.
        killed: Vec<ContainerKey>,
    },
    /// Reservation sequence numbers from `first` on are handed out to the proposer.
    ReservationIdsAllocated {
        /// The first one.
        first: i64,
    },
    /// The plan changed as the command asked; it is now at `version`.
    PlanVersionSet {
        /// The plan's new version.
        version: u64,
    },
    /// The plan changed since the proposer placed the reservation; nothing changed.
    PlanChanged {
        /// The version the proposer placed it against.
        expected: u64,
        /// The version in force.
        actual: u64,
    },
    /// A reservation is stored under the id already; nothing changed.
    ReservationExists {
        /// Whether it has the definition and queue submitted (a retry).
        same_definition: bool,
    },
    /// No reservation is stored under the id (or the id was never handed out).
    UnknownReservation {
        /// The sequence number named.
        sequence: i64,
    },
    /// The plan follower's sizes of the reservation queues are in force.
    ReservationQueuesSized,
    /// The reservation changed since a decision to drop it was reached.
    ReservationChanged {
        /// Its acceptance time now.
        acceptance_ms: i64,
    },
    /// The application is no longer in the queue a verdict was reached for.
    ApplicationNotInQueue {
        /// The queue it is in.
        queue: String,
    },
    /// The application's lifetime ends when the command said.
    ApplicationLifetimeUpdated,
    /// The application's lifetime no longer ends when the expiry verdict was reached for.
    ApplicationLifetimeChanged {
        /// When it ends now; `None` when it has none.
        deadline_ms: Option<i64>,
    },
    /// Finished applications were retired from the state.
    ApplicationsRetired {
        /// Their sequence numbers, oldest first.
        retired: Vec<i32>,
    },
    /// The cluster's node labels changed as the command said.
    NodeLabelsChanged,
    /// A node-label change was refused; nothing changed.
    NodeLabelsRefused {
        /// Why, naming the label, node or queue.
        reason: String,
    },
    /// A submission was not recorded: it would create `queue` as a leaf where a parent of that
    /// path was created meanwhile, or the reverse, or a managed parent's limits no longer let
    /// it create `queue`.
    AutoCreatedQueueConflict {
        /// The queue's full path.
        queue: String,
    },
    /// Unused auto-created queues were removed.
    AutoCreatedQueuesRemoved {
        /// Those removed, in the order asked; the others were still in use or gone already.
        removed: Vec<String>,
    },
    /// A round of the queue management policy was applied.
    AutoCreatedLeafQueuesManaged {
        /// The leaves whose capacity changed (those given up first, then those taken).
        changed: Vec<String>,
    },
}
