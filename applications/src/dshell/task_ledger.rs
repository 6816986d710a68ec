//! [`TaskLedger`]: which container runs which task of a sample application, and how each task
//! ended. Pure: the ApplicationMaster's loop feeds it what the RM and the NodeManagers said and
//! carries out its decisions.

use std::collections::{BTreeMap, HashMap, VecDeque};

use yarn_client::{ContainerKey, describe_container_id};
use yarn_proto::pb;

use super::container_result::{ContainerResult, EXIT_STATUS_INVALID};
use yarn_proto::ids::NodeId;

/// What to do with a newly allocated container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Start task number `.0` in it.
    Run(usize),
    /// Give it back: every task already has a container. This happens after a failover, when
    /// an allocation committed but never delivered arrives beside the one the re-sent ask got.
    Release,
}

/// YARN's `ContainerExitStatus.ABORTED`: the framework ended the container (its node was
/// lost, or it was released), not its command.
const ABORTED: i32 = -100;

/// One task's container, from its placement until its result.
#[derive(Debug, Clone)]
struct Placed {
    task: usize,
    container_id: String,
    node: String,
    execution_type: pb::ExecutionTypeProto,
    /// The priority it was allocated at, which a replacement is asked for at.
    priority: i32,
}

/// The tasks of one run, each given to containers in allocation order.
///
/// A task gets one result. As in Hadoop's distributed shell, a container that fails is not
/// replaced, but one the framework aborted (lost with its node) is: its task is placed again
/// in the next container allocated. A container beyond the tasks waiting is released, and
/// whatever arrives about a container after its task left it (the completion of a container
/// whose start failed, a duplicate completion) changes nothing.
#[derive(Debug)]
pub(crate) struct TaskLedger {
    wanted: usize,
    next_task: usize,
    /// Tasks whose container was aborted, to place again before any new one.
    lost: VecDeque<usize>,
    /// Containers running a task that has no result yet.
    running: HashMap<ContainerKey, Placed>,
    results: BTreeMap<usize, ContainerResult>,
}

impl TaskLedger {
    /// A ledger for `wanted` tasks, none placed.
    pub(crate) fn new(wanted: usize) -> Self {
        Self {
            wanted,
            next_task: 0,
            lost: VecDeque::new(),
            running: HashMap::new(),
            results: BTreeMap::new(),
        }
    }

    /// Decides what `container`, newly allocated, is for.
    pub(crate) fn place(&mut self, container: &pb::ContainerProto) -> Placement {
        let Some(id) = &container.id else {
            // Unreachable through AmRmClient, which drops containers without ids; nothing can
            // be started or released without one.
            return Placement::Release;
        };
        let task = if let Some(task) = self.lost.pop_front() {
            task
        } else if self.next_task < self.wanted {
            self.next_task += 1;
            self.next_task - 1
        } else {
            return Placement::Release;
        };
        let execution_type = match container.execution_type() {
            pb::ExecutionTypeProto::ExecutionTypeUnspecified => pb::ExecutionTypeProto::Guaranteed,
            other => other,
        };
        self.running.insert(
            ContainerKey::of(id),
            Placed {
                task,
                container_id: describe_container_id(id),
                node: node_text(container.node_id.as_ref()),
                execution_type,
                priority: container.priority.as_ref().map_or(0, |p| p.priority),
            },
        );
        Placement::Run(task)
    }

    /// Records that starting the container `id` failed with `message`. Returns whether this
    /// was news, in which case the caller releases the container.
    pub(crate) fn start_failed(&mut self, id: &pb::ContainerIdProto, message: String) -> bool {
        self.finish(id, EXIT_STATUS_INVALID, message)
    }

    /// Records a container's completion; completions of containers without a running task are
    /// ignored. An aborted container's task waits for another container instead of ending:
    /// the priority returned is the one to ask for it at.
    pub(crate) fn completed(&mut self, status: &pb::ContainerStatusProto) -> Option<i32> {
        let id = status.container_id.as_ref()?;
        let exit_status = status.exit_status.unwrap_or(EXIT_STATUS_INVALID);
        if exit_status == ABORTED {
            let placed = self.running.remove(&ContainerKey::of(id))?;
            self.lost.push_back(placed.task);
            return Some(placed.priority);
        }
        // A success needs no explanation; the NodeManager's text matters only for failures.
        let diagnostics = if exit_status == 0 {
            String::new()
        } else {
            status.diagnostics.clone()
        };
        self.finish(id, exit_status, diagnostics);
        None
    }

    /// Whether every task has a result.
    pub(crate) fn is_done(&self) -> bool {
        self.results.len() >= self.wanted
    }

    /// The share of tasks with a result, for the allocate heartbeat's progress.
    pub(crate) fn progress(&self) -> f32 {
        if self.wanted == 0 {
            return 1.0;
        }
        self.results.len() as f32 / self.wanted as f32
    }

    /// How many tasks there are.
    pub(crate) fn wanted(&self) -> usize {
        self.wanted
    }

    /// The results so far, in task order.
    pub(crate) fn results(&self) -> Vec<ContainerResult> {
        self.results.values().cloned().collect()
    }

    fn finish(&mut self, id: &pb::ContainerIdProto, exit_status: i32, diagnostics: String) -> bool {
        let Some(placed) = self.running.remove(&ContainerKey::of(id)) else {
            return false;
        };
        self.results.insert(
            placed.task,
            ContainerResult {
                container_id: placed.container_id,
                node: placed.node,
                execution_type: placed.execution_type,
                exit_status,
                diagnostics,
            },
        );
        true
    }
}

/// A container's node as `host:port`, or `N/A` when absent or invalid, since its result should
/// still be reported.
pub(crate) fn node_text(node: Option<&pb::NodeIdProto>) -> String {
    node.and_then(|node| NodeId::try_from(node.clone()).ok())
        .map_or_else(|| "N/A".to_owned(), |node| node.to_string())
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

    use super::*;

    fn id(sequence: i64) -> pb::ContainerIdProto {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        ContainerId::new(attempt, 0, sequence).unwrap().into()
    }

    fn container(sequence: i64, execution_type: pb::ExecutionTypeProto) -> pb::ContainerProto {
        pb::ContainerProto {
            id: Some(id(sequence)),
            node_id: Some(pb::NodeIdProto {
                host: "host1".to_owned(),
                port: 8041,
            }),
            execution_type: execution_type as i32,
            ..Default::default()
        }
    }

    fn completion(sequence: i64, exit_status: i32, diagnostics: &str) -> pb::ContainerStatusProto {
        pb::ContainerStatusProto {
            container_id: Some(id(sequence)),
            exit_status: Some(exit_status),
            diagnostics: diagnostics.to_owned(),
            ..Default::default()
        }
    }

    #[test]
    fn containers_beyond_the_wanted_ones_are_released_and_their_completions_ignored() {
        let mut ledger = TaskLedger::new(2);
        let unspecified = pb::ExecutionTypeProto::ExecutionTypeUnspecified;
        assert_eq!(ledger.place(&container(2, unspecified)), Placement::Run(0));
        assert_eq!(
            ledger.place(&container(3, pb::ExecutionTypeProto::Opportunistic)),
            Placement::Run(1)
        );
        assert_eq!(ledger.place(&container(4, unspecified)), Placement::Release);
        ledger.completed(&completion(4, -100, "released"));
        assert!(ledger.results().is_empty());
        ledger.completed(&completion(3, 1, "Exited with 1"));
        assert!(!ledger.is_done());
        assert_eq!(ledger.progress(), 0.5);
        ledger.completed(&completion(2, 0, "ignored on success"));
        assert!(ledger.is_done());
        let results = ledger.results();
        assert_eq!(
            results.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "container_1700000000000_0001_01_000002 on host1:8041 GUARANTEED exit 0",
                "container_1700000000000_0001_01_000003 on host1:8041 OPPORTUNISTIC exit 1: \
                 Exited with 1",
            ],
            "results are in task order, not completion order"
        );
    }

    #[test]
    fn a_failed_start_is_a_failed_task_and_the_containers_later_completion_changes_nothing() {
        let mut ledger = TaskLedger::new(1);
        let guaranteed = pb::ExecutionTypeProto::Guaranteed;
        assert_eq!(ledger.place(&container(2, guaranteed)), Placement::Run(0));
        assert!(ledger.start_failed(&id(2), "refused: bad token".to_owned()));
        assert!(
            !ledger.start_failed(&id(2), "again".to_owned()),
            "the first failure stands"
        );
        ledger.completed(&completion(2, -100, "released"));
        assert!(ledger.is_done());
        let [result] = ledger.results().try_into().unwrap();
        assert_eq!(result.exit_status, EXIT_STATUS_INVALID);
        assert_eq!(result.diagnostics, "refused: bad token");
    }

    /// Hadoop's distributed shell runs the task of a container lost with its node again, and
    /// only that: a failure of the command stands.
    #[test]
    fn an_aborted_containers_task_runs_again_in_the_next_container() {
        let mut ledger = TaskLedger::new(2);
        let guaranteed = pb::ExecutionTypeProto::Guaranteed;
        let mut prioritized = container(2, guaranteed);
        prioritized.priority = Some(pb::PriorityProto { priority: 5 });
        assert_eq!(ledger.place(&prioritized), Placement::Run(0));
        assert_eq!(ledger.place(&container(3, guaranteed)), Placement::Run(1));
        assert_eq!(
            ledger.completed(&completion(2, -100, "Container released on a *lost* node")),
            Some(5),
            "ask again at the lost container's priority"
        );
        assert_eq!(ledger.completed(&completion(2, -100, "again")), None);
        assert!(!ledger.is_done());
        assert_eq!(ledger.completed(&completion(3, 1, "Exited with 1")), None);
        assert_eq!(ledger.place(&container(4, guaranteed)), Placement::Run(0));
        assert_eq!(ledger.place(&container(5, guaranteed)), Placement::Release);
        ledger.completed(&completion(4, 0, ""));
        assert!(ledger.is_done());
        let results = ledger.results();
        assert_eq!(
            results
                .iter()
                .map(|r| r.container_id.as_str())
                .collect::<Vec<_>>(),
            [
                "container_1700000000000_0001_01_000004",
                "container_1700000000000_0001_01_000003"
            ]
        );
    }

    #[test]
    fn completions_of_unknown_containers_are_ignored() {
        let mut ledger = TaskLedger::new(1);
        ledger.completed(&completion(9, 0, ""));
        assert!(!ledger.is_done());
        assert_eq!(ledger.progress(), 0.0);
    }
}
