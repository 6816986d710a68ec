//! [`AutoQueueDeletion`]: Hadoop's `AutoCreatedQueueDeletionPolicy`, deciding which
//! auto-created queues the leader removes.

use std::collections::BTreeSet;

use yarn_scheduler::auto_removal_enabled;

use crate::state_machine::RmState;

/// The deletion policy's memory between rounds: the queues found unused at the last one.
///
/// Guarantees: a queue is removed only when two rounds in a row (one expiry time apart, on
/// the leader's clock) found it unused, as Hadoop's policy marks a queue before it deletes it,
/// so a queue lives at least one expiry time after it fell out of use and at most two. A queue
/// whose `auto-queue-creation-v2.queue-auto-removal.enable` is false, or whose parent's is, is
/// never removed. A new leader starts with
/// nothing marked. The state machine checks again that a queue is unused when it applies the
/// removal, so an application submitted in between keeps its queue.
#[derive(Debug, Default)]
pub struct AutoQueueDeletion {
    marked: BTreeSet<String>,
}

impl AutoQueueDeletion {
    /// One round over `state`: the queues to remove now (marked at the last round and still
    /// unused), children before their parents; the others unused now are marked.
    pub fn round(&mut self, state: &RmState) -> Vec<String> {
        let unused: BTreeSet<String> = state
            .dynamic_queues
            .iter()
            .filter(|path| state.auto_created_queue_unused(path))
            .filter(|path| {
                // Its own setting (its parent's templates may set it) and its parent's: false
                // in either keeps it. A value that does not parse, refused when committed,
                // keeps it too.
                let parent = path.rsplit_once('.').map_or("", |(parent, _)| parent);
                [path.as_str(), parent].iter().all(|queue| {
                    auto_removal_enabled(&state.queue_config, &state.dynamic_queues, queue)
                        .unwrap_or(false)
                })
            })
            .cloned()
            .collect();
        // A child's path sorts after its parent's: in reverse, children come first.
        let mut removed: Vec<String> = unused.intersection(&self.marked).cloned().collect();
        removed.reverse();
        self.marked = unused;
        for path in &removed {
            self.marked.remove(path);
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

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
            dynamic_queues: dynamic.iter().map(|q| (*q).to_owned()).collect(),
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
    }
}
