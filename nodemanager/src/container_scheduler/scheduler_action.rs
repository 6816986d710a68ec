//! [`SchedulerAction`]: what the container scheduler asks its async shell to do.

use yarn_proto::ids::ContainerId;
use yarn_proto::pb;

use super::Resources;

/// The exit status of a container the container scheduler refused, shed or killed: YARN's
/// `ContainerExitStatus.KILLED_BY_CONTAINER_SCHEDULER` (-108).
pub const KILLED_BY_CONTAINER_SCHEDULER: i32 =
    pb::ContainerExitStatusProto::KilledByContainerScheduler as i32;

/// The diagnostic of an opportunistic container refused because the queue is full (YARN's text).
pub const QUEUE_FULL_DIAGNOSTIC: &str = "Opportunistic container queue is full.";

/// The diagnostic of an opportunistic container killed for a guaranteed one (YARN's text).
pub const KILLED_FOR_GUARANTEED_DIAGNOSTIC: &str =
    "Container Killed to make room for Guaranteed Container.";

/// The diagnostic of a queued container shed to meet the RM's queuing limit (YARN's text).
pub const DEQUEUED_DIAGNOSTIC: &str = "Container De-queued to meet NM queuing limits.";

/// One decision of the container scheduler, for the async shell to carry out in order.
///
/// The scheduler has already updated its own books when it returns an action: a started
/// container is charged to the node, a killed one stays charged until the shell reports
/// [`container_completed`](crate::container_scheduler::ContainerScheduler::container_completed),
/// and a rejected, shed or removed one is forgotten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchedulerAction {
    /// Launch the container now.
    Start {
        /// The container to launch.
        id: ContainerId,
    },
    /// The container waits in the queue; the shell records it as queued (YARN's
    /// `storeContainerQueued`) so that a restarted NM can restore the queue.
    Queue {
        /// The queued container.
        id: ContainerId,
    },
    /// Refuse an opportunistic container because the queue is full: complete it without
    /// launching it.
    Reject {
        /// The refused container.
        id: ContainerId,
        /// [`KILLED_BY_CONTAINER_SCHEDULER`].
        exit_status: i32,
        /// [`QUEUE_FULL_DIAGNOSTIC`].
        diagnostic: String,
    },
    /// Kill a running container: to make room for a guaranteed one, or because it was stopped.
    Kill {
        /// The container to kill.
        id: ContainerId,
        /// The exit status to report for it.
        exit_status: i32,
        /// The diagnostic to report for it.
        diagnostic: String,
    },
    /// Drop a queued opportunistic container to meet the RM's queuing limit: complete it without
    /// launching it.
    Shed {
        /// The dropped container.
        id: ContainerId,
        /// [`KILLED_BY_CONTAINER_SCHEDULER`].
        exit_status: i32,
        /// [`DEQUEUED_DIAGNOSTIC`].
        diagnostic: String,
    },
    /// A running container was resized: apply its new limits to the process.
    Resize {
        /// The resized container.
        id: ContainerId,
        /// Its new size, already charged to the node.
        resources: Resources,
    },
    /// A queued container was stopped and left the queue: complete it without launching it.
    RemoveFromQueue {
        /// The stopped container.
        id: ContainerId,
        /// The exit status the stop asked for.
        exit_status: i32,
        /// The diagnostic the stop asked for.
        diagnostic: String,
    },
}

impl SchedulerAction {
    /// The container the action is about.
    pub const fn id(&self) -> ContainerId {
        match self {
            Self::Start { id }
            | Self::Queue { id }
            | Self::Reject { id, .. }
            | Self::Kill { id, .. }
            | Self::Shed { id, .. }
            | Self::Resize { id, .. }
            | Self::RemoveFromQueue { id, .. } => *id,
        }
    }
}
