//! Containers: numbering them, charging one to its node, the cluster, its application, queue
//! path and user, releasing it from all of them, and re-charging the containers a new leader
//! finds in the replicated state.
//!
//! The scheduling pass, promotions and recovery all charge through
//! [`CapacityScheduler::charge_container`], and every release goes through
//! [`CapacityScheduler::release_container`]; both, resizes and relabelled nodes count usage
//! with `account_usage` (in `partitions`), in the partition of the container's node, so usage
//! is added and taken back in one place.

use yarn_proto::ids::{ApplicationAttemptId, ContainerId};

use super::CapacityScheduler;
use crate::allocation::Allocation;
use crate::error::SchedulerError;

impl CapacityScheduler {
    /// Numbers a container placed for the current attempt outside this scheduler (an
    /// OPPORTUNISTIC one), from the same sequence as the containers it allocates, so no id is
    /// issued twice. The container is not charged: opportunistic containers use no queue
    /// capacity.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownAttempt`],
    /// [`SchedulerError::ContainerIdsExhausted`].
    pub fn issue_container_id(
        &mut self,
        attempt_id: ApplicationAttemptId,
    ) -> Result<ContainerId, SchedulerError> {
        self.current_attempt(attempt_id)?;
        let epoch = self.epoch;
        let app = self
            .applications
            .get_mut(&attempt_id.application_id)
            .ok_or(SchedulerError::UnknownApplication {
                application: attempt_id.application_id,
            })?;
        let id = ContainerId::new(attempt_id, epoch, app.next_sequence).map_err(|_| {
            SchedulerError::ContainerIdsExhausted {
                application: attempt_id.application_id,
            }
        })?;
        app.next_sequence += 1;
        Ok(id)
    }

    /// Frees a finished container and returns it; `None` when it is unknown (already
    /// released), so repeated NodeManager reports are harmless. When it is the current
    /// attempt's AM container, the attempt ends and waiting applications may activate.
    pub fn container_completed(&mut self, container_id: &ContainerId) -> Option<Allocation> {
        let released = self.release_container(container_id)?;
        if released.is_am {
            self.activate();
        }
        Some(released)
    }

    /// Records that `container_id` was issued to its application (it may have completed
    /// since), so that the application's next container is numbered above it. Unknown
    /// applications are ignored.
    pub fn container_id_issued(&mut self, container_id: ContainerId) {
        let application_id = container_id.application_attempt_id().application_id;
        if let Some(app) = self.applications.get_mut(&application_id) {
            app.next_sequence = app.next_sequence.max(container_id.sequence() + 1);
        }
    }

    /// Re-charges a container a new leader finds in the replicated state, to its node, queue,
    /// user and application, without checking limits. The application's container sequence
    /// moves past it. An AM container of the current attempt satisfies the pending AM ask and
    /// makes the attempt active regardless of limits, as the application was running. A
    /// container of an application the scheduler does not hold (one whose queue no longer
    /// exists) is charged to its node only: it still occupies it.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::DuplicateContainer`], [`SchedulerError::UnknownNode`].
    pub fn recover_container(&mut self, allocation: Allocation) -> Result<(), SchedulerError> {
        self.recover(allocation, true)
    }

    /// [`recover_container`](Self::recover_container), moving the application's container
    /// sequence past the container only when `issued_here` (its id came from that sequence).
    pub(super) fn recover(
        &mut self,
        allocation: Allocation,
        issued_here: bool,
    ) -> Result<(), SchedulerError> {
        let container_id = allocation.container_id;
        let application_id = allocation.application_attempt_id.application_id;
        if self.containers.contains_key(&container_id) {
            return Err(SchedulerError::DuplicateContainer {
                container: container_id,
            });
        }
        if !self.nodes.contains_key(&allocation.node_id) {
            return Err(SchedulerError::UnknownNode {
                node: allocation.node_id,
            });
        }
        self.charge_container(&allocation);
        if let Some(app) = self
            .applications
            .get_mut(&application_id)
            .filter(|_| issued_here)
        {
            app.next_sequence = app.next_sequence.max(container_id.sequence() + 1);
        }
        if allocation.is_am {
            self.force_active(application_id, allocation.application_attempt_id);
        }
        self.containers.insert(container_id, allocation);
        Ok(())
    }

    /// Adds a container's resources to its node, and in the node's partition to the cluster,
    /// its application, queue path and user.
    pub(super) fn charge_container(&mut self, allocation: &Allocation) {
        let resource = allocation.resource;
        let partition = self
            .with_node(&allocation.node_id, |node| {
                node.add_container(allocation.container_id, resource);
                node.partition().to_owned()
            })
            .unwrap_or_default();
        let application_id = allocation.application_attempt_id.application_id;
        self.account_usage(application_id, &partition, resource, true);
        if let Some(app) = self.applications.get_mut(&application_id) {
            app.containers.insert(allocation.container_id);
        }
    }

    /// Frees a container everywhere; ends the attempt if it was the current AM. Does not
    /// re-run activation.
    pub(super) fn release_container(&mut self, container_id: &ContainerId) -> Option<Allocation> {
        let allocation = self.containers.remove(container_id)?;
        let resource = allocation.resource;
        let partition = self
            .with_node(&allocation.node_id, |node| {
                node.remove_container(container_id, resource);
                node.partition().to_owned()
            })
            .unwrap_or_default();
        let application_id = allocation.application_attempt_id.application_id;
        self.account_usage(application_id, &partition, resource, false);
        if let Some(app) = self.applications.get_mut(&application_id) {
            app.containers.remove(container_id);
            let ends_attempt = allocation.is_am
                && app
                    .attempt
                    .as_ref()
                    .is_some_and(|a| a.id == allocation.application_attempt_id);
            if ends_attempt {
                self.finish_attempt(application_id);
            }
        }
        Some(allocation)
    }
}
