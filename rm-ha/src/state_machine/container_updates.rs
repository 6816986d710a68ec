//! The container transitions beyond allocation and completion: containers an AMRMProxy placed
//! itself (distributed scheduling), execution-type updates (promotion and demotion) and
//! resizes (increase and decrease).
//!
//! Everything here is part of [`RmState::apply`]: deterministic, with nothing read from
//! outside the state and the command.

use std::collections::BTreeMap;

use super::{
    ContainerKey, ContainerRecord, ContainerResize, ContainerUpdate, ContainerUpdateRejection,
    RemoteAllocationRejection, RmResponse, RmState,
};

impl RmState {
    /// Checks containers an AMRMProxy reported against the state, as applying
    /// [`CommandV1::RecordRemoteContainers`](super::CommandV1::RecordRemoteContainers) would:
    /// for each, whether it is already recorded (`true`) or new (`false`).
    ///
    /// # Errors
    ///
    /// Every container that would be refused, with why; applying the command would then record
    /// none of them.
    pub fn check_remote_containers(
        &self,
        containers: &[ContainerRecord],
    ) -> Result<Vec<bool>, Vec<RemoteAllocationRejection>> {
        let mut outcomes = Vec::with_capacity(containers.len());
        let mut rejected = Vec::new();
        // A report may name one container twice; the second must agree with the first.
        let mut in_report: BTreeMap<ContainerKey, &ContainerRecord> = BTreeMap::new();
        for record in containers {
            match self.check_remote_container(record, &in_report) {
                Ok(already) => outcomes.push(already),
                Err(rejection) => rejected.push(rejection),
            }
            in_report.entry(record.key).or_insert(record);
        }
        if rejected.is_empty() {
            Ok(outcomes)
        } else {
            Err(rejected)
        }
    }

    fn check_remote_container(
        &self,
        record: &ContainerRecord,
        in_report: &BTreeMap<ContainerKey, &ContainerRecord>,
    ) -> Result<bool, RemoteAllocationRejection> {
        let key = record.key;
        let application = self
            .applications
            .get(&key.application_seq)
            .filter(|application| !application.state.is_final())
            .ok_or(RemoteAllocationRejection::ApplicationNotLive { key })?;
        if application.current_attempt != record.attempt_id {
            return Err(RemoteAllocationRejection::AttemptNotCurrent {
                key,
                attempt_id: record.attempt_id,
                current: application.current_attempt,
            });
        }
        if self.decommissioned_nodes.contains(&record.node) {
            return Err(RemoteAllocationRejection::NodeDecommissioned {
                key,
                node: record.node.clone(),
            });
        }
        let already = self.containers.check_remote(self.epoch, record)?;
        match in_report.get(&key) {
            None => Ok(already),
            Some(earlier)
                if earlier.attempt_id == record.attempt_id && earlier.node == record.node =>
            {
                Ok(true)
            }
            Some(_) => Err(RemoteAllocationRejection::IdTaken { key }),
        }
    }

    pub(super) fn record_remote_containers(
        &mut self,
        containers: &[ContainerRecord],
    ) -> RmResponse {
        let outcomes = match self.check_remote_containers(containers) {
            Ok(outcomes) => outcomes,
            Err(rejected) => return RmResponse::RemoteContainersRejected { rejected },
        };
        let mut recorded = Vec::new();
        let mut already_recorded = Vec::new();
        for (record, already) in containers.iter().zip(outcomes) {
            if already {
                already_recorded.push(record.key);
            } else {
                self.containers.insert_remote(record);
                recorded.push(record.key);
            }
        }
        RmResponse::RemoteContainersRecorded {
            recorded,
            already_recorded,
        }
    }

    pub(super) fn update_containers(&mut self, updates: &[ContainerUpdate]) -> RmResponse {
        self.apply_updates(
            updates,
            |state, update| {
                let current = state.attempt_is_current(&update.key, update.attempt_id);
                state.containers.update_execution_type(update, current)
            },
            |update| update.key,
        )
    }

    pub(super) fn resize_containers(&mut self, resizes: &[ContainerResize]) -> RmResponse {
        self.apply_updates(
            resizes,
            |state, resize| {
                let current = state.attempt_is_current(&resize.key, resize.attempt_id);
                state.containers.resize(resize, current)
            },
            |resize| resize.key,
        )
    }

    /// Applies each of `updates` with `apply`, collecting the new versions and the refusals.
    fn apply_updates<U>(
        &mut self,
        updates: &[U],
        apply: impl Fn(&mut Self, &U) -> Result<i32, ContainerUpdateRejection>,
        key: impl Fn(&U) -> ContainerKey,
    ) -> RmResponse {
        let mut updated = Vec::new();
        let mut rejected = Vec::new();
        for update in updates {
            match apply(self, update) {
                Ok(version) => updated.push((key(update), version)),
                Err(rejection) => rejected.push(rejection),
            }
        }
        RmResponse::ContainersUpdated { updated, rejected }
    }

    /// The live container `key` if an update of it from `version` by attempt `attempt_id`
    /// (still its live application's current one) could still apply: what a pending
    /// promotion or increase waits on.
    pub fn updatable_container(
        &self,
        key: &ContainerKey,
        attempt_id: i32,
        version: i32,
    ) -> Option<&ContainerRecord> {
        self.containers.get(key).filter(|record| {
            record.is_live()
                && self.containers.version(key) == version
                && self.attempt_is_current(key, attempt_id)
        })
    }

    /// Whether `attempt_id` is the current attempt of `key`'s application, which is live.
    fn attempt_is_current(&self, key: &ContainerKey, attempt_id: i32) -> bool {
        self.applications
            .get(&key.application_seq)
            .is_some_and(|application| {
                !application.state.is_final() && application.current_attempt == attempt_id
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::{TIMESTAMP, key, running_application};
    use crate::state_machine::{
        CommandV1, ContainerState, ContainerUpdateRejection, ExecutionType, RmCommand,
    };

    /// The fixtures' epoch is 1: an AMRMProxy counts down from `1 << 40`.
    const EPOCH_START: i64 = 1 << 40;

    fn remote(below_start: i64, node: &str) -> ContainerRecord {
        ContainerRecord {
            key: ContainerKey {
                application_seq: 1,
                container_id: EPOCH_START - below_start,
            },
            attempt_id: 1,
            node: node.to_owned(),
            memory_mb: 512,
            vcores: 1,
            execution_type: ExecutionType::Opportunistic,
            is_am: false,
            priority: 2,
            allocation_request_id: 0,
            allocated_at_ms: TIMESTAMP,
            state: ContainerState::Allocated,
        }
    }

    fn record(state: &mut RmState, containers: Vec<ContainerRecord>) -> RmResponse {
        state.apply(&RmCommand::V1(CommandV1::RecordRemoteContainers {
            containers,
        }))
    }

    fn update(state: &mut RmState, updates: Vec<ContainerUpdate>) -> RmResponse {
        state.apply(&RmCommand::V1(CommandV1::UpdateContainers { updates }))
    }

    #[test]
    fn remote_containers_are_recorded_once_without_touching_the_id_sequence() {
        let mut state = running_application(&[(2, "n1:8041")], &[]);
        let last_issued = state.containers.last_issued(1);
        let report = vec![remote(1, "n1:8041"), remote(2, "n2:8041")];
        assert_eq!(
            record(&mut state, report.clone()),
            RmResponse::RemoteContainersRecorded {
                recorded: vec![report[0].key, report[1].key],
                already_recorded: Vec::new(),
            }
        );
        assert!(state.containers.is_remotely_allocated(&report[0].key));
        assert!(!state.containers.is_remotely_allocated(&key(2)));
        assert_eq!(state.containers.last_issued(1), last_issued);

        let before = state.clone();
        assert_eq!(
            record(&mut state, vec![report[1].clone(), report[1].clone()]),
            RmResponse::RemoteContainersRecorded {
                recorded: Vec::new(),
                already_recorded: vec![report[1].key, report[1].key],
            }
        );
        assert_eq!(state, before, "a repeated report changes nothing");
    }

    #[test]
    fn a_report_with_one_bad_container_records_none() {
        let mut state = running_application(&[(2, "n1:8041")], &[]);
        state.decommissioned_nodes.insert("gone:8041".to_owned());
        let good = remote(1, "n1:8041");
        let wrong_attempt = ContainerRecord {
            attempt_id: 2,
            ..remote(2, "n1:8041")
        };
        let guaranteed = ContainerRecord {
            execution_type: ExecutionType::Guaranteed,
            ..remote(3, "n1:8041")
        };
        let above_start = ContainerRecord {
            key: ContainerKey {
                application_seq: 1,
                container_id: EPOCH_START + 5,
            },
            ..remote(4, "n1:8041")
        };
        let taken = ContainerRecord {
            key: key(2),
            ..remote(5, "n1:8041")
        };
        let decommissioned = remote(6, "gone:8041");
        // The good container's id again, on another node.
        let moved = remote(1, "n2:8041");
        let before = state.clone();
        let RmResponse::RemoteContainersRejected { rejected } = record(
            &mut state,
            vec![
                good.clone(),
                wrong_attempt.clone(),
                guaranteed.clone(),
                above_start.clone(),
                taken,
                decommissioned.clone(),
                moved,
            ],
        ) else {
            panic!("the report must be refused");
        };
        assert_eq!(
            rejected,
            vec![
                RemoteAllocationRejection::AttemptNotCurrent {
                    key: wrong_attempt.key,
                    attempt_id: 2,
                    current: 1
                },
                RemoteAllocationRejection::NotOpportunisticTask {
                    key: guaranteed.key
                },
                RemoteAllocationRejection::IdNotBelowEpochStart {
                    key: above_start.key,
                    epoch_start: EPOCH_START
                },
                // The RM's own ids lie at or above the epoch's first id.
                RemoteAllocationRejection::IdNotBelowEpochStart {
                    key: key(2),
                    epoch_start: EPOCH_START
                },
                RemoteAllocationRejection::NodeDecommissioned {
                    key: decommissioned.key,
                    node: "gone:8041".to_owned()
                },
                RemoteAllocationRejection::IdTaken { key: good.key },
            ]
        );
        assert_eq!(state, before, "nothing of the report was recorded");

        state.applications.get_mut(&1).unwrap().state =
            crate::state_machine::ApplicationState::Killed;
        assert_eq!(
            record(&mut state, vec![good.clone()]),
            RmResponse::RemoteContainersRejected {
                rejected: vec![RemoteAllocationRejection::ApplicationNotLive { key: good.key }]
            }
        );
    }

    #[test]
    fn an_update_applies_once_at_the_version_it_names() {
        let mut state = running_application(&[(2, "n1:8041"), (3, "n1:8041")], &[3]);
        record(&mut state, vec![remote(1, "n1:8041")]);
        let container = remote(1, "n1:8041").key;
        let promote = ContainerUpdate {
            key: container,
            attempt_id: 1,
            version: 0,
            execution_type: ExecutionType::Guaranteed,
        };
        assert_eq!(
            update(&mut state, vec![promote.clone()]),
            RmResponse::ContainersUpdated {
                updated: vec![(container, 1)],
                rejected: Vec::new()
            }
        );
        let promoted = state.containers.get(&container).unwrap();
        assert_eq!(promoted.execution_type, ExecutionType::Guaranteed);
        assert_eq!(state.containers.version(&container), 1);

        let demote = ContainerUpdate {
            version: 1,
            execution_type: ExecutionType::Opportunistic,
            ..promote.clone()
        };
        let am = ContainerUpdate {
            key: key(2),
            ..demote.clone()
        };
        let RmResponse::ContainersUpdated { updated, rejected } = update(
            &mut state,
            vec![
                promote.clone(),
                ContainerUpdate {
                    version: 1,
                    ..promote.clone()
                },
                ContainerUpdate {
                    attempt_id: 2,
                    ..demote.clone()
                },
                ContainerUpdate {
                    key: key(3),
                    ..demote.clone()
                },
                ContainerUpdate {
                    key: key(9),
                    ..demote.clone()
                },
                demote.clone(),
            ],
        ) else {
            panic!("a batch of updates is applied");
        };
        assert_eq!(updated, vec![(container, 2)], "only the demotion applies");
        assert_eq!(
            rejected,
            vec![
                ContainerUpdateRejection::VersionMismatch {
                    key: container,
                    expected: 0,
                    current: 1
                },
                ContainerUpdateRejection::AlreadyOfType {
                    key: container,
                    execution_type: ExecutionType::Guaranteed
                },
                ContainerUpdateRejection::OtherAttempt {
                    key: container,
                    attempt_id: 1
                },
                ContainerUpdateRejection::ContainerCompleted { key: key(3) },
                ContainerUpdateRejection::UnknownContainer { key: key(9) },
            ]
        );
        // The fixture's container 2 is a GUARANTEED task; make it the AM to see it refused.
        let mut with_am = running_application(&[], &[]);
        with_am.apply(&RmCommand::V1(CommandV1::AllocateContainers {
            allocations: vec![crate::state_machine::test_fixtures::am_container(
                2, "n1:8041",
            )],
        }));
        assert_eq!(
            update(&mut with_am, vec![am]),
            RmResponse::ContainersUpdated {
                updated: Vec::new(),
                rejected: vec![ContainerUpdateRejection::ApplicationMasterContainer {
                    key: key(2)
                }]
            }
        );
    }

    #[test]
    fn a_resize_applies_once_to_a_guaranteed_container_at_the_version_it_names() {
        let mut state = running_application(&[(2, "n1:8041"), (3, "n1:8041")], &[3]);
        record(&mut state, vec![remote(1, "n1:8041")]);
        let grow = ContainerResize {
            key: key(2),
            attempt_id: 1,
            version: 0,
            memory_mb: 2048,
            vcores: 2,
        };
        let resize = |state: &mut RmState, resizes| {
            state.apply(&RmCommand::V1(CommandV1::ResizeContainers { resizes }))
        };
        let RmResponse::ContainersUpdated { updated, rejected } = resize(
            &mut state,
            vec![
                grow.clone(),
                grow.clone(),
                ContainerResize {
                    key: key(3),
                    ..grow.clone()
                },
                ContainerResize {
                    key: remote(1, "n1:8041").key,
                    ..grow.clone()
                },
            ],
        ) else {
            panic!("a batch of resizes is applied");
        };
        assert_eq!(updated, vec![(key(2), 1)], "the first applies, once");
        assert_eq!(
            rejected,
            vec![
                ContainerUpdateRejection::VersionMismatch {
                    key: key(2),
                    expected: 0,
                    current: 1
                },
                ContainerUpdateRejection::ContainerCompleted { key: key(3) },
                ContainerUpdateRejection::AlreadyOfType {
                    key: remote(1, "n1:8041").key,
                    execution_type: ExecutionType::Opportunistic
                },
            ]
        );
        let grown = state.containers.get(&key(2)).unwrap();
        assert_eq!((grown.memory_mb, grown.vcores), (2048, 2));

        let shrink = ContainerResize {
            version: 1,
            memory_mb: 512,
            vcores: 1,
            ..grow
        };
        state.applications.get_mut(&1).unwrap().current_attempt = 2;
        let before = state.clone();
        assert_eq!(
            resize(&mut state, vec![shrink.clone()]),
            RmResponse::ContainersUpdated {
                updated: Vec::new(),
                rejected: vec![ContainerUpdateRejection::OtherAttempt {
                    key: key(2),
                    attempt_id: 1
                }]
            }
        );
        assert_eq!(state, before, "a refused resize changes nothing");
    }
}
