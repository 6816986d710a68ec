//! [`TaskSet`]: the tasks an executor owns.

use std::future::Future;
use std::sync::{Mutex, PoisonError};

use tokio::task::JoinSet;

/// The background tasks of an executor (container supervisors, the containers monitor).
///
/// Dropping the set aborts every task at its next `.await`. Process containers then keep
/// running: no task kills them on the way out, so that a restarted NodeManager can
/// re-acquire them.
#[derive(Debug, Default)]
pub(crate) struct TaskSet {
    // std Mutex: held only to spawn or reap, never across an .await.
    tasks: Mutex<JoinSet<()>>,
}

impl TaskSet {
    /// Spawns `task`, first dropping the results of tasks that have finished so that the set
    /// only grows with the tasks still running. Must be called within a Tokio runtime.
    pub(crate) fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        while tasks.try_join_next().is_some() {}
        tasks.spawn(task);
    }
}
