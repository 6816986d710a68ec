//! [`Probe`]: a cheap call to the leader, timed one at a time while something else runs, and
//! [`sample_until`], the loop that times it.

use std::time::Duration;

use tokio::sync::watch;

/// The pause between two calls of a probe: about 100 samples a second, a light load, yet
/// enough for a 99th percentile within seconds.
pub const PROBE_PAUSE: Duration = Duration::from_millis(10);

/// One kind of call to the leader that can be timed over and over.
pub(crate) trait Probe {
    /// Makes one call; its round trip when it succeeded, otherwise why not.
    async fn call(&mut self) -> Result<Duration, String>;
}

/// What one stretch of probing measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProbeTally {
    /// The round trips of the calls that succeeded.
    pub samples: Vec<Duration>,
    /// Calls that failed.
    pub errors: u64,
    /// The first of those failures.
    pub first_error: Option<String>,
}

/// Calls `probe` one call at a time, [`PROBE_PAUSE`] apart, until `stop` turns true (checked
/// between calls, so none is cut short; at least one call is made unless `stop` is true
/// already).
pub(crate) async fn sample_until(
    probe: &mut impl Probe,
    mut stop: watch::Receiver<bool>,
) -> ProbeTally {
    let mut tally = ProbeTally::default();
    while !*stop.borrow_and_update() {
        match probe.call().await {
            Ok(took) => tally.samples.push(took),
            Err(why) => {
                tally.errors += 1;
                tally.first_error.get_or_insert(why);
            }
        }
        tokio::select! {
            _ = stop.changed() => {}
            () = tokio::time::sleep(PROBE_PAUSE) => {}
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Succeeds in 1 ms, except every third call, which fails.
    struct Flaky(u32);

    impl Probe for Flaky {
        async fn call(&mut self) -> Result<Duration, String> {
            self.0 += 1;
            if self.0 % 3 == 0 {
                Err(format!("call {} failed", self.0))
            } else {
                Ok(Duration::from_millis(1))
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn calls_are_paced_until_stopped_and_failures_counted() {
        let (stop, stopped) = watch::channel(false);
        let mut probe = Flaky(0);
        let ((), tally) = tokio::join!(
            async move {
                // Calls at 0, 10, 20, ... ms: 10 of them before 95 ms.
                tokio::time::sleep(Duration::from_millis(95)).await;
                stop.send(true).unwrap();
            },
            sample_until(&mut probe, stopped)
        );
        assert_eq!((tally.samples.len(), tally.errors), (7, 3));
        assert_eq!(tally.first_error.as_deref(), Some("call 3 failed"));
    }

    #[tokio::test]
    async fn a_stopped_probe_calls_nothing() {
        let (_stop, stopped) = watch::channel(true);
        let tally = sample_until(&mut Flaky(0), stopped).await;
        assert_eq!(tally, ProbeTally::default());
    }
}
