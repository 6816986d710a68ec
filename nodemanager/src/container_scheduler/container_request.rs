//! [`ContainerRequest`]: a container as the container scheduler sees it.

use yarn_proto::ids::ContainerId;

use crate::container_scheduler::{ExecutionType, Resources};

/// One container handed to the container scheduler: its id, execution type, allocation and the
/// version of the container token that authorised it.
///
/// The scheduler keeps the current execution type and version of every container it queues or
/// runs; [`ContainerScheduler::update`](crate::container_scheduler::ContainerScheduler::update)
/// changes both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContainerRequest {
    /// The container.
    pub id: ContainerId,
    /// Whether it must start at once or may wait.
    pub execution_type: ExecutionType,
    /// The memory and vcores it is allocated.
    pub resources: Resources,
    /// The container token's version: 0 at allocation, one more after each update by the RM.
    pub version: i32,
}

impl ContainerRequest {
    /// A container at token version 0, as first allocated.
    pub const fn new(id: ContainerId, execution_type: ExecutionType, resources: Resources) -> Self {
        Self {
            id,
            execution_type,
            resources,
            version: 0,
        }
    }
}
