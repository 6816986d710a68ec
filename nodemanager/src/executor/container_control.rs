//! [`ContainerControl`]: the supervisor's side of a [`ContainerHandle`](super::ContainerHandle).

use std::sync::Arc;

use tokio::sync::watch;

use super::{ContainerExit, KillRequest};

/// What a container's supervisor task holds: the kill requests made through the handles, and
/// the slot its [`ContainerExit`] is reported in.
#[derive(Debug)]
pub(crate) struct ContainerControl {
    // Held so that the kill channel never closes while the supervisor listens, even when every
    // handle is dropped; a closed channel would make `changed()` return at once, forever.
    _kill: Arc<watch::Sender<Option<KillRequest>>>,
    kill_requests: watch::Receiver<Option<KillRequest>>,
    exit: watch::Sender<Option<ContainerExit>>,
}

impl ContainerControl {
    pub(crate) fn new(
        kill: Arc<watch::Sender<Option<KillRequest>>>,
        kill_requests: watch::Receiver<Option<KillRequest>>,
        exit: watch::Sender<Option<ContainerExit>>,
    ) -> Self {
        Self {
            _kill: kill,
            kill_requests,
            exit,
        }
    }

    /// The kill request, once one was made.
    pub(crate) fn kill_request(&self) -> Option<KillRequest> {
        self.kill_requests.borrow().clone()
    }

    /// Returns the kill request once one has been made (at once if one already was).
    /// Cancel-safe.
    pub(crate) async fn kill_requested(&mut self) -> KillRequest {
        loop {
            let current = self.kill_requests.borrow_and_update().clone();
            if let Some(kill) = current {
                return kill;
            }
            // The sender lives in `self`, so the channel cannot close and this is always Ok.
            let _ = self.kill_requests.changed().await;
        }
    }

    /// Publishes how the container ended, waking every waiting handle.
    pub(crate) fn report(&self, exit: ContainerExit) {
        self.exit.send_replace(Some(exit));
    }
}
