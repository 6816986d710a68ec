//! [`AutoQueueDeletion`]: Hadoop's `AutoCreatedQueueDeletionPolicy`, deciding which
//! auto-created queues the leader removes.

use std::collections::BTreeMap;

use yarn_scheduler::kept_from_removal;

use crate::state_machine::RmState;

/// The deletion policy's memory between rounds: the queues found unused at the last one, each
/// with the latest submission or finish time of an application in it or under it then.
///
/// Guarantees: a queue is removed only when two rounds in a row (one expiry time apart, on
/// the leader's clock) found it unused and no application in it was submitted or finished in
/// between, as Hadoop's policy marks a queue before it deletes it: so a queue lives at least one
/// expiry time after its last application ended and at most two. A queue whose
/// `auto-queue-creation-v2.queue-auto-removal.enable` is false, or whose parent's is, is never
/// removed. A new leader starts with nothing marked. The state machine checks again that a
/// queue is unused when it applies the removal, so an application submitted in between keeps
/// its queue.
#[derive(Debug, Default)]
pub struct AutoQueueDeletion {
    marked: BTreeMap<String, i64>,
}

impl AutoQueueDeletion {
    /// One round over `state`: the queues to remove now (marked at the last round with the
    /// same latest use, and still unused), children before their parents; the others unused
    /// now are marked.
    pub fn round(&mut self, state: &RmState) -> Vec<String> {
        let kept = kept_from_removal(&state.queue_config, &state.dynamic_queues);
        let unused: BTreeMap<String, i64> = state
            .dynamic_queues
            .keys()
            .filter(|path| !kept.contains(*path) && state.auto_created_queue_unused(path))
            .map(|path| (path.clone(), last_use(state, path)))
            .collect();
        // A child's path sorts after its parent's: in reverse, children come first.
        let removed: Vec<String> = unused
            .iter()
            .rev()
            .filter(|&(path, used)| self.marked.get(path) == Some(used))
            .map(|(path, _)| path.clone())
            .collect();
        self.marked = unused;
        for path in &removed {
            self.marked.remove(path);
        }
        removed
    }
}

/// The latest submission or finish time of an application in the queue at `path` or under it.
fn last_use(state: &RmState, path: &str) -> i64 {
    let below = format!("{path}.");
    state
        .applications
        .values()
        .filter(|application| application.queue == path || application.queue.starts_with(&below))
        .map(|application| application.submit_time_ms.max(application.finish_time_ms))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use yarn_scheduler::CreatedAs;

    use super::*;
    use crate::state_machine::{ApplicationRecord, ApplicationState};

    /// `root.users` and `root.keep` create queues; `root.keep`'s are never removed.
    fn state(dynamic: &[&str], running_in: &[&str]) -> RmState {
        let key = |suffix: &str| format!("yarn.scheduler.capacity.{suffix}");
        let mut state = RmState {
            queue_config: BTreeMap::from([
                (key("root.queues"), "users,keep".to_owned()),
                (
                    key("root.users.auto-queue-creation-v2.enabled"),
                    "true".to_owned(),
                ),
                (
                    key("root.keep.auto-queue-creation-v2.enabled"),
                    "true".to_owned(),
                ),
                (
                    key("root.keep.auto-queue-creation-v2.queue-auto-removal.enable"),
                    "false".to_owned(),
                ),
            ]),
            // A queue with another under it was created as a parent.
            dynamic_queues: dynamic
                .iter()
                .map(|path| {
                    let parent = dynamic.iter().any(|q| q.starts_with(&format!("{path}.")));
                    let kind = if parent {
                        CreatedAs::Parent
                    } else {
                        CreatedAs::Leaf
                    };
                    ((*path).to_owned(), kind)
                })
                .collect(),
            ..RmState::default()
        };
        for (seq, queue) in (1..).zip(running_in) {
            state.applications.insert(
                seq,
                ApplicationRecord {
                    sequence: seq,
                    queue: (*queue).to_owned(),
                    state: ApplicationState::Running,
                    ..ApplicationRecord::default()
                },
            );
        }
        state
    }

    #[test]
    fn a_queue_unused_at_two_rounds_in_a_row_goes_children_first() {
        let mut policy = AutoQueueDeletion::default();
        let dynamic = [
            "root.users.eng",
            "root.users.eng.bob",
            "root.users.eng.carol",
        ];
        let busy = state(&dynamic, &["root.users.eng.carol"]);
        assert!(policy.round(&busy).is_empty(), "bob is only marked");
        let idle = state(&dynamic, &[]);
        assert_eq!(policy.round(&idle), ["root.users.eng.bob"]);
        assert_eq!(policy.round(&idle), ["root.users.eng.carol"]);
        let left = state(&["root.users.eng"], &[]);
        assert!(
            policy.round(&left).is_empty(),
            "eng is marked once its children went"
        );
        assert_eq!(policy.round(&left), ["root.users.eng"]);
    }

    #[test]
    fn a_queue_used_between_rounds_is_unmarked_and_one_whose_parent_keeps_it_stays() {
        let mut policy = AutoQueueDeletion::default();
        let dynamic = ["root.keep.alice", "root.users.eng", "root.users.eng.bob"];
        assert!(
            policy
                .round(&state(&dynamic, &["root.users.eng.bob"]))
                .is_empty()
        );
        assert!(
            policy
                .round(&state(&dynamic, &["root.users.eng.bob"]))
                .is_empty(),
            "root.keep keeps alice"
        );
        policy.round(&state(&dynamic, &[]));
        assert!(
            policy
                .round(&state(&dynamic, &["root.users.eng.bob"]))
                .is_empty()
        );

        // An application that ran and finished between two rounds: bob was used, and is only
        // marked again.
        let mut policy = AutoQueueDeletion::default();
        let dynamic = ["root.users.eng", "root.users.eng.bob"];
        assert!(policy.round(&state(&dynamic, &[])).is_empty());
        let mut used = state(&dynamic, &["root.users.eng.bob"]);
        for application in used.applications.values_mut() {
            application.state = ApplicationState::Finished;
            application.submit_time_ms = 10;
            application.finish_time_ms = 20;
        }
        assert!(policy.round(&used).is_empty(), "used since the mark");
        assert_eq!(policy.round(&used), ["root.users.eng.bob"]);
    }
}
