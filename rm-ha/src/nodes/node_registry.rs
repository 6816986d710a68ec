//! The node tracker of the current leadership, shared by the resource tracker and the liveness
//! monitor.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use yarn_opportunistic::NodeQueueLoadMonitor;

use super::NodeTracker;

/// The leader's [`NodeTracker`], tagged with the epoch it belongs to.
///
/// Guarantee: a tracker never outlives its leadership. Whoever reaches it first under a new
/// epoch finds it empty, so a replica that leads again after a gap never trusts heartbeat
/// state from its earlier term: every node gets RESYNC and re-registers.
#[derive(Debug, Clone, Default)]
pub struct NodeRegistry {
    inner: Arc<Mutex<(u64, NodeTracker)>>,
    /// The load monitor every leadership's tracker starts with, and its sorting interval.
    load_monitor: Option<(NodeQueueLoadMonitor, Duration)>,
}

impl NodeRegistry {
    /// A registry whose trackers rank nodes by load with a fresh copy of `monitor`, re-ranking
    /// every `sorting_interval`; without a monitor, as [`Default`], nothing is ranked.
    pub fn new(monitor: Option<NodeQueueLoadMonitor>, sorting_interval: Duration) -> Self {
        Self {
            inner: Arc::default(),
            load_monitor: monitor.map(|monitor| (monitor, sorting_interval)),
        }
    }

    /// Runs `f` on the tracker of `epoch`, emptying it first if it belonged to another epoch.
    /// The lock is held only for `f`, which must not block.
    pub fn with<R>(&self, epoch: u64, f: impl FnOnce(&mut NodeTracker) -> R) -> R {
        // Every update is a whole-value change of the tracker's maps, so a panic elsewhere
        // cannot leave it half-written.
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.0 != epoch {
            let tracker = match &self.load_monitor {
                Some((monitor, interval)) => {
                    NodeTracker::with_load_monitor(Some(monitor.clone()), *interval)
                }
                None => NodeTracker::default(),
            };
            *guard = (epoch, tracker);
        }
        f(&mut guard.1)
    }
}
