//! How a verified update token changes a container: the same for one an application master
//! brings (UpdateContainer) and one the ResourceManager sends in a heartbeat response.

use yarn_proto::ids::ContainerId;

use super::launch_context::token_resources;
use super::{ContainerRefusal, ManagerState};
use crate::container_scheduler::{ContainerRequest, ExecutionType, SchedulerAction};
use crate::token_check::VerifiedContainer;

impl ManagerState {
    /// Applies `verified`, the checked update token whose identifier bytes are `identifier`,
    /// to its container: the scheduler takes the new execution type, size and version (its
    /// actions are appended to `actions`), and the entry keeps the new token. Returns the
    /// container as the scheduler now holds it, to store; `None` when the container is at the
    /// token's version already, with the same size and type (a repeated update changes
    /// nothing).
    ///
    /// # Errors
    ///
    /// [`ContainerRefusal::UnknownContainer`], [`ContainerRefusal::AlreadyCompleted`], a
    /// token without a usable resource, [`ContainerRefusal::ConflictingUpdate`] for the
    /// container's version with other contents, or the scheduler's refusal (an older version than the
    /// container's, a container being killed, a size beyond the node's); nothing changes then.
    pub(super) fn update_container(
        &mut self,
        verified: VerifiedContainer,
        identifier: &[u8],
        actions: &mut Vec<SchedulerAction>,
    ) -> Result<Option<ContainerRequest>, ContainerRefusal> {
        let container_id: ContainerId = verified.container_id;
        let resources = token_resources(container_id, &verified.identifier)?;
        let execution_type = ExecutionType::from(verified.identifier.execution_type());
        let version = verified.identifier.version;
        let entry = self
            .containers
            .get(&container_id)
            .ok_or(ContainerRefusal::UnknownContainer { container_id })?;
        if entry.is_completed() {
            return Err(ContainerRefusal::AlreadyCompleted { container_id });
        }
        if version == entry.record.token_version {
            let record = &entry.record;
            if record.resources == resources && record.execution_type == execution_type {
                return Ok(None);
            }
            return Err(ContainerRefusal::ConflictingUpdate {
                container_id,
                version,
            });
        }
        let next = self
            .scheduler
            .update(container_id, execution_type, resources, version)
            .map_err(|err| ContainerRefusal::Scheduler(Box::new(err)))?;
        actions.extend(next);
        let entry = self
            .containers
            .get_mut(&container_id)
            .ok_or(ContainerRefusal::UnknownContainer { container_id })?;
        entry.record.execution_type = execution_type;
        entry.record.resources = resources;
        entry.record.token_version = version;
        entry.record.container_token_identifier = identifier.to_vec();
        entry.identifier = verified.identifier;
        Ok(Some(entry.record.container_request()))
    }
}
