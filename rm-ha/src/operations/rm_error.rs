//! [`RmError`]: why a ResourceManager operation failed, whichever front door it came in by.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

use super::not_leader::NotLeader;

/// Why an operation of the ResourceManager failed.
///
/// Every front door maps it in one place to its own way of saying it (gRPC statuses in
/// `grpc::status`). Each variant carries the whole message an operator reads, written as
/// Hadoop words it where Hadoop has the case, and the facts a transport needs apart from it
/// (which field, which right, which leader, which containers).
///
/// What a caller may do next follows from the variant alone: [`RmError::NotLeader`] was not
/// executed anywhere and may be resent to the leader; [`RmError::Unavailable`] may or may not
/// have taken effect and is safe to retry only where the operation is idempotent (every write
/// of the RM is); the others are answers that another attempt does not change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RmError {
    /// This replica is not the serving leader; nothing was executed.
    #[error("{0}")]
    NotLeader(NotLeader),
    /// No application with this id exists in this cluster.
    #[error("Application with id '{id}' doesn't exist in RM.")]
    ApplicationNotFound {
        /// The id asked for.
        id: ApplicationId,
    },
    /// No attempt with this id exists in this cluster.
    #[error("ApplicationAttempt with id '{id}' doesn't exist in RM.")]
    AttemptNotFound {
        /// The id asked for.
        id: ApplicationAttemptId,
    },
    /// No container with this id exists in this cluster's records.
    #[error("Container with id '{id}' doesn't exist in RM.")]
    ContainerNotFound {
        /// The id asked for.
        id: ContainerId,
    },
    /// Something else the request names does not exist (a queue, a token's application).
    #[error("{message}")]
    NotFound {
        /// What was looked for and not found.
        message: String,
    },
    /// The request is malformed or beyond a limit.
    #[error("{message}")]
    InvalidRequest {
        /// The request field at fault, as the protocol names it (`application_id`, `ask`).
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// The caller lacks a right.
    #[error("{message}")]
    AccessDenied {
        /// The user refused.
        user: String,
        /// The right missing: a queue or application ACL (`SUBMIT_APPLICATIONS`,
        /// `MODIFY_APP`), `yarn.admin.acl`, or a node certificate's host.
        right: String,
        /// Who was refused what, and why.
        message: String,
    },
    /// The caller's token was missing or did not verify.
    #[error("{message}")]
    Unauthenticated {
        /// What was wrong with the token.
        message: String,
    },
    /// The ApplicationMaster is not registered with this leader: it registers again and
    /// re-sends its outstanding asks (Hadoop's `ApplicationMasterNotRegisteredException`).
    #[error("{message}")]
    NotRegistered {
        /// Which attempt, and why.
        message: String,
    },
    /// The operation does not apply to the state things are in (an application already
    /// finished, an attempt that is not current, an AM already registered).
    #[error("{message}")]
    PreconditionFailed {
        /// The state found.
        message: String,
    },
    /// Another write of the same thing committed first; the operation may be repeated.
    #[error("{message}")]
    Conflict {
        /// What committed first.
        message: String,
    },
    /// A cluster-wide limit is used up.
    #[error("{message}")]
    Exhausted {
        /// Which limit.
        message: String,
    },
    /// The operation cannot complete now: no quorum answered, a proposal's outcome is unknown,
    /// or the leader is still setting up. Its effect, if any, is that of an operation that
    /// succeeded.
    #[error("{message}")]
    Unavailable {
        /// What is missing.
        message: String,
    },
    /// A bounded wait ran out before the operation completed.
    #[error("{message}")]
    TimedOut {
        /// What did not finish, and what state it was left in.
        message: String,
    },
    /// yarn-ha does not do this.
    #[error("{message}")]
    Unsupported {
        /// What, and what to do instead.
        message: String,
    },
    /// Containers an AMRMProxy reported placing that the leader refused, none of them recorded.
    #[error("{message}")]
    ContainersRefused {
        /// The refused containers' numbers.
        refused: Vec<i64>,
        /// Why each was refused.
        message: String,
    },
    /// A defect or a stopped Raft: nothing the caller can change.
    #[error("{message}")]
    Internal {
        /// What went wrong.
        message: String,
    },
}

impl RmError {
    /// [`RmError::InvalidRequest`] about `field`.
    pub fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        Self::InvalidRequest {
            field,
            message: message.into(),
        }
    }

    /// [`RmError::PreconditionFailed`].
    pub fn precondition(message: impl Into<String>) -> Self {
        Self::PreconditionFailed {
            message: message.into(),
        }
    }

    /// [`RmError::Unavailable`].
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::Unavailable {
            message: message.into(),
        }
    }

    /// [`RmError::Internal`].
    pub fn internal(message: impl Into<String>) -> Self {
        Self::Internal {
            message: message.into(),
        }
    }
}

impl From<NotLeader> for RmError {
    fn from(not_leader: NotLeader) -> Self {
        Self::NotLeader(not_leader)
    }
}
