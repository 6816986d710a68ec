//! Waits that poll with a deadline: the one way tests wait for a cluster, never bare sleeps.

use std::future::Future;
use std::time::{Duration, Instant};

/// How often a wait checks again.
pub const POLL: Duration = Duration::from_millis(20);

/// Polls `check` every [`POLL`] until it returns `Some`, failing the test, naming `what`, once
/// `within` has passed. Runs on tokio's clock, so a test on a paused clock waits in virtual
/// time.
pub async fn eventually<T, F, Fut>(what: &str, within: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {within:?} waiting for {what}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// [`eventually`] for a test thread without a runtime.
pub fn eventually_blocking<T>(
    what: &str,
    within: Duration,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    let deadline = Instant::now() + within;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {within:?} waiting for {what}"
        );
        std::thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_wait_returns_what_the_check_found() {
        let calls = Cell::new(0);
        let found = eventually("the third call", Duration::from_secs(1), || {
            calls.set(calls.get() + 1);
            let value = (calls.get() == 3).then_some(calls.get());
            async move { value }
        })
        .await;
        assert_eq!(found, 3);
    }

    #[tokio::test(start_paused = true)]
    #[should_panic(expected = "timed out after 1s waiting for nothing")]
    async fn a_wait_fails_naming_what_it_waited_for() {
        eventually("nothing", Duration::from_secs(1), || async { None::<()> }).await;
    }

    #[test]
    fn a_blocking_wait_returns_what_the_check_found() {
        let mut calls = 0;
        let found = eventually_blocking("the second call", Duration::from_secs(5), || {
            calls += 1;
            (calls == 2).then_some(calls)
        });
        assert_eq!(found, 2);
    }
}
