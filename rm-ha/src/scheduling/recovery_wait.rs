//! [`RecoveryWait`]: when a new leader may start allocating.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use yarn_proto::ids::NodeId;

use crate::state_machine::RmState;

/// YARN's work-preserving recovery wait, for one leadership.
///
/// A new leader knows the containers of the replicated state but not yet the nodes' free
/// resources; allocating before the nodes that hold live containers have re-registered could
/// place containers on resources those containers still use. Scheduling therefore waits until
/// every such node has registered again or `wait`
/// (`yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms`) has passed, whichever
/// comes first. Once over, it stays over. Pure: times are passed in.
#[derive(Debug, Clone)]
pub struct RecoveryWait {
    awaited: BTreeSet<String>,
    deadline: Instant,
}

impl RecoveryWait {
    /// The wait of a leadership that began at `started` over `state`.
    pub fn new(state: &RmState, started: Instant, wait: Duration) -> Self {
        let awaited = state
            .containers
            .iter()
            .filter(|record| record.is_live())
            .map(|record| record.node.clone())
            .collect();
        Self {
            awaited,
            deadline: started + wait,
        }
    }

    /// Whether scheduling may run at `now`, given the nodes registered so far.
    pub fn is_over<'a>(
        &mut self,
        now: Instant,
        registered: impl IntoIterator<Item = &'a NodeId>,
    ) -> bool {
        if self.awaited.is_empty() {
            return true;
        }
        for node in registered {
            self.awaited.remove(&node.to_string());
        }
        if now >= self.deadline {
            tracing::warn!(
                missing = ?self.awaited,
                "work-preserving recovery: scheduling starts before these nodes resynced"
            );
            self.awaited.clear();
        }
        self.awaited.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

    use super::*;
    use crate::state_machine::{
        ApplicationRecord, ApplicationState, CommandV1, ContainerCompletion, ContainerKey,
        ContainerRecord, ContainerState, ExecutionType, RmCommand,
    };

    fn state_with_containers_on(nodes: &[&str], completed_on: &str) -> RmState {
        let mut state = RmState::default();
        let mut apply = |command| state.apply(&RmCommand::V1(command));
        apply(CommandV1::BeginEpoch {
            leader_rm_id: "rm1".to_owned(),
            now_ms: 7,
        });
        apply(CommandV1::AllocateApplicationIds { count: 1 });
        apply(CommandV1::SubmitApplication {
            cluster_timestamp_ms: 7,
            application: ApplicationRecord {
                sequence: 1,
                user: "alice".to_owned(),
                name: "job".to_owned(),
                queue: "default".to_owned(),
                application_type: "YARN".to_owned(),
                tags: Vec::new(),
                submit_time_ms: 7,
                state: ApplicationState::Running,
                submission_context: Vec::new(),
                priority: 0,
                current_attempt: 1,
                diagnostics: String::new(),
            },
        });
        let attempt = ApplicationAttemptId::new(ApplicationId::new(7, 1), 1);
        let keys: Vec<ContainerKey> = (1..)
            .zip(nodes.iter().chain([&completed_on]))
            .map(|(sequence, node)| {
                let key = ContainerKey {
                    application_seq: 1,
                    container_id: ContainerId::new(attempt, 1, sequence)
                        .unwrap()
                        .container_id(),
                };
                let record = ContainerRecord {
                    key,
                    attempt_id: 1,
                    node: (*node).to_owned(),
                    memory_mb: 1024,
                    vcores: 1,
                    execution_type: ExecutionType::Guaranteed,
                    is_am: false,
                    priority: 1,
                    allocation_request_id: 0,
                    allocated_at_ms: 7,
                    state: ContainerState::Allocated,
                };
                apply(CommandV1::AllocateContainers {
                    allocations: vec![record],
                });
                key
            })
            .collect();
        apply(CommandV1::CompleteContainers {
            completions: vec![ContainerCompletion {
                key: keys[keys.len() - 1],
                exit_status: 0,
                diagnostics: String::new(),
            }],
        });
        state
    }

    fn id(node: &str) -> NodeId {
        node.parse().unwrap()
    }

    #[test]
    fn waits_for_nodes_with_live_containers_or_the_deadline() {
        let start = Instant::now();
        let wait = Duration::from_secs(10);
        let state = state_with_containers_on(&["nm1:8041", "nm2:8041"], "nm3:8041");
        let mut recovery = RecoveryWait::new(&state, start, wait);
        assert!(!recovery.is_over(start, &[id("nm1:8041"), id("nm3:8041")]));
        assert!(
            recovery.is_over(start, &[id("nm2:8041")]),
            "nm1 was seen before"
        );

        let mut timed = RecoveryWait::new(&state, start, wait);
        assert!(!timed.is_over(start + wait - Duration::from_millis(1), &[]));
        assert!(timed.is_over(start + wait, &[]));
        assert!(timed.is_over(start, &[]), "once over, it stays over");

        let fresh = RmState::default();
        assert!(RecoveryWait::new(&fresh, start, wait).is_over(start, &[]));
    }
}
