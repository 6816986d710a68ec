//! `yarn-ha chaos run` end to end: a short CI-profile run against real processes exits 0 and
//! writes a well-formed report in which no invariant was violated and the core ones held.
//!
//! The daemons and the run itself are the `yarn-ha` binary, which lives in the workspace's root
//! package: `cargo test --workspace` builds it before running this test. Run alone, build it
//! first (`cargo build -p yarn-ha`), or point `YARN_HA_EXE` at one.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use yarn_chaos::harness::{ChaosReport, FaultStatus, Invariant, Verdict};

/// How long the whole run may take: 25 s of faults plus start, drain and stop.
const RUN_DEADLINE: Duration = Duration::from_secs(300);

/// The `yarn-ha` binary: `YARN_HA_EXE`, or the one cargo built beside this test.
fn yarn_ha() -> PathBuf {
    if let Some(exe) = std::env::var_os("YARN_HA_EXE") {
        return PathBuf::from(exe);
    }
    // target/<profile>/deps/chaos_run-<hash> -> target/<profile>/yarn-ha
    let test = std::env::current_exe().expect("the test knows its own path");
    let exe = test
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("yarn-ha"))
        .expect("the test runs from a cargo target directory");
    assert!(
        exe.is_file(),
        "{} is missing: build it with `cargo build -p yarn-ha` (cargo test --workspace does) or \
         set YARN_HA_EXE",
        exe.display()
    );
    exe
}

#[test]
fn a_short_ci_run_passes_with_every_invariant_checked() {
    let dir = tempfile::tempdir().unwrap();
    let report_file = dir.path().join("report.json");
    let run_dir = dir.path().join("run");
    let mut child = Command::new(yarn_ha())
        .args([
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
        ])
        .arg(&report_file)
        .arg("--dir")
        .arg(&run_dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.path().join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.path().join("stderr")).unwrap())
        .spawn()
        .expect("start yarn-ha chaos run");
    let deadline = Instant::now() + RUN_DEADLINE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("chaos run took longer than {RUN_DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stdout = std::fs::read_to_string(dir.path().join("stdout")).unwrap();
    let stderr = std::fs::read_to_string(dir.path().join("stderr")).unwrap();
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

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}
