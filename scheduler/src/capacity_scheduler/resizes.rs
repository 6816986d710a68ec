//! Resizing GUARANTEED containers (YARN's `INCREASE_RESOURCE` and `DECREASE_RESOURCE`
//! container updates).
//!
//! A decrease needs no room: the container's charge shrinks at once. An increase is a
//! guaranteed ask for the difference, pinned to the node the container runs on: it is granted
//! once the node has that much unallocated and the queue path and the user stay within their
//! limits, as a promotion is, and from then on the container is charged at its new size.

use yarn_proto::ids::ContainerId;

use super::CapacityScheduler;
use crate::Resource;
use crate::allocation::Allocation;
use crate::error::SchedulerError;

impl CapacityScheduler {
    /// Asks for the GUARANTEED container `container_id` of the current attempt to grow to
    /// `target` where it runs. The request waits until
    /// [`schedule_increases`](Self::schedule_increases) grants it; asking again for the same
    /// container replaces the request. The request ends with its attempt or its container.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownContainer`] when the scheduler does not hold the container,
    /// [`SchedulerError::UnknownAttempt`] when its attempt is not the current one. Nothing
    /// changes then.
    pub fn request_increase(
        &mut self,
        container_id: ContainerId,
        target: Resource,
    ) -> Result<(), SchedulerError> {
        if !self.containers.contains_key(&container_id) {
            return Err(SchedulerError::UnknownContainer {
                container: container_id,
            });
        }
        self.current_attempt(container_id.application_attempt_id())?;
        if let Some(attempt) = self
            .applications
            .get_mut(&container_id.application_id())
            .and_then(|app| app.attempt.as_mut())
        {
            attempt.increases.insert(container_id, target);
        }
        Ok(())
    }

    /// Withdraws the increase request of `container_id`, if there is one.
    pub fn cancel_increase(&mut self, container_id: &ContainerId) {
        if let Some(attempt) = self
            .applications
            .get_mut(&container_id.application_id())
            .and_then(|app| app.attempt.as_mut())
        {
            attempt.increases.remove(container_id);
        }
    }

    /// The containers waiting to grow, with the size each asks for, by application, then
    /// container id.
    pub fn pending_increases(&self) -> impl Iterator<Item = (&ContainerId, &Resource)> {
        self.applications
            .values()
            .filter_map(|app| app.attempt.as_ref())
            .flat_map(|attempt| attempt.increases.iter())
    }

    /// Grants every waiting increase that fits now and returns the grown containers, already
    /// charged at their new size to their node, queue path, user and application. Requests are
    /// looked at by application, then container id; one fits when its attempt is active, the
    /// container's node has the difference unallocated (and, under heartbeat-driven scheduling,
    /// a turn left before its next heartbeat), every queue on its path stays within its maximum
    /// capacity with it and its user is not over the user limit. The others keep waiting; a
    /// request whose container left the scheduler is dropped.
    pub fn schedule_increases(&mut self) -> Vec<Allocation> {
        let candidates: Vec<(ContainerId, Resource)> = self
            .applications
            .values()
            .filter_map(|app| app.attempt.as_ref().filter(|attempt| attempt.active))
            .flat_map(|attempt| attempt.increases.iter().map(|(id, target)| (*id, *target)))
            .collect();
        let mut granted = Vec::new();
        for (container_id, target) in candidates {
            let Some(current) = self.containers.get(&container_id).map(|a| a.resource) else {
                self.cancel_increase(&container_id);
                continue;
            };
            let delta = target.saturating_sub(current);
            if !self.increase_fits(&container_id, delta) {
                continue;
            }
            self.cancel_increase(&container_id);
            let Some(allocation) = self.resize_container(&container_id, target) else {
                continue;
            };
            if let Some(node) = self.nodes.get_mut(&allocation.node_id) {
                node.record_assignment(false);
            }
            granted.push(allocation);
        }
        granted
    }

    /// Charges the container `container_id` at `size` from now on, whatever it held before:
    /// a decrease the AM asked for, or the size the replicated state records. Returns the
    /// container at its new size; `None` when the scheduler does not hold it.
    pub fn resize_container(
        &mut self,
        container_id: &ContainerId,
        size: Resource,
    ) -> Option<Allocation> {
        let allocation = self.containers.get_mut(container_id)?;
        let before = allocation.resource;
        allocation.resource = size;
        let allocation = allocation.clone();
        self.with_node(&allocation.node_id, |node| {
            node.resize_container(before, size)
        });
        let partition = self.node_partition(&allocation.node_id).to_owned();
        let application_id = allocation.application_attempt_id.application_id;
        self.account_usage(application_id, &partition, before, false);
        self.account_usage(application_id, &partition, size, true);
        Some(allocation)
    }

    fn increase_fits(&self, container_id: &ContainerId, delta: Resource) -> bool {
        let app = self.applications.get(&container_id.application_id());
        let node = self.containers.get(container_id).map(|a| &a.node_id);
        app.zip(node)
            .is_some_and(|(app, node)| self.fits_pinned(app, node, delta))
    }
}
