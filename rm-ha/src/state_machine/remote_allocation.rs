//! [`RemoteAllocationRejection`]: why a container an AMRMProxy placed itself was not recorded.

use serde::{Deserialize, Serialize};

use super::ContainerKey;

/// Why the containers an AMRMProxy reported (distributed scheduling) were refused. A report is
/// recorded whole or not at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RemoteAllocationRejection {
    /// The application is unknown or already final.
    ApplicationNotLive {
        /// The container.
        key: ContainerKey,
    },
    /// The container names another attempt than its application's current one.
    AttemptNotCurrent {
        /// The container.
        key: ContainerKey,
        /// The attempt the container names.
        attempt_id: i32,
        /// The application's current attempt.
        current: i32,
    },
    /// Only OPPORTUNISTIC task containers may be placed by an AMRMProxy; GUARANTEED ones and
    /// ApplicationMaster containers come from the RM's scheduler.
    NotOpportunisticTask {
        /// The container.
        key: ContainerKey,
    },
    /// The id is not below the first id of the epoch in force (or is negative): an AMRMProxy
    /// counts down from that id, and the ids above it are the RM's.
    IdNotBelowEpochStart {
        /// The container.
        key: ContainerKey,
        /// The epoch's first id, `epoch << 40`.
        epoch_start: i64,
    },
    /// Another container already holds the id.
    IdTaken {
        /// The container.
        key: ContainerKey,
    },
    /// The node is decommissioned.
    NodeDecommissioned {
        /// The container.
        key: ContainerKey,
        /// The node's id, `host:port`.
        node: String,
    },
}

impl RemoteAllocationRejection {
    /// The container refused.
    pub fn key(&self) -> ContainerKey {
        match self {
            Self::ApplicationNotLive { key }
            | Self::AttemptNotCurrent { key, .. }
            | Self::NotOpportunisticTask { key }
            | Self::IdNotBelowEpochStart { key, .. }
            | Self::IdTaken { key }
            | Self::NodeDecommissioned { key, .. } => *key,
        }
    }
}
