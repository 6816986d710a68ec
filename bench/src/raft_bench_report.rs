//! The results of `yarn-ha bench raft`: the figures, their JSON form and their table.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use yarn_minicluster::{LatencySummary, millis};

use crate::latency_cell::latency_cell;
use crate::machine::Machine;

/// The failover target: the 99th percentile of failover times stays under one second.
pub const FAILOVER_TARGET: Duration = Duration::from_secs(1);

/// Everything one run of `yarn-ha bench raft` measured, with the settings and the machine.
/// Serialises to the JSON of `--json`; its `Display` is the table printed otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaftBenchReport {
    /// The machine and build.
    pub machine: Machine,
    /// How many ResourceManager replicas the cluster had.
    pub replicas: usize,
    /// The unrecorded warm-up before each commit-latency run, in milliseconds.
    pub warmup_ms: f64,
    /// How long each commit-latency run was meant to be measured, in seconds.
    pub duration_secs: f64,
    /// One commit-latency run per proposer count, in the order asked for.
    pub commit: Vec<CommitRun>,
    /// The failover trials.
    pub failover: FailoverResult,
}

/// One commit-latency run: `proposers` tasks each sending GetNewApplication to the leader,
/// one call at a time, for the measured duration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitRun {
    /// How many proposers ran concurrently.
    pub proposers: usize,
    /// The replica that led (and was written to) during the run.
    pub leader: String,
    /// Writes that succeeded in the measured window.
    pub ops: usize,
    /// Writes that failed in the measured window (such as refusals during an election).
    pub errors: u64,
    /// The first failure, as gRPC reported it, when there was one.
    pub first_error: Option<String>,
    /// From the end of the warm-up until the last measured write returned, in seconds.
    pub measured_secs: f64,
    /// Successful writes per second of the measured window.
    pub throughput_ops_per_sec: f64,
    /// The latencies of the successful writes; `None` when none succeeded.
    pub latency: Option<LatencySummary>,
    /// Raft terms begun from just before the run to just after it: elections, which under
    /// load mean the leader's heartbeats came too late.
    pub elections: u64,
}

impl CommitRun {
    /// The run of `proposers` proposers against `leader` that measured `samples` (the
    /// latencies of successful writes) and `errors` failures over `measured`, during which
    /// `elections` terms began.
    pub fn new(
        proposers: usize,
        leader: String,
        samples: &mut [Duration],
        errors: u64,
        first_error: Option<String>,
        measured: Duration,
        elections: u64,
    ) -> Self {
        let secs = measured.as_secs_f64();
        let throughput = if secs > 0.0 {
            samples.len() as f64 / secs
        } else {
            0.0
        };
        CommitRun {
            proposers,
            leader,
            ops: samples.len(),
            errors,
            first_error,
            measured_secs: secs,
            throughput_ops_per_sec: throughput,
            latency: LatencySummary::from_samples(samples),
            elections,
        }
    }
}

/// One failover trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailoverTrial {
    /// The leader that was killed with SIGKILL.
    pub killed: String,
    /// The surviving replica that committed the first write afterwards.
    pub new_leader: String,
    /// From just before the SIGKILL until that write returned, in milliseconds.
    pub failover_ms: f64,
}

/// Every failover trial with their summary and the verdict on [`FAILOVER_TARGET`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailoverResult {
    /// Every trial, in the order run.
    pub trials: Vec<FailoverTrial>,
    /// Their failover times; `None` without trials.
    pub summary: Option<LatencySummary>,
    /// The target for the 99th percentile, in milliseconds.
    pub target_p99_ms: f64,
    /// Whether the 99th percentile was below the target.
    pub target_met: bool,
}

impl FailoverResult {
    /// The result of `trials`, judged against [`FAILOVER_TARGET`]. Without trials the target
    /// counts as not met, since nothing shows it was.
    pub fn new(trials: Vec<FailoverTrial>) -> Self {
        let mut samples: Vec<f64> = trials.iter().map(|trial| trial.failover_ms).collect();
        let summary = LatencySummary::from_millis(&mut samples);
        let target_p99_ms = millis(FAILOVER_TARGET);
        FailoverResult {
            trials,
            summary,
            target_p99_ms,
            target_met: summary.is_some_and(|summary| summary.p99_ms < target_p99_ms),
        }
    }
}

impl RaftBenchReport {
    /// The report as pretty-printed JSON.
    ///
    /// # Errors
    ///
    /// Never in practice: every field is a plain number, string or list.
    pub fn to_json(&self) -> anyhow::Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }
}

impl fmt::Display for RaftBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let machine = &self.machine;
        writeln!(
            f,
            "yarn-ha bench raft: {} ResourceManager replicas on loopback, mutual TLS",
            self.replicas
        )?;
        writeln!(
            f,
            "machine: {} CPUs, {}, Linux {}, {} build",
            machine.cpus, machine.cpu_model, machine.kernel, machine.build_profile
        )?;
        writeln!(f)?;
        writeln!(
            f,
            "commit latency: GetNewApplication on the leader (one Raft entry, fsync'd on a \
             quorum, applied); {}s per row after {}ms of warm-up",
            self.duration_secs, self.warmup_ms
        )?;
        writeln!(
            f,
            "{:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9}  leader",
            "proposers", "writes", "writes/s", "p50 ms", "p99 ms", "max ms", "errors", "elections"
        )?;
        for run in &self.commit {
            let latency = run.latency.as_ref();
            writeln!(
                f,
                "{:>9} {:>9} {:>9.1} {:>9} {:>9} {:>9} {:>7} {:>9}  {}",
                run.proposers,
                run.ops,
                run.throughput_ops_per_sec,
                latency_cell(latency, |s| s.p50_ms),
                latency_cell(latency, |s| s.p99_ms),
                latency_cell(latency, |s| s.max_ms),
                run.errors,
                run.elections,
                run.leader
            )?;
        }
        for run in &self.commit {
            if let Some(error) = &run.first_error {
                writeln!(f, "first error with {} proposers: {error}", run.proposers)?;
            }
        }
        writeln!(f)?;
        let failover = &self.failover;
        writeln!(
            f,
            "failover: SIGKILL of the leader until a surviving replica commits a write; {} \
             trials",
            failover.trials.len()
        )?;
        let summary = failover.summary.as_ref();
        writeln!(f, "{:>9} {:>9} {:>9}", "p50 ms", "p99 ms", "max ms")?;
        writeln!(
            f,
            "{:>9} {:>9} {:>9}",
            latency_cell(summary, |s| s.p50_ms),
            latency_cell(summary, |s| s.p99_ms),
            latency_cell(summary, |s| s.max_ms)
        )?;
        let trials: Vec<String> = failover
            .trials
            .iter()
            .map(|trial| format!("{:.0}", trial.failover_ms))
            .collect();
        writeln!(f, "trials (ms, in order): {}", trials.join(" "))?;
        writeln!(
            f,
            "target: p99 under {:.0} ms: {}",
            failover.target_p99_ms,
            if failover.target_met {
                "met"
            } else {
                "NOT met"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(killed: &str, new_leader: &str, failover_ms: f64) -> FailoverTrial {
        FailoverTrial {
            killed: killed.to_owned(),
            new_leader: new_leader.to_owned(),
            failover_ms,
        }
    }

    fn report() -> RaftBenchReport {
        let mut samples: Vec<Duration> = (1..=4).map(Duration::from_millis).collect();
        RaftBenchReport {
            machine: Machine {
                cpus: 2,
                cpu_model: "Test CPU".to_owned(),
                kernel: "6.1.0".to_owned(),
                build_profile: "debug".to_owned(),
            },
            replicas: 3,
            warmup_ms: 1000.0,
            duration_secs: 5.0,
            commit: vec![
                CommitRun::new(
                    16,
                    "rm2".to_owned(),
                    &mut samples,
                    1,
                    Some("status: Unavailable".to_owned()),
                    Duration::from_secs(2),
                    2,
                ),
                CommitRun::new(
                    256,
                    "rm2".to_owned(),
                    &mut [],
                    7,
                    None,
                    Duration::from_secs(1),
                    0,
                ),
            ],
            failover: FailoverResult::new(vec![
                trial("rm2", "rm1", 512.25),
                trial("rm1", "rm3", 640.0),
            ]),
        }
    }

    #[test]
    fn a_commit_run_counts_successes_over_the_measured_window() {
        let run = &report().commit[0];
        assert_eq!((run.ops, run.errors), (4, 1));
        assert_eq!(run.throughput_ops_per_sec, 2.0);
        assert_eq!(run.measured_secs, 2.0);
        let latency = run.latency.unwrap();
        assert_eq!(
            (latency.count, latency.p50_ms, latency.max_ms),
            (4, 2.0, 4.0)
        );
        let empty = CommitRun::new(1, "rm1".to_owned(), &mut [], 0, None, Duration::ZERO, 0);
        assert_eq!((empty.throughput_ops_per_sec, empty.latency), (0.0, None));
    }

    #[test]
    fn the_failover_target_is_judged_on_the_99th_percentile() {
        let met = FailoverResult::new(vec![trial("rm1", "rm2", 600.0), trial("rm2", "rm3", 999.0)]);
        assert!(met.target_met);
        assert_eq!(met.target_p99_ms, 1000.0);
        assert_eq!(met.summary.unwrap().p99_ms, 999.0);
        let missed = FailoverResult::new(vec![trial("rm1", "rm2", 1000.0)]);
        assert!(!missed.target_met);
        let none = FailoverResult::new(Vec::new());
        assert_eq!((none.summary, none.target_met), (None, false));
    }

    #[test]
    fn the_table_shows_every_run_trial_and_the_verdict() {
        let table = report().to_string();
        let lines: Vec<&str> = table.lines().collect();
        assert!(
            lines[1].contains("2 CPUs, Test CPU, Linux 6.1.0, debug build"),
            "{table}"
        );
        let row16 = lines
            .iter()
            .find(|l| l.trim_start().starts_with("16 "))
            .unwrap();
        let cells: Vec<&str> = row16.split_whitespace().collect();
        assert_eq!(
            cells,
            ["16", "4", "2.0", "2.00", "4.00", "4.00", "1", "2", "rm2"]
        );
        let row256 = lines
            .iter()
            .find(|l| l.trim_start().starts_with("256 "))
            .unwrap();
        let cells: Vec<&str> = row256.split_whitespace().collect();
        assert_eq!(cells, ["256", "0", "0.0", "-", "-", "-", "7", "0", "rm2"]);
        assert!(
            table.contains("first error with 16 proposers: status: Unavailable"),
            "{table}"
        );
        assert!(table.contains("trials (ms, in order): 512 640"), "{table}");
        assert!(table.contains("p99 under 1000 ms: met"), "{table}");
    }

    #[test]
    fn the_json_round_trips_with_the_documented_names() {
        let report = report();
        let json = report.to_json().unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["commit"][0]["proposers"], 16);
        assert_eq!(value["commit"][0]["elections"], 2);
        assert_eq!(value["commit"][0]["latency"]["p99_ms"], 4.0);
        assert!(value["commit"][1]["latency"].is_null());
        assert_eq!(value["failover"]["trials"][1]["failover_ms"], 640.0);
        assert_eq!(value["failover"]["summary"]["count"], 2);
        assert_eq!(value["failover"]["target_met"], true);
        let parsed: RaftBenchReport = serde_json::from_str(&json).unwrap();
        assert_eq!(parsed, report);
    }
}
