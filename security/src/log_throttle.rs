//! At most one log line per interval for each kind of repeated event.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;
use std::time::{Duration, Instant};

/// Decides which events of a repeating kind are logged, so that a client repeating a refused
/// request cannot flood the log.
///
/// Pure: the caller passes the time in. For each key the first event is logged, then at most one
/// per `interval`; each logged event carries the number held back since the previous one, so
/// every event is counted (those of the last interval are reported by the next logged one).
/// Memory grows with the number of distinct keys, so keys must come from a small set.
#[derive(Debug)]
pub(crate) struct LogThrottle<K> {
    interval: Duration,
    windows: HashMap<K, Window>,
}

#[derive(Debug)]
struct Window {
    logged_at: Instant,
    held_back: u64,
}

impl<K: Eq + Hash> LogThrottle<K> {
    /// Logs at most one event per key per `interval`.
    pub(crate) fn new(interval: Duration) -> Self {
        LogThrottle {
            interval,
            windows: HashMap::new(),
        }
    }

    /// Whether the event `key` at `now` is logged: `Some(held_back)`, the number of events of
    /// `key` not logged since the previous logged one, or `None` to hold this one back too.
    pub(crate) fn admit(&mut self, key: K, now: Instant) -> Option<u64> {
        match self.windows.entry(key) {
            Entry::Vacant(vacant) => {
                vacant.insert(Window {
                    logged_at: now,
                    held_back: 0,
                });
                Some(0)
            }
            Entry::Occupied(mut occupied) => {
                let window = occupied.get_mut();
                if now.saturating_duration_since(window.logged_at) < self.interval {
                    window.held_back += 1;
                    return None;
                }
                window.logged_at = now;
                Some(std::mem::take(&mut window.held_back))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INTERVAL: Duration = Duration::from_secs(10);

    #[test]
    fn first_event_is_logged_and_repeats_within_the_interval_are_held_back_and_counted() {
        let start = Instant::now();
        let mut throttle = LogThrottle::new(INTERVAL);
        assert_eq!(throttle.admit("timeout", start), Some(0));
        assert_eq!(
            throttle.admit("timeout", start + Duration::from_secs(1)),
            None
        );
        assert_eq!(
            throttle.admit("timeout", start + Duration::from_secs(9)),
            None
        );
        assert_eq!(throttle.admit("timeout", start + INTERVAL), Some(2));
        // The window restarts at the logged event, and the count with it.
        assert_eq!(
            throttle.admit("timeout", start + INTERVAL * 2 - Duration::from_millis(1)),
            None
        );
        assert_eq!(throttle.admit("timeout", start + INTERVAL * 2), Some(1));
        assert_eq!(throttle.admit("timeout", start + INTERVAL * 5), Some(0));
    }

    #[test]
    fn each_key_has_its_own_window() {
        let start = Instant::now();
        let mut throttle = LogThrottle::new(INTERVAL);
        assert_eq!(throttle.admit("timeout", start), Some(0));
        assert_eq!(throttle.admit("refused", start), Some(0));
        assert_eq!(
            throttle.admit("timeout", start + Duration::from_secs(1)),
            None
        );
        assert_eq!(throttle.admit("refused", start + INTERVAL), Some(0));
        assert_eq!(throttle.admit("timeout", start + INTERVAL), Some(1));
    }

    #[test]
    fn an_earlier_time_than_the_last_logged_event_is_held_back() {
        // A time before the last logged event (read before it, passed in after it) falls in
        // the current window instead of panicking.
        let start = Instant::now() + INTERVAL;
        let mut throttle = LogThrottle::new(INTERVAL);
        assert_eq!(throttle.admit("timeout", start), Some(0));
        assert_eq!(
            throttle.admit("timeout", start - Duration::from_secs(1)),
            None
        );
    }
}
