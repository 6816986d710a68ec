//! [`ContainerHandle`]: the caller's side of a launched or re-acquired container.

use std::sync::Arc;

use tokio::sync::watch;
use yarn_proto::ids::ContainerId;

use super::{ContainerControl, ContainerExit, KillRequest};
use crate::Error;

/// A container started (or re-acquired) by a [`ContainerExecutor`](super::ContainerExecutor).
///
/// Cheap to clone: every clone stops and watches the same container. Dropping all handles
/// does not stop the container; it keeps running until it exits or the executor is dropped.
#[derive(Debug, Clone)]
pub struct ContainerHandle {
    container_id: ContainerId,
    pid: Option<u32>,
    kill: Arc<watch::Sender<Option<KillRequest>>>,
    exit: watch::Receiver<Option<ContainerExit>>,
}

impl ContainerHandle {
    /// A handle for a container about to be supervised, and the supervisor's side of it.
    pub(crate) fn new(container_id: ContainerId, pid: Option<u32>) -> (Self, ContainerControl) {
        let (kill, kill_requests) = watch::channel(None);
        let (exit_sender, exit) = watch::channel(None);
        let kill = Arc::new(kill);
        let handle = Self {
            container_id,
            pid,
            kill: Arc::clone(&kill),
            exit,
        };
        (
            handle,
            ContainerControl::new(kill, kill_requests, exit_sender),
        )
    }

    /// A handle for a container whose end is already known, such as one that could not be
    /// re-acquired.
    pub(crate) fn finished(
        container_id: ContainerId,
        pid: Option<u32>,
        exit: ContainerExit,
    ) -> Self {
        let (handle, control) = Self::new(container_id, pid);
        control.report(exit);
        handle
    }

    /// The container.
    pub fn container_id(&self) -> ContainerId {
        self.container_id
    }

    /// The pid at the root of the container, which also names its process group; the state
    /// store keeps it for [`ReacquireSpec`](super::ReacquireSpec). `None` for simulated
    /// containers, which have no process.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Asks for the container to stop: SIGTERM to its process group, then SIGKILL once
    /// `yarn.nodemanager.sleep-delay-before-sigkill.ms` has passed, with `request`'s status and
    /// diagnostics in the [`ContainerExit`].
    ///
    /// Returns `true` when this request is the one that counts; `false` when the container had
    /// already exited or an earlier request (a stop, or the memory monitor's kill) is under way.
    /// It does not wait: [`wait`](Self::wait) tells when the container is gone.
    pub fn stop(&self, request: KillRequest) -> bool {
        if self.exit.borrow().is_some() {
            return false;
        }
        let mut request = Some(request);
        self.kill.send_if_modified(|current| {
            if current.is_none() {
                *current = request.take();
                true
            } else {
                false
            }
        })
    }

    /// How the container ended, or `None` while it runs.
    pub fn try_exit(&self) -> Option<ContainerExit> {
        self.exit.borrow().clone()
    }

    /// Waits for the container to end and returns how it did. May be called any number of
    /// times, from any clone; cancelling the wait has no effect on the container.
    ///
    /// # Errors
    ///
    /// [`Error::ExecutorStopped`] when the executor was dropped first: the container's end is
    /// then unknown to this process, and the container may still be running.
    pub async fn wait(&self) -> Result<ContainerExit, Error> {
        let mut exit = self.exit.clone();
        let exit = match exit.wait_for(Option::is_some).await {
            Ok(exit) => exit.clone(),
            Err(_) => None,
        };
        exit.ok_or(Error::ExecutorStopped {
            container_id: self.container_id,
        })
    }
}
