//! [`ContainerResize`]: a change of a live GUARANTEED container's size (YARN's
//! `INCREASE_RESOURCE` and `DECREASE_RESOURCE` container updates).

use serde::{Deserialize, Serialize};

use super::ContainerKey;

/// One size change, as the leader proposes it.
///
/// The version is the dedupe key, as for an execution-type update: the change applies only to
/// a container still at `version`, which it moves to `version + 1`, so a repeated or
/// concurrent change of the same container applies at most once. The leader checked the new
/// size (normalized, within the maximum allocation, and for an increase granted room on the
/// container's node) before proposing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerResize {
    /// The container.
    pub key: ContainerKey,
    /// The attempt the container belongs to, which must still be its application's current.
    pub attempt_id: i32,
    /// The version the container must be at.
    pub version: i32,
    /// The memory it gets, in MB.
    pub memory_mb: u64,
    /// The virtual cores it gets.
    pub vcores: u32,
}
