//! The versioned commands carried by Raft log entries.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use yarn_scheduler::{NodeLabel, NodeSpec};

use super::{
    Admission, ApplicationRecord, ContainerCompletion, ContainerKey, ContainerRecord,
    ContainerResize, ContainerUpdate, FinalStatus, MasterKeyChange, MasterKeyKind,
    ReservationChange, ReservationQueueShare,
};

/// One replicated mutation, as stored in a Raft log entry.
///
/// # Versioning policy
///
/// Commands are versioned by the outer variant. A stored command is never re-interpreted: once a
/// version has been released, its variants and their fields are frozen, and any change goes into
/// a new version (`V2`, ...). A replica that meets an entry it cannot decode, whether an unknown
/// version or an unknown variant, does not skip it: reading the entry fails with a fatal storage
/// error naming the entry's log index, and the replica stops applying. Skipping would let
/// replicas diverge silently. Operators therefore upgrade every replica's binary before any
/// leader proposes a command of a new version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RmCommand {
    /// The first command version.
    V1(CommandV1),
}

/// The commands of version 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CommandV1 {
    /// A new leader's first entry: bumps the epoch by one. The first epoch ever begun also fixes
    /// the cluster timestamp (YARN's RM start time in application ids) to `now_ms`.
    BeginEpoch {
        /// The rm-id of the leader beginning the epoch, kept in the log for diagnosis.
        leader_rm_id: String,
        /// The leader's wall clock, in milliseconds since the Unix epoch.
        now_ms: i64,
    },
    /// Reserves `count` consecutive application sequence numbers.
    AllocateApplicationIds {
        /// How many ids to reserve.
        count: u32,
    },
    /// Replaces the queue configuration (the properties of `capacity-scheduler.xml`) by
    /// compare-and-set: succeeds only when the current version equals `expected`, then sets it
    /// to `expected + 1`, so two concurrent refreshes cannot silently overwrite each other. The
    /// leader validated the properties (in full, and against the running applications) before
    /// proposing them.
    SetQueueConfiguration {
        /// The version the proposer based its change on.
        expected: u64,
        /// Every `yarn.scheduler.capacity.*` property, resolved.
        properties: BTreeMap<String, String>,
    },
    /// Marks a NodeManager as decommissioned or brings it back.
    SetNodeDecommissioned {
        /// The node's id, `host:port`.
        node: String,
        /// Whether the node is decommissioned.
        decommissioned: bool,
    },
    /// Initializes or rolls one kind of token master key.
    ChangeMasterKey {
        /// The token kind whose keys change.
        kind: MasterKeyKind,
        /// The change.
        change: MasterKeyChange,
    },
    /// Records a submitted application. The application id is the dedupe key: a second
    /// submission of an id already in the table changes nothing and reports so.
    SubmitApplication {
        /// The cluster timestamp of the application id, which must be this cluster's.
        cluster_timestamp_ms: i64,
        /// The record to store, in state `Submitted`.
        application: ApplicationRecord,
    },
    /// Records the scheduler's verdicts on submitted applications: an accepted one moves to
    /// `Accepted` in its resolved leaf queue with attempt 1, a rejected one to `Failed` with the
    /// diagnostics. A verdict on an application that is not `Submitted` (already decided by an
    /// earlier entry, or killed meanwhile) changes nothing, so a leader may re-propose verdicts
    /// whose commit it could not confirm.
    AdmitApplications {
        /// One verdict per application.
        admissions: Vec<Admission>,
        /// The leader's clock: when accepted applications' first attempts begin.
        now_ms: i64,
    },
    /// Records one scheduling pass's allocations: the whole batch is one entry. Each allocation
    /// is re-validated (epoch of its id, id above every id issued to the application, live
    /// application) and a rejected one does not affect the others.
    AllocateContainers {
        /// The allocations, in state `Allocated`.
        allocations: Vec<ContainerRecord>,
    },
    /// Completes containers; completing an unknown or completed container changes nothing.
    /// The completion of a current attempt's AM container before its AM unregistered fails the
    /// attempt: the application gets its next attempt, or fails after its last.
    CompleteContainers {
        /// The completions.
        completions: Vec<ContainerCompletion>,
        /// The leader's clock: when the containers completed, and the times of failed attempts.
        now_ms: i64,
    },
    /// A NodeManager was declared LOST: every live container on it completes as lost.
    NodeLost {
        /// The node's id, `host:port`.
        node: String,
        /// The leader's clock: when the node's containers completed, and the times of attempts
        /// whose AM was on the node.
        now_ms: i64,
    },
    /// The current attempt's AM registered: the application becomes `Running`. Repeating it
    /// for a registered attempt changes nothing.
    RegisterApplicationMaster {
        /// The application's sequence number.
        application_seq: i32,
        /// The attempt the AMRMToken named.
        attempt_id: i32,
        /// Where the AM's RPC server listens, for clients.
        host: String,
        /// The AM's RPC port.
        rpc_port: i32,
        /// The AM's tracking URL.
        tracking_url: String,
    },
    /// The current attempt's AM unregistered: the application becomes `Finished` with the final
    /// status it reported, and its other live containers complete (YARN's
    /// KILLED_AFTER_APP_COMPLETION). The AM container completes when its process exits.
    /// Repeating it for a finished attempt changes nothing.
    FinishApplicationMaster {
        /// The application's sequence number.
        application_seq: i32,
        /// The attempt the AMRMToken named.
        attempt_id: i32,
        /// What the AM reported.
        final_status: FinalStatus,
        /// The AM's diagnostics.
        diagnostics: String,
        /// The AM's final tracking URL.
        tracking_url: String,
        /// The leader's clock.
        now_ms: i64,
    },
    /// A user or administrator killed the application: it becomes `Killed` and every live
    /// container completes (YARN's KILLED_BY_RESOURCEMANAGER).
    KillApplication {
        /// The application's sequence number.
        application_seq: i32,
        /// Who killed it and why.
        diagnostics: String,
        /// The leader's clock.
        now_ms: i64,
    },
    /// The current attempt failed without its AM container having completed (for instance its
    /// AM stopped heartbeating): the AM container completes with `exit_status` and
    /// `diagnostics`, and the application moves on exactly as when a NodeManager reports an AM
    /// container's completion.
    FailApplicationAttempt {
        /// The application's sequence number.
        application_seq: i32,
        /// The attempt to fail; a command naming an older attempt changes nothing.
        attempt_id: i32,
        /// The exit status recorded for the AM container.
        exit_status: i32,
        /// Why.
        diagnostics: String,
        /// The leader's clock.
        now_ms: i64,
    },
    /// The application moved to another leaf queue; its containers and usage go with it. The
    /// leader checked the target queue (leaf, RUNNING, application limits, the caller's
    /// rights) before proposing.
    MoveApplication {
        /// The application's sequence number.
        application_seq: i32,
        /// The target leaf queue's full path.
        queue: String,
    },
    /// The application's priority changed; the leader already lowered it to
    /// `yarn.cluster.max-application-priority`.
    UpdateApplicationPriority {
        /// The application's sequence number.
        application_seq: i32,
        /// The new priority.
        priority: i32,
    },
    /// Records OPPORTUNISTIC containers an AMRMProxy placed itself (distributed scheduling),
    /// whole or not at all. Each must belong to its live application's current attempt, carry
    /// an id below the first id of the epoch in force (`epoch << 40`; the proxy counts down
    /// from there) that no other container holds, and run on a node that is not
    /// decommissioned. The container id is the dedupe key: one already recorded as that same
    /// remote container counts as recorded and changes nothing. The application's id sequence
    /// (`last_issued`) is left alone.
    RecordRemoteContainers {
        /// The containers, in state `Allocated`.
        containers: Vec<ContainerRecord>,
    },
    /// Changes the execution type of live containers (promotion to GUARANTEED, demotion to
    /// OPPORTUNISTIC). Each update applies only to a container of its application's current
    /// attempt still at the version it names, which it bumps by one; a refused update does not
    /// affect the others.
    UpdateContainers {
        /// The updates.
        updates: Vec<ContainerUpdate>,
    },
    /// A NodeManager registered with `incarnation` (its process start time). Newer than the
    /// node's recorded one, it replaces it, and if the registration reported no container and
    /// no running application, every container live on the node completes as lost: the node
    /// restarted without them (Hadoop's reconnect of a node without running applications). The
    /// first one recorded for a node, the same one again, or an older one (a registration of a
    /// dead process, delivered late) completes nothing.
    RegisterNodeIncarnation {
        /// The node's id, `host:port`.
        node: String,
        /// When its NodeManager process started, in milliseconds since the Unix epoch.
        incarnation: i64,
        /// Whether the registration reported no container and no running application.
        reported_nothing: bool,
        /// The leader's clock: when the lost containers completed, and the times of attempts
        /// whose AM was among them.
        now_ms: i64,
    },
    /// Raises the rules by which later commands are applied to `rules`, unless those in force
    /// are newer already. A leader whose binary follows newer rules than the state's proposes
    /// it after its `BeginEpoch`, so entries before it keep the meaning they were written with.
    /// A replica of an older binary cannot decode it and stops, as the policy above says.
    AdoptApplyRules {
        /// The rules version to adopt ([`APPLY_RULES`](super::APPLY_RULES) of the proposer).
        rules: u32,
    },
    /// One round of the leader's preemption policy (Hadoop's
    /// `ProportionalCapacityPreemptionPolicy`) at `now_ms`: `chosen` are the containers it
    /// picked to give back what over-served queues owe. Each live one chosen for the first time
    /// starts waiting and its ApplicationMaster is told; each chosen again at least
    /// `max_wait_before_kill_ms` after its first time completes as `PREEMPTED` (-102), once.
    /// Waits of containers that ended are forgotten. The waits are replicated, so a new
    /// leader's rounds carry on from the old one's.
    PreemptionRound {
        /// The chosen containers.
        chosen: Vec<ContainerKey>,
        /// The queues the round reclaims resources for, named in the kills' diagnostics.
        for_queues: Vec<String>,
        /// `yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill`.
        max_wait_before_kill_ms: i64,
        /// The leader's clock.
        now_ms: i64,
    },
    /// Hands out `count` reservation sequence numbers (YARN's `getNewReservation`).
    AllocateReservationIds {
        /// How many.
        count: u32,
    },
    /// Books a reservation under a handed-out sequence number, or changes a booked one, if the
    /// plan is still at `expected_plan_version` (see
    /// [`ReservationTable`](super::ReservationTable)). A submission under a number already
    /// stored changes nothing and says whether it was the same definition.
    ChangeReservation {
        /// The reservation's sequence number.
        sequence: i64,
        /// The plan version the leader placed it against.
        expected_plan_version: u64,
        /// What to store.
        change: ReservationChange,
    },
    /// Deletes a reservation.
    DeleteReservation {
        /// The reservation's sequence number.
        sequence: i64,
    },
    /// The plan follower's step: the queues of the reservations active now, under each plan
    /// queue, with their sizes (see [`ReservationTable::queues`](super::ReservationTable)).
    SizeReservationQueues {
        /// By plan queue path.
        queues: BTreeMap<String, Vec<ReservationQueueShare>>,
    },
    /// The plan follower's verdict on an application whose reservation ended: if it is still
    /// live in `queue`, it moves to `move_to` or, without one, is killed with `diagnostics`;
    /// otherwise (a client moved it meanwhile, or it ended) nothing changes, so a verdict
    /// reached on an older state never overrides a newer decision.
    ExpireReservationApplication {
        /// The application's sequence number.
        application_seq: i32,
        /// The queue the verdict was reached for.
        queue: String,
        /// The plan's default reservation queue, under `reservation-move-on-expiry`.
        move_to: Option<String>,
        /// Why it is killed, without `move_to`.
        diagnostics: String,
        /// The leader's clock.
        now_ms: i64,
    },
    /// The plan follower drops a reservation (archived, or no longer kept by the plan), if it
    /// is still the one the decision was reached on: a client's update in between, which
    /// changes its acceptance time, wins.
    DropReservation {
        /// The reservation's sequence number.
        sequence: i64,
        /// Its acceptance time when the decision was reached.
        acceptance_ms: i64,
    },
    /// Records a submitted application whose lifetime ends at `deadline_ms`: as
    /// `SubmitApplication`, and a new application's deadline is stored in the same entry, so
    /// no leader change can leave it without one. The leader resolved the lifetime against
    /// the queue (see `yarn_scheduler::ApplicationLifetime`).
    SubmitApplicationWithLifetime {
        /// The cluster timestamp of the application id, which must be this cluster's.
        cluster_timestamp_ms: i64,
        /// The record to store, in state `Submitted`.
        application: ApplicationRecord,
        /// When its lifetime ends, in milliseconds since the Unix epoch.
        deadline_ms: i64,
    },
    /// A client moved the end of a live application's lifetime (YARN's
    /// `updateApplicationTimeouts`); the leader checked that it is in the future and capped it
    /// at the queue's maximum. An application that ended changes nothing.
    UpdateApplicationLifetime {
        /// The application's sequence number.
        application_seq: i32,
        /// When its lifetime ends, in milliseconds since the Unix epoch.
        deadline_ms: i64,
    },
    /// The lifetime monitor's verdict: the application is killed, with Hadoop's diagnostics,
    /// if it is live and its lifetime still ends at `deadline_ms`; an update committed after
    /// the verdict was reached wins.
    ExpireApplicationLifetime {
        /// The application's sequence number.
        application_seq: i32,
        /// The deadline the verdict was reached on.
        deadline_ms: i64,
        /// The leader's clock.
        now_ms: i64,
    },
    /// Changes the size of live GUARANTEED containers (YARN's resource increase and decrease).
    /// Each resize applies only to a non-AM container of its application's current attempt
    /// still at the version it names, which it bumps by one, as `UpdateContainers` does; a
    /// refused resize does not affect the others.
    ResizeContainers {
        /// The resizes.
        resizes: Vec<ContainerResize>,
    },
    /// Retires finished applications beyond `keep` (YARN's `max-completed-applications`):
    /// the oldest to finish go first (by finish time, then sequence number), each with its
    /// containers, passing over one with a live container; the state remembers each retired
    /// number and what it counted as. Applying it again retires nothing more.
    RetireCompletedApplications {
        /// How many finished applications stay.
        keep: u32,
    },
    /// Adds cluster node labels (`rmadmin -addToClusterNodeLabels`); a label already there with
    /// the same exclusivity is kept as it is, one with the other is refused.
    AddClusterNodeLabels {
        /// The labels.
        labels: Vec<NodeLabel>,
    },
    /// Removes cluster node labels and takes them off every node
    /// (`rmadmin -removeFromClusterNodeLabels`), refused while a queue of the configuration in
    /// force names one.
    RemoveClusterNodeLabels {
        /// The labels' names.
        labels: Vec<String>,
    },
    /// Sets the label of hosts and NodeManagers, `None` taking it off
    /// (`rmadmin -replaceLabelsOnNode`); refused when a label is not a cluster label.
    ReplaceLabelsOnNodes {
        /// Each host (`port` `None`) or NodeManager and its label.
        mappings: Vec<(NodeSpec, Option<String>)>,
    },
    /// [`SetQueueConfiguration`](Self::SetQueueConfiguration) that also keeps the
    /// configuration it replaces in the state's history, which then holds the newest `keep`
    /// versions (`yarn.scheduler.configuration.max.version` on the proposing leader).
    SetQueueConfigurationKeeping {
        /// The version the change is based on.
        expected: u64,
        /// The new configuration.
        properties: BTreeMap<String, String>,
        /// How many replaced versions the history keeps.
        keep: u32,
    },
    /// Records a submission, as `SubmitApplication` (with its lifetime's end when it has
    /// one, as `SubmitApplicationWithLifetime`), that creates queues: the leader's placement
    /// found its leaf missing under a parent with flexible auto-creation, checked the queues
    /// against the parent's limits and templates, and the new application's queues are
    /// recorded in the same entry, so no leader change can leave it without its queue. A
    /// duplicate submission creates nothing; a queue already recorded stays as it is.
    SubmitApplicationCreatingQueues {
        /// The cluster timestamp of the application id, which must be this cluster's.
        cluster_timestamp_ms: i64,
        /// The record to store, in state `Submitted`, in the leaf created last.
        application: ApplicationRecord,
        /// When its lifetime ends, in milliseconds since the Unix epoch; `None` for none.
        deadline_ms: Option<i64>,
        /// The queues created, full paths, parents first.
        created: Vec<String>,
    },
    /// Removes auto-created queues the leader found unused over its deletion policy's two
    /// rounds; one that holds an application that has not ended, or an auto-created queue,
    /// when the entry is applied stays.
    RemoveAutoCreatedQueues {
        /// The queues, full paths, children before their parents.
        queues: Vec<String>,
    },
    /// A round of the leader's queue management policy (Hadoop's
    /// `GuaranteedOrZeroCapacityOverTimePolicy`) over the leaves of managed parents: those
    /// `deactivated` give up their capacity, then those `activated` take it, each only while its
    /// parent has room when the entry is applied.
    ManageAutoCreatedLeafQueues {
        /// Leaves, full paths, found without applications.
        deactivated: Vec<String>,
        /// Leaves, full paths, with applications waiting, earliest submission first.
        activated: Vec<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Postcard stores a variant by its position, so a variant added anywhere but at the end
    /// would make every stored entry after it decode as its neighbour. The positions of the
    /// first variants and of the last ones are pinned: a variant inserted before any of them, or
    /// a reordering among them, fails here.
    #[test]
    fn variants_keep_the_positions_stored_entries_were_written_with() {
        let pinned = [
            (
                CommandV1::BeginEpoch {
                    leader_rm_id: String::new(),
                    now_ms: 0,
                },
                0,
            ),
            (CommandV1::AllocateApplicationIds { count: 7 }, 1),
            (
                CommandV1::SetNodeDecommissioned {
                    node: String::new(),
                    decommissioned: true,
                },
                3,
            ),
            (
                CommandV1::NodeLost {
                    node: String::new(),
                    now_ms: 0,
                },
                9,
            ),
            (
                CommandV1::KillApplication {
                    application_seq: 1,
                    diagnostics: String::new(),
                    now_ms: 0,
                },
                12,
            ),
            (
                CommandV1::RegisterNodeIncarnation {
                    node: String::new(),
                    incarnation: 0,
                    reported_nothing: true,
                    now_ms: 0,
                },
                18,
            ),
            (CommandV1::AdoptApplyRules { rules: 1 }, 19),
            (
                CommandV1::PreemptionRound {
                    chosen: Vec::new(),
                    for_queues: Vec::new(),
                    max_wait_before_kill_ms: 0,
                    now_ms: 0,
                },
                20,
            ),
            (CommandV1::AllocateReservationIds { count: 1 }, 21),
            (CommandV1::DeleteReservation { sequence: 1 }, 23),
            (
                CommandV1::SizeReservationQueues {
                    queues: BTreeMap::new(),
                },
                24,
            ),
            (
                CommandV1::ExpireReservationApplication {
                    application_seq: 1,
                    queue: String::new(),
                    move_to: None,
                    diagnostics: String::new(),
                    now_ms: 0,
                },
                25,
            ),
            (
                CommandV1::DropReservation {
                    sequence: 1,
                    acceptance_ms: 0,
                },
                26,
            ),
            (
                CommandV1::SubmitApplicationWithLifetime {
                    cluster_timestamp_ms: 0,
                    application: ApplicationRecord::default(),
                    deadline_ms: 0,
                },
                27,
            ),
            (
                CommandV1::UpdateApplicationLifetime {
                    application_seq: 1,
                    deadline_ms: 0,
                },
                28,
            ),
            (
                CommandV1::ExpireApplicationLifetime {
                    application_seq: 1,
                    deadline_ms: 0,
                    now_ms: 0,
                },
                29,
            ),
            (
                CommandV1::ResizeContainers {
                    resizes: Vec::new(),
                },
                30,
            ),
            (CommandV1::RetireCompletedApplications { keep: 1 }, 31),
            (CommandV1::AddClusterNodeLabels { labels: Vec::new() }, 32),
            (
                CommandV1::RemoveClusterNodeLabels { labels: Vec::new() },
                33,
            ),
            (
                CommandV1::ReplaceLabelsOnNodes {
                    mappings: Vec::new(),
                },
                34,
            ),
            (
                CommandV1::SetQueueConfigurationKeeping {
                    expected: 0,
                    properties: BTreeMap::new(),
                    keep: 0,
                },
                35,
            ),
            (
                CommandV1::SubmitApplicationCreatingQueues {
                    cluster_timestamp_ms: 0,
                    application: ApplicationRecord::default(),
                    deadline_ms: None,
                    created: Vec::new(),
                },
                36,
            ),
            (
                CommandV1::RemoveAutoCreatedQueues { queues: Vec::new() },
                37,
            ),
            (
                CommandV1::ManageAutoCreatedLeafQueues {
                    deactivated: Vec::new(),
                    activated: Vec::new(),
                },
                38,
            ),
        ];
        for (command, position) in pinned {
            let bytes = postcard::to_allocvec(&RmCommand::V1(command.clone())).unwrap();
            assert_eq!(bytes[..2], [0, position], "{command:?}");
        }
    }
}
