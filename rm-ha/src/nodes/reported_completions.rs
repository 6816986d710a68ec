//! [`reported_completions`] and [`cleanup`]: what a NodeManager's container report changes.

use std::collections::BTreeSet;

use yarn_proto::ids::{ApplicationId, ContainerId, NodeId};
use yarn_proto::pb::{self, ContainerStateProto};

use crate::state_machine::{ApplicationState, ContainerCompletion, ContainerKey, RmState};

/// The completions among `statuses`, reported by `node`, that the state does not hold yet.
///
/// Only containers the state records as live *on `node`* count: a NodeManager cannot complete
/// another node's containers, and repeated or unknown reports add nothing, so a heartbeat can be
/// retried freely. Statuses whose container id does not parse are skipped (the NodeManager
/// validated them when it started the containers).
pub fn reported_completions(
    state: &RmState,
    node: &NodeId,
    statuses: &[pb::ContainerStatusProto],
) -> Vec<ContainerCompletion> {
    let node = node.to_string();
    statuses
        .iter()
        .filter(|status| status.state() == ContainerStateProto::CComplete)
        .filter_map(|status| {
            let id = ContainerId::try_from(status.container_id?).ok()?;
            let key = ContainerKey {
                application_seq: id.application_attempt_id().application_id.id,
                container_id: id.container_id(),
            };
            let record = state.containers.get(&key)?;
            (record.is_live() && record.node == node).then(|| ContainerCompletion {
                key,
                exit_status: status
                    .exit_status
                    .unwrap_or(pb::ContainerExitStatusProto::Invalid as i32),
                diagnostics: status.diagnostics.clone(),
            })
        })
        .collect()
}

/// What a heartbeat's response tells the node, given its `statuses` and the state after the
/// report's completions were committed: a completed container it reported may be forgotten once
/// the state holds its completion (one the state never allocated is kept, as the node's own
/// record of it is the only one); running containers the state holds as completed are killed
/// (released or killed through the RM); applications in a final state that still run
/// containers on the node are cleaned up. The containers of an application the state retired
/// are treated as completed and the application as final, as Hadoop cleans up a running
/// application it no longer knows (`handleRunningAppOnNode`): a node that comes back after
/// the retirement neither keeps them running nor reports them forever.
pub fn cleanup(state: &RmState, statuses: &[pb::ContainerStatusProto]) -> NodeCleanup {
    let mut cleanup = NodeCleanup::default();
    let mut finished = BTreeSet::new();
    for status in statuses {
        let Some(id) = status
            .container_id
            .and_then(|proto| ContainerId::try_from(proto).ok())
        else {
            continue;
        };
        let application = id.application_attempt_id().application_id;
        let key = ContainerKey {
            application_seq: application.id,
            container_id: id.container_id(),
        };
        // A retired application's containers are over for the state, as a completed one's.
        let retired = application.cluster_timestamp == state.cluster_timestamp_ms
            && state.retired.contains(application.id);
        let completed_here = retired
            || state
                .containers
                .get(&key)
                .is_some_and(|record| !record.is_live());
        if status.state() == ContainerStateProto::CComplete {
            if completed_here {
                cleanup.acknowledged.push(id);
            }
            continue;
        }
        if completed_here {
            cleanup.to_kill.push(id);
        }
        let final_state = state
            .applications
            .get(&application.id)
            .filter(|_| application.cluster_timestamp == state.cluster_timestamp_ms)
            .is_some_and(|app| {
                matches!(
                    app.state,
                    ApplicationState::Finished
                        | ApplicationState::Failed
                        | ApplicationState::Killed
                )
            });
        if final_state || retired {
            finished.insert(application);
        }
    }
    cleanup.finished_applications = finished.into_iter().collect();
    cleanup
}

/// The container and application lists of a heartbeat response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeCleanup {
    /// Completed containers the node may forget: `containers_to_be_removed_from_nm`.
    pub acknowledged: Vec<ContainerId>,
    /// Containers to kill: `containers_to_cleanup`.
    pub to_kill: Vec<ContainerId>,
    /// Finished applications whose containers the node stops: `applications_to_cleanup`.
    pub finished_applications: Vec<ApplicationId>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::{TIMESTAMP, container, key, running_application};
    use crate::state_machine::{CommandV1, RmCommand};

    /// Containers 1 (live) and 2 (completed) on nm1, 3 (live) on nm2.
    fn state() -> RmState {
        running_application(&[(1, "nm1:8041"), (2, "nm1:8041"), (3, "nm2:8041")], &[2])
    }

    fn status(sequence: i64, state: ContainerStateProto) -> pb::ContainerStatusProto {
        pb::ContainerStatusProto {
            container_id: Some(container(sequence).into()),
            state: state.into(),
            diagnostics: format!("container {sequence}"),
            exit_status: Some(143),
            ..Default::default()
        }
    }

    #[test]
    fn only_new_completions_of_this_nodes_live_containers_count() {
        let statuses = [
            status(1, ContainerStateProto::CComplete),
            status(1, ContainerStateProto::CRunning),
            status(2, ContainerStateProto::CComplete),
            status(3, ContainerStateProto::CComplete),
            status(9, ContainerStateProto::CComplete),
        ];
        let node: NodeId = "nm1:8041".parse().unwrap();
        assert_eq!(
            reported_completions(&state(), &node, &statuses),
            [ContainerCompletion {
                key: key(1),
                exit_status: 143,
                diagnostics: "container 1".to_owned(),
            }],
            "2 is already completed, 3 is another node's, 9 is unknown"
        );
        let mut no_exit = status(1, ContainerStateProto::CComplete);
        no_exit.exit_status = None;
        let completions = reported_completions(&state(), &node, &[no_exit]);
        assert_eq!(
            completions[0].exit_status,
            pb::ContainerExitStatusProto::Invalid as i32
        );
    }

    #[test]
    fn a_proxy_placed_container_heard_of_before_its_record_is_kept_until_recorded() {
        // An AMRMProxy's container may reach the node, and its heartbeat, before the proxy's
        // next allocate records it: running, it must not be killed; completed, the node must
        // keep reporting it until the record exists and the completion can be committed.
        let mut state = state();
        let raw = (1 << 40) - 1;
        let attempt = container(1).application_attempt_id();
        let id = ContainerId::from_raw(attempt, raw).unwrap();
        let report = |container_state: ContainerStateProto| pb::ContainerStatusProto {
            container_id: Some(id.into()),
            state: container_state.into(),
            exit_status: Some(0),
            ..Default::default()
        };
        let node: NodeId = "nm1:8041".parse().unwrap();
        let running = cleanup(&state, &[report(ContainerStateProto::CRunning)]);
        assert_eq!(running, NodeCleanup::default(), "not killed");
        let done = [report(ContainerStateProto::CComplete)];
        assert!(reported_completions(&state, &node, &done).is_empty());
        assert!(
            cleanup(&state, &done).acknowledged.is_empty(),
            "not forgotten"
        );

        let record = crate::state_machine::ContainerRecord {
            key: ContainerKey {
                application_seq: 1,
                container_id: raw,
            },
            execution_type: crate::state_machine::ExecutionType::Opportunistic,
            is_am: false,
            ..crate::state_machine::test_fixtures::am_container(0, "nm1:8041")
        };
        state.apply(&RmCommand::V1(CommandV1::RecordRemoteContainers {
            containers: vec![record],
        }));
        let completions = reported_completions(&state, &node, &done);
        assert_eq!(completions.len(), 1);
        state.apply(&RmCommand::V1(CommandV1::CompleteContainers {
            completions,
            now_ms: 1,
        }));
        assert_eq!(cleanup(&state, &done).acknowledged, [id]);
    }

    #[test]
    fn responses_acknowledge_completions_and_kill_what_the_state_ended() {
        let mut state = state();
        let statuses = [
            status(1, ContainerStateProto::CComplete),
            status(2, ContainerStateProto::CRunning),
            status(3, ContainerStateProto::CRunning),
            status(9, ContainerStateProto::CComplete),
        ];
        assert!(
            cleanup(&state, &statuses).acknowledged.is_empty(),
            "1 is not completed on the RM yet, 9 is unknown"
        );
        let mut apply = |command| state.apply(&RmCommand::V1(command));
        apply(CommandV1::CompleteContainers {
            now_ms: 1,
            completions: vec![ContainerCompletion {
                key: key(1),
                exit_status: 143,
                diagnostics: String::new(),
            }],
        });
        let cleanup = cleanup(&state, &statuses);
        assert_eq!(cleanup.acknowledged, [container(1)]);
        assert_eq!(cleanup.to_kill, [container(2)], "2 completed on the RM");
        assert!(cleanup.finished_applications.is_empty());

        state.applications.get_mut(&1).unwrap().state = ApplicationState::Killed;
        let cleanup = super::cleanup(&state, &statuses);
        assert_eq!(
            cleanup.finished_applications,
            [ApplicationId::new(TIMESTAMP, 1)]
        );

        // Once the application is retired, a node that still runs or reports its containers
        // is told to kill and forget them and to clean the application up.
        let mut retired = state.clone();
        retired.apply(&RmCommand::V1(CommandV1::CompleteContainers {
            now_ms: 2,
            completions: [1, 3]
                .map(|sequence| ContainerCompletion {
                    key: key(sequence),
                    exit_status: 143,
                    diagnostics: String::new(),
                })
                .to_vec(),
        }));
        retired.apply(&RmCommand::V1(CommandV1::RetireCompletedApplications {
            keep: 0,
        }));
        assert!(retired.applications.is_empty());
        let cleanup = super::cleanup(&retired, &statuses);
        assert_eq!(cleanup.acknowledged, [container(1), container(9)]);
        assert_eq!(cleanup.to_kill, [container(2), container(3)]);
        assert_eq!(
            cleanup.finished_applications,
            [ApplicationId::new(TIMESTAMP, 1)]
        );
    }
}
