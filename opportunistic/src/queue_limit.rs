//! The queuing limit the RM imposes on every NM's opportunistic queue.

use crate::{Error, LoadComparator};

/// The limit sent to NodeManagers in heartbeat responses: exactly one of the two bounds is set
/// (the other is -1), depending on the load comparator, as in YARN's `ContainerQueuingLimit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContainerQueuingLimit {
    /// Longest allowed queue, or -1 when the limit is on wait time.
    pub max_queue_length: i32,
    /// Longest allowed estimated wait in milliseconds, or -1 when the limit is on length.
    pub max_queue_wait_time_ms: i32,
}

/// Computes the cluster-wide queue limit as `clamp(mean + k * stdev, min, max)` over the load
/// metric of every eligible node.
///
/// Matches YARN's `QueueLimitCalculator`: the mean uses integer division, the standard deviation
/// is the population form rounded to the nearest integer, and before the first update the limit
/// equals `min`. Pure: the caller feeds metrics from the latest sort.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueLimitCalculator {
    comparator: LoadComparator,
    sigma: f64,
    min: i32,
    max: i32,
    mean: i64,
    stdev: i64,
}

impl QueueLimitCalculator {
    /// A calculator with the `queue-limit-stdev` factor `sigma` and the `min-queue-length` and
    /// `max-queue-length` (or wait-time) bounds.
    ///
    /// Returns [`Error::InvalidQueueLimitBounds`] when `min > max`, which would make the clamp
    /// meaningless.
    pub fn new(comparator: LoadComparator, sigma: f64, min: i32, max: i32) -> Result<Self, Error> {
        if min > max {
            return Err(Error::InvalidQueueLimitBounds { min, max });
        }
        Ok(Self {
            comparator,
            sigma,
            min,
            max,
            mean: 0,
            stdev: 0,
        })
    }

    /// The metric the limit is computed over, and hence the one nodes are ranked by.
    pub fn comparator(&self) -> LoadComparator {
        self.comparator
    }

    /// Recomputes the statistics from one metric value per eligible node (queue lengths or wait
    /// times, per the comparator). An empty slice resets them, so the limit falls back to `min`.
    pub fn update(&mut self, metrics: &[i64]) {
        if metrics.is_empty() {
            self.mean = 0;
            self.stdev = 0;
            return;
        }
        let n = metrics.len() as i64;
        let mean = metrics.iter().sum::<i64>() / n;
        let squares: f64 = metrics
            .iter()
            .map(|&v| {
                let d = (v - mean) as f64;
                d * d
            })
            .sum();
        self.mean = mean;
        self.stdev = (squares / n as f64).sqrt().round() as i64;
    }

    /// The threshold `clamp(mean + sigma * stdev, min, max)`, truncated toward zero before the
    /// clamp as YARN's integer cast does.
    pub fn threshold(&self) -> i32 {
        let raw = (self.mean as f64 + self.sigma * self.stdev as f64) as i64;
        raw.clamp(i64::from(self.min), i64::from(self.max)) as i32
    }

    /// The limit to send to NodeManagers.
    pub fn limit(&self) -> ContainerQueuingLimit {
        let threshold = self.threshold();
        match self.comparator {
            LoadComparator::QueueLength => ContainerQueuingLimit {
                max_queue_length: threshold,
                max_queue_wait_time_ms: -1,
            },
            LoadComparator::QueueWaitTime => ContainerQueuingLimit {
                max_queue_length: -1,
                max_queue_wait_time_ms: threshold,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calculator(min: i32, max: i32) -> QueueLimitCalculator {
        QueueLimitCalculator::new(LoadComparator::QueueLength, 1.0, min, max).unwrap()
    }

    #[test]
    fn limit_is_min_before_first_update() {
        let calc = calculator(5, 15);
        assert_eq!(
            calc.limit(),
            ContainerQueuingLimit {
                max_queue_length: 5,
                max_queue_wait_time_ms: -1
            }
        );
    }

    #[test]
    fn mean_uses_integer_division_and_stdev_is_population_rounded() {
        let mut calc = calculator(0, 100);
        // mean = 25 / 3 = 8 (not 8.33); deviations 2, -6, 5 -> squares 4 + 36 + 25 = 65;
        // 65 / 3 = 21.67; sqrt = 4.65 -> 5; threshold 8 + 5 = 13.
        calc.update(&[10, 2, 13]);
        assert_eq!(calc.threshold(), 13);
    }

    #[test]
    fn threshold_is_clamped_to_bounds() {
        let mut calc = calculator(5, 15);
        calc.update(&[0, 0, 0]);
        assert_eq!(calc.threshold(), 5);
        calc.update(&[100, 0]);
        assert_eq!(calc.threshold(), 15);
        calc.update(&[]);
        assert_eq!(calc.threshold(), 5);
    }

    #[test]
    fn wait_time_comparator_limits_wait_time_only() {
        let mut calc =
            QueueLimitCalculator::new(LoadComparator::QueueWaitTime, 2.0, 0, 1000).unwrap();
        calc.update(&[100, 300]);
        // mean 200, stdev 100, threshold 200 + 2 * 100 = 400.
        assert_eq!(
            calc.limit(),
            ContainerQueuingLimit {
                max_queue_length: -1,
                max_queue_wait_time_ms: 400
            }
        );
    }

    #[test]
    fn inverted_bounds_are_rejected() {
        let err = QueueLimitCalculator::new(LoadComparator::QueueLength, 1.0, 10, 5).unwrap_err();
        assert_eq!(err, Error::InvalidQueueLimitBounds { min: 10, max: 5 });
    }
}
