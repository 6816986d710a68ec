//! The deadline after which a connection that carried no bytes is closed.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::time::{Instant, Sleep};

/// Tracks the last time a connection carried bytes, and fires once it has carried none for
/// `timeout`.
///
/// Recording activity only stores the time; the timer is re-armed lazily, when it fires early
/// because of activity since it was armed, so a busy connection costs no timer updates per byte.
/// Uses tokio's clock, so paused test time drives it.
#[derive(Debug)]
pub(crate) struct IdleTimer {
    timeout: Duration,
    last_activity: Instant,
    // Boxed: a Sleep is !Unpin, and the connection holding this must stay Unpin for tonic.
    sleep: Pin<Box<Sleep>>,
}

impl IdleTimer {
    /// A timer that fires `timeout` from now unless activity is recorded; must be created
    /// inside a tokio runtime.
    pub(crate) fn new(timeout: Duration) -> Self {
        let now = Instant::now();
        IdleTimer {
            timeout,
            last_activity: now,
            sleep: Box::pin(tokio::time::sleep_until(now + timeout)),
        }
    }

    /// How long the connection may stay idle.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Notes that the connection carried bytes now.
    pub(crate) fn record_activity(&mut self) {
        self.last_activity = Instant::now();
    }

    /// Ready once no activity has been recorded for the timeout, and from then on; otherwise
    /// pending, with `cx` woken when the deadline passes.
    pub(crate) fn poll_expired(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            ready!(self.sleep.as_mut().poll(cx));
            let deadline = self.last_activity + self.timeout;
            if deadline <= self.sleep.deadline() {
                return Poll::Ready(());
            }
            // Activity since the timer was armed: wait out the rest of the new deadline.
            self.sleep.as_mut().reset(deadline);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;

    use super::*;

    const TIMEOUT: Duration = Duration::from_secs(20);

    async fn is_expired(timer: &mut IdleTimer) -> bool {
        poll_fn(|cx| Poll::Ready(timer.poll_expired(cx).is_ready())).await
    }

    #[tokio::test(start_paused = true)]
    async fn fires_only_after_a_whole_timeout_without_activity() {
        let mut timer = IdleTimer::new(TIMEOUT);
        tokio::time::advance(TIMEOUT - Duration::from_secs(1)).await;
        assert!(!is_expired(&mut timer).await);
        timer.record_activity();
        // Past the first deadline, but less than a timeout after the activity.
        tokio::time::advance(TIMEOUT - Duration::from_secs(1)).await;
        assert!(!is_expired(&mut timer).await);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(is_expired(&mut timer).await);
        assert!(is_expired(&mut timer).await, "it stays expired");
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_poller_is_woken_when_the_connection_goes_idle() {
        let mut timer = IdleTimer::new(TIMEOUT);
        tokio::time::advance(Duration::from_secs(5)).await;
        timer.record_activity();
        let started = Instant::now();
        // Paused time jumps to the next timer; the wait ends a whole timeout after the activity.
        poll_fn(|cx| timer.poll_expired(cx)).await;
        assert_eq!(started.elapsed(), TIMEOUT);
    }
}
