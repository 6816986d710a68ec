//! Replicated states for unit tests elsewhere in the crate.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

use super::{
    ApplicationRecord, ApplicationState, CommandV1, ContainerCompletion, ContainerKey,
    ContainerRecord, ContainerState, ExecutionType, RmCommand, RmState,
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

/// Epoch 1 with alice's application 1 RUNNING in attempt 1, holding a 1 GB guaranteed
/// container per `(sequence, node)` in `containers`, of which those in `completed` completed
/// with exit status 0.
pub(crate) fn running_application(containers: &[(i64, &str)], completed: &[i64]) -> RmState {
    let mut state = RmState::default();
    let mut apply = |command| state.apply(&RmCommand::V1(command));
    apply(CommandV1::BeginEpoch {
        leader_rm_id: "rm1".to_owned(),
        now_ms: TIMESTAMP,
    });
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
    apply(CommandV1::CompleteContainers { completions });
    state
}
