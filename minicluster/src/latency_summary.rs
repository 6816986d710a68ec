//! Percentiles of measured durations, by the nearest-rank method.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The count, median, 99th percentile and maximum of a set of measured durations, in
/// milliseconds.
///
/// Percentiles use the nearest-rank method: the p-th percentile of `n` sorted samples is the
/// sample of rank `ceil(p/100 * n)` (1-based), so it is always a value that was measured. With
/// fewer than 100 samples the 99th percentile is therefore the maximum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// How many samples.
    pub count: usize,
    /// The median (50th percentile), in milliseconds.
    pub p50_ms: f64,
    /// The 99th percentile, in milliseconds.
    pub p99_ms: f64,
    /// The largest sample, in milliseconds.
    pub max_ms: f64,
}

impl LatencySummary {
    /// Summarises `samples` (in any order; they are sorted in place). `None` when there are no
    /// samples, since an empty set has no percentiles.
    pub fn from_samples(samples: &mut [Duration]) -> Option<Self> {
        samples.sort_unstable();
        let mut sorted: Vec<f64> = samples.iter().copied().map(millis).collect();
        Self::from_millis(&mut sorted)
    }

    /// Summarises `samples` given in milliseconds (in any order; they are sorted in place).
    /// `None` when there are no samples.
    pub fn from_millis(samples: &mut [f64]) -> Option<Self> {
        samples.sort_unstable_by(f64::total_cmp);
        Some(LatencySummary {
            count: samples.len(),
            p50_ms: nearest_rank(samples, 50)?,
            p99_ms: nearest_rank(samples, 99)?,
            max_ms: *samples.last()?,
        })
    }
}

/// The `percent`-th percentile of `sorted` (ascending) by the nearest-rank method: the sample
/// of 1-based rank `ceil(percent * n / 100)`, at least rank 1. `None` for no samples; a
/// `percent` above 100 is read as 100.
pub fn nearest_rank<T: Copy>(sorted: &[T], percent: u32) -> Option<T> {
    let n = sorted.len();
    let percent = usize::try_from(percent.min(100)).ok()?;
    // Integer ceiling of percent * n / 100, so no float rounding can pick a neighbour.
    let rank = (percent * n).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// A duration in milliseconds, with the sub-millisecond part kept.
pub fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(values: impl IntoIterator<Item = u64>) -> Vec<Duration> {
        values.into_iter().map(Duration::from_millis).collect()
    }

    #[test]
    fn percentiles_of_one_to_a_hundred_are_their_ranks() {
        let sorted = ms(1..=100);
        assert_eq!(nearest_rank(&sorted, 50), Some(Duration::from_millis(50)));
        assert_eq!(nearest_rank(&sorted, 99), Some(Duration::from_millis(99)));
        assert_eq!(nearest_rank(&sorted, 100), Some(Duration::from_millis(100)));
        assert_eq!(nearest_rank(&sorted, 0), Some(Duration::from_millis(1)));
    }

    #[test]
    fn ranks_round_up_to_a_measured_sample() {
        // 20 trials: the median is the 10th sample, and the 99th percentile (rank 19.8 -> 20)
        // is the maximum.
        let sorted = ms(1..=20);
        assert_eq!(nearest_rank(&sorted, 50), Some(Duration::from_millis(10)));
        assert_eq!(nearest_rank(&sorted, 99), Some(Duration::from_millis(20)));
        // 3 samples: rank ceil(1.5) = 2.
        assert_eq!(
            nearest_rank(&ms([10, 20, 30]), 50),
            Some(Duration::from_millis(20))
        );
        // 1000 samples: the 99th percentile is the 990th, not the maximum.
        let sorted = ms(1..=1000);
        assert_eq!(nearest_rank(&sorted, 99), Some(Duration::from_millis(990)));
    }

    #[test]
    fn no_samples_have_no_percentiles() {
        assert_eq!(nearest_rank::<Duration>(&[], 50), None);
        assert_eq!(LatencySummary::from_samples(&mut []), None);
        assert_eq!(LatencySummary::from_millis(&mut []), None);
    }

    #[test]
    fn a_summary_sorts_its_samples_first() {
        let mut samples = ms([7, 3, 9, 1, 5]);
        let summary = LatencySummary::from_samples(&mut samples).unwrap();
        assert_eq!(
            summary,
            LatencySummary {
                count: 5,
                p50_ms: 5.0,
                p99_ms: 9.0,
                max_ms: 9.0,
            }
        );
        assert_eq!(samples, ms([1, 3, 5, 7, 9]));
    }

    #[test]
    fn a_summary_of_milliseconds_sorts_them_too() {
        let mut samples = [640.5, 512.25, 700.0];
        let summary = LatencySummary::from_millis(&mut samples).unwrap();
        assert_eq!(
            (summary.count, summary.p50_ms, summary.p99_ms),
            (3, 640.5, 700.0)
        );
        assert_eq!(samples, [512.25, 640.5, 700.0]);
    }

    #[test]
    fn milliseconds_keep_their_fraction() {
        assert_eq!(millis(Duration::from_micros(1_500)), 1.5);
    }
}
