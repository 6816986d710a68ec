//! `yarn-ha chaos run` end to end: a short CI-profile run against real processes exits 0 and
//! writes a well-formed report in which no invariant was violated and the core ones held.
//!
//! The daemons and the run itself are the `yarn-ha` binary, which lives in the workspace's root
//! package: `cargo test --workspace` builds it before running this test. Run alone, build it
//! first (`cargo build -p yarn-ha`), or point `YARN_HA_EXE` at one.

mod common;

use std::time::Duration;

use common::{RunOutput, run_to_end, tail};
use yarn_chaos::{ChaosReport, FaultStatus, Invariant, Verdict};

/// How long the whole run may take: 25 s of faults plus start, drain and stop.
const RUN_DEADLINE: Duration = Duration::from_secs(300);

#[test]
fn a_short_ci_run_passes_with_every_invariant_checked() {
    let dir = tempfile::tempdir().unwrap();
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
            "25s",
            "--seed",
            "11",
            "--faults",
            "kill-leader,isolate-leader,pause-nm",
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
    assert!(stdout.starts_with("chaos run: seed 11"), "{stdout}");
    assert!(stdout.contains("result: PASSED"), "{stdout}");

    let report: ChaosReport =
        serde_json::from_str(&std::fs::read_to_string(&report_file).unwrap()).unwrap();
    assert!(report.passed);
    assert_eq!(report.settings.seed, 11);
    assert_eq!((report.settings.rms, report.settings.nms), (3, 2));
    assert!(
        report
            .timeline
            .iter()
            .any(|entry| entry.status == FaultStatus::Injected),
        "{stdout}"
    );
    assert!(report.settled.is_ok(), "{stdout}");
    assert!(report.workload.submissions_acknowledged > 0, "{stdout}");
    assert_eq!(report.invariants.len(), Invariant::ALL.len());
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
    for file in [
        &report.files.report,
        &report.files.history,
        &report.files.observations,
    ] {
        assert!(file.is_file(), "{} missing", file.display());
    }
    for log in report.files.daemon_logs.values() {
        assert!(log.is_file(), "{} missing", log.display());
    }
}
