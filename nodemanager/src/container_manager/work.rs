//! [`Work`]: the slow half of a decision, for the runner to carry out in order.

use yarn_proto::ids::{ApplicationId, ContainerId};

use crate::container_scheduler::ContainerRequest;
use crate::executor::KillRequest;
use crate::state_store::MasterKeyPair;
use crate::token_check::NmKeyKind;

/// What the runner task does for the container manager: I/O that cannot happen under the
/// manager's lock.
///
/// Work is queued while the lock is held, right where the decision is made, so the runner
/// carries decisions out in the order they were taken: a container is always launched before
/// the kill that follows its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Work {
    /// Launch a container the scheduler started, store it running and wait for it.
    Launch {
        /// The container.
        container_id: ContainerId,
    },
    /// Stop a running container.
    Kill {
        /// The container.
        container_id: ContainerId,
        /// Its exit status and diagnostics.
        request: KillRequest,
    },
    /// Store the completion of a container that ended without running (refused, shed, stopped
    /// while queued, not recoverable); the manager's books already show it completed.
    StoreCompleted {
        /// The container.
        container_id: ContainerId,
        /// Its exit status.
        exit_code: i32,
        /// Why it ended.
        diagnostics: String,
    },
    /// Apply a running container's new memory limit (after an increase or a decrease).
    ApplyLimits {
        /// The container.
        container_id: ContainerId,
        /// Its new allocation, in MB.
        memory_mb: u64,
    },
    /// Store a container's update (new token, execution type and size) that arrived in a
    /// heartbeat response.
    StoreUpdate {
        /// The container as the scheduler now holds it.
        request: ContainerRequest,
        /// The new container token's identifier.
        identifier: Vec<u8>,
    },
    /// Persist master keys that changed.
    StoreKeys {
        /// Which kind of token they sign.
        kind: NmKeyKind,
        /// The current and previous keys.
        keys: MasterKeyPair,
    },
    /// Clean up after an application the ResourceManager reports finished, once none of its
    /// containers is left running on the node (its APPLICATION cache goes).
    ApplicationFinished {
        /// The application.
        application_id: ApplicationId,
    },
    /// Remove the records of completed containers the ResourceManager has acknowledged.
    RemoveRecords {
        /// The containers.
        container_ids: Vec<ContainerId>,
    },
}
