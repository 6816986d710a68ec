//! [`TokenBucket`]: the pure rate arithmetic of the throttle interceptor.

/// Parts of a call token the bucket counts in, so that all arithmetic is exact integers.
const MICROS: i64 = 1_000_000;

/// What the bucket says about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// A token was available: go ahead.
    Now,
    /// No token now, but one within the longest delay; it is reserved, so the call goes ahead
    /// after `delay_ms` and the next call waits for the token after it.
    After {
        /// How long to hold the call.
        delay_ms: u64,
    },
    /// No token within the longest delay; nothing was taken.
    Refused {
        /// When a call would be admitted.
        retry_after_ms: u64,
    },
}

/// A token bucket: it holds up to `burst` call tokens, refills at a steady rate, and each call
/// takes one.
///
/// Pure: the caller passes the time (milliseconds since the Unix epoch), and a clock that goes
/// backwards refills nothing instead of failing. Counts in millionths of a token, so the rate
/// has a resolution of 0.001 calls per second and the arithmetic is exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenBucket {
    refill_micros_per_ms: i64,
    capacity_micros: i64,
    /// May go negative: tokens reserved by delayed calls.
    micros: i64,
    last_ms: Option<i64>,
}

impl TokenBucket {
    /// A full bucket of `burst` tokens refilled at `rate_per_second` (at least 0.001).
    pub fn new(rate_per_second: f64, burst: u32) -> Self {
        let refill = (rate_per_second * 1000.0).round();
        // A float-to-int `as` saturates, so absurd rates cannot overflow.
        let refill_micros_per_ms = (refill as i64).max(1);
        let capacity_micros = i64::from(burst) * MICROS;
        Self {
            refill_micros_per_ms,
            capacity_micros,
            micros: capacity_micros,
            last_ms: None,
        }
    }

    /// Decides about a call at `now_ms` that may be held back for at most `max_delay_ms`.
    pub fn admit(&mut self, now_ms: i64, max_delay_ms: u64) -> Admission {
        self.refill(now_ms);
        if self.micros >= MICROS {
            self.micros -= MICROS;
            return Admission::Now;
        }
        let deficit = MICROS - self.micros;
        // Both are positive here, so this rounds the wait up to a whole millisecond.
        let wait_ms = (deficit + self.refill_micros_per_ms - 1) / self.refill_micros_per_ms;
        let wait_ms = u64::try_from(wait_ms).unwrap_or(u64::MAX);
        if wait_ms > max_delay_ms {
            return Admission::Refused {
                retry_after_ms: wait_ms,
            };
        }
        self.micros -= MICROS;
        Admission::After { delay_ms: wait_ms }
    }

    fn refill(&mut self, now_ms: i64) {
        let elapsed = self
            .last_ms
            .map_or(0, |last| now_ms.saturating_sub(last).max(0));
        self.micros = self
            .micros
            .saturating_add(elapsed.saturating_mul(self.refill_micros_per_ms))
            .min(self.capacity_micros);
        self.last_ms = Some(self.last_ms.map_or(now_ms, |last| last.max(now_ms)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_700_000_000_000;

    #[test]
    fn a_full_bucket_admits_the_burst_then_delays_by_the_rate() {
        // 2 calls per second: a token every 500 ms; burst of 3.
        let mut bucket = TokenBucket::new(2.0, 3);
        for _ in 0..3 {
            assert_eq!(bucket.admit(T0, 1_000), Admission::Now);
        }
        assert_eq!(bucket.admit(T0, 1_000), Admission::After { delay_ms: 500 });
        // That token is reserved: the next one comes 500 ms after it.
        assert_eq!(
            bucket.admit(T0, 1_000),
            Admission::After { delay_ms: 1_000 }
        );
        // Over the longest delay: refused, and nothing is taken.
        assert_eq!(
            bucket.admit(T0, 1_000),
            Admission::Refused {
                retry_after_ms: 1_500
            }
        );
        assert_eq!(
            bucket.admit(T0, 1_000),
            Admission::Refused {
                retry_after_ms: 1_500
            }
        );
    }

    #[test]
    fn refills_at_the_rate_up_to_the_burst_only() {
        let mut bucket = TokenBucket::new(2.0, 2);
        assert_eq!(bucket.admit(T0, 0), Admission::Now);
        assert_eq!(bucket.admit(T0, 0), Admission::Now);
        assert_eq!(
            bucket.admit(T0 + 499, 0),
            Admission::Refused { retry_after_ms: 1 }
        );
        assert_eq!(bucket.admit(T0 + 500, 0), Admission::Now);
        // A long pause refills to the burst, not beyond.
        let later = T0 + 60_000;
        assert_eq!(bucket.admit(later, 0), Admission::Now);
        assert_eq!(bucket.admit(later, 0), Admission::Now);
        assert!(matches!(bucket.admit(later, 0), Admission::Refused { .. }));
    }

    #[test]
    fn a_clock_going_backwards_refills_nothing() {
        let mut bucket = TokenBucket::new(1.0, 1);
        assert_eq!(bucket.admit(T0, 0), Admission::Now);
        assert_eq!(
            bucket.admit(T0 - 10_000, 0),
            Admission::Refused {
                retry_after_ms: 1_000
            }
        );
        // Time is measured from the latest instant seen, not the earlier one.
        assert_eq!(bucket.admit(T0 + 1_000, 0), Admission::Now);
    }

    #[test]
    fn fractional_rates_keep_exact_waits() {
        // One call every four seconds.
        let mut bucket = TokenBucket::new(0.25, 1);
        assert_eq!(bucket.admit(T0, 10_000), Admission::Now);
        assert_eq!(
            bucket.admit(T0 + 1_000, 10_000),
            Admission::After { delay_ms: 3_000 }
        );
    }
}
