//! [`SchedulerCell`]: the leader's scheduler, shared by its scheduling loop and its RPC services.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::Mutex;

use super::{LeaderScheduler, QueueConfigSource};
use crate::Error;
use crate::nodes::SchedulableNodes;
use crate::state_machine::{Admission, StateView};

/// The [`LeaderScheduler`] of one leadership, built on first use; a
/// [`Leadership`](crate::replica::Leadership) owns it, so a replica that leads again starts
/// from a new one and never schedules from its earlier term's soft state.
///
/// Guarantees: no admission
/// verdict is lost: whichever caller's reconcile produced it, it stays in the cell until the
/// scheduling loop takes it ([`blocking_with_reconciled`](Self::blocking_with_reconciled)) to
/// commit it, and a verdict whose commit failed is derived again (see
/// [`invalidate`](Self::invalidate)); callers always
/// lock the cell before reading the replicated state, never the other way round, so the cell
/// and the state's lock cannot deadlock; and an RPC handler waiting for the cell while a
/// scheduling pass holds it (hundreds of milliseconds on thousands of nodes) yields its async
/// worker instead of blocking it, so Raft's heartbeats and other calls go on meanwhile.
#[derive(Debug, Clone, Default)]
pub struct SchedulerCell {
    inner: Arc<Mutex<Option<Held>>>,
}

#[derive(Debug)]
struct Held {
    scheduler: LeaderScheduler,
    /// The state and node revisions of the last reconcile; reconciling again against the same
    /// ones would change nothing.
    reconciled: Option<(u64, u64)>,
    /// Verdicts reconciling produced that the scheduling loop has not taken yet, by application
    /// (a later verdict on one application replaces an earlier one). An RPC path reconciles
    /// too, and the next reconcile would find nothing changed: its verdicts wait here.
    verdicts: BTreeMap<i32, Admission>,
}

impl SchedulerCell {
    /// Runs `f` on the scheduler after reconciling it with `state` and `nodes` (building it
    /// first if there is none yet), and returns what `f` returned.
    /// Reconciling is skipped when neither the state nor the nodes changed since the last one;
    /// the admission verdicts it produces stay in the cell for the scheduling loop. The lock is
    /// held for the whole call; `f` must not block.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidQueueConfiguration`] when the committed configuration does not parse
    /// here; a scheduler already running keeps its configuration and `f` does not run.
    pub async fn with_reconciled<R>(
        &self,
        state: &StateView,
        source: &QueueConfigSource,
        nodes: &SchedulableNodes,
        f: impl FnOnce(&mut LeaderScheduler) -> R,
    ) -> Result<R, Error> {
        let mut guard = self.inner.lock().await;
        let held = reconciled(&mut guard, state, source, nodes)?;
        Ok(f(&mut held.scheduler))
    }

    /// [`with_reconciled`](Self::with_reconciled) for the scheduling loop, on a blocking thread
    /// (a pass runs off the async workers): also takes every admission verdict not taken yet,
    /// whichever caller's reconcile produced it, for the loop to commit. Must not be called
    /// from async code (it would block its worker, and tokio refuses it there).
    ///
    /// # Errors
    ///
    /// As [`with_reconciled`](Self::with_reconciled).
    pub fn blocking_with_reconciled<R>(
        &self,
        state: &StateView,
        source: &QueueConfigSource,
        nodes: &SchedulableNodes,
        f: impl FnOnce(&mut LeaderScheduler) -> R,
    ) -> Result<(R, Vec<Admission>), Error> {
        pass(&mut self.inner.blocking_lock(), state, source, nodes, f)
    }

    /// [`blocking_with_reconciled`](Self::blocking_with_reconciled) on the calling task, for
    /// the deterministic simulation, whose passes are small and must not leave its one thread.
    ///
    /// # Errors
    ///
    /// As [`with_reconciled`](Self::with_reconciled).
    pub async fn inline_with_reconciled<R>(
        &self,
        state: &StateView,
        source: &QueueConfigSource,
        nodes: &SchedulableNodes,
        f: impl FnOnce(&mut LeaderScheduler) -> R,
    ) -> Result<(R, Vec<Admission>), Error> {
        pass(&mut *self.inner.lock().await, state, source, nodes, f)
    }

    /// Runs `f` on the scheduler as it stands, without reconciling; `None` when none was built
    /// yet.
    pub async fn with<R>(&self, f: impl FnOnce(&mut LeaderScheduler) -> R) -> Option<R> {
        let mut guard = self.inner.lock().await;
        Some(f(&mut guard.as_mut()?.scheduler))
    }

    /// Makes the next [`with_reconciled`](Self::with_reconciled) reconcile even if nothing
    /// changed, for instance to re-derive verdicts whose commit failed.
    pub async fn invalidate(&self) {
        if let Some(held) = self.inner.lock().await.as_mut() {
            held.reconciled = None;
        }
    }

    /// Drops the scheduler (after a pass panicked with it), so that the next call rebuilds it
    /// from the state. Verdicts not taken yet are derived again by the rebuild.
    pub async fn clear(&self) {
        *self.inner.lock().await = None;
    }
}

/// A scheduling pass under the caller's lock: reconciles, takes every verdict not taken yet,
/// and runs `f`.
fn pass<R>(
    slot: &mut Option<Held>,
    state: &StateView,
    source: &QueueConfigSource,
    nodes: &SchedulableNodes,
    f: impl FnOnce(&mut LeaderScheduler) -> R,
) -> Result<(R, Vec<Admission>), Error> {
    let held = reconciled(slot, state, source, nodes)?;
    let verdicts = std::mem::take(&mut held.verdicts).into_values().collect();
    Ok((f(&mut held.scheduler), verdicts))
}

/// Reconciles the held scheduler (or builds one) under the caller's lock, keeping
/// the verdicts it produces, and returns it. A pass that panicked while holding the lock leaves
/// at worst a scheduler that disagrees with the state, and reconciling is what repairs that.
fn reconciled<'a>(
    slot: &'a mut Option<Held>,
    state: &StateView,
    source: &QueueConfigSource,
    nodes: &SchedulableNodes,
) -> Result<&'a mut Held, Error> {
    // Read before the state: a write in between only makes the next call reconcile again.
    let revisions = (state.revision(), nodes.revision);
    let held = match slot.take() {
        Some(held) => slot.insert(held),
        None => {
            let (scheduler, admissions) =
                state.read(|state| LeaderScheduler::rebuild(state, source, &nodes.nodes))?;
            let held = slot.insert(Held {
                scheduler,
                reconciled: Some(revisions),
                verdicts: BTreeMap::new(),
            });
            held.keep(admissions);
            held
        }
    };
    if held.reconciled != Some(revisions) {
        held.reconciled = None;
        let admissions = state.read(|state| held.scheduler.reconcile(state, source, &nodes.nodes));
        held.keep(admissions);
        held.reconciled = Some(revisions);
    }
    Ok(held)
}

impl Held {
    fn keep(&mut self, admissions: Vec<Admission>) {
        for admission in admissions {
            self.verdicts.insert(admission.application_seq(), admission);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use crate::scheduling::capacity_properties as properties;
    use crate::scheduling::test_fixtures::{nodes, source, state, submit};

    use super::*;

    /// A pass holding the cell on a blocking thread must not take the async workers with it:
    /// more callers wait for the cell than there are workers, and other tasks still run.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn waiting_for_the_cell_leaves_the_async_workers_free() {
        let cell = SchedulerCell::default();
        let (held, is_held) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let holder = {
            let cell = cell.clone();
            tokio::task::spawn_blocking(move || {
                let _pass = cell.inner.blocking_lock();
                held.send(()).unwrap();
                released.recv().unwrap();
            })
        };
        tokio::task::spawn_blocking(move || is_held.recv().unwrap())
            .await
            .unwrap();
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let cell = cell.clone();
                tokio::spawn(async move { cell.with(|_| ()).await })
            })
            .collect();
        // Watched from a blocking thread, which needs no async worker to time out.
        let (ran, did_run) = mpsc::channel();
        tokio::spawn(async move { ran.send(()).unwrap() });
        let other =
            tokio::task::spawn_blocking(move || did_run.recv_timeout(Duration::from_secs(10)))
                .await
                .unwrap();
        release.send(()).unwrap();
        assert!(
            other.is_ok(),
            "another task could not run while callers waited for the cell"
        );
        for waiter in waiters {
            assert_eq!(waiter.await.unwrap(), None, "no scheduler was ever built");
        }
        holder.await.unwrap();
    }

    /// One cluster with a queue `default`, and an application submitted to it, as a leader's
    /// cell sees them.
    fn submitted() -> (StateView, SchedulableNodes, i32) {
        let mut state = state(properties(&[
            ("root.queues", "default"),
            ("root.default.capacity", "100"),
        ]));
        let application = submit(&mut state, "alice", "default", 1024);
        let nodes = SchedulableNodes {
            revision: 1,
            nodes: nodes(1),
        };
        (StateView::new(state), nodes, application)
    }

    /// The pass's view of the cell: what the scheduling loop gets to commit.
    async fn verdicts_of_a_pass(
        cell: &SchedulerCell,
        view: &StateView,
        nodes: &SchedulableNodes,
    ) -> Vec<Admission> {
        let (cell, view, nodes) = (cell.clone(), view.clone(), nodes.clone());
        tokio::task::spawn_blocking(move || {
            cell.blocking_with_reconciled(&view, &source(), &nodes, |_| ())
                .map(|((), verdicts)| verdicts)
        })
        .await
        .unwrap()
        .expect("the queue configuration applies")
    }

    /// An RPC path that reconciles first (here: building the scheduler) must not swallow the
    /// verdict: the loop's next pass, which finds nothing changed, still gets it, once.
    #[tokio::test]
    async fn a_verdict_found_by_an_rpc_path_reaches_the_scheduling_loop_once() {
        let (view, nodes, application) = submitted();
        let cell = SchedulerCell::default();
        cell.with_reconciled(&view, &source(), &nodes, |_| ())
            .await
            .expect("the queue configuration applies");
        let verdicts = verdicts_of_a_pass(&cell, &view, &nodes).await;
        assert_eq!(
            verdicts
                .iter()
                .map(Admission::application_seq)
                .collect::<Vec<_>>(),
            [application],
            "{verdicts:?}"
        );
        assert!(
            verdicts_of_a_pass(&cell, &view, &nodes).await.is_empty(),
            "a verdict taken is not handed out again while nothing changes"
        );
        // A commit that failed: the verdict is derived again.
        cell.invalidate().await;
        assert_eq!(verdicts_of_a_pass(&cell, &view, &nodes).await.len(), 1);
    }
}
