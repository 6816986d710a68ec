//! [`RecoveredState`]: everything a restarted NodeManager reads back from its state store.

use std::collections::{BTreeMap, HashMap};

use yarn_proto::ids::ContainerId;
use yarn_security::TokenKind;

use crate::state_store::{ContainerRecordState, MasterKeyPair, RecoveredContainer};

/// What [`NmStateStore::load`](crate::state_store::NmStateStore::load) recovers, ordered the way
/// the NodeManager must replay it.
///
/// Feed `running` to the container scheduler's `recover_running` and the executor's
/// `reacquire`, then `queued` to `recover_queued`, in the orders given, then end recovery;
/// report `completed` to the RM when re-registering.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveredState {
    /// Containers accepted but not launched, oldest first: the order they wait in.
    pub queued: Vec<RecoveredContainer>,
    /// Launched containers, each with its pid, earliest launch first: the order the container
    /// scheduler needs to kill the most recently started opportunistic containers first.
    pub running: Vec<RecoveredContainer>,
    /// Ended containers not yet removed, earliest completion first.
    pub completed: Vec<RecoveredContainer>,
    /// The last master keys stored for each token kind.
    pub master_keys: HashMap<TokenKind, MasterKeyPair>,
    /// Containers whose token has been used, with the token's expiry in milliseconds since the
    /// Unix epoch.
    pub replays: BTreeMap<ContainerId, i64>,
    /// The RM epoch the NodeManager last registered with.
    pub rm_epoch: Option<i64>,
    /// The response id of the last heartbeat response the NodeManager received.
    pub last_heartbeat_response_id: Option<i32>,
}

impl RecoveredState {
    /// A state holding `containers` sorted into queued (by acceptance), running (by launch) and
    /// completed (by completion), and nothing else.
    pub(super) fn with_containers(containers: Vec<RecoveredContainer>) -> Self {
        let mut state = Self::default();
        for container in containers {
            match container.state {
                ContainerRecordState::Queued => state.queued.push(container),
                ContainerRecordState::Running { .. } => state.running.push(container),
                ContainerRecordState::Completed { .. } => state.completed.push(container),
            }
        }
        state.queued.sort_by_key(|c| c.queued_sequence);
        state
            .running
            .sort_by_key(|c| (c.start_sequence, c.queued_sequence));
        state
            .completed
            .sort_by_key(|c| (completed_at_ms(&c.state), c.queued_sequence));
        state
    }
}

fn completed_at_ms(state: &ContainerRecordState) -> Option<i64> {
    match state {
        ContainerRecordState::Completed {
            completed_at_ms, ..
        } => Some(*completed_at_ms),
        ContainerRecordState::Queued | ContainerRecordState::Running { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;
    use crate::container_scheduler::{ExecutionType, Resources};
    use crate::state_store::ContainerRecord;

    fn container(
        sequence: i64,
        state: ContainerRecordState,
        queued_sequence: u64,
        start_sequence: Option<u64>,
    ) -> RecoveredContainer {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        RecoveredContainer {
            record: ContainerRecord {
                container_id: ContainerId::new(attempt, 0, sequence).unwrap(),
                user: "alice".to_owned(),
                commands: vec!["true".to_owned()],
                environment: HashMap::new(),
                resources: Resources::new(1024, 1),
                execution_type: ExecutionType::Opportunistic,
                token_version: 0,
                container_token_identifier: Vec::new(),
                tokens: Vec::new(),
                local_resources: std::collections::BTreeMap::new(),
            },
            state,
            queued_sequence,
            start_sequence,
        }
    }

    fn running(pid: u32) -> ContainerRecordState {
        ContainerRecordState::Running {
            pid,
            started_at_ms: 0,
        }
    }

    fn completed(at: i64) -> ContainerRecordState {
        ContainerRecordState::Completed {
            exit_code: 0,
            diagnostics: String::new(),
            completed_at_ms: at,
        }
    }

    fn sequences(containers: &[RecoveredContainer]) -> Vec<i64> {
        containers
            .iter()
            .map(|c| c.record.container_id.sequence())
            .collect()
    }

    #[test]
    fn queued_come_back_in_acceptance_order() {
        let state = RecoveredState::with_containers(vec![
            container(3, ContainerRecordState::Queued, 30, None),
            container(1, ContainerRecordState::Queued, 10, None),
            container(2, ContainerRecordState::Queued, 20, None),
        ]);
        assert_eq!(sequences(&state.queued), [1, 2, 3]);
        assert!(state.running.is_empty() && state.completed.is_empty());
    }

    #[test]
    fn running_come_back_in_launch_order_not_acceptance_order() {
        // Container 1 was accepted first but waited in the queue while 2 started.
        let state = RecoveredState::with_containers(vec![
            container(1, running(101), 10, Some(40)),
            container(2, running(102), 20, Some(25)),
            container(3, running(103), 30, Some(35)),
        ]);
        assert_eq!(sequences(&state.running), [2, 3, 1]);
    }

    #[test]
    fn completed_come_back_in_completion_order_and_states_are_separated() {
        let state = RecoveredState::with_containers(vec![
            container(1, completed(500), 10, Some(11)),
            container(2, ContainerRecordState::Queued, 20, None),
            container(3, completed(100), 30, None),
            container(4, running(104), 40, Some(41)),
        ]);
        assert_eq!(sequences(&state.completed), [3, 1]);
        assert_eq!(sequences(&state.queued), [2]);
        assert_eq!(sequences(&state.running), [4]);
    }
}
