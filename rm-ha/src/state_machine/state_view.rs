//! Shared read access to the replica's applied state.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use super::RmState;

/// A handle on the state this replica has applied, shared between the Raft state machine (the
/// only writer) and the RPC services (readers).
///
/// Reads run a closure under a short read lock, so no caller can hold the lock across an
/// `.await`, and a read sees the state between two applied entries, never half an entry.
#[derive(Debug, Clone, Default)]
pub struct StateView {
    state: Arc<RwLock<RmState>>,
    /// Bumped after every write, so a poller can skip work when nothing was applied.
    revision: Arc<AtomicU64>,
}

impl StateView {
    /// A view on `state`.
    pub fn new(state: RmState) -> Self {
        Self {
            state: Arc::new(RwLock::new(state)),
            revision: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Runs `read` on the current state.
    pub fn read<R>(&self, read: impl FnOnce(&RmState) -> R) -> R {
        // Writers replace or mutate the state only through `write`, whose closures are the pure
        // `RmState` transitions; a panic there leaves a state no replica can trust anyway.
        let guard = self.state.read().unwrap_or_else(PoisonError::into_inner);
        read(&guard)
    }

    /// A local counter that differs whenever the state may have changed since it was last
    /// read. Not replicated: replicas' revisions say nothing about each other.
    pub fn revision(&self) -> u64 {
        self.revision.load(Ordering::Acquire)
    }

    /// Runs `write` on the state; only the state machine store calls this.
    pub(crate) fn write<R>(&self, write: impl FnOnce(&mut RmState) -> R) -> R {
        let mut guard = self.state.write().unwrap_or_else(PoisonError::into_inner);
        let result = write(&mut guard);
        // Bumped under the write lock: a reader that sees the new revision and then reads
        // the state sees this write.
        self.revision.fetch_add(1, Ordering::AcqRel);
        result
    }
}
