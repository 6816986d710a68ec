//! [`ApplicationStatus`] and [`AcceptedApplication`]: what the scheduler reports about an
//! application.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

use crate::Resource;
use crate::pending_reason::PendingReason;

/// The outcome of an accepted submission: where the application landed and at which priority.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedApplication {
    /// The application.
    pub application_id: ApplicationId,
    /// Full path of the leaf queue (a bare queue name given at submission is resolved).
    pub queue: String,
    /// The effective priority: the requested one or the queue default, lowered to
    /// `yarn.cluster.max-application-priority`.
    pub priority: i32,
}

/// An application as the scheduler sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ApplicationStatus {
    /// The application.
    pub application_id: ApplicationId,
    /// Full path of its leaf queue.
    pub queue: String,
    /// The submitting user.
    pub user: String,
    /// Its effective priority.
    pub priority: i32,
    /// The current attempt, if one was added.
    pub attempt: Option<ApplicationAttemptId>,
    /// Whether the current attempt is active (scheduled); `false` means ACCEPTED but waiting.
    pub active: bool,
    /// Why it waits, when it is not active.
    pub pending_reason: Option<PendingReason>,
    /// Resources of its live containers.
    pub resources_used: Resource,
    /// Number of live containers.
    pub num_containers: usize,
}
