//! The results of `yarn-ha bench allocate`: the figures, their JSON form and their table.

use std::fmt;

use serde::{Deserialize, Serialize};
use yarn_minicluster::LatencySummary;

use crate::allocation_path::AllocationPath;
use crate::latency_cell::latency_cell;
use crate::machine::Machine;
use crate::task_stream_run::TaskStreamRun;

/// The task-throughput gain Mercury (Karanasos et al., USENIX ATC 2015) reports for short
/// tasks from queuing them at the nodes, in percent: the published figure to compare with.
pub const MERCURY_GAIN_PERCENT: f64 = 35.0;

/// The OPPORTUNISTIC shares the simulation runs, in percent, the first being the baseline.
pub const OPPORTUNISTIC_SHARES: [u32; 3] = [0, 50, 100];

/// Everything one run of `yarn-ha bench allocate` measured, with the settings and the machine.
/// Serialises to the JSON of `--json`; its `Display` is the table printed otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocateBenchReport {
    /// The machine and build.
    pub machine: Machine,
    /// ResourceManager replicas per latency cluster.
    pub replicas: usize,
    /// NodeManagers per latency cluster.
    pub nodes: usize,
    /// Measured rounds per allocation path.
    pub rounds: usize,
    /// Containers asked for in each round.
    pub containers: u32,
    /// One entry per allocation path, in [`AllocationPath::ALL`] order.
    pub latency: Vec<AllocationLatency>,
    /// The simulated task stream.
    pub throughput: ThroughputResult,
}

/// The allocation latency of one path: one ApplicationMaster's rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocationLatency {
    /// Who placed the containers.
    pub path: AllocationPath,
    /// The application whose ApplicationMaster measured.
    pub application_id: String,
    /// The unrecorded warm-up round, in milliseconds.
    pub warmup_ms: f64,
    /// Every measured round, in order, in milliseconds.
    pub samples_ms: Vec<f64>,
    /// Their summary; `None` without samples.
    pub summary: Option<LatencySummary>,
    /// How the leader's OPPORTUNISTIC counters grew during the run.
    pub counters: OpportunisticCounterGrowth,
}

/// How much the leader's OPPORTUNISTIC counters (in its cluster metrics) grew during one
/// ApplicationMaster's run: which shows who placed its containers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpportunisticCounterGrowth {
    /// Containers asked of the RM's own allocator.
    pub requested_centrally: i64,
    /// Containers the RM's allocator placed.
    pub allocated_centrally: i64,
    /// Containers AMRMProxies placed and recorded with the RM.
    pub allocated_distributed: i64,
}

impl AllocationLatency {
    /// The latency of `path` from `samples_ms`, with the RM's counter growth during the run.
    pub fn new(
        path: AllocationPath,
        application_id: String,
        warmup_ms: f64,
        samples_ms: Vec<f64>,
        counters: OpportunisticCounterGrowth,
    ) -> Self {
        let summary = LatencySummary::from_millis(&mut samples_ms.clone());
        AllocationLatency {
            path,
            application_id,
            warmup_ms,
            samples_ms,
            summary,
            counters,
        }
    }

    /// Whether the RM's counters show the containers took the path named, for `wanted`
    /// OPPORTUNISTIC containers at least: on the distributed path none asked of or placed by
    /// the RM and at least `wanted` placed by proxies; on the centralized path at least
    /// `wanted` placed by the RM and none by proxies; GUARANTEED runs touch no counter.
    pub fn path_confirmed(&self, wanted: i64) -> bool {
        let counters = &self.counters;
        match self.path {
            AllocationPath::Guaranteed
            | AllocationPath::GuaranteedDirect
            | AllocationPath::GuaranteedHadoopIpc => {
                *counters == OpportunisticCounterGrowth::default()
            }
            AllocationPath::DistributedOpportunistic => {
                counters.requested_centrally == 0
                    && counters.allocated_centrally == 0
                    && counters.allocated_distributed >= wanted
            }
            AllocationPath::CentralizedOpportunistic => {
                counters.allocated_centrally >= wanted && counters.allocated_distributed == 0
            }
        }
    }
}

/// The simulated stream of short tasks at every OPPORTUNISTIC share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThroughputResult {
    /// Simulated NodeManagers.
    pub nodes: usize,
    /// Slots of `slot_mb` per node.
    pub slots_per_node: u32,
    /// Memory of a slot, and of every task's container, in MB.
    pub slot_mb: u64,
    /// How long every task runs, in milliseconds.
    pub task_ms: u64,
    /// Simulated seconds per share.
    pub seconds: u64,
    /// The first simulated seconds, not counted.
    pub warmup_seconds: u64,
    /// One run per share of [`OPPORTUNISTIC_SHARES`], in that order.
    pub runs: Vec<TaskStreamRun>,
    /// [`MERCURY_GAIN_PERCENT`].
    pub mercury_gain_percent: f64,
}

impl ThroughputResult {
    /// The throughput gain of `run` over the all-GUARANTEED run, in percent; `None` without
    /// such a run or when it completed nothing.
    pub fn gain(&self, run: &TaskStreamRun) -> Option<f64> {
        let baseline = self.runs.iter().find(|r| r.opportunistic_percent == 0)?;
        run.gain_over(baseline)
    }
}

impl AllocateBenchReport {
    /// The report as pretty-printed JSON.
    ///
    /// # Errors
    ///
    /// Never in practice: every field is a plain number, string or list.
    pub fn to_json(&self) -> anyhow::Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }
}

impl fmt::Display for AllocateBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let machine = &self.machine;
        writeln!(
            f,
            "yarn-ha bench allocate: {} ResourceManager replicas and {} NodeManagers per \
             cluster on loopback, mutual TLS (Hadoop IPC: SASL TOKEN, unencrypted)",
            self.replicas, self.nodes
        )?;
        writeln!(
            f,
            "machine: {} CPUs, {}, Linux {}, {} build",
            machine.cpus, machine.cpu_model, machine.kernel, machine.build_profile
        )?;
        writeln!(f)?;
        writeln!(
            f,
            "allocation latency: from the allocate call that sent an ask for {} containers \
             until all are in hand; {} rounds per path after one warm-up round",
            self.containers, self.rounds
        )?;
        writeln!(
            f,
            "{:<26} {:>6} {:>9} {:>9} {:>9} {:>10}  RM counters",
            "path", "rounds", "p50 ms", "p99 ms", "max ms", "warm-up ms"
        )?;
        for latency in &self.latency {
            let summary = latency.summary.as_ref();
            writeln!(
                f,
                "{:<26} {:>6} {:>9} {:>9} {:>9} {:>10.2}  OPPORTUNISTIC placed by the RM +{}, by proxies +{}",
                latency.path.to_string(),
                latency.samples_ms.len(),
                latency_cell(summary, |s| s.p50_ms),
                latency_cell(summary, |s| s.p99_ms),
                latency_cell(summary, |s| s.max_ms),
                latency.warmup_ms,
                latency.counters.allocated_centrally,
                latency.counters.allocated_distributed
            )?;
        }
        writeln!(f)?;
        let throughput = &self.throughput;
        writeln!(
            f,
            "task throughput (simulated): {} NodeManagers x {} slots of {} MB, {} ms tasks, {} s \
             per row, the first {} s not counted",
            throughput.nodes,
            throughput.slots_per_node,
            throughput.slot_mb,
            throughput.task_ms,
            throughput.seconds,
            throughput.warmup_seconds
        )?;
        writeln!(
            f,
            "{:>15} {:>9} {:>13} {:>8} {:>12} {:>16} {:>7} {:>8} {:>6}",
            "opportunistic %",
            "tasks/s",
            "utilization %",
            "gain %",
            "done GUAR.",
            "done OPPORTUN.",
            "killed",
            "refused",
            "shed"
        )?;
        for run in &throughput.runs {
            let gain = throughput
                .gain(run)
                .map_or_else(|| "-".to_owned(), |gain| format!("{gain:+.1}"));
            writeln!(
                f,
                "{:>15} {:>9.1} {:>13.1} {:>8} {:>12} {:>16} {:>7} {:>8} {:>6}",
                run.opportunistic_percent,
                run.tasks_per_second,
                run.utilization * 100.0,
                gain,
                run.completed_guaranteed,
                run.completed_opportunistic,
                run.killed_opportunistic,
                run.rejected_opportunistic,
                run.shed_opportunistic
            )?;
        }
        let best = throughput
            .runs
            .iter()
            .filter_map(|run| Some((throughput.gain(run)?, run.opportunistic_percent)))
            .filter(|(_, percent)| *percent > 0)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        match best {
            Some((gain, percent)) => writeln!(
                f,
                "Mercury's published gain for short tasks: {:.0}%; best here: {gain:+.1}% at {percent}% \
                 OPPORTUNISTIC ({})",
                throughput.mercury_gain_percent,
                if gain >= throughput.mercury_gain_percent {
                    "beaten"
                } else {
                    "NOT beaten"
                }
            ),
            None => writeln!(
                f,
                "Mercury's published gain for short tasks: {:.0}%; no OPPORTUNISTIC share ran",
                throughput.mercury_gain_percent
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(percent: u32, tasks_per_second: f64) -> TaskStreamRun {
        TaskStreamRun {
            opportunistic_percent: percent,
            tasks_per_second,
            utilization: tasks_per_second / 160.0,
            completed_guaranteed: 100 - u64::from(percent),
            completed_opportunistic: u64::from(percent),
            killed_opportunistic: 7,
            rejected_opportunistic: 8,
            shed_opportunistic: 9,
        }
    }

    fn report() -> AllocateBenchReport {
        AllocateBenchReport {
            machine: Machine {
                cpus: 2,
                cpu_model: "Test CPU".to_owned(),
                kernel: "6.1.0".to_owned(),
                build_profile: "debug".to_owned(),
            },
            replicas: 3,
            nodes: 2,
            rounds: 3,
            containers: 10,
            latency: vec![
                AllocationLatency::new(
                    AllocationPath::Guaranteed,
                    "application_1_0001".to_owned(),
                    90.0,
                    vec![30.0, 10.0, 20.0],
                    OpportunisticCounterGrowth::default(),
                ),
                AllocationLatency::new(
                    AllocationPath::DistributedOpportunistic,
                    "application_1_0002".to_owned(),
                    50.0,
                    vec![2.5, 1.5, 3.5],
                    OpportunisticCounterGrowth {
                        allocated_distributed: 40,
                        ..OpportunisticCounterGrowth::default()
                    },
                ),
                AllocationLatency::new(
                    AllocationPath::CentralizedOpportunistic,
                    "application_2_0001".to_owned(),
                    50.0,
                    Vec::new(),
                    OpportunisticCounterGrowth {
                        requested_centrally: 40,
                        allocated_centrally: 40,
                        allocated_distributed: 0,
                    },
                ),
            ],
            throughput: ThroughputResult {
                nodes: 20,
                slots_per_node: 8,
                slot_mb: 1024,
                task_ms: 1000,
                seconds: 300,
                warmup_seconds: 10,
                runs: vec![run(0, 80.0), run(50, 124.0), run(100, 96.0)],
                mercury_gain_percent: MERCURY_GAIN_PERCENT,
            },
        }
    }

    fn row<'a>(table: &'a str, start: &str) -> Vec<&'a str> {
        table
            .lines()
            .find(|line| line.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no row {start:?} in\n{table}"))
            .split_whitespace()
            .collect()
    }

    #[test]
    fn the_table_names_every_path_and_share_with_its_figures() {
        let table = report().to_string();
        assert!(
            table.contains("2 CPUs, Test CPU, Linux 6.1.0, debug build"),
            "{table}"
        );
        assert_eq!(
            row(&table, "GUARANTEED via AMRMProxy")[..8],
            [
                "GUARANTEED",
                "via",
                "AMRMProxy",
                "3",
                "20.00",
                "30.00",
                "30.00",
                "90.00"
            ]
        );
        assert_eq!(
            row(&table, "OPPORTUNISTIC distributed")[..7],
            [
                "OPPORTUNISTIC",
                "distributed",
                "3",
                "2.50",
                "3.50",
                "3.50",
                "50.00"
            ]
        );
        assert_eq!(
            row(&table, "OPPORTUNISTIC centralized")[..6],
            ["OPPORTUNISTIC", "centralized", "0", "-", "-", "-"]
        );
        assert_eq!(row(&table, "0 ")[..4], ["0", "80.0", "50.0", "+0.0"]);
        assert_eq!(row(&table, "50 ")[..4], ["50", "124.0", "77.5", "+55.0"]);
        assert_eq!(row(&table, "100 ")[..4], ["100", "96.0", "60.0", "+20.0"]);
        assert!(
            table.contains("published gain for short tasks: 35%; best here: +55.0% at 50% OPPORTUNISTIC (beaten)"),
            "{table}"
        );
    }

    #[test]
    fn the_counters_confirm_each_path() {
        let report = report();
        for latency in &report.latency {
            assert!(latency.path_confirmed(30), "{latency:?}");
        }
        let mut wrong = report.latency[1].clone();
        wrong.counters.requested_centrally = 1;
        assert!(!wrong.path_confirmed(30));
        let mut short = report.latency[2].clone();
        short.counters.allocated_centrally = 29;
        assert!(!short.path_confirmed(30));
        let mut proxied = report.latency[0].clone();
        proxied.counters.allocated_distributed = 1;
        assert!(!proxied.path_confirmed(30));
    }

    #[test]
    fn the_json_round_trips_with_the_documented_names() {
        let report = report();
        let json = report.to_json().unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["latency"][0]["path"], "Guaranteed");
        assert_eq!(value["latency"][1]["summary"]["p50_ms"], 2.5);
        assert!(value["latency"][2]["summary"].is_null());
        assert_eq!(value["throughput"]["runs"][2]["opportunistic_percent"], 100);
        assert_eq!(value["throughput"]["mercury_gain_percent"], 35.0);
        let parsed: AllocateBenchReport = serde_json::from_str(&json).unwrap();
        assert_eq!(parsed, report);
    }
}
