//! Promotion of running OPPORTUNISTIC containers to GUARANTEED (YARN's
//! `PROMOTE_EXECUTION_TYPE` container update).
//!
//! An OPPORTUNISTIC container is not charged anywhere: it runs on whatever its node has spare.
//! Promoting it is a guaranteed ask for exactly that container's size, pinned to the node it
//! runs on: it is granted once the node has that much unallocated and the queue path and the
//! user stay within their limits, and from then on the container is charged like any other.

use std::cmp::Ordering;

use yarn_proto::ids::{ContainerId, NodeId};

use super::CapacityScheduler;
use crate::Resource;
use crate::allocation::Allocation;
use crate::application::SchedulerApplication;
use crate::error::SchedulerError;

impl CapacityScheduler {
    /// Asks for `allocation`, a running OPPORTUNISTIC container of the current attempt, to
    /// become GUARANTEED where it runs. The request waits until
    /// [`schedule_promotions`](Self::schedule_promotions) grants it; asking again for the same
    /// container replaces the request. The request ends with its attempt.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownAttempt`] when the
    /// container's attempt is not the current one, [`SchedulerError::DuplicateContainer`] when
    /// the scheduler already holds the container (as GUARANTEED), and
    /// [`SchedulerError::UnknownNode`] when its node is not registered. Nothing changes then.
    pub fn request_promotion(&mut self, allocation: Allocation) -> Result<(), SchedulerError> {
        let attempt_id = allocation.application_attempt_id;
        self.current_attempt(attempt_id)?;
        if self.containers.contains_key(&allocation.container_id) {
            return Err(SchedulerError::DuplicateContainer {
                container: allocation.container_id,
            });
        }
        if !self.nodes.contains_key(&allocation.node_id) {
            return Err(SchedulerError::UnknownNode {
                node: allocation.node_id,
            });
        }
        if let Some(attempt) = self
            .applications
            .get_mut(&attempt_id.application_id)
            .and_then(|app| app.attempt.as_mut())
        {
            attempt
                .promotions
                .insert(allocation.container_id, allocation);
        }
        Ok(())
    }

    /// Withdraws the promotion request of `container_id`, if there is one.
    pub fn cancel_promotion(&mut self, container_id: &ContainerId) {
        if let Some(attempt) = self
            .applications
            .get_mut(&container_id.application_id())
            .and_then(|app| app.attempt.as_mut())
        {
            attempt.promotions.remove(container_id);
        }
    }

    /// The containers waiting for promotion, by application, then container id.
    pub fn pending_promotions(&self) -> impl Iterator<Item = &Allocation> {
        self.applications
            .values()
            .filter_map(|app| app.attempt.as_ref())
            .flat_map(|attempt| attempt.promotions.values())
    }

    /// Grants every waiting promotion that fits now and returns the granted containers, already
    /// charged to their node, queue path, user and application (a later pass never
    /// double-books them). Requests are looked at by application, then container id; one fits
    /// when its attempt is active, its node has the container's size unallocated (and, under
    /// heartbeat-driven scheduling, a turn left before its next heartbeat), every queue
    /// on its path stays within its maximum capacity and its user is not over the user limit
    /// (as for an ask, a user may go one container past it). The others keep waiting.
    pub fn schedule_promotions(&mut self) -> Vec<Allocation> {
        let candidates: Vec<Allocation> = self
            .applications
            .values()
            .filter_map(|app| app.attempt.as_ref().filter(|attempt| attempt.active))
            .flat_map(|attempt| attempt.promotions.values().cloned())
            .collect();
        let mut granted = Vec::new();
        for allocation in candidates {
            let application_id = allocation.application_attempt_id.application_id;
            let fits = self
                .applications
                .get(&application_id)
                .is_some_and(|app| self.promotion_fits(app, &allocation));
            if !fits {
                continue;
            }
            self.cancel_promotion(&allocation.container_id);
            self.charge_container(&allocation);
            // On its own node: one of the node's turns under heartbeat-driven scheduling.
            if let Some(node) = self.nodes.get_mut(&allocation.node_id) {
                node.record_assignment(false);
            }
            self.containers
                .insert(allocation.container_id, allocation.clone());
            granted.push(allocation);
        }
        granted
    }

    /// Re-charges a container a new leader finds GUARANTEED in the replicated state after a
    /// promotion, as [`recover_container`](Self::recover_container) does, except that the
    /// application's container sequence stays where it is: a promoted container may carry an id
    /// this scheduler never issued (an AMRMProxy numbers the containers it places itself
    /// downwards from the epoch's first id).
    ///
    /// # Errors
    ///
    /// [`SchedulerError::DuplicateContainer`], [`SchedulerError::UnknownNode`].
    pub fn recover_promoted_container(
        &mut self,
        allocation: Allocation,
    ) -> Result<(), SchedulerError> {
        self.cancel_promotion(&allocation.container_id);
        self.recover(allocation, false)
    }

    fn promotion_fits(&self, app: &SchedulerApplication, allocation: &Allocation) -> bool {
        self.fits_pinned(app, &allocation.node_id, allocation.resource)
    }

    /// Whether `resource` more for `app`, pinned to `node_id`, fits now: the node has it
    /// unallocated (and a turn left under heartbeat-driven scheduling), every queue on the
    /// application's path stays within its maximum capacity with it, and its user is not over
    /// the user limit (as for an ask, a user may go one grant past it). For promotions and
    /// increases.
    pub(super) fn fits_pinned(
        &self,
        app: &SchedulerApplication,
        node_id: &NodeId,
        resource: Resource,
    ) -> bool {
        let calculator = self.conf.resource_calculator();
        let fits_node = self
            .nodes
            .get(node_id)
            .is_some_and(|node| self.can_place(node, resource));
        let partition = self.node_partition(node_id);
        if !fits_node || !self.fits_queue_limits(app.leaf, resource, partition) {
            return false;
        }
        if !partition.is_empty() {
            // Users are limited in the default partition only.
            return true;
        }
        let (_, user_limit, user_used) = self.user_standing(app);
        calculator.compare(self.cluster_resource, user_used, user_limit) != Ordering::Greater
    }
}
