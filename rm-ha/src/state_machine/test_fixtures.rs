//! Replicated states for unit tests elsewhere in the crate.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

use yarn_security::MasterKey;

use super::{
    APPLY_RULES, ApplicationRecord, ApplicationState, AttemptRecord, AttemptState, CommandV1,
    ContainerCompletion, ContainerKey, ContainerRecord, ContainerState, ExecutionType,
    MasterKeyChange, MasterKeyKind, RmCommand, RmState, StoredMasterKey,
};

/// The cluster timestamp of the fixtures' application ids.
pub(crate) const TIMESTAMP: i64 = 7;

/// Container `sequence` of attempt 1 of application 1, in epoch 1.
pub(crate) fn container(sequence: i64) -> ContainerId {
    let attempt = ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, 1), 1);
    ContainerId::new(attempt, 1, sequence).expect("a valid container id")
}

/// The table key of [`container`]`(sequence)`.
pub(crate) fn key(sequence: i64) -> ContainerKey {
    ContainerKey {
        application_seq: 1,
        container_id: container(sequence).container_id(),
    }
}

/// Epoch 1, under this binary's apply rules, with alice's application 1 RUNNING in attempt 1,
/// holding a 1 GB guaranteed container per `(sequence, node)` in `containers`, of which those
/// in `completed` completed with exit status 0.
pub(crate) fn running_application(containers: &[(i64, &str)], completed: &[i64]) -> RmState {
    let mut state = RmState::default();
    let mut apply = |command| state.apply(&RmCommand::V1(command));
    apply(CommandV1::BeginEpoch {
        leader_rm_id: "rm1".to_owned(),
        now_ms: TIMESTAMP,
    });
    apply(CommandV1::AdoptApplyRules { rules: APPLY_RULES });
    apply(CommandV1::AllocateApplicationIds { count: 1 });
    apply(CommandV1::SubmitApplication {
        cluster_timestamp_ms: TIMESTAMP,
        application: ApplicationRecord {
            sequence: 1,
            user: "alice".to_owned(),
            name: "job".to_owned(),
            queue: "default".to_owned(),
            application_type: "YARN".to_owned(),
            tags: Vec::new(),
            submit_time_ms: TIMESTAMP,
            state: ApplicationState::Running,
            submission_context: Vec::new(),
            priority: 0,
            current_attempt: 1,
            diagnostics: String::new(),
            max_attempts: 2,
            attempts: vec![AttemptRecord {
                attempt_id: 1,
                state: AttemptState::Running,
                start_time_ms: TIMESTAMP,
                ..AttemptRecord::default()
            }],
            ..ApplicationRecord::default()
        },
    });
    let allocations = containers
        .iter()
        .map(|&(sequence, node)| ContainerRecord {
            key: key(sequence),
            attempt_id: 1,
            node: node.to_owned(),
            memory_mb: 1024,
            vcores: 1,
            execution_type: ExecutionType::Guaranteed,
            is_am: false,
            priority: 1,
            allocation_request_id: 0,
            allocated_at_ms: TIMESTAMP,
            state: ContainerState::Allocated,
        })
        .collect();
    apply(CommandV1::AllocateContainers { allocations });
    let completions = completed
        .iter()
        .map(|&sequence| ContainerCompletion {
            key: key(sequence),
            exit_status: 0,
            diagnostics: String::new(),
        })
        .collect();
    apply(CommandV1::CompleteContainers {
        completions,
        now_ms: TIMESTAMP,
    });
    state
}

/// Initializes every kind of token master key, each with id 1 and its own secret.
pub(crate) fn initialize_master_keys(state: &mut RmState) {
    for (index, kind) in MasterKeyKind::ALL.into_iter().enumerate() {
        let seed = u8::try_from(index).expect("three kinds");
        state.apply(&RmCommand::V1(CommandV1::ChangeMasterKey {
            kind,
            change: MasterKeyChange::Initialize {
                key: StoredMasterKey {
                    key_id: 1,
                    secret: [seed; MasterKey::LEN],
                    since_ms: TIMESTAMP,
                },
            },
        }));
    }
}

/// The 1 GB AM container [`container`]`(sequence)` of attempt 1 on `node`, not yet recorded.
pub(crate) fn am_container(sequence: i64, node: &str) -> ContainerRecord {
    ContainerRecord {
        key: key(sequence),
        attempt_id: 1,
        node: node.to_owned(),
        memory_mb: 1024,
        vcores: 1,
        execution_type: ExecutionType::Guaranteed,
        is_am: true,
        priority: 0,
        allocation_request_id: -1,
        allocated_at_ms: TIMESTAMP,
        state: ContainerState::Allocated,
    }
}
