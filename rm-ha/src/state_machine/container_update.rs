//! [`ContainerUpdate`]: a change of a live container's execution type (YARN's promotion and
//! demotion), and why one can be refused.

use serde::{Deserialize, Serialize};

use super::{ContainerKey, ExecutionType};

/// One execution-type change, as the leader proposes it.
///
/// The version is the dedupe key: the change applies only to a container still at `version`,
/// which it moves to `version + 1`, so a repeated or concurrent change of the same container
/// applies at most once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerUpdate {
    /// The container.
    pub key: ContainerKey,
    /// The attempt the container belongs to, which must still be its application's current.
    pub attempt_id: i32,
    /// The version the container must be at.
    pub version: i32,
    /// The execution type it gets: GUARANTEED for a promotion, OPPORTUNISTIC for a demotion.
    pub execution_type: ExecutionType,
}

/// Why one update of a batch was not applied. The rest of the batch is unaffected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ContainerUpdateRejection {
    /// The table holds no such container.
    UnknownContainer {
        /// The container.
        key: ContainerKey,
    },
    /// The container already completed.
    ContainerCompleted {
        /// The container.
        key: ContainerKey,
    },
    /// The container belongs to another attempt than the update named, or its attempt is no
    /// longer its application's current one (or the application is over).
    OtherAttempt {
        /// The container.
        key: ContainerKey,
        /// The attempt the container belongs to.
        attempt_id: i32,
    },
    /// An ApplicationMaster container keeps its execution type.
    ApplicationMasterContainer {
        /// The container.
        key: ContainerKey,
    },
    /// The container is at another version: another update got there first.
    VersionMismatch {
        /// The container.
        key: ContainerKey,
        /// The version the update named.
        expected: i32,
        /// The container's version.
        current: i32,
    },
    /// The container already has the execution type the update asks for.
    AlreadyOfType {
        /// The container.
        key: ContainerKey,
        /// Its execution type.
        execution_type: ExecutionType,
    },
}
