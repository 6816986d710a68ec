//! The chaos harness proves its checkers and its disk faults on real processes, with the
//! failpoints that test builds of `yarn-ha` carry (the root package's dev-dependencies turn on
//! `yarn-rm-ha`'s `failpoints` feature; `cargo build` leaves it out).
//!
//! - A bug planted in every ResourceManager (`plant.reissue-container-id`: after a failover the
//!   new leader issues container ids again and the state machine does not re-validate them)
//!   must fail the run, with `unique-container-ids` violated.
//! - A bug planted in every ResourceManager (`plant.unflushed-appends`: Raft log appends are
//!   acknowledged before they are flushed) must fail a run that crashes the whole group
//!   (`kill-all-rms`), with `acknowledged-submissions-survive` violated; the same run without
//!   it passes.
//! - A ResourceManager whose disk stalls (`stall-disk`) must leave every invariant intact.
//! - On volatile disks (`--disks volatile`: each replica's Raft storage a FUSE file system of
//!   the harness that keeps writes in memory until they are fsync'd), a bug planted in every
//!   ResourceManager (`plant.unsynced-appends`: Raft writes acknowledged after sled's own flush,
//!   whose `sync_file_range` reaches no stable storage) survives a crash of every process
//!   (`kill-all-rms`) and must fail a run that cuts the power of the whole group
//!   (`power-loss-all-rms`), with `acknowledged-submissions-survive` violated; without it, power
//!   losses of one replica and of the group must lose nothing. Mounting needs root and
//!   /dev/fuse: where the host lacks them (`cargo test` as a user) the run must be refused with a
//!   message that says so. As root with /dev/fuse (as `.ci/run` runs) the runs must happen.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use common::{stderr, stdout, yarn_ha};
use yarn_chaos::{
    ChaosOptions, ChaosReport, DiskMode, Fault, FaultStatus, Invariant, Profile, Verdict,
};

/// How long jobs may run on after the faults of a run with a planted bug: it leaves
/// ApplicationMasters waiting for containers they never get, and its evidence is in before the
/// drain. Runs that must pass get the default drain, as a loaded machine may need it.
const PLANTED_DRAIN: Duration = Duration::from_secs(10);

/// A seed whose 16 s schedule draws both power-loss faults twice: one replica at 3 s, the group
/// at 7.1 s and 10.6 s, one replica at 15.1 s.
const SEED_WITH_BOTH_POWER_LOSSES: u64 = 4;

/// One cluster at a time: two runs at once would starve each other on a small machine.
static ONE_RUN_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs a CI-profile chaos run of `faults` for `duration` with `seed` in `dir` on `disks`,
/// every daemon started with `YARN_HA_FAILPOINTS=failpoints` (and a short drain) when given;
/// returns the report and the text the run printed, or the run's error and that text.
fn try_chaos_run(
    dir: &Path,
    faults: &[Fault],
    duration: Duration,
    seed: u64,
    failpoints: Option<&str>,
    disks: DiskMode,
) -> Result<(ChaosReport, String), (anyhow::Error, String)> {
    let _one = ONE_RUN_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    yarn_security::install_crypto_provider();
    let mut options = ChaosOptions::from_profile(Profile::Ci, seed);
    options.faults = faults.to_vec();
    options.duration = duration;
    options.disks = disks;
    options.drain_deadline = if failpoints.is_some() {
        PLANTED_DRAIN
    } else {
        yarn_chaos::DEFAULT_DRAIN_DEADLINE
    };
    options.dir = Some(dir.join("run"));
    options.daemon_env = failpoints
        .map(|value| BTreeMap::from([("YARN_HA_FAILPOINTS".to_owned(), value.to_owned())]))
        .unwrap_or_default();
    let mut out = Vec::new();
    let exe = Path::new(env!("CARGO_BIN_EXE_yarn-ha"));
    let report = yarn_chaos::run_blocking(&options, exe, &mut out);
    let printed = String::from_utf8_lossy(&out).into_owned();
    match report {
        Ok(report) => Ok((report, printed)),
        Err(err) => Err((err, printed)),
    }
}

/// [`try_chaos_run`] on real disks; a run that fails to run fails the test.
fn chaos_run(
    dir: &Path,
    faults: &[Fault],
    duration: Duration,
    seed: u64,
    failpoints: Option<&str>,
) -> (ChaosReport, String) {
    try_chaos_run(dir, faults, duration, seed, failpoints, DiskMode::Real)
        .unwrap_or_else(|(err, printed)| panic!("the chaos run failed: {err:#}\n{printed}"))
}

/// [`try_chaos_run`] on volatile disks, or `None` where this host cannot mount them (not root,
/// or no /dev/fuse), after checking that the refusal says what they need.
fn volatile_chaos_run(
    dir: &Path,
    faults: &[Fault],
    duration: Duration,
    seed: u64,
    failpoints: Option<&str>,
) -> Option<(ChaosReport, String)> {
    match try_chaos_run(dir, faults, duration, seed, failpoints, DiskMode::Volatile) {
        Ok(run) => Some(run),
        Err((err, _)) if !yarn_volatile_fs::can_mount() => {
            let message = format!("{err:#}");
            assert!(
                message.contains("--disks volatile") && message.contains("/dev/fuse"),
                "the refusal does not say what volatile disks need: {message}"
            );
            eprintln!("this host cannot mount volatile disks: {message}");
            None
        }
        Err((err, printed)) => panic!("the chaos run failed: {err:#}\n{printed}"),
    }
}

fn injected(report: &ChaosReport, fault: Fault) -> usize {
    report
        .timeline
        .iter()
        .filter(|entry| entry.fault == fault && entry.status == FaultStatus::Injected)
        .count()
}

#[test]
fn test_builds_take_failpoints() {
    let out = yarn_ha(&["chaos", "failpoints"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = stdout(&out);
    for failpoint in [
        "storage.stall=<duration>",
        "storage.full",
        "plant.reissue-container-id",
        "plant.unflushed-appends",
        "plant.unsynced-appends",
    ] {
        assert!(
            listed.lines().any(|line| line.starts_with(failpoint)),
            "{listed}"
        );
    }
}

#[test]
fn a_planted_container_id_reissue_is_caught_by_unique_container_ids() {
    let dir = tempfile::tempdir().unwrap();
    // Seed 26 starts both job loops with a wide job (ten 512 MB tasks, three seconds each, in
    // waves), so both are waiting for containers when the leader is killed at 3 s.
    let (report, printed) = chaos_run(
        dir.path(),
        &[Fault::KillLeader],
        Duration::from_secs(6),
        26,
        Some("plant.reissue-container-id"),
    );
    // `chaos run` exits 1 exactly when the report did not pass.
    assert!(!report.passed, "{printed}");
    assert_eq!(
        report.settings.daemon_failpoints.as_deref(),
        Some("plant.reissue-container-id")
    );
    assert!(injected(&report, Fault::KillLeader) >= 1, "{printed}");
    let unique = report
        .invariants
        .iter()
        .find(|result| result.invariant == Invariant::UniqueContainerIds)
        .expect("every invariant is checked");
    assert!(
        matches!(unique.verdict, Verdict::Violated(_)),
        "the planted reissue went unnoticed: {:?}\n{printed}",
        unique.verdict
    );
    assert!(printed.contains("result: FAILED"), "{printed}");
}

#[test]
fn planted_unflushed_appends_are_caught_when_the_whole_group_crashes() {
    let dir = tempfile::tempdir().unwrap();
    // Seed 41 crashes every ResourceManager at about 3 s. Planted, nothing the group wrote
    // since its election reached the disk, though a majority acknowledged all of it.
    let (report, printed) = chaos_run(
        &dir.path().join("planted"),
        &[Fault::KillAllRms],
        Duration::from_secs(6),
        41,
        Some("plant.unflushed-appends"),
    );
    assert!(!report.passed, "{printed}");
    assert!(injected(&report, Fault::KillAllRms) >= 1, "{printed}");
    let submissions = verdict(&report, Invariant::AcknowledgedSubmissionsSurvive);
    assert!(
        matches!(submissions, Verdict::Violated(evidence) if evidence.contains("unknown after healing")),
        "the lost appends went unnoticed: {submissions:?}\n{printed}"
    );

    // Control: the same crash of real, flushing replicas loses nothing.
    let (report, printed) = chaos_run(
        &dir.path().join("control"),
        &[Fault::KillAllRms],
        Duration::from_secs(6),
        41,
        None,
    );
    assert!(injected(&report, Fault::KillAllRms) >= 1, "{printed}");
    assert!(report.passed, "{printed}");
}

fn verdict(report: &ChaosReport, invariant: Invariant) -> &Verdict {
    &report
        .invariants
        .iter()
        .find(|result| result.invariant == invariant)
        .expect("every invariant is checked")
        .verdict
}

#[test]
fn a_stalled_disk_keeps_every_invariant() {
    let dir = tempfile::tempdir().unwrap();
    // Seed 5 stalls a follower's disk at 3 s, then the leader's at about 9.6 s.
    let (report, printed) = chaos_run(
        dir.path(),
        &[Fault::StallDisk],
        Duration::from_secs(10),
        5,
        None,
    );
    assert!(report.passed, "{printed}");
    assert_eq!(report.settings.daemon_failpoints, None);
    assert!(injected(&report, Fault::StallDisk) >= 1, "{printed}");
    for result in &report.invariants {
        assert!(
            !matches!(result.verdict, Verdict::Violated(_)),
            "{}: {:?}\n{printed}",
            result.invariant,
            result.verdict
        );
    }
}

#[test]
fn planted_unsynced_appends_survive_sigkill_and_are_lost_to_a_power_loss() {
    let dir = tempfile::tempdir().unwrap();
    // Seed 41 takes the whole group down at about 3 s. Planted, what every replica
    // acknowledged since it started is in its disk's cache, not on the disk.
    let Some((report, printed)) = volatile_chaos_run(
        &dir.path().join("power-loss"),
        &[Fault::PowerLossAllRms],
        Duration::from_secs(6),
        41,
        Some("plant.unsynced-appends"),
    ) else {
        return;
    };
    assert!(!report.passed, "{printed}");
    assert_eq!(report.settings.disks, DiskMode::Volatile);
    assert!(injected(&report, Fault::PowerLossAllRms) >= 1, "{printed}");
    assert!(dropped_writes(&printed), "{printed}");
    let submissions = verdict(&report, Invariant::AcknowledgedSubmissionsSurvive);
    assert!(
        matches!(submissions, Verdict::Violated(evidence) if evidence.contains("unknown after healing")),
        "the unsynced appends' loss went unnoticed: {submissions:?}\n{printed}"
    );

    // The same bug survives a crash of the processes alone: the kernel (here, the volatile
    // file system) still holds what sled handed it. Only a power loss shows it.
    let (report, printed) = volatile_chaos_run(
        &dir.path().join("sigkill"),
        &[Fault::KillAllRms],
        Duration::from_secs(6),
        41,
        Some("plant.unsynced-appends"),
    )
    .expect("the host mounted volatile disks a moment ago");
    assert!(injected(&report, Fault::KillAllRms) >= 1, "{printed}");
    assert!(report.passed, "{printed}");
}

#[test]
fn power_losses_of_one_replica_and_of_the_group_lose_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let Some((report, printed)) = volatile_chaos_run(
        dir.path(),
        &[Fault::PowerLoss, Fault::PowerLossAllRms],
        Duration::from_secs(16),
        SEED_WITH_BOTH_POWER_LOSSES,
        None,
    ) else {
        return;
    };
    assert!(injected(&report, Fault::PowerLoss) >= 1, "{printed}");
    assert!(injected(&report, Fault::PowerLossAllRms) >= 1, "{printed}");
    // Each power loss was made (the timeline says what it dropped: mostly nothing, as every
    // write was fdatasync'd before it was acknowledged), and nothing acknowledged was lost.
    assert!(printed.contains("unsynced bytes"), "{printed}");
    assert!(report.passed, "{printed}");
}

/// Whether a power loss in the printed timeline dropped at least one byte.
fn dropped_writes(printed: &str) -> bool {
    printed
        .split(" lost ")
        .skip(1)
        .any(|after| after.starts_with(|c: char| c.is_ascii_digit() && c != '0'))
}
