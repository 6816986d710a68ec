//! Shared read access to the replica's applied state.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use super::{AppliedPosition, RmState, StateDigest};
use crate::error::Error;

/// The applied state and the position of the last entry applied to it, behind one lock so that
/// a reader never sees one without the other.
#[derive(Debug, Default)]
struct Applied {
    state: RmState,
    position: Option<AppliedPosition>,
}

/// A handle on the state this replica has applied, shared between the Raft state machine (the
/// only writer) and the RPC services (readers).
///
/// Reads run a closure under a short read lock, so no caller can hold the lock across an
/// `.await`, and a read sees the state between two applied entries, never half an entry.
#[derive(Debug, Clone, Default)]
pub struct StateView {
    applied: Arc<RwLock<Applied>>,
    /// Bumped after every write, so a poller can skip work when nothing was applied.
    revision: Arc<AtomicU64>,
}

impl StateView {
    /// A view on `state`, with no entry applied yet.
    pub fn new(state: RmState) -> Self {
        Self {
            applied: Arc::new(RwLock::new(Applied {
                state,
                position: None,
            })),
            revision: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Runs `read` on the current state.
    pub fn read<R>(&self, read: impl FnOnce(&RmState) -> R) -> R {
        read(&self.lock_read().state)
    }

    /// The position of the last entry applied to the state, `None` before the first.
    pub fn applied(&self) -> Option<AppliedPosition> {
        self.lock_read().position
    }

    /// The state's digest ([`RmState::digest`]) and the position it reflects, read under one
    /// lock: the digest covers exactly the entries up to that position. The state is hashed
    /// in place, so the state machine waits for the hash (linear in the state's size) before
    /// applying its next batch.
    ///
    /// # Errors
    ///
    /// Those of [`RmState::digest`].
    pub fn digest(&self) -> Result<StateDigest, Error> {
        let applied = self.lock_read();
        Ok(StateDigest {
            applied: applied.position,
            sha256: applied.state.digest()?,
        })
    }

    /// A local counter that differs whenever the state may have changed since it was last
    /// read. Not replicated: replicas' revisions say nothing about each other.
    pub fn revision(&self) -> u64 {
        self.revision.load(Ordering::Acquire)
    }

    /// Runs `write` on the state and the position of the last entry applied to it; only the
    /// state machine store calls this, and it moves both together.
    pub(crate) fn write<R>(
        &self,
        write: impl FnOnce(&mut RmState, &mut Option<AppliedPosition>) -> R,
    ) -> R {
        let mut guard = self.applied.write().unwrap_or_else(PoisonError::into_inner);
        let applied = &mut *guard;
        let result = write(&mut applied.state, &mut applied.position);
        // Bumped under the write lock: a reader that sees the new revision and then reads
        // the state sees this write.
        self.revision.fetch_add(1, Ordering::AcqRel);
        result
    }

    fn lock_read(&self) -> std::sync::RwLockReadGuard<'_, Applied> {
        // Writers replace or mutate the state only through `write`, whose closures are the pure
        // `RmState` transitions; a panic there leaves a state no replica can trust anyway.
        self.applied.read().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_carries_the_position_written_with_the_state() {
        let view = StateView::default();
        let empty = view.digest().unwrap();
        assert_eq!(empty.applied, None);
        assert_eq!(empty.sha256, RmState::default().digest().unwrap());

        let position = AppliedPosition { term: 2, index: 9 };
        view.write(|state, applied| {
            state.epoch = 2;
            *applied = Some(position);
        });
        let digest = view.digest().unwrap();
        assert_eq!(digest.applied, Some(position));
        assert_eq!(view.applied(), Some(position));
        assert_eq!(digest.sha256, view.read(RmState::digest).unwrap());
        assert_ne!(digest.sha256, empty.sha256);
    }
}
