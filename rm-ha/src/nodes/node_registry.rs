//! The node tracker of the current leadership, shared by the resource tracker and the liveness
//! monitor.

use std::sync::{Arc, Mutex, PoisonError};

use super::NodeTracker;

/// The leader's [`NodeTracker`], tagged with the epoch it belongs to.
///
/// Guarantee: a tracker never outlives its leadership. Whoever reaches it first under a new
/// epoch finds it empty, so a replica that leads again after a gap never trusts heartbeat
/// state from its earlier term: every node gets RESYNC and re-registers.
#[derive(Debug, Clone, Default)]
pub struct NodeRegistry {
    inner: Arc<Mutex<(u64, NodeTracker)>>,
}

impl NodeRegistry {
    /// Runs `f` on the tracker of `epoch`, emptying it first if it belonged to another epoch.
    /// The lock is held only for `f`, which must not block.
    pub fn with<R>(&self, epoch: u64, f: impl FnOnce(&mut NodeTracker) -> R) -> R {
        // Every update is a whole-value change of the tracker's maps, so a panic elsewhere
        // cannot leave it half-written.
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.0 != epoch {
            *guard = (epoch, NodeTracker::default());
        }
        f(&mut guard.1)
    }
}
