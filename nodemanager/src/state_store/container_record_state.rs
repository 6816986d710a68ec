//! [`ContainerRecordState`]: where a stored container is in its life, and which changes the
//! store accepts.

use yarn_proto::ids::ContainerId;

use crate::Error;

/// A stored container's state.
///
/// A container is stored [`Queued`](Self::Queued) when the NodeManager accepts it, becomes
/// [`Running`](Self::Running) once its process has a pid, and [`Completed`](Self::Completed)
/// when it ends, whether it ran or was stopped or shed while queued. A completed record is
/// final: it is kept until the RM has learnt of the completion, then removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerRecordState {
    /// Accepted, not yet launched.
    Queued,
    /// Launched.
    Running {
        /// The pid at the root of the container, which also names its process group.
        pid: u32,
        /// When it was launched, in milliseconds since the Unix epoch.
        started_at_ms: i64,
    },
    /// Ended.
    Completed {
        /// The exit status reported to the RM.
        exit_code: i32,
        /// Why it ended, as reported to the RM.
        diagnostics: String,
        /// When the NodeManager learnt of the end, in milliseconds since the Unix epoch.
        completed_at_ms: i64,
    },
}

impl ContainerRecordState {
    /// The state's name, as errors print it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Queued => "QUEUED",
            Self::Running { .. } => "RUNNING",
            Self::Completed { .. } => "COMPLETED",
        }
    }

    /// Checks that a container in this state may move to `next`: a queued container may start
    /// or complete, a running one may complete, and nothing leaves the completed state. A
    /// second launch or a second completion would overwrite the pid or the exit status that was
    /// already reported, so it is refused rather than applied.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidContainerTransition`] naming the container and both states.
    pub fn check_transition(&self, container_id: ContainerId, next: &Self) -> Result<(), Error> {
        match (self, next) {
            (Self::Queued, Self::Running { .. } | Self::Completed { .. })
            | (Self::Running { .. }, Self::Completed { .. }) => Ok(()),
            _ => Err(Error::InvalidContainerTransition {
                container_id,
                from: self.name(),
                to: next.name(),
            }),
        }
    }

    /// Checks that a container in this state may still have its token, execution type or
    /// allocation updated: anything but a completed container.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidContainerTransition`] for a completed container.
    pub fn check_update(&self, container_id: ContainerId) -> Result<(), Error> {
        match self {
            Self::Completed { .. } => Err(Error::InvalidContainerTransition {
                container_id,
                from: self.name(),
                to: "UPDATED",
            }),
            Self::Queued | Self::Running { .. } => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;

    fn container() -> ContainerId {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        ContainerId::new(attempt, 0, 2).unwrap()
    }

    fn running() -> ContainerRecordState {
        ContainerRecordState::Running {
            pid: 4242,
            started_at_ms: 10,
        }
    }

    fn completed() -> ContainerRecordState {
        ContainerRecordState::Completed {
            exit_code: 0,
            diagnostics: String::new(),
            completed_at_ms: 20,
        }
    }

    #[test]
    fn queued_may_start_or_complete_and_running_may_complete() {
        let id = container();
        let queued = ContainerRecordState::Queued;
        assert_eq!(queued.check_transition(id, &running()), Ok(()));
        assert_eq!(queued.check_transition(id, &completed()), Ok(()));
        assert_eq!(running().check_transition(id, &completed()), Ok(()));
    }

    #[test]
    fn a_second_launch_and_anything_after_completion_are_refused() {
        let id = container();
        for (from, to) in [
            (running(), running()),
            (running(), ContainerRecordState::Queued),
            (completed(), running()),
            (completed(), completed()),
            (completed(), ContainerRecordState::Queued),
        ] {
            assert_eq!(
                from.check_transition(id, &to),
                Err(Error::InvalidContainerTransition {
                    container_id: id,
                    from: from.name(),
                    to: to.name(),
                })
            );
        }
    }

    #[test]
    fn only_completed_containers_refuse_updates() {
        let id = container();
        assert_eq!(ContainerRecordState::Queued.check_update(id), Ok(()));
        assert_eq!(running().check_update(id), Ok(()));
        let err = completed().check_update(id).unwrap_err();
        assert!(err.to_string().contains("COMPLETED"), "{err}");
    }
}
