//! [`StorageSoakReport`]: the disk use `bench storage` sampled, and its verdict.

use std::fmt;
use std::time::Duration;

/// How many times the live data the files may take for the storage to count as bounded.
pub const BOUNDED_RATIO: f64 = 2.0;

/// One sample of the storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StorageSample {
    /// Time since the writes began.
    pub at: Duration,
    /// The last log entry's index: how many entries were written.
    pub last_log_index: u64,
    /// The index up to which the log was purged behind a snapshot.
    pub purged_index: u64,
    /// The bytes of every key and value in the store.
    pub live_bytes: u64,
    /// The files' sizes.
    pub apparent_bytes: u64,
    /// The blocks the files occupy.
    pub allocated_bytes: u64,
}

impl StorageSample {
    /// Allocated bytes per live byte.
    pub fn ratio(&self) -> f64 {
        self.allocated_bytes as f64 / self.live_bytes.max(1) as f64
    }
}

/// What `bench storage` measured.
#[derive(Debug, Clone, PartialEq)]
pub struct StorageSoakReport {
    /// Bytes of configuration each entry carried.
    pub entry_bytes: usize,
    /// How long it wrote.
    pub duration: Duration,
    /// The samples, in time order.
    pub samples: Vec<StorageSample>,
}

impl StorageSoakReport {
    /// The largest ratio of allocated to live bytes once the log has been purged at least once
    /// (before that the store holds no dead data to reclaim).
    pub fn worst_ratio(&self) -> Option<f64> {
        self.samples
            .iter()
            .filter(|s| s.purged_index > 0)
            .map(StorageSample::ratio)
            .reduce(f64::max)
    }
}

impl fmt::Display for StorageSoakReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Raft storage on sled, one replica, {} s of writes of {} B entries",
            self.duration.as_secs(),
            self.entry_bytes
        )?;
        writeln!(
            f,
            "{:>8} {:>12} {:>12} {:>10} {:>12} {:>12} {:>7}",
            "time s", "entries", "purged to", "live MiB", "files MiB", "blocks MiB", "ratio"
        )?;
        let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
        for s in &self.samples {
            writeln!(
                f,
                "{:>8} {:>12} {:>12} {:>10.1} {:>12.1} {:>12.1} {:>7.2}",
                s.at.as_secs(),
                s.last_log_index,
                s.purged_index,
                mib(s.live_bytes),
                mib(s.apparent_bytes),
                mib(s.allocated_bytes),
                s.ratio()
            )?;
        }
        match self.worst_ratio() {
            Some(worst) if worst <= BOUNDED_RATIO => writeln!(
                f,
                "bounded: the files never took more than {worst:.2}x the live data after the \
                 first purge (limit {BOUNDED_RATIO}x)"
            ),
            Some(worst) => writeln!(
                f,
                "NOT bounded: the files took up to {worst:.2}x the live data after the first \
                 purge (limit {BOUNDED_RATIO}x)"
            ),
            None => writeln!(f, "no purge happened: write longer to judge the growth"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(purged_index: u64, live_bytes: u64, allocated_bytes: u64) -> StorageSample {
        StorageSample {
            at: Duration::from_secs(60),
            last_log_index: 20_000,
            purged_index,
            live_bytes,
            apparent_bytes: allocated_bytes,
            allocated_bytes,
        }
    }

    #[test]
    fn only_samples_after_a_purge_count_and_the_verdict_names_the_worst() {
        let report = StorageSoakReport {
            entry_bytes: 1024,
            duration: Duration::from_secs(120),
            samples: vec![
                sample(0, 100, 900),
                sample(9_000, 100, 150),
                sample(19_000, 100, 180),
            ],
        };
        assert_eq!(report.worst_ratio(), Some(1.8));
        assert!(
            report
                .to_string()
                .contains("bounded: the files never took more than 1.80x")
        );
        let grown = StorageSoakReport {
            samples: vec![sample(9_000, 100, 450)],
            ..report.clone()
        };
        assert!(grown.to_string().contains("NOT bounded"));
        let early = StorageSoakReport {
            samples: vec![sample(0, 100, 900)],
            ..report
        };
        assert!(early.to_string().contains("no purge happened"));
    }
}
