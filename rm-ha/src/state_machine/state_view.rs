//! Shared read access to the replica's applied state.

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
}

impl StateView {
    /// A view on `state`.
    pub fn new(state: RmState) -> Self {
        Self {
            state: Arc::new(RwLock::new(state)),
        }
    }

    /// Runs `read` on the current state.
    pub fn read<R>(&self, read: impl FnOnce(&RmState) -> R) -> R {
        // Writers replace or mutate the state only through `write`, whose closures are the pure
        // `RmState` transitions; a panic there leaves a state no replica can trust anyway.
        let guard = self.state.read().unwrap_or_else(PoisonError::into_inner);
        read(&guard)
    }

    /// Runs `write` on the state; only the state machine store calls this.
    pub(crate) fn write<R>(&self, write: impl FnOnce(&mut RmState) -> R) -> R {
        let mut guard = self.state.write().unwrap_or_else(PoisonError::into_inner);
        write(&mut guard)
    }
}
