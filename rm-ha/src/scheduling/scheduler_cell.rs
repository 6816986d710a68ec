//! [`SchedulerCell`]: the leader's scheduler, shared by its scheduling loop and its RPC services.

use std::sync::{Arc, Mutex, PoisonError};

use super::{LeaderScheduler, QueueConfigSource};
use crate::Error;
use crate::nodes::SchedulableNodes;
use crate::state_machine::{Admission, StateView};

/// The [`LeaderScheduler`] of the current leadership, tagged with its epoch.
///
/// Guarantees: a scheduler is only ever handed to callers of the epoch it was built for, so a
/// replica that leads again never schedules from its earlier term's soft state; and callers
/// always lock the cell before reading the replicated state, never the other way round, so the
/// cell and the state's lock cannot deadlock.
#[derive(Debug, Clone, Default)]
pub struct SchedulerCell {
    inner: Arc<Mutex<Option<Held>>>,
}

#[derive(Debug)]
struct Held {
    epoch: u64,
    scheduler: LeaderScheduler,
    /// The state and node revisions of the last reconcile; reconciling again against the same
    /// ones would change nothing.
    reconciled: Option<(u64, u64)>,
}

impl SchedulerCell {
    /// Runs `f` on the scheduler of `epoch` after reconciling it with `state` and `nodes`
    /// (building it first if this leadership has none yet), and returns what `f` returned with
    /// the admission verdicts for the caller to commit. Reconciling is skipped when neither the
    /// state nor the nodes changed since the last one (the verdicts are then empty). The lock
    /// is held for the whole call, which must not block.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidQueueConfiguration`] when the committed configuration does not parse
    /// here; a scheduler already running keeps its configuration and `f` does not run.
    pub fn with_reconciled<R>(
        &self,
        epoch: u64,
        state: &StateView,
        source: &QueueConfigSource,
        nodes: &SchedulableNodes,
        f: impl FnOnce(&mut LeaderScheduler) -> R,
    ) -> Result<(R, Vec<Admission>), Error> {
        // A panic while the lock is held leaves at worst a scheduler that disagrees with the
        // state, and reconciling is what repairs that.
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        // Read before the state: a write in between only makes the next call reconcile again.
        let revisions = (state.revision(), nodes.revision);
        match guard.as_mut() {
            Some(held) if held.epoch == epoch => {
                let unchanged = held.reconciled == Some(revisions);
                let admissions = if unchanged {
                    Vec::new()
                } else {
                    held.reconciled = None;
                    let admissions =
                        state.read(|state| held.scheduler.reconcile(state, source, &nodes.nodes));
                    held.reconciled = Some(revisions);
                    admissions
                };
                Ok((f(&mut held.scheduler), admissions))
            }
            _ => {
                let (scheduler, admissions) =
                    state.read(|state| LeaderScheduler::rebuild(state, source, &nodes.nodes))?;
                let held = guard.insert(Held {
                    epoch,
                    scheduler,
                    reconciled: Some(revisions),
                });
                Ok((f(&mut held.scheduler), admissions))
            }
        }
    }

    /// Runs `f` on the scheduler of `epoch` as it stands, without reconciling; `None` when this
    /// leadership has none yet.
    pub fn with<R>(&self, epoch: u64, f: impl FnOnce(&mut LeaderScheduler) -> R) -> Option<R> {
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let held = guard.as_mut().filter(|held| held.epoch == epoch)?;
        Some(f(&mut held.scheduler))
    }

    /// Makes the next [`with_reconciled`](Self::with_reconciled) of `epoch` reconcile even if
    /// nothing changed, for instance to re-derive verdicts whose commit failed.
    pub fn invalidate(&self, epoch: u64) {
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = guard.as_mut().filter(|held| held.epoch == epoch) {
            held.reconciled = None;
        }
    }

    /// Drops the scheduler of `epoch`, if it is the one held, when its leadership ends.
    pub fn clear(&self, epoch: u64) {
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.as_ref().is_some_and(|held| held.epoch == epoch) {
            *guard = None;
        }
    }
}
