//! [`StorageSoakReport`]: the disk use `bench storage` sampled, and its verdict.

use std::fmt;
use std::time::Duration;

/// How many times the most data the store held its files may take for disk use to count as
/// bounded.
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
    /// Allocated bytes per live byte at this sample.
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
    /// The samples once the log has been purged at least once: before that the store holds no
    /// dead data for sled to keep.
    fn purged(&self) -> impl Iterator<Item = &StorageSample> {
        self.samples.iter().filter(|s| s.purged_index > 0)
    }

    /// The most the files took against the most data the store held, after the first purge:
    /// the bound on disk use in multiples of the live data's peak.
    pub fn peak_ratio(&self) -> Option<f64> {
        let files = self.purged().map(|s| s.allocated_bytes).max()?;
        let live = self.purged().map(|s| s.live_bytes).max()?;
        Some(files as f64 / live.max(1) as f64)
    }

    /// The most the files took in the first and in the last third of the samples after the
    /// first purge: equal or shrinking when sled's growth stopped.
    pub fn growth(&self) -> Option<(u64, u64)> {
        let purged: Vec<_> = self.purged().collect();
        let third = purged.len() / 3;
        if third == 0 {
            return None;
        }
        let most = |samples: &[&StorageSample]| {
            samples.iter().map(|s| s.allocated_bytes).max().unwrap_or(0)
        };
        Some((
            most(&purged[..third]),
            most(&purged[purged.len() - third..]),
        ))
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
        let (Some(ratio), Some((early, late))) = (self.peak_ratio(), self.growth()) else {
            return writeln!(
                f,
                "too few samples after the first purge to judge the growth"
            );
        };
        let grew = late as f64 > early as f64 * 1.1;
        writeln!(
            f,
            "{}: at most {:.1} MiB of files in the first third after the first purge, {:.1} MiB \
             in the last",
            if grew {
                "STILL GROWING"
            } else {
                "growth stopped"
            },
            mib(early),
            mib(late)
        )?;
        writeln!(
            f,
            "{}: the files took at most {ratio:.2}x the most data the store held (limit \
             {BOUNDED_RATIO}x)",
            if ratio <= BOUNDED_RATIO {
                "within the bound"
            } else {
                "OVER the bound"
            }
        )
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
    fn growth_and_the_peak_ratio_count_only_samples_after_a_purge() {
        let report = StorageSoakReport {
            entry_bytes: 1024,
            duration: Duration::from_secs(120),
            samples: vec![
                sample(0, 10, 900),
                sample(9_000, 100, 150),
                sample(19_000, 40, 180),
                sample(29_000, 80, 160),
            ],
        };
        assert_eq!(report.peak_ratio(), Some(1.8));
        assert_eq!(report.growth(), Some((150, 160)));
        let text = report.to_string();
        assert!(
            text.contains("growth stopped") && text.contains("within the bound"),
            "{text}"
        );
        let grown = StorageSoakReport {
            samples: vec![
                sample(9_000, 100, 150),
                sample(9_500, 100, 300),
                sample(9_900, 100, 450),
            ],
            ..report.clone()
        };
        let text = grown.to_string();
        assert!(
            text.contains("STILL GROWING") && text.contains("OVER the bound"),
            "{text}"
        );
        let early = StorageSoakReport {
            samples: vec![sample(0, 100, 900)],
            ..report
        };
        assert!(early.to_string().contains("too few samples"));
    }
}
