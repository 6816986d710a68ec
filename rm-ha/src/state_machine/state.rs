//! The replicated ResourceManager state and its deterministic transition function.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{
    Admission, ApplicationRecord, ApplicationState, AttemptRecord, CommandV1, ContainerRecord,
    ContainerTable, FinalStatus, MasterKeys, RmCommand, RmResponse,
};

/// The state every replica holds identically after applying the same log prefix.
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
                RmResponse::EpochBegun { epoch: self.epoch }
            }
            CommandV1::AllocateApplicationIds { count } => self.allocate_application_ids(*count),
            CommandV1::SetQueueConfiguration {
                expected,
                properties,
            } => {
                if *expected == self.queue_config_version {
                    self.queue_config_version += 1;
                    self.queue_config = properties.clone();
                    RmResponse::QueueConfigVersionSet {
                        version: self.queue_config_version,
                    }
                } else {
                    RmResponse::QueueConfigVersionRejected {
                        expected: *expected,
                        actual: self.queue_config_version,
                    }
                }
            }
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

    fn submit_application(
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
        if self.applications.contains_key(&sequence) {
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

    /// A SHA-256 digest of the whole state, equal on two replicas exactly when their states are
    /// equal, so that replicas can be compared without shipping the state.
    pub fn digest(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(self.epoch.to_be_bytes());
        hasher.update(self.next_application_seq.to_be_bytes());
        hasher.update(self.cluster_timestamp_ms.to_be_bytes());
        hasher.update(self.queue_config_version.to_be_bytes());
        hasher.update((self.queue_config.len() as u64).to_be_bytes());
        for (name, value) in &self.queue_config {
            for text in [name, value] {
                hasher.update((text.len() as u64).to_be_bytes());
                hasher.update(text.as_bytes());
            }
        }
        // Length prefixes keep ["ab", "c"] and ["a", "bc"] apart.
        hasher.update((self.decommissioned_nodes.len() as u64).to_be_bytes());
        for node in &self.decommissioned_nodes {
            hasher.update((node.len() as u64).to_be_bytes());
            hasher.update(node.as_bytes());
        }
        self.master_keys.digest_into(&mut hasher);
        // Records are hashed through their postcard encoding, which is deterministic; encoding
        // plain records into a Vec cannot fail, so the empty fallback is never taken.
        hasher.update((self.applications.len() as u64).to_be_bytes());
        for record in self.applications.values() {
            let bytes = postcard::to_allocvec(record).unwrap_or_default();
            hasher.update((bytes.len() as u64).to_be_bytes());
            hasher.update(&bytes);
        }
        self.containers.digest_into(&mut hasher);
        hasher.finalize().into()
    }
}

#[cfg(test)]
mod tests {
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
            RmResponse::EpochBegun { epoch: 1 }
        );
        assert_eq!(
            state.apply(&begin(2_000)),
            RmResponse::EpochBegun { epoch: 2 }
        );
        assert_eq!(state.epoch, 2);
        assert_eq!(state.cluster_timestamp_ms, 1_000);
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
        assert_eq!(a.digest(), b.digest());
        let mut c = b.clone();
        b.apply(&set_queues(0, "100"));
        assert_ne!(a.digest(), b.digest());
        c.apply(&submit(5, 2));
        assert_ne!(a.digest(), c.digest());
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
