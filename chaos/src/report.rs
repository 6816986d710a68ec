//! [`ChaosReport`]: the outcome of a run, as JSON and as a summary for people.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use yarn_minicluster::LatencySummary;
use yarn_rm_ha::storage::FAILPOINTS_VARIABLE;

use crate::disk_mode::DiskMode;
use crate::failover::Failover;
use crate::fault::Fault;
use crate::invariants::{InvariantResult, seconds};
use crate::network_mode::NetworkMode;
use crate::options::DEFAULT_DRAIN_DEADLINE;
use crate::profile::Profile;
use crate::timeline::{FaultStatus, TimelineEntry};

/// What a run was asked to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// The seed of the schedule and the workload.
    pub seed: u64,
    /// The profile the settings started from.
    pub profile: Profile,
    /// ResourceManagers.
    pub rms: usize,
    /// NodeManagers.
    pub nms: usize,
    /// How long faults were injected, in milliseconds.
    pub duration_ms: u64,
    /// The faults the schedule drew from.
    pub faults: Vec<Fault>,
    /// Jobs running at once.
    pub concurrent_jobs: usize,
    /// How long jobs could take to finish after the faults, in milliseconds; 0 in reports
    /// written before it was recorded.
    #[serde(default)]
    pub drain_ms: u64,
    /// `YARN_HA_FAILPOINTS` as every daemon started with it (from the options' daemon
    /// environment, or inherited from the harness's own): a run with failpoints armed in every
    /// replica (a planted bug) says so here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daemon_failpoints: Option<String>,
    /// How network faults were made; the proxies in reports written before it was recorded.
    #[serde(default)]
    pub network: NetworkMode,
    /// What the replicas' Raft storage lay on; real disks in reports written before it was
    /// recorded.
    #[serde(default)]
    pub disks: DiskMode,
}

impl RunSettings {
    /// The command that repeats this run's fault schedule.
    pub fn rerun_command(&self) -> String {
        let armed = self
            .daemon_failpoints
            .as_ref()
            .map(|failpoints| format!("{FAILPOINTS_VARIABLE}={failpoints} "))
            .unwrap_or_default();
        let mut command = format!(
            "{armed}yarn-ha chaos run --profile {} --seed {} --rms {} --nms {} --duration {}s",
            self.profile,
            self.seed,
            self.rms,
            self.nms,
            self.duration_ms / 1000
        );
        if self.faults.len() < Fault::ALL.len() {
            let names: Vec<&str> = self.faults.iter().map(|f| f.name()).collect();
            command.push_str(&format!(" --faults {}", names.join(",")));
        }
        let default_drain = u64::try_from(DEFAULT_DRAIN_DEADLINE.as_millis()).unwrap_or(0);
        if self.drain_ms != 0 && self.drain_ms != default_drain {
            command.push_str(&format!(" --drain {}ms", self.drain_ms));
        }
        if self.network != NetworkMode::default() {
            command.push_str(&format!(" --network {}", self.network));
        }
        if self.disks != DiskMode::default() {
            command.push_str(&format!(" --disks {}", self.disks));
        }
        command
    }
}

/// How much work the run did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkloadSummary {
    /// Operations by kind: (succeeded, failed).
    pub operations: BTreeMap<String, (u64, u64)>,
    /// Applications whose submission was acknowledged.
    pub submissions_acknowledged: usize,
    /// Acknowledged applications by their state after healing.
    pub applications: BTreeMap<String, usize>,
    /// Writes the prober got committed.
    pub probe_writes: usize,
    /// Replica status changes the leader observer recorded.
    pub leader_observations: usize,
    /// Container listings the node observer recorded.
    pub node_snapshots: usize,
}

/// Where a run's files are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportFiles {
    /// The run's directory, kept after the run.
    pub dir: PathBuf,
    /// This report as JSON.
    pub report: PathBuf,
    /// The workload's history as JSON.
    pub history: PathBuf,
    /// The observations as JSON.
    pub observations: PathBuf,
    /// The daemons' logs, by daemon id.
    pub daemon_logs: BTreeMap<String, PathBuf>,
    /// Where containers' logs are, by NodeManager.
    pub container_logs: BTreeMap<String, PathBuf>,
}

/// The outcome of a chaos run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChaosReport {
    /// What was asked.
    pub settings: RunSettings,
    /// Whether every invariant held (or was not exercised): the run's exit status.
    pub passed: bool,
    /// Every scheduled fault and what became of it.
    pub timeline: Vec<TimelineEntry>,
    /// Every fault that took the leader away, with its unavailability.
    pub failovers: Vec<Failover>,
    /// Percentiles of the failovers' unavailability (from the fault to the first committed
    /// write), when any was measured; crashes of the whole group (`kill-all-rms`) are left out.
    pub unavailability: Option<LatencySummary>,
    /// Every invariant with its verdict and evidence.
    pub invariants: Vec<InvariantResult>,
    /// How much work ran.
    pub workload: WorkloadSummary,
    /// Whether the cluster settled after healing, or why not.
    pub settled: Result<(), String>,
    /// Where the files are.
    pub files: ReportFiles,
    /// How long the run took, start to end, in seconds.
    pub wall_seconds: f64,
}

impl ChaosReport {
    /// The report as pretty JSON.
    ///
    /// # Errors
    ///
    /// When serialization fails, which the report's types do not allow.
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }
}

impl fmt::Display for ChaosReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let settings = &self.settings;
        writeln!(
            f,
            "chaos run: seed {}, profile {}, {} ResourceManagers, {} NodeManagers, {} s of \
             faults, {:.0} s in all",
            settings.seed,
            settings.profile,
            settings.rms,
            settings.nms,
            settings.duration_ms / 1000,
            self.wall_seconds
        )?;
        if let Some(failpoints) = &settings.daemon_failpoints {
            writeln!(
                f,
                "every daemon ran with {FAILPOINTS_VARIABLE}={failpoints}"
            )?;
        }
        let injected = self
            .timeline
            .iter()
            .filter(|entry| entry.status == FaultStatus::Injected)
            .count();
        writeln!(
            f,
            "faults: {} scheduled, {injected} injected",
            self.timeline.len()
        )?;
        for entry in &self.timeline {
            write!(
                f,
                "  #{:<3} {:>8} {:<20}",
                entry.seq,
                seconds(entry.injected_at_ms.unwrap_or(entry.scheduled_at_ms)),
                entry.fault.name()
            )?;
            match entry.status {
                FaultStatus::Injected => {
                    write!(f, " {}", entry.target.as_deref().unwrap_or("-"))?;
                    if let Some(healed) = entry.healed_at_ms {
                        write!(f, ", healed at {}", seconds(healed))?;
                    }
                    if let Some(note) = &entry.reason {
                        write!(f, " ({note})")?;
                    }
                    if let Some(error) = &entry.heal_error {
                        write!(f, ", heal failed: {error}")?;
                    }
                }
                FaultStatus::Skipped | FaultStatus::Failed => {
                    let label = if entry.status == FaultStatus::Skipped {
                        "skipped"
                    } else {
                        "FAILED"
                    };
                    write!(f, " {label}: {}", entry.reason.as_deref().unwrap_or("-"))?;
                }
            }
            writeln!(f)?;
            for step in &entry.steps {
                writeln!(f, "         {:>8} {}", seconds(step.at_ms), step.what)?;
            }
        }
        match &self.unavailability {
            Some(summary) => writeln!(
                f,
                "failovers: {}; unavailability (fault to first committed write) p50 {:.0} ms, \
                 p99 {:.0} ms, max {:.0} ms",
                self.failovers.len(),
                summary.p50_ms,
                summary.p99_ms,
                summary.max_ms
            )?,
            None => writeln!(f, "failovers: {}; none measured", self.failovers.len())?,
        }
        for failover in &self.failovers {
            match (failover.unavailable_ms, &failover.first_writer) {
                (Some(ms), Some(writer)) if failover.leader_changed() => writeln!(
                    f,
                    "  #{:<3} {:<20} {} -> {writer}: {ms} ms",
                    failover.seq,
                    failover.fault.name(),
                    failover.old_leader
                )?,
                (Some(ms), Some(_)) => writeln!(
                    f,
                    "  #{:<3} {:<20} {} kept leading: {ms} ms without a commit",
                    failover.seq,
                    failover.fault.name(),
                    failover.old_leader
                )?,
                _ => writeln!(
                    f,
                    "  #{:<3} {:<20} {}: no write committed afterwards",
                    failover.seq,
                    failover.fault.name(),
                    failover.old_leader
                )?,
            }
        }
        let workload = &self.workload;
        let states: Vec<String> = workload
            .applications
            .iter()
            .map(|(state, count)| format!("{count} {state}"))
            .collect();
        let (ok, failed) = workload
            .operations
            .values()
            .fold((0, 0), |(ok, failed), (o, e)| (ok + o, failed + e));
        writeln!(
            f,
            "workload: {} applications acknowledged ({}), {ok} operations succeeded, {failed} \
             failed or timed out, {} probe writes",
            workload.submissions_acknowledged,
            if states.is_empty() {
                "none ended".to_owned()
            } else {
                states.join(", ")
            },
            workload.probe_writes
        )?;
        if let Err(why) = &self.settled {
            writeln!(f, "settling after healing: {why}")?;
        }
        writeln!(f, "invariants:")?;
        for result in &self.invariants {
            writeln!(
                f,
                "  {:<14} {}: {}",
                result.verdict.label(),
                result.invariant,
                result.verdict.evidence()
            )?;
        }
        let violated = self
            .invariants
            .iter()
            .filter(|result| !result.verdict.passed())
            .count();
        if self.passed {
            writeln!(f, "result: PASSED (no invariant violated)")?;
        } else {
            writeln!(f, "result: FAILED ({violated} invariants violated)")?;
        }
        writeln!(f, "rerun: {}", self.settings.rerun_command())?;
        writeln!(
            f,
            "files: report {}, history {}, observations {}, logs {}",
            self.files.report.display(),
            self.files.history.display(),
            self.files.observations.display(),
            self.files
                .daemon_logs
                .values()
                .next()
                .and_then(|log| log.parent())
                .map_or_else(|| "-".to_owned(), |dir| dir.display().to_string())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> RunSettings {
        RunSettings {
            seed: 7,
            profile: Profile::Ci,
            rms: 3,
            nms: 2,
            duration_ms: 20_000,
            faults: vec![Fault::IsolateLeader, Fault::CutNm],
            concurrent_jobs: 2,
            drain_ms: 40_000,
            daemon_failpoints: Some("storage.stall=1ms".into()),
            network: NetworkMode::Netns,
            disks: DiskMode::Volatile,
        }
    }

    #[test]
    fn the_rerun_command_repeats_every_setting_that_shapes_the_run() {
        assert_eq!(
            settings().rerun_command(),
            "YARN_HA_FAILPOINTS=storage.stall=1ms yarn-ha chaos run --profile ci --seed 7 --rms 3 \
             --nms 2 --duration 20s --faults isolate-leader,cut-nm --drain 40000ms --network netns \
             --disks volatile"
        );
        let proxied = RunSettings {
            network: NetworkMode::Proxy,
            daemon_failpoints: None,
            disks: DiskMode::Real,
            ..settings()
        };
        assert!(!proxied.rerun_command().contains("--network"));
        assert!(!proxied.rerun_command().contains("--disks"));
    }
}
