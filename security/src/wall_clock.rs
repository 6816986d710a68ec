//! The wall clock daemons stamp commands, tokens and records with, and its stand-in for the
//! deterministic simulation.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::time::{SystemTime, UNIX_EPOCH};

thread_local! {
    /// The clock [`now_ms`] reads on this thread instead of the host's, while a
    /// [`SimulatedClock`] is in force.
    static SIMULATED: RefCell<Option<Box<dyn Fn() -> i64>>> = const { RefCell::new(None) };
}

/// Milliseconds since the Unix epoch by this host's clock (by the [`SimulatedClock`] in force on
/// this thread, if one is). ResourceManager replicas read it only as leaders, to put the value
/// into a command: they never read clocks while applying.
pub fn now_ms() -> i64 {
    // `try_with`: a thread-local destructor (a runtime being dropped) may still ask the time.
    let simulated = SIMULATED
        .try_with(|clock| clock.borrow().as_ref().map(|now| now()))
        .ok()
        .flatten();
    if let Some(simulated) = simulated {
        return simulated;
    }
    // A clock before 1970 is a broken host; 0 keeps times ordered rather than panicking.
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// While this value lives, [`now_ms`] on the thread that made it reads `clock`, not the host's
/// clock.
///
/// For the deterministic simulation, which runs every simulated host on one thread and
/// needs the times leaders write into commands to follow simulated time, so that a seed
/// replays exactly. It is per thread so that simulations running side by side (in a test
/// binary) keep their own clocks; it is not `Send`, so it is undone on the thread that made it.
pub struct SimulatedClock {
    _not_send: PhantomData<*const ()>,
}

impl SimulatedClock {
    /// Puts `clock` (milliseconds since the Unix epoch) in force on this thread.
    ///
    /// # Panics
    ///
    /// When a simulated clock is already in force on this thread: two runs sharing a thread at
    /// once would read each other's time.
    pub fn install(clock: impl Fn() -> i64 + 'static) -> Self {
        SIMULATED.with_borrow_mut(|current| {
            assert!(
                current.is_none(),
                "a simulated clock is already in force on this thread"
            );
            *current = Some(Box::new(clock));
        });
        Self {
            _not_send: PhantomData,
        }
    }
}

impl Drop for SimulatedClock {
    fn drop(&mut self) {
        SIMULATED.with_borrow_mut(|current| *current = None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The simulated clock replaces the host's on its thread only, and only while it lives.
    #[test]
    fn a_simulated_clock_holds_on_its_thread_while_it_lives() {
        let host = now_ms();
        assert!(host > 1_600_000_000_000, "the host's clock: {host}");
        {
            let _clock = SimulatedClock::install(|| 42);
            assert_eq!(now_ms(), 42);
            let elsewhere = std::thread::spawn(now_ms).join().unwrap();
            assert!(elsewhere >= host, "another thread reads the host's clock");
        }
        assert!(now_ms() >= host, "the host's clock again");
    }
}
