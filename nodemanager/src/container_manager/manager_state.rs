//! [`ManagerState`]: the container scheduler and the container entries, kept together under the
//! container manager's one lock.

use std::collections::BTreeMap;

use yarn_proto::ids::ContainerId;

use super::{ContainerEntry, ContainerRefusal, EntryState, Work};
use crate::container_scheduler::{ContainerScheduler, SchedulerAction};
use crate::executor::{ContainerHandle, KillRequest};

/// The container scheduler and every container the node knows, changed together so that the
/// two never disagree: a container the scheduler runs or queues has an entry that is not
/// completed, and a completed entry is unknown to the scheduler.
///
/// Pure bookkeeping: applying a [`SchedulerAction`] updates the entries at once (so statuses
/// show a decision as soon as it is taken) and returns the [`Work`] the runner must do for it.
#[derive(Debug)]
pub(super) struct ManagerState {
    /// The pure decision core.
    pub(super) scheduler: ContainerScheduler,
    /// Every container not yet forgotten, by id.
    pub(super) containers: BTreeMap<ContainerId, ContainerEntry>,
}

impl ManagerState {
    /// Books `action` into the entries and returns the I/O it needs, if any.
    ///
    /// - `Start`: the entry is launching; the runner launches it.
    /// - `Queue`: nothing more; the record was stored queued when the container was accepted.
    /// - `Reject`, `Shed`, `RemoveFromQueue`: the container completes with the scheduler's exit
    ///   status and diagnostic without running; the runner stores the completion.
    /// - `Kill`: the stop is noted; the runner stops the process.
    /// - `Resize`: the runner applies the new memory limit to the process, once it runs.
    pub(super) fn apply(&mut self, action: SchedulerAction) -> Option<Work> {
        let container_id = action.id();
        let Some(entry) = self.containers.get_mut(&container_id) else {
            tracing::error!(%container_id, ?action, "the container scheduler decided on a container the manager does not know");
            return None;
        };
        match action {
            SchedulerAction::Start { .. } => {
                entry.state = EntryState::Launching;
                Some(Work::Launch { container_id })
            }
            SchedulerAction::Queue { .. } => None,
            SchedulerAction::Reject {
                exit_status,
                diagnostic,
                ..
            }
            | SchedulerAction::Shed {
                exit_status,
                diagnostic,
                ..
            }
            | SchedulerAction::RemoveFromQueue {
                exit_status,
                diagnostic,
                ..
            } => {
                entry.complete(exit_status, diagnostic.clone());
                Some(Work::StoreCompleted {
                    container_id,
                    exit_code: exit_status,
                    diagnostics: diagnostic,
                })
            }
            SchedulerAction::Kill {
                exit_status,
                diagnostic,
                ..
            } => {
                let request = KillRequest::new(exit_status, diagnostic);
                entry.kill = Some(request.clone());
                Some(Work::Kill {
                    container_id,
                    request,
                })
            }
            SchedulerAction::Resize { resources, .. } => Some(Work::ApplyLimits {
                container_id,
                memory_mb: resources.memory_mb,
            }),
        }
    }

    /// Records that a launching container is now running under `handle`.
    pub(super) fn launched(&mut self, handle: ContainerHandle) {
        let container_id = handle.container_id();
        if let Some(entry) = self.containers.get_mut(&container_id) {
            entry.state = EntryState::Running { handle };
        }
    }

    /// Records that a container ended and tells the scheduler, which may start queued ones;
    /// their actions are appended to `actions`.
    pub(super) fn completed(
        &mut self,
        container_id: ContainerId,
        exit_code: i32,
        diagnostics: String,
        actions: &mut Vec<SchedulerAction>,
    ) {
        if let Some(entry) = self.containers.get_mut(&container_id) {
            entry.complete(exit_code, diagnostics);
        }
        match self.scheduler.container_completed(container_id) {
            Ok(next) => actions.extend(next),
            Err(err) => {
                tracing::warn!(%container_id, %err, "completion of a container the scheduler no longer holds")
            }
        }
    }

    /// Stops a container: a queued one leaves the queue, a running one is killed, with
    /// `exit_status` and `diagnostics`. Stopping a completed container, or one already being
    /// killed, succeeds and changes nothing.
    ///
    /// # Errors
    ///
    /// [`ContainerRefusal::UnknownContainer`] when the node does not know the container.
    pub(super) fn stop(
        &mut self,
        container_id: ContainerId,
        exit_status: i32,
        diagnostics: &str,
        actions: &mut Vec<SchedulerAction>,
    ) -> Result<(), ContainerRefusal> {
        let entry = self
            .containers
            .get(&container_id)
            .ok_or(ContainerRefusal::UnknownContainer { container_id })?;
        if entry.is_completed() {
            return Ok(());
        }
        match self.scheduler.stop(container_id, exit_status, diagnostics) {
            Ok(next) => actions.extend(next),
            // Not completed here yet the scheduler let it go: its completion is being booked.
            Err(err) => tracing::debug!(%container_id, %err, "stop of a container already ending"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};
    use yarn_proto::pb;

    use super::*;
    use crate::container_scheduler::{
        ExecutionType, KILLED_BY_CONTAINER_SCHEDULER, QUEUE_FULL_DIAGNOSTIC, Resources,
    };
    use crate::state_store::ContainerRecord;

    fn container(sequence: i64) -> ContainerId {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        ContainerId::new(attempt, 0, sequence).unwrap()
    }

    fn entry(container_id: ContainerId, execution_type: ExecutionType) -> ContainerEntry {
        ContainerEntry::scheduled(
            ContainerRecord {
                container_id,
                user: "alice".to_owned(),
                commands: vec!["true".to_owned()],
                environment: HashMap::new(),
                resources: Resources::new(1024, 1),
                execution_type,
                token_version: 0,
                container_token_identifier: Vec::new(),
                tokens: Vec::new(),
                local_resources: std::collections::BTreeMap::new(),
            },
            pb::ContainerTokenIdentifierProto::default(),
        )
    }

    /// A node with room for two 1 GB containers and an opportunistic queue of one.
    fn state() -> ManagerState {
        ManagerState {
            scheduler: ContainerScheduler::new(Resources::new(2048, 2), 1),
            containers: BTreeMap::new(),
        }
    }

    fn schedule(
        state: &mut ManagerState,
        sequence: i64,
        execution_type: ExecutionType,
    ) -> Vec<Work> {
        let id = container(sequence);
        let entry = entry(id, execution_type);
        let request = entry.record.container_request();
        state.containers.insert(id, entry);
        let actions = state.scheduler.schedule(request).unwrap();
        actions.into_iter().filter_map(|a| state.apply(a)).collect()
    }

    #[test]
    fn a_start_launches_and_a_refusal_completes_without_running() {
        let mut state = state();
        assert_eq!(
            schedule(&mut state, 1, ExecutionType::Opportunistic),
            [Work::Launch {
                container_id: container(1)
            }]
        );
        assert!(matches!(
            state.containers[&container(1)].state,
            EntryState::Launching
        ));
        schedule(&mut state, 2, ExecutionType::Opportunistic);
        // Node full, queue of one: the third waits, the fourth is refused.
        assert_eq!(schedule(&mut state, 3, ExecutionType::Opportunistic), []);
        assert!(matches!(
            state.containers[&container(3)].state,
            EntryState::Scheduled
        ));
        assert_eq!(
            schedule(&mut state, 4, ExecutionType::Opportunistic),
            [Work::StoreCompleted {
                container_id: container(4),
                exit_code: KILLED_BY_CONTAINER_SCHEDULER,
                diagnostics: QUEUE_FULL_DIAGNOSTIC.to_owned(),
            }]
        );
        assert!(state.containers[&container(4)].is_completed());
    }

    #[test]
    fn a_kill_is_noted_and_completion_starts_the_queued_container() {
        let mut state = state();
        schedule(&mut state, 1, ExecutionType::Opportunistic);
        schedule(&mut state, 2, ExecutionType::Opportunistic);
        schedule(&mut state, 3, ExecutionType::Opportunistic);

        let mut actions = Vec::new();
        state
            .stop(container(2), -105, "stopped", &mut actions)
            .unwrap();
        let work: Vec<Work> = actions.into_iter().filter_map(|a| state.apply(a)).collect();
        let request = KillRequest::new(-105, "stopped");
        assert_eq!(
            work,
            [Work::Kill {
                container_id: container(2),
                request: request.clone()
            }]
        );
        assert_eq!(state.containers[&container(2)].kill, Some(request));

        let mut actions = Vec::new();
        state.completed(container(2), -105, "stopped".to_owned(), &mut actions);
        assert_eq!(actions, [SchedulerAction::Start { id: container(3) }]);
        assert!(state.containers[&container(2)].is_completed());
        assert_eq!(state.scheduler.container(&container(2)), None);
    }

    #[test]
    fn stopping_a_completed_container_changes_nothing_and_an_unknown_one_is_refused() {
        let mut state = state();
        schedule(&mut state, 1, ExecutionType::Guaranteed);
        let mut actions = Vec::new();
        state.completed(container(1), 0, String::new(), &mut actions);
        state
            .stop(container(1), -105, "stopped", &mut actions)
            .unwrap();
        assert!(actions.is_empty());
        assert!(matches!(
            state.stop(container(9), -105, "stopped", &mut actions),
            Err(ContainerRefusal::UnknownContainer { container_id }) if container_id == container(9)
        ));
    }
}
