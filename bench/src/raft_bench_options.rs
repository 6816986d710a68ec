//! What `yarn-ha bench raft` measures, and how its settings are checked.

use std::path::PathBuf;
use std::time::Duration;

/// The largest number of concurrent proposers in one run. Each proposer holds its own TLS
/// connection, which costs a file descriptor here and one on the leader; past this the usual
/// limit of 1024 open files per process is near.
pub const MAX_PROPOSERS: usize = 512;

/// The longest measurement per proposer count, in seconds (one hour).
pub const MAX_DURATION_SECS: u64 = 3600;

/// The most failover trials one run may ask for.
pub const MAX_FAILOVER_TRIALS: usize = 1000;

/// The settings of `yarn-ha bench raft`, named after its command-line flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaftBenchOptions {
    /// `--dir`: where to lay out the cluster (new or empty; kept afterwards). `None`: a fresh
    /// directory under the system's temporary directory, removed at the end.
    pub dir: Option<PathBuf>,
    /// `--proposers`: the numbers of concurrent proposers, one commit-latency run each, in
    /// this order.
    pub proposers: Vec<usize>,
    /// `--duration-secs`: how long each commit-latency run is measured, after its warm-up.
    pub duration: Duration,
    /// `--failover-trials`: how many times the leader is killed.
    pub failover_trials: usize,
}

impl Default for RaftBenchOptions {
    /// The defaults of the command line: 1, 16 and 256 proposers, 5 seconds each, 20 failover
    /// trials, in a temporary directory.
    fn default() -> Self {
        RaftBenchOptions {
            dir: None,
            proposers: vec![1, 16, 256],
            duration: Duration::from_secs(5),
            failover_trials: 20,
        }
    }
}

impl RaftBenchOptions {
    /// Checks every setting before anything is started.
    ///
    /// # Errors
    ///
    /// A message naming the flag and the value when `--proposers` is empty, holds 0, a count
    /// above [`MAX_PROPOSERS`] or the same count twice; when `--duration-secs` is below one
    /// second or above [`MAX_DURATION_SECS`]; or when `--failover-trials` is 0 or above
    /// [`MAX_FAILOVER_TRIALS`].
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            !self.proposers.is_empty(),
            "--proposers needs at least one count of concurrent proposers, e.g. --proposers 1,16,256"
        );
        for (index, &count) in self.proposers.iter().enumerate() {
            anyhow::ensure!(
                (1..=MAX_PROPOSERS).contains(&count),
                "--proposers {count}: each count of concurrent proposers must be 1 to \
                 {MAX_PROPOSERS} (every proposer holds its own TLS connection to the leader)"
            );
            anyhow::ensure!(
                !self.proposers[..index].contains(&count),
                "--proposers lists {count} twice; give each count of concurrent proposers once"
            );
        }
        let secs = self.duration.as_secs_f64();
        anyhow::ensure!(
            self.duration >= Duration::from_secs(1)
                && self.duration <= Duration::from_secs(MAX_DURATION_SECS),
            "--duration-secs {secs}: each run must be measured for 1 to {MAX_DURATION_SECS} seconds"
        );
        anyhow::ensure!(
            (1..=MAX_FAILOVER_TRIALS).contains(&self.failover_trials),
            "--failover-trials {}: the leader must be killed 1 to {MAX_FAILOVER_TRIALS} times",
            self.failover_trials
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn must_refuse(options: RaftBenchOptions, flag: &str, detail: &str) {
        let err = options.validate().unwrap_err().to_string();
        assert!(err.starts_with(flag), "{err}");
        assert!(err.contains(detail), "{err}");
    }

    #[test]
    fn the_defaults_are_valid() {
        let options = RaftBenchOptions::default();
        options.validate().unwrap();
        assert_eq!(options.proposers, [1, 16, 256]);
        assert_eq!(options.duration, Duration::from_secs(5));
        assert_eq!(options.failover_trials, 20);
        assert_eq!(options.dir, None);
    }

    #[test]
    fn proposer_counts_must_be_present_positive_bounded_and_distinct() {
        let with = |proposers: Vec<usize>| RaftBenchOptions {
            proposers,
            ..RaftBenchOptions::default()
        };
        must_refuse(with(vec![]), "--proposers", "at least one");
        must_refuse(with(vec![1, 0]), "--proposers 0", "must be 1 to 512");
        must_refuse(with(vec![513]), "--proposers 513", "must be 1 to 512");
        must_refuse(with(vec![4, 16, 4]), "--proposers", "lists 4 twice");
        with(vec![512, 1]).validate().unwrap();
    }

    #[test]
    fn the_duration_must_be_at_least_a_second_and_at_most_an_hour() {
        let with = |duration| RaftBenchOptions {
            duration,
            ..RaftBenchOptions::default()
        };
        must_refuse(with(Duration::ZERO), "--duration-secs 0", "1 to 3600");
        must_refuse(
            with(Duration::from_secs(3601)),
            "--duration-secs 3601",
            "1 to 3600",
        );
        with(Duration::from_secs(1)).validate().unwrap();
    }

    #[test]
    fn failover_trials_must_be_positive_and_bounded() {
        let with = |failover_trials| RaftBenchOptions {
            failover_trials,
            ..RaftBenchOptions::default()
        };
        must_refuse(with(0), "--failover-trials 0", "1 to 1000");
        must_refuse(with(1001), "--failover-trials 1001", "1 to 1000");
        with(1).validate().unwrap();
    }
}
