//! [`UnconfirmedIncreases`]: increases a node has not applied, and when to roll them back.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::state_machine::{ContainerKey, ContainerResize};

/// A live container its node reports smaller than the replicated state records: an increase
/// its AM has not brought to the node (yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwaitingIncrease {
    /// The container.
    pub key: ContainerKey,
    /// Its attempt.
    pub attempt_id: i32,
    /// The state's version of it.
    pub version: i32,
    /// The memory the node runs it with, in MB.
    pub reported_memory_mb: u64,
    /// The virtual cores the node runs it with.
    pub reported_vcores: u32,
}

/// The increases one node has not applied, each since when this leader has seen it so (Hadoop's
/// `ContainerAllocationExpirer` for increased containers).
///
/// An increase is confirmed, and forgotten, once the node reports the container at its size
/// (or the container stops being reported smaller); one the node still runs smaller after the
/// expiry, at the same version, is rolled back to the size the node runs, the last one
/// confirmed, so its share goes back to the queue. The clock restarts with each new version
/// and with a new leader: the soft state starts empty, so a failover delays a rollback by at
/// most one expiry.
#[derive(Debug, Default, Clone)]
pub struct UnconfirmedIncreases {
    since: BTreeMap<ContainerKey, (i32, Instant)>,
}

impl UnconfirmedIncreases {
    /// Takes a heartbeat's `awaiting` increases at `now` (every other container of the node
    /// is confirmed) and returns the rollbacks due after `expiry`, to commit.
    pub fn observe(
        &mut self,
        awaiting: &[AwaitingIncrease],
        now: Instant,
        expiry: Duration,
    ) -> Vec<ContainerResize> {
        let mut kept = BTreeMap::new();
        let mut rollbacks = Vec::new();
        for increase in awaiting {
            let since = match self.since.get(&increase.key) {
                Some(&(version, since)) if version == increase.version => since,
                _ => now,
            };
            let due = now.saturating_duration_since(since) >= expiry;
            if due {
                rollbacks.push(ContainerResize {
                    key: increase.key,
                    attempt_id: increase.attempt_id,
                    version: increase.version,
                    memory_mb: increase.reported_memory_mb,
                    vcores: increase.reported_vcores,
                });
            }
            // A rollback the state refuses is not proposed again before another expiry.
            kept.insert(
                increase.key,
                (increase.version, if due { now } else { since }),
            );
        }
        self.since = kept;
        rollbacks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPIRY: Duration = Duration::from_secs(600);

    fn awaiting(container_id: i64, version: i32) -> AwaitingIncrease {
        AwaitingIncrease {
            key: ContainerKey {
                application_seq: 1,
                container_id,
            },
            attempt_id: 1,
            version,
            reported_memory_mb: 1024,
            reported_vcores: 1,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_increase_the_node_never_applies_is_rolled_back_to_what_it_runs_after_the_expiry() {
        let mut unconfirmed = UnconfirmedIncreases::default();
        let start = Instant::now();
        assert!(
            unconfirmed
                .observe(&[awaiting(2, 1)], start, EXPIRY)
                .is_empty()
        );
        let almost = start + EXPIRY - Duration::from_millis(1);
        assert!(
            unconfirmed
                .observe(&[awaiting(2, 1)], almost, EXPIRY)
                .is_empty()
        );
        let rollbacks = unconfirmed.observe(&[awaiting(2, 1)], start + EXPIRY, EXPIRY);
        assert_eq!(
            rollbacks,
            vec![ContainerResize {
                key: awaiting(2, 1).key,
                attempt_id: 1,
                version: 1,
                memory_mb: 1024,
                vcores: 1,
            }]
        );
        let later = start + EXPIRY + Duration::from_secs(1);
        assert!(
            unconfirmed
                .observe(&[awaiting(2, 1)], later, EXPIRY)
                .is_empty(),
            "a rollback the state refused waits another expiry"
        );
        assert_eq!(
            unconfirmed
                .observe(&[awaiting(2, 1)], start + EXPIRY * 2, EXPIRY)
                .len(),
            1
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_confirmed_increase_is_forgotten_and_a_new_version_restarts_the_clock() {
        let mut unconfirmed = UnconfirmedIncreases::default();
        let start = Instant::now();
        unconfirmed.observe(&[awaiting(2, 1), awaiting(3, 1)], start, EXPIRY);
        // Container 2 applied (no longer reported smaller); container 3 moved to version 3.
        let later = start + EXPIRY / 2;
        assert!(
            unconfirmed
                .observe(&[awaiting(3, 3)], later, EXPIRY)
                .is_empty()
        );
        assert!(
            unconfirmed
                .observe(&[awaiting(2, 1), awaiting(3, 3)], start + EXPIRY, EXPIRY)
                .is_empty(),
            "container 2 smaller again starts afresh, container 3 has waited half the expiry"
        );
        let due = unconfirmed.observe(&[awaiting(3, 3)], later + EXPIRY, EXPIRY);
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].version, 3);
    }
}
