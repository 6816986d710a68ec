//! [`RecoveredContainer`]: a container read back from the state store.

use crate::executor::ReacquireSpec;
use crate::state_store::{ContainerRecord, ContainerRecordState};

/// A container as the state store kept it, with its place in the queue and among started
/// containers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveredContainer {
    /// What the NodeManager accepted.
    pub record: ContainerRecord,
    /// Where it was in its life when last stored.
    pub state: ContainerRecordState,
    /// When it was accepted, relative to other containers: a larger number was accepted later.
    /// Numbers are unique within a store and increase across restarts, but are not contiguous.
    pub queued_sequence: u64,
    /// When it was launched, relative to other containers, on the same scale as
    /// `queued_sequence`; `None` if it never was.
    pub start_sequence: Option<u64>,
}

impl RecoveredContainer {
    /// What an executor needs to take the container over again, if it was running.
    pub fn reacquire_spec(&self) -> Option<ReacquireSpec> {
        match self.state {
            ContainerRecordState::Running { pid, .. } => Some(ReacquireSpec {
                container_id: self.record.container_id,
                pid,
                memory_mb: self.record.resources.memory_mb,
            }),
            ContainerRecordState::Queued | ContainerRecordState::Completed { .. } => None,
        }
    }
}
