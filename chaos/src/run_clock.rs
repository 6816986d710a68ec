//! [`RunClock`]: the one time base of a run's history and observations.

use std::time::Duration;

use tokio::time::Instant;

/// Milliseconds since the run's workload started, shared by every recorder, so that the
/// history, the observations and the fault timeline can be compared directly.
///
/// Monotonic (a [`tokio::time::Instant`]), so a wall-clock step cannot reorder events.
#[derive(Debug, Clone, Copy)]
pub struct RunClock {
    start: Instant,
}

impl RunClock {
    /// A clock whose zero is now.
    pub fn start() -> Self {
        Self {
            start: Instant::now(),
        }
    }

    /// Milliseconds since zero.
    pub fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The instant `ms` milliseconds after zero, for sleeping until a scheduled time.
    pub fn instant_at(&self, ms: u64) -> Instant {
        self.start + Duration::from_millis(ms)
    }
}
