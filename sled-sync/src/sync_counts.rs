//! [`SyncCounts`]: how many callers asked a group commit for durability, and how many syncs
//! served them.

use std::sync::atomic::{AtomicU64, Ordering};

/// Counters of one [`GroupCommit`](crate::GroupCommit), for the daemons' metrics: the fewer
/// syncs per request, the more callers each sync served.
#[derive(Debug, Default)]
pub struct SyncCounts {
    requests: AtomicU64,
    syncs: AtomicU64,
}

impl SyncCounts {
    /// Callers that asked for durability so far, each counted as it arrived.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// Syncs that completed successfully so far.
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::SeqCst)
    }

    /// Counts one arriving caller and returns its ticket: the number of callers that arrived
    /// up to and including it.
    pub(crate) fn arrive(&self) -> u64 {
        self.requests.fetch_add(1, Ordering::SeqCst) + 1
    }

    pub(crate) fn count_sync(&self) {
        self.syncs.fetch_add(1, Ordering::SeqCst);
    }
}
