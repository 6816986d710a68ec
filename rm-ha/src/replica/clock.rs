//! The wall clock leaders put into commands.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch by this host's clock. Only leaders read it, and only to
/// put the value into a command: replicas never read clocks while applying.
pub(crate) fn now_ms() -> i64 {
    // A clock before 1970 is a broken host; 0 keeps times ordered rather than panicking.
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
