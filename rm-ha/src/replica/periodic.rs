//! [`Periodic`]: the ticks of a service that works every interval until it is cancelled.

use std::time::Duration;

use tokio::time::{Interval, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

/// Ticks every `period`, the first at once. A tick missed while the service worked is delayed,
/// never bunched, so a slow round is not followed by a burst of them.
#[derive(Debug)]
pub(crate) struct Periodic {
    ticker: Interval,
}

impl Periodic {
    /// Starts ticking now.
    pub(crate) fn new(period: Duration) -> Self {
        let mut ticker = tokio::time::interval(period);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        Self { ticker }
    }

    /// Waits for the next tick: `true` then, `false` once `token` is cancelled.
    pub(crate) async fn tick(&mut self, token: &CancellationToken) -> bool {
        tokio::select! {
            () = token.cancelled() => false,
            _ = self.ticker.tick() => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn ticks_every_period_and_stops_when_cancelled() {
        let token = CancellationToken::new();
        let mut every = Periodic::new(Duration::from_secs(3));
        let start = tokio::time::Instant::now();
        assert!(every.tick(&token).await, "the first tick is at once");
        assert!(every.tick(&token).await);
        assert_eq!(start.elapsed(), Duration::from_secs(3));
        // A round that overran: the next tick comes one period after the late one.
        tokio::time::advance(Duration::from_secs(10)).await;
        assert!(every.tick(&token).await);
        let late = tokio::time::Instant::now();
        assert!(every.tick(&token).await);
        assert_eq!(late.elapsed(), Duration::from_secs(3));
        token.cancel();
        assert!(!every.tick(&token).await);
    }
}
