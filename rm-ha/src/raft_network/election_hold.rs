//! [`ElectionHold`]: a voter's promise to stay out of a leadership transfer.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::time::Instant;

use super::pre_vote::HoldElection;

/// Whether this replica holds elections because the leader is transferring leadership to
/// another voter, shared by the Raft service (which records a leader's [`HoldElection`] and
/// refuses pre-votes meanwhile) and the election timer (which starts no election meanwhile).
///
/// Guarantee: a hold ends at its deadline, or as soon as the replica sees a term above the
/// transferring leader's, so it never outlives the transfer it was made for by more than its
/// duration, and a replica holding alone cannot block a group that has moved on.
#[derive(Debug, Clone, Default)]
pub struct ElectionHold {
    window: Arc<Mutex<Option<Window>>>,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    term: u64,
    until: Instant,
}

impl ElectionHold {
    /// Holds from `now` as `request` asks; a later request replaces an earlier one.
    pub(crate) fn hold(&self, request: &HoldElection, now: Instant) {
        *self.lock() = Some(Window {
            term: request.term,
            until: now + request.duration,
        });
    }

    /// When the hold last asked for ends, whether or not a higher term ended it earlier; `None`
    /// when none was asked for. For diagnosis and tests.
    pub fn held_until(&self) -> Option<Instant> {
        self.lock().map(|window| window.until)
    }

    /// Whether elections are held at `now` by a replica whose current term is `term`.
    pub(crate) fn holding(&self, now: Instant, term: u64) -> bool {
        let mut window = self.lock();
        match *window {
            Some(held) if now < held.until && term <= held.term => true,
            Some(_) => {
                *window = None;
                false
            }
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Window>> {
        // The window is a plain value written whole; a panicking holder cannot leave it torn.
        self.window.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_hold_ends_at_its_deadline_or_at_a_higher_term() {
        let hold = ElectionHold::default();
        let now = Instant::now();
        assert!(!hold.holding(now, 3));
        hold.hold(
            &HoldElection {
                term: 3,
                duration: Duration::from_secs(1),
            },
            now,
        );
        assert!(hold.holding(now + Duration::from_millis(999), 3));
        assert!(!hold.holding(now + Duration::from_secs(1), 3));

        hold.hold(
            &HoldElection {
                term: 3,
                duration: Duration::from_secs(1),
            },
            now,
        );
        assert!(!hold.holding(now, 4), "a new leader's term ends the hold");
        assert!(!hold.holding(now, 3), "and it stays ended");
    }
}
