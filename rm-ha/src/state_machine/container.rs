//! The replicated container table's records.

use serde::{Deserialize, Serialize};

/// Identifies a container within the table: YARN container ids are unique per application, so
/// the application's sequence number and the raw container id (epoch bits included) suffice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ContainerKey {
    /// The application's sequence number; its cluster timestamp is the state's.
    pub application_seq: i32,
    /// The raw 64-bit container id: the RM epoch in the high bits, the sequence below.
    pub container_id: i64,
}

/// How a container is scheduled on its node, YARN's `ExecutionType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExecutionType {
    /// Started at once; counts against queue capacity.
    Guaranteed,
    /// Queued at the node and killed for guaranteed containers.
    Opportunistic,
}

/// Where an allocated container is in its life, as the replicated state knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ContainerState {
    /// Committed; the AM may start it on its node.
    Allocated,
    /// Completed: its resources are free. Kept so that the AM learns the status on any leader.
    Completed {
        /// YARN's exit status: the process's exit code, or a negative `ContainerExitStatus`.
        exit_status: i32,
        /// Why it completed, in YARN's words where YARN has them.
        diagnostics: String,
    },
}

/// One allocated container, as every replica stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerRecord {
    /// The table key.
    pub key: ContainerKey,
    /// The application attempt the container was allocated to.
    pub attempt_id: i32,
    /// The node it runs on, `host:port`.
    pub node: String,
    /// Memory allocated, in MB.
    pub memory_mb: u64,
    /// Virtual cores allocated.
    pub vcores: u32,
    /// How the node schedules it.
    pub execution_type: ExecutionType,
    /// Whether it is its attempt's ApplicationMaster container.
    pub is_am: bool,
    /// The container priority of the ask it satisfied (lower is more important).
    pub priority: i32,
    /// The allocation-request id of the ask it satisfied.
    pub allocation_request_id: i64,
    /// When the leader allocated it, in milliseconds since the Unix epoch.
    pub allocated_at_ms: i64,
    /// Allocated or completed.
    pub state: ContainerState,
}

impl ContainerRecord {
    /// Whether the container still holds its resources.
    pub fn is_live(&self) -> bool {
        matches!(self.state, ContainerState::Allocated)
    }

    /// Whether preemption killed it: it completed with exit status `PREEMPTED`.
    pub fn was_preempted(&self) -> bool {
        matches!(self.state, ContainerState::Completed { exit_status, .. } if exit_status == super::PREEMPTED)
    }
}

/// A completion reported for one container (by its NodeManager, its AM or the RM itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerCompletion {
    /// The container.
    pub key: ContainerKey,
    /// YARN's exit status.
    pub exit_status: i32,
    /// Why it completed.
    pub diagnostics: String,
}
