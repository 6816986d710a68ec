//! How often master keys roll and how long a new key waits before it signs.

use crate::Error;

/// The timing of master-key rolls: a new (next) key is created one rolling interval after the
/// current key became active, and it becomes current one activation delay after it was created.
///
/// In Hadoop the interval is `yarn.resourcemanager.*-tokens.master-key-rolling-interval-secs`
/// (one day by default) and the activation delay is about 1.5 times the liveness expiry interval,
/// so every NodeManager (or application master) has heard of the next key before anything is
/// signed with it.
///
/// Invariant, checked by [`KeyRollingSchedule::new`]: the delay is not negative and the interval
/// is more than twice the delay, as Hadoop requires, so a key is current for longer than its
/// successor takes to spread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRollingSchedule {
    rolling_interval_ms: i64,
    activation_delay_ms: i64,
}

impl KeyRollingSchedule {
    /// A schedule with the given interval and delay, in milliseconds.
    ///
    /// # Errors
    /// [`Error::InvalidKeyRollingSchedule`] when `activation_delay_ms` is negative or
    /// `rolling_interval_ms` is not more than twice it.
    pub fn new(rolling_interval_ms: i64, activation_delay_ms: i64) -> Result<Self, Error> {
        let valid = activation_delay_ms >= 0
            && rolling_interval_ms > activation_delay_ms.saturating_mul(2)
            && rolling_interval_ms > 0;
        if !valid {
            return Err(Error::InvalidKeyRollingSchedule {
                rolling_interval_ms,
                activation_delay_ms,
            });
        }
        Ok(KeyRollingSchedule {
            rolling_interval_ms,
            activation_delay_ms,
        })
    }

    /// Time from a key's activation to the creation of its successor, in milliseconds.
    pub fn rolling_interval_ms(&self) -> i64 {
        self.rolling_interval_ms
    }

    /// Time from a next key's creation to its activation, in milliseconds.
    pub fn activation_delay_ms(&self) -> i64 {
        self.activation_delay_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_an_interval_more_than_twice_the_delay() {
        let schedule = KeyRollingSchedule::new(86_400_000, 900_000).unwrap();
        assert_eq!(schedule.rolling_interval_ms(), 86_400_000);
        assert_eq!(schedule.activation_delay_ms(), 900_000);
        assert!(KeyRollingSchedule::new(1, 0).is_ok());
    }

    #[test]
    fn refuses_short_intervals_and_negative_delays() {
        for (interval, delay) in [(2_000, 1_000), (1_999, 1_000), (0, 0), (1_000, -1)] {
            let err = KeyRollingSchedule::new(interval, delay).unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::InvalidKeyRollingSchedule { rolling_interval_ms, activation_delay_ms }
                        if rolling_interval_ms == interval && activation_delay_ms == delay
                ),
                "{err:?}"
            );
            let message = err.to_string();
            assert!(message.contains(&format!("{interval} ms")), "{message}");
            assert!(message.contains(&format!("{delay} ms")), "{message}");
        }
    }

    #[test]
    fn huge_delay_does_not_overflow() {
        assert!(KeyRollingSchedule::new(i64::MAX, i64::MAX / 2 + 1).is_err());
        assert!(KeyRollingSchedule::new(i64::MAX, i64::MAX / 2 - 1).is_ok());
    }
}
