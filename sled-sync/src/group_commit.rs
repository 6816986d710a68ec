//! [`GroupCommit`]: one sync at a time, shared by every caller that arrived before it began.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use crate::{SyncCounts, SyncTarget};

/// Serializes the syncs of a [`SyncTarget`] and lets concurrent callers share them.
///
/// Guarantees:
/// - a call returns `Ok` only after a sync that *began after the call arrived* completed, so
///   every write the caller completed before calling is durable;
/// - at most one sync runs at a time; callers that arrive while one runs wait, and the next
///   sync serves all of them at once (group commit): one caller, the first to take the lock
///   after the running sync ends, leads it, and the rest return when it completes;
/// - the first failure is final: that call and every later one return the error, and the
///   target is never synced again. A failed fsync may have dropped the dirty pages it could
///   not write, so a later sync that succeeds proves nothing about them (PostgreSQL's
///   "fsyncgate"); the stores stop instead.
///
/// The protocol blocks (a mutex and a condition variable), so that the NodeManager's
/// synchronous AMRMProxy store can use it too; [`sync`](Self::sync) runs it on tokio's
/// blocking pool for async callers.
#[derive(Debug)]
pub struct GroupCommit<T> {
    target: T,
    counts: Arc<SyncCounts>,
    state: Mutex<State>,
    /// Signalled whenever a sync ends.
    ended: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// Every caller whose ticket is at most this is durable.
    synced: u64,
    /// Whether a leader is syncing now.
    syncing: bool,
    /// The error of the first failed sync.
    failed: Option<sled::Error>,
}

impl<T: SyncTarget> GroupCommit<T> {
    /// Group commit over `target`, counting its requests and syncs in fresh counters.
    pub fn new(target: T) -> Self {
        Self {
            target,
            counts: Arc::default(),
            state: Mutex::default(),
            ended: Condvar::new(),
        }
    }

    /// The target syncs go to.
    pub fn target(&self) -> &T {
        &self.target
    }

    /// The requests and syncs counted so far, shared with whoever exports them.
    pub fn counts(&self) -> Arc<SyncCounts> {
        Arc::clone(&self.counts)
    }

    /// Returns once every write the caller completed before calling is durable; blocks.
    ///
    /// # Errors
    ///
    /// The error of the sync that should have covered the caller, or of any earlier failed
    /// sync.
    pub fn sync_blocking(&self) -> sled::Result<()> {
        // The ticket is taken after the caller's writes and before any sync that may cover it
        // reads the arrivals: a sync covers exactly the tickets issued before it began.
        let ticket = self.counts.arrive();
        let mut state = self.lock();
        loop {
            if let Some(error) = &state.failed {
                return Err(error.clone());
            }
            if state.synced >= ticket {
                return Ok(());
            }
            if !state.syncing {
                break;
            }
            state = self
                .ended
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        state.syncing = true;
        let covered = self.counts.requests();
        drop(state);

        let result = catch_unwind(AssertUnwindSafe(|| self.target.sync())).unwrap_or_else(|_| {
            Err(sled::Error::ReportableBug(
                "the storage sync panicked".to_owned(),
            ))
        });

        let mut state = self.lock();
        state.syncing = false;
        match &result {
            Ok(()) => {
                state.synced = covered;
                self.counts.count_sync();
            }
            Err(error) => state.failed = Some(error.clone()),
        }
        drop(state);
        self.ended.notify_all();
        result
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // No code panics while holding the lock; a poisoned lock still holds a consistent state.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: SyncTarget> GroupCommit<T> {
    /// [`sync_blocking`](Self::sync_blocking) on tokio's blocking pool. Dropping the future
    /// does not stop the call; it only stops waiting for it.
    ///
    /// # Errors
    ///
    /// As [`sync_blocking`](Self::sync_blocking).
    pub async fn sync(self: &Arc<Self>) -> sled::Result<()> {
        let commit = Arc::clone(self);
        tokio::task::spawn_blocking(move || commit.sync_blocking())
            .await
            .unwrap_or_else(|e| {
                Err(sled::Error::ReportableBug(format!(
                    "the storage sync task failed: {e}"
                )))
            })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    /// A target that counts syncs, records what each covered, and holds its first sync until
    /// the test releases it.
    struct Gated {
        /// Writes "completed" by callers so far.
        written: AtomicU64,
        /// Syncs begun.
        calls: AtomicU64,
        /// For each completed sync, the writes that had completed when it began.
        completed: Mutex<Vec<u64>>,
        started: Mutex<mpsc::Sender<()>>,
        release: Mutex<mpsc::Receiver<()>>,
        fail: bool,
    }

    impl SyncTarget for Gated {
        fn sync(&self) -> sled::Result<()> {
            let covers = self.written.load(Ordering::SeqCst);
            if self.calls.fetch_add(1, Ordering::SeqCst) == 0 {
                self.started.lock().unwrap().send(()).unwrap();
                self.release.lock().unwrap().recv().unwrap();
            }
            if self.fail {
                return Err(sled::Error::Io(std::io::Error::from_raw_os_error(28)));
            }
            self.completed.lock().unwrap().push(covers);
            Ok(())
        }
    }

    fn gated(
        fail: bool,
    ) -> (
        Arc<GroupCommit<Gated>>,
        mpsc::Receiver<()>,
        mpsc::Sender<()>,
    ) {
        let (started_tx, started_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel();
        let target = Gated {
            written: AtomicU64::default(),
            calls: AtomicU64::default(),
            completed: Mutex::default(),
            started: Mutex::new(started_tx),
            release: Mutex::new(release_rx),
            fail,
        };
        (Arc::new(GroupCommit::new(target)), started_rx, release_tx)
    }

    /// A caller: completes a write, then waits for durability; returns its write's number.
    async fn write_and_sync(commit: Arc<GroupCommit<Gated>>) -> (u64, sled::Result<()>) {
        let write = commit.target().written.fetch_add(1, Ordering::SeqCst) + 1;
        (write, commit.sync().await)
    }

    async fn until_requests(commit: &GroupCommit<Gated>, n: u64) {
        while commit.counts().requests() < n {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn callers_arriving_during_a_sync_share_the_next_one() {
        let (commit, started, release) = gated(false);
        let first = tokio::spawn(write_and_sync(Arc::clone(&commit)));
        started.recv().unwrap();
        let waiting: Vec<_> = (0..50)
            .map(|_| tokio::spawn(write_and_sync(Arc::clone(&commit))))
            .collect();
        // Every one of them has written and taken its ticket while the first sync runs.
        until_requests(&commit, 51).await;
        release.send(()).unwrap();

        let mut outcomes = vec![first.await.unwrap()];
        for caller in waiting {
            outcomes.push(caller.await.unwrap());
        }
        let completed = commit.target().completed.lock().unwrap().clone();
        assert_eq!(
            completed.len(),
            2,
            "51 callers, one sync running and one more"
        );
        assert_eq!(commit.counts().syncs(), 2);
        for (write, result) in outcomes {
            result.unwrap();
            assert!(
                completed.iter().any(|&covers| covers >= write),
                "write {write} returned before a sync that began after it: {completed:?}"
            );
        }
        // A caller after everything settled gets a sync of its own.
        let (write, result) = write_and_sync(Arc::clone(&commit)).await;
        result.unwrap();
        assert_eq!(commit.target().completed.lock().unwrap()[2], write);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_sync_fails_its_callers_and_every_later_one() {
        let (commit, started, release) = gated(true);
        let first = tokio::spawn(write_and_sync(Arc::clone(&commit)));
        started.recv().unwrap();
        let second = tokio::spawn(write_and_sync(Arc::clone(&commit)));
        until_requests(&commit, 2).await;
        release.send(()).unwrap();

        let (_, first) = first.await.unwrap();
        let (_, second) = second.await.unwrap();
        let (_, later) = write_and_sync(Arc::clone(&commit)).await;
        for result in [first, second, later] {
            let error = result.expect_err("acknowledged after a failed sync");
            assert!(
                matches!(error, sled::Error::Io(ref e) if e.kind() == std::io::ErrorKind::StorageFull),
                "{error}"
            );
        }
        assert_eq!(commit.target().calls.load(Ordering::SeqCst), 1);
        assert_eq!(commit.counts().syncs(), 0);
        assert_eq!(commit.counts().requests(), 3);
    }
}
