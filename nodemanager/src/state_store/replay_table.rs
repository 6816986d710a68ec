//! [`ReplayTable`]: replay records kept in memory when recovery is disabled.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use yarn_proto::ids::ContainerId;

/// The containers whose token has been used, with the token's expiry, for a NodeManager that
/// keeps no state on disk. Replay protection does not depend on recovery: without this table a
/// disabled store would let one container token start a container twice.
///
/// Clones share the table.
#[derive(Debug, Clone, Default)]
pub(super) struct ReplayTable {
    // A std mutex: every section is a map operation, never held across an await.
    entries: Arc<Mutex<HashMap<ContainerId, i64>>>,
}

impl ReplayTable {
    /// Whether a token that expires at `expiry_ms` has expired at `now_ms`, so that its replay
    /// record is no longer needed: the token check refuses it by its expiry from then on. A
    /// token is still valid at its expiry instant, so its record must be kept then too.
    pub(super) fn expired(expiry_ms: i64, now_ms: i64) -> bool {
        expiry_ms < now_ms
    }

    /// Records that `container_id`'s token was used; `true` if it already was, in which case the
    /// stored expiry is left as it was.
    pub(super) fn record(&self, container_id: ContainerId, expiry_ms: i64) -> bool {
        let mut entries = self.lock();
        if entries.contains_key(&container_id) {
            return true;
        }
        entries.insert(container_id, expiry_ms);
        false
    }

    /// Whether `container_id`'s token has been used.
    pub(super) fn contains(&self, container_id: &ContainerId) -> bool {
        self.lock().contains_key(container_id)
    }

    /// Forgets the records of tokens expired at `now_ms`; returns how many it forgot.
    pub(super) fn prune(&self, now_ms: i64) -> usize {
        let mut entries = self.lock();
        let before = entries.len();
        entries.retain(|_, expiry_ms| !Self::expired(*expiry_ms, now_ms));
        before - entries.len()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<ContainerId, i64>> {
        // A panic elsewhere cannot leave a map operation half done, so the data stays usable.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;

    fn container(sequence: i64) -> ContainerId {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        ContainerId::new(attempt, 0, sequence).unwrap()
    }

    #[test]
    fn a_token_is_expired_only_after_its_expiry_instant() {
        assert!(!ReplayTable::expired(1_000, 999));
        assert!(!ReplayTable::expired(1_000, 1_000));
        assert!(ReplayTable::expired(1_000, 1_001));
    }

    #[test]
    fn second_use_is_reported_and_pruning_forgets_only_expired_tokens() {
        let table = ReplayTable::default();
        assert!(!table.record(container(1), 100));
        assert!(table.record(container(1), 900), "second use is a replay");
        assert!(!table.record(container(2), 200));
        assert_eq!(table.prune(150), 1);
        assert!(!table.contains(&container(1)));
        assert!(table.contains(&container(2)));
        assert_eq!(table.prune(150), 0);
    }
}
