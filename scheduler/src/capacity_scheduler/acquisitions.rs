//! Containers the scheduler allocated that their ApplicationMaster has not acquired yet.
//!
//! An AM is handed its new containers on its first heartbeat after the allocation is committed.
//! Until then a container remembers the asks it was taken from. If it completes before the AM
//! acquires it (its node is lost or restarts without it, or it is killed), the AM never heard
//! of it and goes on waiting for what it asked, so those asks are given back, as YARN's
//! `recoverResourceRequestForContainer` does. Once acquired, a container's fate is the AM's to
//! handle: it hears of the completion and asks again if it wants to.

use yarn_proto::ids::{ApplicationAttemptId, ContainerId};

use super::CapacityScheduler;
use crate::application::Attempt;

impl CapacityScheduler {
    /// Containers this scheduler allocated to `attempt` that its AM has not acquired, in id
    /// order; empty when `attempt` is not the current one.
    pub fn unacquired(&self, attempt: ApplicationAttemptId) -> Vec<ContainerId> {
        self.current_attempt(attempt)
            .ok()
            .and_then(|app| app.attempt.as_ref())
            .map(|attempt| attempt.unacquired.keys().copied().collect())
            .unwrap_or_default()
    }

    /// Notes that the AM was handed `container_id`: the asks it satisfied are forgotten.
    pub fn container_acquired(&mut self, container_id: &ContainerId) {
        if let Some(attempt) = self.attempt_of_mut(container_id.application_attempt_id()) {
            attempt.unacquired.remove(container_id);
        }
    }

    /// Gives the asks `container_id` satisfied back to its attempt, which never acquired it:
    /// each wants one more container, or is held again if the AM has since cancelled it (the
    /// AM's next ask for the same key replaces it, as any ask does). Returns whether there was
    /// anything to give back: nothing for a container already acquired or given back, one this
    /// scheduler did not allocate (recovered after a failover, or placed outside it), or one
    /// of an attempt that is no longer current. The container itself is released as usual,
    /// by [`container_completed`](Self::container_completed).
    pub fn recover_asks(&mut self, container_id: &ContainerId) -> bool {
        let Some(attempt) = self.attempt_of_mut(container_id.application_attempt_id()) else {
            return false;
        };
        let Some(asks) = attempt.unacquired.remove(container_id) else {
            return false;
        };
        for ask in asks {
            attempt.asks.restore(ask);
        }
        true
    }

    fn attempt_of_mut(&mut self, attempt: ApplicationAttemptId) -> Option<&mut Attempt> {
        self.applications
            .get_mut(&attempt.application_id)?
            .attempt
            .as_mut()
            .filter(|current| current.id == attempt)
    }
}
