//! `yarn-ha chaos run --faults add-remove-rm` end to end: a spare ResourceManager joins the
//! Raft group under load, twice (the second time on wiped storage under the same id), and is
//! removed again each time; the run passes with every core invariant held, the spare's log is
//! among the scanned ones, and no process of the run outlives it.
//!
//! The daemons and the run itself are the `yarn-ha` binary of the workspace's root package:
//! `cargo test --workspace` builds it first; run alone, build it (`cargo build -p yarn-ha`) or
//! point `YARN_HA_EXE` at one.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{RunOutput, run_to_end, tail};
use yarn_chaos::{ChaosReport, Fault, FaultStatus, Invariant, Verdict, kill_leftovers};

/// How long the whole run may take: 10 s of faults plus start, two membership changes, drain
/// and stop.
const RUN_DEADLINE: Duration = Duration::from_secs(300);

/// Seed 16 over 10 s draws two changes (at 3 s and 7.9 s, held 2.9 s and 2.1 s), so the second
/// adds the same spare again after its removal.
const SEED: &str = "16";

/// The pids of the processes (other than this one) working under `dir`.
fn working_under(dir: &Path) -> Vec<u32> {
    let own = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != own)
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
        })
        .collect()
}

/// Kills whatever still works under the test's directory when the test ends, passed or not:
/// the run starts there, so its daemons (which inherit its working directory), the spare and
/// every container work under it.
struct KillOnDrop<'a>(&'a Path);

impl Drop for KillOnDrop<'_> {
    fn drop(&mut self) {
        kill_leftovers(self.0);
    }
}

#[test]
fn a_spare_joins_and_leaves_the_group_under_load_and_every_invariant_holds() {
    let dir = tempfile::tempdir().unwrap();
    let _cleanup = KillOnDrop(dir.path());
    let report_file = dir.path().join("report.json");
    let run_dir = dir.path().join("run");
    let RunOutput {
        status,
        stdout,
        stderr,
    } = run_to_end(
        dir.path(),
        &[
            "chaos",
            "run",
            "--profile",
            "ci",
            "--duration",
            "10s",
            "--seed",
            SEED,
            "--faults",
            "add-remove-rm",
            "--drain",
            "60s",
            "--report",
            report_file.to_str().unwrap(),
            "--dir",
            run_dir.to_str().unwrap(),
        ],
        RUN_DEADLINE,
    );
    assert!(
        status.success(),
        "chaos run failed ({status}):\n{stdout}\n--- stderr (tail):\n{}",
        tail(&stderr)
    );
    assert!(stdout.contains("result: PASSED"), "{stdout}");

    let report: ChaosReport =
        serde_json::from_str(&std::fs::read_to_string(&report_file).unwrap()).unwrap();
    assert!(report.passed, "{stdout}");
    assert_eq!(report.settings.faults, [Fault::AddRemoveRm]);
    assert_eq!(report.timeline.len(), 2, "{stdout}");
    for entry in &report.timeline {
        assert_eq!(entry.fault, Fault::AddRemoveRm);
        assert_eq!(entry.status, FaultStatus::Injected, "{stdout}");
        assert_eq!(entry.target.as_deref(), Some("rm4"));
        assert!(!entry.targets_leader);
        assert!(entry.healed_at_ms.is_some());
        assert_eq!(entry.heal_error, None, "{stdout}");
        // Started, a voter, following, removed, stopped: in that order, while injected.
        let order: Vec<usize> = [
            "rm4 started on empty storage",
            "rm4 is a voter, added by",
            "rm4 follows",
            "rm4 removed by",
            "rm4 stopped",
        ]
        .iter()
        .map(|step| {
            entry
                .steps
                .iter()
                .position(|recorded| recorded.what.starts_with(step))
                .unwrap_or_else(|| panic!("no step {step:?}: {:#?}\n{stdout}", entry.steps))
        })
        .collect();
        assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{order:?}");
        let voter = &entry.steps[order[1]];
        assert!(voter.what.contains("rm1, rm2, rm3, rm4"), "{}", voter.what);
        let removed = &entry.steps[order[3]];
        assert!(
            removed.what.ends_with("(voters rm1, rm2, rm3)"),
            "{}",
            removed.what
        );
        assert!(entry.steps[order[0]].at_ms >= entry.injected_at_ms.unwrap());
        assert!(entry.steps[order[4]].at_ms <= entry.healed_at_ms.unwrap());
    }

    assert!(report.settled.is_ok(), "{stdout}");
    assert!(report.workload.submissions_acknowledged > 0, "{stdout}");
    for result in &report.invariants {
        let must_hold = matches!(
            result.invariant,
            Invariant::SingleLeaderPerTerm
                | Invariant::AcknowledgedSubmissionsSurvive
                | Invariant::UniqueContainerIds
                | Invariant::GuaranteedWithinCapacity
                | Invariant::SurvivingAmsSucceed
                | Invariant::ReplicasConverge
                | Invariant::NoPanics
        );
        match &result.verdict {
            Verdict::Held(_) => {}
            Verdict::NotExercised(_) if !must_hold => {}
            other => panic!("{}: {other:?}\n{stdout}", result.invariant),
        }
    }

    // The spare logged both starts, and its log is the report's, so no-panics read it.
    let spare_log = report
        .files
        .daemon_logs
        .get("rm4")
        .unwrap_or_else(|| panic!("no log of the spare in {:?}", report.files.daemon_logs));
    let log = std::fs::read_to_string(spare_log).unwrap();
    assert_eq!(log.matches("starting the spare rm4").count(), 2, "{log}");

    // Nothing the run started works on: daemons, the spare, containers.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = working_under(dir.path());
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "processes left running: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
