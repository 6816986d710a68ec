//! [`ReacquireSpec`]: what an executor needs to take a container over again after a
//! NodeManager restart.

use yarn_proto::ids::ContainerId;

/// What the state store remembers of a running container, enough to take it over again after
/// a NodeManager restart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReacquireSpec {
    /// The container.
    pub container_id: ContainerId,
    /// The pid the executor reported at launch: the leader of the container's process group.
    pub pid: u32,
    /// The memory allocation in MB, enforced again once re-acquired; 0 means no limit.
    pub memory_mb: u64,
}
