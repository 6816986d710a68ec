//! [`QueueApplications`]: the applications of each leaf queue and user, counted from the
//! replicated state, for Hadoop's `QueueMetrics` application figures.

use std::collections::BTreeMap;

use super::ApplicationCounts;
use crate::state_machine::RmState;

/// The applications the scheduler accepted into each leaf queue, per user, by how they stand.
///
/// Counted from the replicated state, which keeps every application or, once retired, what it
/// counted as, so the figures survive a failover and a counter never goes back (short of a
/// move to another queue). Only admitted
/// applications count, under the leaf path their admission recorded, as Hadoop counts an
/// application in a queue once the queue accepted it: one rejected or still waiting for
/// admission counts in no queue. Building it reads each application once and copies nothing
/// but the queue and user names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueApplications {
    /// By leaf queue path, then user.
    leaves: BTreeMap<String, BTreeMap<String, ApplicationCounts>>,
}

impl QueueApplications {
    /// The admitted applications of `state`, by leaf queue and user.
    pub fn of(state: &RmState) -> Self {
        let mut leaves: BTreeMap<&str, BTreeMap<&str, ApplicationCounts>> = BTreeMap::new();
        // An application gets its first attempt when the scheduler admits it, never before.
        for app in state
            .applications
            .values()
            .filter(|app| app.current_attempt > 0)
        {
            leaves
                .entry(app.queue.as_str())
                .or_default()
                .entry(app.user.as_str())
                .or_default()
                .count(app.state);
        }
        for (queue, user, retired) in state.retired.counts() {
            // Retired before a queue admitted it: it counted in no queue.
            if !queue.is_empty() {
                leaves
                    .entry(queue)
                    .or_default()
                    .entry(user)
                    .or_default()
                    .count_retired(retired);
            }
        }
        let leaves = leaves
            .into_iter()
            .map(|(queue, users)| {
                let users = users
                    .into_iter()
                    .map(|(user, counts)| (user.to_owned(), counts))
                    .collect();
                (queue.to_owned(), users)
            })
            .collect();
        Self { leaves }
    }

    /// The applications of the queue at `path` and of every queue below it, those no longer
    /// configured included (a parent keeps counting what its removed children accepted).
    pub fn of_queue(&self, path: &str) -> ApplicationCounts {
        self.leaves
            .iter()
            .filter(|(leaf, _)| is_at_or_below(leaf, path))
            .flat_map(|(_, users)| users.values())
            .fold(ApplicationCounts::default(), |sum, counts| sum + *counts)
    }

    /// Each user's applications in the leaf queue at `path`.
    pub fn users_of(&self, path: &str) -> impl Iterator<Item = (&str, ApplicationCounts)> {
        self.leaves
            .get(path)
            .into_iter()
            .flatten()
            .map(|(user, counts)| (user.as_str(), *counts))
    }
}

/// Whether the queue path `queue` is `path` or a queue below it.
pub(super) fn is_at_or_below(queue: &str, path: &str) -> bool {
    queue
        .strip_prefix(path)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::{ApplicationRecord, ApplicationState};

    fn add(state: &mut RmState, sequence: i32, queue: &str, user: &str, app: ApplicationState) {
        let admitted = app != ApplicationState::Submitted;
        state.applications.insert(
            sequence,
            ApplicationRecord {
                sequence,
                user: user.to_owned(),
                queue: queue.to_owned(),
                state: app,
                current_attempt: i32::from(admitted),
                ..ApplicationRecord::default()
            },
        );
    }

    #[test]
    fn retired_applications_keep_counting_where_they_counted() {
        let mut state = RmState::default();
        add(&mut state, 1, "root.a", "alice", ApplicationState::Finished);
        add(&mut state, 2, "root.a", "bob", ApplicationState::Killed);
        add(&mut state, 3, "root.a", "bob", ApplicationState::Running);
        // Rejected at admission: it never counted in a queue.
        let mut rejected = state.applications[&1].clone();
        rejected.sequence = 4;
        rejected.state = ApplicationState::Failed;
        rejected.current_attempt = 0;
        state.applications.insert(4, rejected);
        let before = QueueApplications::of(&state);
        state.apply(&crate::state_machine::RmCommand::V1(
            crate::state_machine::CommandV1::RetireCompletedApplications { keep: 0 },
        ));
        assert_eq!(
            state.applications.keys().copied().collect::<Vec<_>>(),
            vec![3]
        );
        assert_eq!(QueueApplications::of(&state), before);
        let overview =
            crate::applications::ClusterOverview::of(&state, &crate::nodes::NodeTracker::default());
        assert_eq!(
            (
                overview.apps_submitted,
                overview.apps_completed,
                overview.apps_killed,
                overview.apps_failed,
                overview.apps_running
            ),
            (4, 1, 1, 1, 1),
            "the cluster counts every application, the rejected one too"
        );
    }

    #[test]
    fn counts_admitted_applications_by_leaf_and_user_and_sums_them_up_the_tree() {
        let mut state = RmState::default();
        add(
            &mut state,
            1,
            "root.a.a1",
            "alice",
            ApplicationState::Running,
        );
        add(
            &mut state,
            2,
            "root.a.a1",
            "alice",
            ApplicationState::Finished,
        );
        add(&mut state, 3, "root.a.a1", "bob", ApplicationState::Killed);
        add(&mut state, 4, "root.a.a10", "bob", ApplicationState::Failed);
        add(&mut state, 5, "root.b", "carol", ApplicationState::Accepted);
        // Waiting for admission, under the name it was submitted with: in no queue yet.
        add(&mut state, 6, "a1", "alice", ApplicationState::Submitted);
        let apps = QueueApplications::of(&state);

        let a1 = apps.of_queue("root.a.a1");
        assert_eq!(
            (a1.submitted, a1.running, a1.completed, a1.killed, a1.failed),
            (3, 1, 1, 1, 0),
            "root.a.a10 is not below root.a.a1: {a1:?}"
        );
        let a = apps.of_queue("root.a");
        assert_eq!((a.submitted, a.failed), (4, 1), "{a:?}");
        let root = apps.of_queue("root");
        assert_eq!((root.submitted, root.pending), (5, 1), "{root:?}");

        let users: Vec<(&str, u64)> = apps
            .users_of("root.a.a1")
            .map(|(user, counts)| (user, counts.submitted))
            .collect();
        assert_eq!(users, [("alice", 2), ("bob", 1)]);
        assert_eq!(apps.users_of("root.a").count(), 0, "users are per leaf");
    }
}
