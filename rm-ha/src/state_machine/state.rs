//! The replicated ResourceManager state and its deterministic transition function.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use yarn_scheduler::{CreatedQueues, NodeLabels};

use super::state_digest::sha256_of_postcard;
use super::{
    Admission, ApplicationRecord, ApplicationState, AttemptRecord, CommandV1, ContainerRecord,
    ContainerTable, ContainerWaits, FinalStatus, MasterKeys, QueueConfigHistory, ReservationTable,
    RetiredApplications, RmCommand, RmResponse,
};
use crate::error::{Error, Record};

/// The state every replica holds identically after applying the same log prefix.
///
/// Snapshots and [`digest`](Self::digest) rely on its encoding being canonical: collections
/// here and in the records below must stay ordered (`BTreeMap`, `BTreeSet`, `Vec`), never
/// `HashMap` or `HashSet`, whose iteration order differs between processes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RmState {
    /// Bumped by each new leader's first entry; goes into container ids' high bits.
    pub epoch: u64,
    /// The next application sequence number to hand out; starts at 1 as in YARN.
    pub next_application_seq: i32,
    /// The cluster timestamp of application ids, fixed by the first epoch; 0 before it.
    pub cluster_timestamp_ms: i64,
    /// The queue-configuration version, bumped by compare-and-set; 0 until the first leader
    /// committed the configuration it read.
    pub queue_config_version: u64,
    /// The queue configuration in force: the `yarn.scheduler.capacity.*` properties.
    pub queue_config: BTreeMap<String, String>,
    /// NodeManagers currently decommissioned, by node id.
    pub decommissioned_nodes: BTreeSet<String>,
    /// The token master keys of every kind.
    pub master_keys: MasterKeys,
    /// Submitted applications by sequence number.
    pub applications: BTreeMap<i32, ApplicationRecord>,
    /// Every allocated container until its application is forgotten.
    pub containers: ContainerTable,
    /// The newest incarnation (process start time, ms) each NodeManager registered with, by
    /// node id. After the fields of format 2, so that format 2 reads as format 3 with an
    /// empty map.
    pub node_incarnations: BTreeMap<String, i64>,
    /// The rules by which commands are applied, raised by [`CommandV1::AdoptApplyRules`]: a
    /// command is applied by the rules in force when it is, so a log replays the same however
    /// new the binary replaying it. 0 in states written before rules were versioned.
    pub apply_rules: u32,
    /// How many failed attempts of each application, by sequence number, did not count toward
    /// its max attempts (see [`am_exit_counts`](super::am_exit_counts)). With `apply_rules`,
    /// after the fields of format 3, so that format 3 reads as format 4 with rules 0 and an
    /// empty map.
    pub uncounted_attempt_failures: BTreeMap<i32, u32>,
    /// The containers preemption rounds chose, each with when it was first chosen (see
    /// [`CommandV1::PreemptionRound`]). After the fields of format 4, so that format 4 reads as
    /// format 5 with no container chosen.
    pub preemption_waits: ContainerWaits,
    /// The ReservationSystem's plan: every accepted reservation. After the fields of format 5,
    /// so that format 5 reads as format 6 with no reservation.
    pub reservations: ReservationTable,
    /// When the lifetime of each application given one ends, in milliseconds since the Unix
    /// epoch, by sequence number (see [`CommandV1::ExpireApplicationLifetime`]). Kept after
    /// the application ends, as its record is. After the fields of format 7, so that format 7
    /// reads as format 8 with no lifetime.
    pub lifetime_deadlines: BTreeMap<i32, i64>,
    /// The applications retired from `applications` (see
    /// [`CommandV1::RetireCompletedApplications`]). After the fields of format 8, so that
    /// format 8 reads as format 9 with none retired.
    pub retired: RetiredApplications,
    /// The cluster's node labels and which hosts and NodeManagers carry them (see
    /// [`CommandV1::AddClusterNodeLabels`]). After the fields of format 9, so that format 9
    /// reads as format 10 with no label.
    pub node_labels: NodeLabels,
    /// The queue configurations changes replaced, by version (see
    /// [`CommandV1::SetQueueConfigurationKeeping`]). After the fields of format 10, so that
    /// format 10 reads as format 11 with none kept.
    pub queue_config_history: QueueConfigHistory,
    /// The queues submissions created under parents with flexible auto-creation, full paths
    /// (see [`CommandV1::SubmitApplicationCreatingQueues`]). After the fields of format 11, so
    /// that format 11 reads as format 12 with none created.
    pub dynamic_queues: CreatedQueues,
}

impl Default for RmState {
    fn default() -> Self {
        Self {
            epoch: 0,
            next_application_seq: 1,
            cluster_timestamp_ms: 0,
            queue_config_version: 0,
            queue_config: BTreeMap::new(),
            decommissioned_nodes: BTreeSet::new(),
            master_keys: MasterKeys::default(),
            applications: BTreeMap::new(),
            containers: ContainerTable::default(),
            node_incarnations: BTreeMap::new(),
            apply_rules: 0,
            uncounted_attempt_failures: BTreeMap::new(),
            preemption_waits: ContainerWaits::default(),
            reservations: ReservationTable::default(),
            lifetime_deadlines: BTreeMap::new(),
            retired: RetiredApplications::default(),
            node_labels: NodeLabels::default(),
            queue_config_history: QueueConfigHistory::default(),
            dynamic_queues: CreatedQueues::new(),
        }
    }
}

impl RmState {
    /// Applies one command and returns its result.
    ///
    /// Deterministic: it reads no clock, draws no randomness and does no I/O, so every replica
    /// applying the same commands in the same order reaches the same state and responses.
    /// Rejections are returned as [`RmResponse`] values and leave the state unchanged.
    pub fn apply(&mut self, cmd: &RmCommand) -> RmResponse {
        match cmd {
            RmCommand::V1(cmd) => self.apply_v1(cmd),
        }
    }

    fn apply_v1(&mut self, cmd: &CommandV1) -> RmResponse {
        match cmd {
            CommandV1::BeginEpoch { now_ms, .. } => {
                if self.epoch == 0 {
                    self.cluster_timestamp_ms = *now_ms;
                }
                self.epoch += 1;
                RmResponse::EpochBegun {
                    epoch: self.epoch,
                    apply_rules: self.apply_rules,
                }
            }
            CommandV1::AdoptApplyRules { rules } => {
                self.apply_rules = self.apply_rules.max(*rules);
                RmResponse::ApplyRulesAdopted {
                    rules: self.apply_rules,
                }
            }
            CommandV1::AllocateApplicationIds { count } => self.allocate_application_ids(*count),
            CommandV1::SetQueueConfiguration {
                expected,
                properties,
            } => self.set_queue_configuration(*expected, properties, None),
            CommandV1::SetQueueConfigurationKeeping {
                expected,
                properties,
                keep,
            } => self.set_queue_configuration(*expected, properties, Some(*keep)),
            CommandV1::SetNodeDecommissioned {
                node,
                decommissioned,
            } => {
                let changed = if *decommissioned {
                    self.decommissioned_nodes.insert(node.clone())
                } else {
                    self.decommissioned_nodes.remove(node)
                };
                RmResponse::NodeDecommissionedSet { changed }
            }
            CommandV1::ChangeMasterKey { kind, change } => {
                match self.master_keys.apply(*kind, change) {
                    Ok(()) => RmResponse::MasterKeyChanged,
                    Err(reason) => RmResponse::MasterKeyChangeRejected { reason },
                }
            }
            CommandV1::SubmitApplication {
                cluster_timestamp_ms,
                application,
            } => self.submit_application(*cluster_timestamp_ms, application),
            CommandV1::AdmitApplications { admissions, now_ms } => {
                self.admit_applications(admissions, *now_ms)
            }
            CommandV1::AllocateContainers { allocations } => self.allocate_containers(allocations),
            CommandV1::CompleteContainers {
                completions,
                now_ms,
            } => self.complete_containers(completions, *now_ms),
            CommandV1::NodeLost { node, now_ms } => self.node_lost(node, *now_ms),
            CommandV1::RegisterNodeIncarnation {
                node,
                incarnation,
                reported_nothing,
                now_ms,
            } => self.register_node_incarnation(node, *incarnation, *reported_nothing, *now_ms),
            CommandV1::RegisterApplicationMaster {
                application_seq,
                attempt_id,
                host,
                rpc_port,
                tracking_url,
            } => self.register_application_master(
                *application_seq,
                *attempt_id,
                host,
                *rpc_port,
                tracking_url,
            ),
            CommandV1::FinishApplicationMaster {
                application_seq,
                attempt_id,
                final_status,
                diagnostics,
                tracking_url,
                now_ms,
            } => self.finish_application_master(
                *application_seq,
                *attempt_id,
                *final_status,
                diagnostics,
                tracking_url,
                *now_ms,
            ),
            CommandV1::KillApplication {
                application_seq,
                diagnostics,
                now_ms,
            } => self.kill_application(*application_seq, diagnostics, *now_ms),
            CommandV1::FailApplicationAttempt {
                application_seq,
                attempt_id,
                exit_status,
                diagnostics,
                now_ms,
            } => self.fail_application_attempt(
                *application_seq,
                *attempt_id,
                *exit_status,
                diagnostics,
                *now_ms,
            ),
            CommandV1::MoveApplication {
                application_seq,
                queue,
            } => self.move_application(*application_seq, queue),
            CommandV1::UpdateApplicationPriority {
                application_seq,
                priority,
            } => self.update_application_priority(*application_seq, *priority),
            CommandV1::RecordRemoteContainers { containers } => {
                self.record_remote_containers(containers)
            }
            CommandV1::UpdateContainers { updates } => self.update_containers(updates),
            CommandV1::PreemptionRound {
                chosen,
                for_queues,
                max_wait_before_kill_ms,
                now_ms,
            } => self.preemption_round(chosen, for_queues, *max_wait_before_kill_ms, *now_ms),
            CommandV1::AllocateReservationIds { count } => self.reservations.allocate_ids(*count),
            CommandV1::ChangeReservation {
                sequence,
                expected_plan_version,
                change,
            } => self
                .reservations
                .change(*sequence, *expected_plan_version, change),
            CommandV1::DeleteReservation { sequence } => self.reservations.delete(*sequence),
            CommandV1::SizeReservationQueues { queues } => self.reservations.size_queues(queues),
            CommandV1::DropReservation {
                sequence,
                acceptance_ms,
            } => self
                .reservations
                .drop_if_unchanged(*sequence, *acceptance_ms),
            CommandV1::ExpireReservationApplication {
                application_seq,
                queue,
                move_to,
                diagnostics,
                now_ms,
            } => self.expire_reservation_application(
                *application_seq,
                queue,
                move_to.as_deref(),
                diagnostics,
                *now_ms,
            ),
            CommandV1::SubmitApplicationWithLifetime {
                cluster_timestamp_ms,
                application,
                deadline_ms,
            } => self.submit_application_with_lifetime(
                *cluster_timestamp_ms,
                application,
                *deadline_ms,
            ),
            CommandV1::UpdateApplicationLifetime {
                application_seq,
                deadline_ms,
            } => self.update_application_lifetime(*application_seq, *deadline_ms),
            CommandV1::ExpireApplicationLifetime {
                application_seq,
                deadline_ms,
                now_ms,
            } => self.expire_application_lifetime(*application_seq, *deadline_ms, *now_ms),
            CommandV1::ResizeContainers { resizes } => self.resize_containers(resizes),
            CommandV1::RetireCompletedApplications { keep } => {
                self.retire_completed_applications(*keep)
            }
            CommandV1::AddClusterNodeLabels { labels } => self.add_cluster_node_labels(labels),
            CommandV1::RemoveClusterNodeLabels { labels } => {
                self.remove_cluster_node_labels(labels)
            }
            CommandV1::ReplaceLabelsOnNodes { mappings } => self.replace_labels_on_nodes(mappings),
            CommandV1::SubmitApplicationCreatingQueues {
                cluster_timestamp_ms,
                application,
                deadline_ms,
                created,
            } => self.submit_application_creating_queues(
                *cluster_timestamp_ms,
                application,
                *deadline_ms,
                created,
            ),
            CommandV1::RemoveAutoCreatedQueues { queues } => {
                self.remove_auto_created_queues(queues)
            }
            CommandV1::ManageAutoCreatedLeafQueues {
                deactivated,
                activated,
            } => self.manage_auto_created_leaf_queues(deactivated, activated),
        }
    }

    fn admit_applications(&mut self, admissions: &[Admission], now_ms: i64) -> RmResponse {
        let mut decided = 0u32;
        let mut ignored = 0u32;
        for admission in admissions {
            let Some(application) = self
                .applications
                .get_mut(&admission.application_seq())
                .filter(|application| application.state == ApplicationState::Submitted)
            else {
                ignored += 1;
                continue;
            };
            match admission {
                Admission::Accepted {
                    queue, priority, ..
                } => {
                    application.state = ApplicationState::Accepted;
                    application.queue = queue.clone();
                    application.priority = *priority;
                    application.current_attempt = 1;
                    application.attempts = vec![AttemptRecord {
                        attempt_id: 1,
                        start_time_ms: now_ms,
                        ..AttemptRecord::default()
                    }];
                }
                Admission::Rejected { diagnostics, .. } => {
                    application.state = ApplicationState::Failed;
                    application.final_status = FinalStatus::Failed;
                    application.finish_time_ms = now_ms;
                    application.diagnostics = diagnostics.clone();
                }
            }
            decided += 1;
        }
        RmResponse::ApplicationsAdmitted { decided, ignored }
    }

    /// PLANTED BUG (failpoint `plant.reissue-container-id`, `failpoints` feature only): applies
    /// `cmd` as [`apply`](Self::apply) does, except that allocations of live attempts are
    /// recorded without re-validating their ids, so an id of an old epoch or one already issued
    /// replaces whatever container held it. The chaos harness must catch what follows.
    #[cfg(feature = "failpoints")]
    pub(crate) fn apply_without_id_validation(&mut self, cmd: &RmCommand) -> RmResponse {
        let RmCommand::V1(CommandV1::AllocateContainers { allocations }) = cmd else {
            return self.apply(cmd);
        };
        let mut recorded = 0u32;
        let mut rejected = Vec::new();
        for record in allocations {
            match self
                .containers
                .allocate_unvalidated(self.is_live_attempt(record), record)
            {
                Ok(()) => recorded += 1,
                Err(rejection) => rejected.push(rejection),
            }
        }
        RmResponse::ContainersAllocated { recorded, rejected }
    }

    /// Whether `record` belongs to the current attempt of an application not yet final.
    fn is_live_attempt(&self, record: &ContainerRecord) -> bool {
        self.applications
            .get(&record.key.application_seq)
            .is_some_and(|application| {
                !application.state.is_final() && application.current_attempt == record.attempt_id
            })
    }

    fn allocate_containers(&mut self, allocations: &[ContainerRecord]) -> RmResponse {
        let mut recorded = 0u32;
        let mut rejected = Vec::new();
        for record in allocations {
            // Allocations of a pass that raced an attempt's failure belong to no live attempt.
            let is_live = self.is_live_attempt(record);
            match self.containers.allocate(self.epoch, is_live, record) {
                Ok(()) => recorded += 1,
                Err(rejection) => rejected.push(rejection),
            }
        }
        RmResponse::ContainersAllocated { recorded, rejected }
    }

    pub(super) fn submit_application(
        &mut self,
        cluster_timestamp_ms: i64,
        application: &ApplicationRecord,
    ) -> RmResponse {
        let sequence = application.sequence;
        let handed_out = (1..self.next_application_seq).contains(&sequence);
        if cluster_timestamp_ms != self.cluster_timestamp_ms || !handed_out {
            return RmResponse::UnknownApplicationId {
                cluster_timestamp_ms,
                sequence,
            };
        }
        // A retired application was submitted too: a late resubmission is its duplicate.
        if self.applications.contains_key(&sequence) || self.retired.contains(sequence) {
            return RmResponse::ApplicationAlreadySubmitted;
        }
        self.applications.insert(sequence, application.clone());
        RmResponse::ApplicationSubmitted
    }

    fn allocate_application_ids(&mut self, count: u32) -> RmResponse {
        // Sequence numbers stop one short of i32::MAX so that `next` itself never overflows.
        let remaining = i32::MAX - self.next_application_seq;
        match i32::try_from(count) {
            Ok(n) if n <= remaining => {
                let first = self.next_application_seq;
                self.next_application_seq += n;
                RmResponse::ApplicationIdsAllocated { first, count }
            }
            _ => RmResponse::ApplicationIdsExhausted {
                requested: count,
                remaining: remaining.unsigned_abs(),
            },
        }
    }

    /// The SHA-256 of the state's canonical encoding: the postcard bytes a snapshot stores for
    /// it (after the format-version byte), hashed as they are produced.
    ///
    /// # What it covers
    ///
    /// Every field of the state, nested records included (applications with their attempts and
    /// submission contexts, containers with their ids, versions and remote-allocation marks,
    /// the highest id issued per application, master keys with their secrets, the queue
    /// configuration and its version, decommissioned nodes, the epoch and the counters). A
    /// field added to [`RmState`] is covered without touching this function.
    ///
    /// # Why it is deterministic
    ///
    /// It is a function of the applied entries only, equal on every replica that applied the
    /// same log prefix, whether it got there by applying entries, by installing a snapshot or
    /// by restarting from its storage:
    ///
    /// - every collection in the state is ordered by its key (`BTreeMap`, `BTreeSet`) or by
    ///   the order of the entries that built it (`Vec`), never by hashing, so equal values
    ///   encode to equal bytes;
    /// - times in the state (`submit_time_ms`, `since_ms`, ...) come from the commands, which
    ///   carry the proposing leader's clock; no replica's own clock is stored;
    /// - the state holds nothing derived locally: the per-application id watermarks and
    ///   container versions are replicated fields, written only by `apply`, and a snapshot
    ///   restores them byte for byte rather than recomputing them.
    ///
    /// # What it excludes, and why
    ///
    /// - Raft membership: openraft keeps it beside the state (in the applied-state record and
    ///   the snapshot metadata), not in it; `GetClusterMembership` reports it.
    /// - The log position: it travels beside the digest, in [`StateDigest`](super::StateDigest).
    /// - Leader-only soft state (pending asks, node load and liveness, the scheduler's queue
    ///   usage, AM sessions): it lives outside the state machine and differs between replicas
    ///   by design; each new leader rebuilds it.
    /// - Local counters such as the [`StateView`](super::StateView) revision.
    ///
    /// # Errors
    ///
    /// [`Error::Encode`] naming the state when a value cannot be encoded, which the derived
    /// encodings of the state's types never do.
    pub fn digest(&self) -> Result<[u8; 32], Error> {
        sha256_of_postcard(self).map_err(|source| Error::Encode {
            record: Record::State,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixtures;
    use super::super::{ContainerCompletion, MasterKeyChange, MasterKeyKind, StoredMasterKey};
    use super::*;

    fn v1(cmd: CommandV1) -> RmCommand {
        RmCommand::V1(cmd)
    }

    fn begin(now_ms: i64) -> RmCommand {
        v1(CommandV1::BeginEpoch {
            leader_rm_id: "rm1".to_owned(),
            now_ms,
        })
    }

    #[test]
    fn first_epoch_fixes_cluster_timestamp_and_later_epochs_only_bump() {
        let mut state = RmState::default();
        assert_eq!(
            state.apply(&begin(1_000)),
            RmResponse::EpochBegun {
                epoch: 1,
                apply_rules: 0
            }
        );
        assert_eq!(
            state.apply(&begin(2_000)),
            RmResponse::EpochBegun {
                epoch: 2,
                apply_rules: 0
            }
        );
        assert_eq!(state.epoch, 2);
        assert_eq!(state.cluster_timestamp_ms, 1_000);
    }

    /// A leader of an older binary proposing its rules after a newer one did cannot take the
    /// state back to rules the newer leader's commands were not written for.
    #[test]
    fn apply_rules_only_rise_and_each_epoch_reports_them() {
        let mut state = RmState::default();
        let adopt = |rules| v1(CommandV1::AdoptApplyRules { rules });
        assert_eq!(
            state.apply(&adopt(2)),
            RmResponse::ApplyRulesAdopted { rules: 2 }
        );
        assert_eq!(
            state.apply(&adopt(1)),
            RmResponse::ApplyRulesAdopted { rules: 2 }
        );
        assert_eq!(state.apply_rules, 2);
        assert_eq!(
            state.apply(&begin(1_000)),
            RmResponse::EpochBegun {
                epoch: 1,
                apply_rules: 2
            }
        );
    }

    #[test]
    fn application_ids_are_consecutive_ranges_from_one() {
        let mut state = RmState::default();
        let alloc = |count| v1(CommandV1::AllocateApplicationIds { count });
        assert_eq!(
            state.apply(&alloc(3)),
            RmResponse::ApplicationIdsAllocated { first: 1, count: 3 }
        );
        assert_eq!(
            state.apply(&alloc(2)),
            RmResponse::ApplicationIdsAllocated { first: 4, count: 2 }
        );
        assert_eq!(state.next_application_seq, 6);
    }

    #[test]
    fn application_ids_never_overflow() {
        let mut state = RmState {
            next_application_seq: i32::MAX - 2,
            ..RmState::default()
        };
        let before = state.clone();
        assert_eq!(
            state.apply(&v1(CommandV1::AllocateApplicationIds { count: 3 })),
            RmResponse::ApplicationIdsExhausted {
                requested: 3,
                remaining: 2
            }
        );
        assert_eq!(state, before);
        assert_eq!(
            state.apply(&v1(CommandV1::AllocateApplicationIds { count: u32::MAX })),
            RmResponse::ApplicationIdsExhausted {
                requested: u32::MAX,
                remaining: 2
            }
        );
    }

    fn set_queues(expected: u64, default_capacity: &str) -> RmCommand {
        let properties = BTreeMap::from([
            (
                "yarn.scheduler.capacity.root.queues".to_owned(),
                "default".to_owned(),
            ),
            (
                "yarn.scheduler.capacity.root.default.capacity".to_owned(),
                default_capacity.to_owned(),
            ),
        ]);
        v1(CommandV1::SetQueueConfiguration {
            expected,
            properties,
        })
    }

    #[test]
    fn queue_configuration_is_compare_and_set() {
        let mut state = RmState::default();
        assert_eq!(
            state.apply(&set_queues(0, "100")),
            RmResponse::QueueConfigVersionSet { version: 1 }
        );
        let before = state.clone();
        assert_eq!(
            state.apply(&set_queues(0, "50")),
            RmResponse::QueueConfigVersionRejected {
                expected: 0,
                actual: 1
            }
        );
        assert_eq!(state, before, "a stale refresh changes nothing");
        assert_eq!(
            state.queue_config["yarn.scheduler.capacity.root.default.capacity"],
            "100"
        );
    }

    #[test]
    fn decommission_reports_whether_anything_changed() {
        let mut state = RmState::default();
        let set = |decommissioned| {
            v1(CommandV1::SetNodeDecommissioned {
                node: "nm1:8041".to_owned(),
                decommissioned,
            })
        };
        assert_eq!(
            state.apply(&set(true)),
            RmResponse::NodeDecommissionedSet { changed: true }
        );
        assert_eq!(
            state.apply(&set(true)),
            RmResponse::NodeDecommissionedSet { changed: false }
        );
        assert!(state.decommissioned_nodes.contains("nm1:8041"));
        assert_eq!(
            state.apply(&set(false)),
            RmResponse::NodeDecommissionedSet { changed: true }
        );
        assert!(state.decommissioned_nodes.is_empty());
    }

    fn record(sequence: i32) -> ApplicationRecord {
        ApplicationRecord {
            sequence,
            user: "alice".to_owned(),
            name: "sleep".to_owned(),
            queue: "default".to_owned(),
            application_type: "YARN".to_owned(),
            tags: Vec::new(),
            submit_time_ms: 7,
            state: super::super::ApplicationState::Submitted,
            submission_context: vec![1, 2, 3],
            priority: 0,
            current_attempt: 0,
            diagnostics: String::new(),
            ..ApplicationRecord::default()
        }
    }

    fn submit(cluster_timestamp_ms: i64, sequence: i32) -> RmCommand {
        v1(CommandV1::SubmitApplication {
            cluster_timestamp_ms,
            application: record(sequence),
        })
    }

    #[test]
    fn submissions_need_an_id_handed_out_here_and_are_deduplicated() {
        let mut state = RmState::default();
        state.apply(&begin(1_000));
        state.apply(&v1(CommandV1::AllocateApplicationIds { count: 2 }));
        assert_eq!(
            state.apply(&submit(1_000, 2)),
            RmResponse::ApplicationSubmitted
        );
        assert_eq!(
            state.apply(&submit(1_000, 2)),
            RmResponse::ApplicationAlreadySubmitted
        );
        for (timestamp, sequence) in [(999, 1), (1_000, 3), (1_000, 0)] {
            assert_eq!(
                state.apply(&submit(timestamp, sequence)),
                RmResponse::UnknownApplicationId {
                    cluster_timestamp_ms: timestamp,
                    sequence
                }
            );
        }
        assert_eq!(state.applications.keys().copied().collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn same_commands_give_same_digest_and_different_state_differs() {
        let commands = [
            begin(5),
            v1(CommandV1::AllocateApplicationIds { count: 4 }),
            v1(CommandV1::SetNodeDecommissioned {
                node: "nm2:8041".to_owned(),
                decommissioned: true,
            }),
        ];
        let mut a = RmState::default();
        let mut b = RmState::default();
        for cmd in &commands {
            assert_eq!(a.apply(cmd), b.apply(cmd));
        }
        assert_eq!(a.digest().unwrap(), b.digest().unwrap());
        let mut c = b.clone();
        b.apply(&set_queues(0, "100"));
        assert_ne!(a.digest().unwrap(), b.digest().unwrap());
        c.apply(&submit(5, 2));
        assert_ne!(a.digest().unwrap(), c.digest().unwrap());
    }

    /// A state with something in every table: two containers (one completed) of a running
    /// application, master keys of every kind, queues and a decommissioned node.
    fn populated() -> RmState {
        let mut state =
            test_fixtures::running_application(&[(2, "nm1:8041"), (3, "nm2:8041")], &[3]);
        test_fixtures::initialize_master_keys(&mut state);
        state.apply(&set_queues(0, "100"));
        state.apply(&v1(CommandV1::SetNodeDecommissioned {
            node: "nm3:8041".to_owned(),
            decommissioned: true,
        }));
        state
    }

    #[test]
    fn states_differing_in_one_field_anywhere_digest_differently() {
        let base = populated();
        let changed = |what: &'static str, change: &dyn Fn(&mut RmState)| {
            let mut state = base.clone();
            change(&mut state);
            assert_ne!(state, base, "{what} changed nothing");
            (what, state.digest().unwrap())
        };
        let variants = [
            changed("the epoch", &|s| s.epoch += 1),
            changed("an attempt's host", &|s| {
                s.applications.get_mut(&1).unwrap().attempts[0].host = "am-host".to_owned();
            }),
            changed("a container's completion", &|s| {
                s.apply(&v1(CommandV1::CompleteContainers {
                    completions: vec![ContainerCompletion {
                        key: test_fixtures::key(2),
                        exit_status: 0,
                        diagnostics: String::new(),
                    }],
                    now_ms: 9,
                }));
            }),
            changed("a next master key", &|s| {
                s.apply(&v1(CommandV1::ChangeMasterKey {
                    kind: MasterKeyKind::Nm,
                    change: MasterKeyChange::CreateNext {
                        key: StoredMasterKey {
                            key_id: 2,
                            secret: [9; yarn_security::MasterKey::LEN],
                            since_ms: 9,
                        },
                    },
                }));
            }),
            changed("a queue property", &|s| {
                s.apply(&set_queues(1, "99"));
            }),
            changed("a decommissioned node", &|s| {
                s.decommissioned_nodes.insert("nm4:8041".to_owned());
            }),
        ];
        let base_digest = base.digest().unwrap();
        for (index, (what, digest)) in variants.iter().enumerate() {
            assert_ne!(*digest, base_digest, "{what}");
            for (other, other_digest) in &variants[index + 1..] {
                assert_ne!(digest, other_digest, "{what} and {other}");
            }
        }
    }

    #[test]
    fn the_digest_ignores_insertion_order_and_survives_a_snapshot_round_trip() {
        let base = populated();
        let mut reordered = base.clone();
        reordered.queue_config = base
            .queue_config
            .iter()
            .rev()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        assert_eq!(reordered.digest().unwrap(), base.digest().unwrap());

        let bytes = postcard::to_allocvec(&base).unwrap();
        let restored: RmState = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(restored.digest().unwrap(), base.digest().unwrap());
    }

    #[test]
    fn admissions_decide_submitted_applications_once() {
        let mut state = RmState::default();
        state.apply(&begin(1_000));
        state.apply(&v1(CommandV1::AllocateApplicationIds { count: 2 }));
        state.apply(&submit(1_000, 1));
        state.apply(&submit(1_000, 2));
        let admit = v1(CommandV1::AdmitApplications {
            now_ms: 1_000,
            admissions: vec![
                Admission::Accepted {
                    application_seq: 1,
                    queue: "root.default".to_owned(),
                    priority: 3,
                },
                Admission::Rejected {
                    application_seq: 2,
                    diagnostics: "queue root.b is STOPPED".to_owned(),
                },
                Admission::Rejected {
                    application_seq: 9,
                    diagnostics: "unknown".to_owned(),
                },
            ],
        });
        assert_eq!(
            state.apply(&admit),
            RmResponse::ApplicationsAdmitted {
                decided: 2,
                ignored: 1
            }
        );
        let accepted = &state.applications[&1];
        assert_eq!(accepted.state, ApplicationState::Accepted);
        assert_eq!(
            (
                accepted.queue.as_str(),
                accepted.priority,
                accepted.current_attempt
            ),
            ("root.default", 3, 1)
        );
        let rejected = &state.applications[&2];
        assert_eq!(rejected.state, ApplicationState::Failed);
        assert_eq!(rejected.diagnostics, "queue root.b is STOPPED");
        assert_eq!(rejected.current_attempt, 0);
        // A verdict re-proposed after an unconfirmed commit changes nothing.
        let before = state.clone();
        assert_eq!(
            state.apply(&admit),
            RmResponse::ApplicationsAdmitted {
                decided: 0,
                ignored: 3
            }
        );
        assert_eq!(state, before);
    }
}
