//! [`StoredContainer`]: the on-disk form of a container record.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use yarn_proto::ids::ContainerId;

use crate::Error;
use crate::container_scheduler::{ExecutionType, Resources};
use crate::state_store::{ContainerRecord, ContainerRecordState, RecoveredContainer};

use super::stored_local_resource::StoredLocalResource;

/// A container record as postcard encodes it under its container id.
///
/// Its shape is part of the format of [`FORMAT_VERSION`](crate::state_store::FORMAT_VERSION):
/// postcard writes fields in declaration order and enum variants by index, so fields and
/// variants are never reordered or removed without a version bump. The environment is a
/// `BTreeMap` so that equal records encode to equal bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct StoredContainer {
    user: String,
    commands: Vec<String>,
    environment: BTreeMap<String, String>,
    memory_mb: u64,
    vcores: u32,
    execution_type: StoredExecutionType,
    token_version: i32,
    container_token_identifier: Vec<u8>,
    tokens: Vec<u8>,
    local_resources: BTreeMap<String, StoredLocalResource>,
    queued_sequence: u64,
    start_sequence: Option<u64>,
    state: StoredState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum StoredExecutionType {
    Guaranteed,
    Opportunistic,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum StoredState {
    Queued,
    Running {
        pid: u32,
        started_at_ms: i64,
    },
    Completed {
        exit_code: i32,
        diagnostics: String,
        completed_at_ms: i64,
    },
}

impl StoredContainer {
    /// A newly accepted container, queued, accepted at `queued_sequence`.
    pub(super) fn queued(record: &ContainerRecord, queued_sequence: u64) -> Self {
        Self {
            user: record.user.clone(),
            commands: record.commands.clone(),
            environment: record
                .environment
                .iter()
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
            memory_mb: record.resources.memory_mb,
            vcores: record.resources.vcores,
            execution_type: record.execution_type.into(),
            token_version: record.token_version,
            container_token_identifier: record.container_token_identifier.clone(),
            tokens: record.tokens.clone(),
            local_resources: record
                .local_resources
                .iter()
                .map(|(link, resource)| (link.clone(), resource.into()))
                .collect(),
            queued_sequence,
            start_sequence: None,
            state: StoredState::Queued,
        }
    }

    /// Moves the container to `next`, recording `start_sequence` when it is launched.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidContainerTransition`] when the change is not allowed (see
    /// [`ContainerRecordState::check_transition`]).
    pub(super) fn move_to(
        &mut self,
        container_id: ContainerId,
        next: ContainerRecordState,
        start_sequence: Option<u64>,
    ) -> Result<(), Error> {
        self.state().check_transition(container_id, &next)?;
        if matches!(next, ContainerRecordState::Running { .. }) {
            self.start_sequence = start_sequence;
        }
        self.state = next.into();
        Ok(())
    }

    /// Takes the execution type, allocation and token of an update by the RM, unless the
    /// record already holds that token version or a newer one: updates may be written out of
    /// order (one an AM brought is stored at once, one from a heartbeat through the runner's
    /// queue), and the newest must win.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidContainerTransition`] when the container has completed.
    pub(super) fn update(
        &mut self,
        container_id: ContainerId,
        execution_type: ExecutionType,
        resources: Resources,
        token_version: i32,
        container_token_identifier: Vec<u8>,
    ) -> Result<(), Error> {
        self.state().check_update(container_id)?;
        if token_version <= self.token_version {
            return Ok(());
        }
        self.execution_type = execution_type.into();
        self.memory_mb = resources.memory_mb;
        self.vcores = resources.vcores;
        self.token_version = token_version;
        self.container_token_identifier = container_token_identifier;
        Ok(())
    }

    /// The container's state.
    pub(super) fn state(&self) -> ContainerRecordState {
        match &self.state {
            StoredState::Queued => ContainerRecordState::Queued,
            StoredState::Running { pid, started_at_ms } => ContainerRecordState::Running {
                pid: *pid,
                started_at_ms: *started_at_ms,
            },
            StoredState::Completed {
                exit_code,
                diagnostics,
                completed_at_ms,
            } => ContainerRecordState::Completed {
                exit_code: *exit_code,
                diagnostics: diagnostics.clone(),
                completed_at_ms: *completed_at_ms,
            },
        }
    }

    /// The record as the NodeManager uses it, for the container stored under `container_id`.
    pub(super) fn into_recovered(self, container_id: ContainerId) -> RecoveredContainer {
        let state = self.state();
        RecoveredContainer {
            record: ContainerRecord {
                container_id,
                user: self.user,
                commands: self.commands,
                environment: self.environment.into_iter().collect(),
                resources: Resources::new(self.memory_mb, self.vcores),
                execution_type: self.execution_type.into(),
                token_version: self.token_version,
                container_token_identifier: self.container_token_identifier,
                tokens: self.tokens,
                local_resources: self
                    .local_resources
                    .into_iter()
                    .map(|(link, resource)| (link, resource.into()))
                    .collect(),
            },
            state,
            queued_sequence: self.queued_sequence,
            start_sequence: self.start_sequence,
        }
    }
}

impl From<ExecutionType> for StoredExecutionType {
    fn from(execution_type: ExecutionType) -> Self {
        match execution_type {
            ExecutionType::Guaranteed => Self::Guaranteed,
            ExecutionType::Opportunistic => Self::Opportunistic,
        }
    }
}

impl From<StoredExecutionType> for ExecutionType {
    fn from(stored: StoredExecutionType) -> Self {
        match stored {
            StoredExecutionType::Guaranteed => Self::Guaranteed,
            StoredExecutionType::Opportunistic => Self::Opportunistic,
        }
    }
}

impl From<ContainerRecordState> for StoredState {
    fn from(state: ContainerRecordState) -> Self {
        match state {
            ContainerRecordState::Queued => Self::Queued,
            ContainerRecordState::Running { pid, started_at_ms } => {
                Self::Running { pid, started_at_ms }
            }
            ContainerRecordState::Completed {
                exit_code,
                diagnostics,
                completed_at_ms,
            } => Self::Completed {
                exit_code,
                diagnostics,
                completed_at_ms,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;
    use crate::localizer::{LocalResource, ResourceType, ResourceVisibility};

    fn record() -> ContainerRecord {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        ContainerRecord {
            container_id: ContainerId::new(attempt, 3, 2).unwrap(),
            user: "alice".to_owned(),
            commands: vec!["sleep".to_owned(), "5".to_owned()],
            environment: HashMap::from([
                ("B".to_owned(), "2".to_owned()),
                ("A".to_owned(), "1".to_owned()),
            ]),
            resources: Resources::new(2048, 2),
            execution_type: ExecutionType::Opportunistic,
            token_version: 1,
            container_token_identifier: vec![1, 2, 3],
            tokens: vec![7, 8, 9],
            local_resources: BTreeMap::from([(
                "__spark_conf__".to_owned(),
                LocalResource {
                    url: "file:/s/__spark_conf__.zip".to_owned(),
                    size: 12,
                    timestamp_ms: 1_700_000_000_123,
                    resource_type: ResourceType::Archive,
                    visibility: ResourceVisibility::Private,
                    pattern: String::new(),
                },
            )]),
        }
    }

    #[test]
    fn a_queued_record_comes_back_whole() {
        let record = record();
        let recovered = StoredContainer::queued(&record, 9).into_recovered(record.container_id);
        assert_eq!(recovered.record, record);
        assert_eq!(recovered.state, ContainerRecordState::Queued);
        assert_eq!(
            (recovered.queued_sequence, recovered.start_sequence),
            (9, None)
        );
    }

    #[test]
    fn launch_records_the_start_sequence_and_completion_keeps_it() {
        let record = record();
        let id = record.container_id;
        let mut stored = StoredContainer::queued(&record, 9);
        let running = ContainerRecordState::Running {
            pid: 4242,
            started_at_ms: 100,
        };
        stored.move_to(id, running.clone(), Some(12)).unwrap();
        assert_eq!(stored.state(), running);
        let completed = ContainerRecordState::Completed {
            exit_code: 143,
            diagnostics: "stopped".to_owned(),
            completed_at_ms: 200,
        };
        stored.move_to(id, completed.clone(), None).unwrap();
        let recovered = stored.into_recovered(id);
        assert_eq!(recovered.state, completed);
        assert_eq!(recovered.start_sequence, Some(12));
    }

    #[test]
    fn an_update_changes_type_allocation_and_token_but_not_after_completion() {
        let record = record();
        let id = record.container_id;
        let mut stored = StoredContainer::queued(&record, 1);
        stored
            .update(
                id,
                ExecutionType::Guaranteed,
                Resources::new(4096, 4),
                2,
                vec![9],
            )
            .unwrap();
        let updated = stored.clone().into_recovered(id).record;
        assert_eq!(updated.execution_type, ExecutionType::Guaranteed);
        assert_eq!(updated.resources, Resources::new(4096, 4));
        assert_eq!(
            (updated.token_version, updated.container_token_identifier),
            (2, vec![9])
        );
        stored
            .update(
                id,
                ExecutionType::Opportunistic,
                Resources::new(1, 1),
                1,
                vec![8],
            )
            .unwrap();
        let kept = stored.clone().into_recovered(id).record;
        assert_eq!(
            (kept.token_version, kept.resources),
            (2, Resources::new(4096, 4)),
            "an older update written late does not undo a newer one"
        );

        let completed = ContainerRecordState::Completed {
            exit_code: 0,
            diagnostics: String::new(),
            completed_at_ms: 1,
        };
        stored.move_to(id, completed, None).unwrap();
        assert!(matches!(
            stored.update(
                id,
                ExecutionType::Opportunistic,
                Resources::ZERO,
                3,
                Vec::new()
            ),
            Err(Error::InvalidContainerTransition { .. })
        ));
    }
}
