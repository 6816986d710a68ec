//! `yarn-ha chaos run --network netns`: network faults made by the kernel instead of proxies.
//!
//! As root with CAP_SYS_ADMIN and CAP_NET_ADMIN, a run in its own network namespace isolates the
//! leader with iptables alone (no proxy, no process killed), so a new leader is elected only if
//! the kernel really dropped the partitioned packets; cutting a NodeManager off and adding and
//! removing a replica (the spare in its cgroup) must leave every invariant intact too, and the
//! run's cgroups must be gone afterwards. Where the host lacks what the mode needs (the rights,
//! iproute2, a cgroup2 mount, iptables) the run must be refused with a message naming what is
//! missing.

mod common;

use std::path::Path;

use common::{output, stderr, stdout, yarn_ha_command};
use yarn_chaos::{ChaosOptions, ChaosReport, Failover, Fault, FaultStatus, NetworkMode, Profile};

/// Whether this process may make network namespaces and iptables rules: root with
/// CAP_NET_ADMIN (bit 12) and CAP_SYS_ADMIN (bit 21) effective.
fn has_netns_rights() -> bool {
    // SAFETY: geteuid(2) takes no arguments and cannot fail.
    let root = unsafe { libc::geteuid() == 0 };
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let effective = status
        .lines()
        .find_map(|line| line.strip_prefix("CapEff:"))
        .map(|mask| u64::from_str_radix(mask.trim(), 16).unwrap())
        .unwrap();
    root && effective & (1 << 12) != 0 && effective & (1 << 21) != 0
}

/// Whether `program` is an executable on `PATH`.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// What the host lacks for the netns mode, as the refusal names it, in the order the harness
/// checks; `None` when nothing is missing.
fn netns_missing() -> Option<&'static str> {
    let cgroup2 = std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap()
        .lines()
        .any(|line| line.contains(" - cgroup2 "));
    if !has_netns_rights() {
        Some("--network netns needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN")
    } else if !on_path("ip") {
        Some("is iproute2 installed?")
    } else if !cgroup2 {
        Some("cgroup2 is not mounted")
    } else if !on_path("iptables-restore") {
        Some("running `iptables-restore -w` (is it installed?)")
    } else {
        None
    }
}

#[test]
fn a_namespace_is_entered_before_any_thread_starts_or_not_at_all() {
    // The test harness runs this on a thread of its own: the process already has two.
    let mut options = ChaosOptions::from_profile(Profile::Ci, 1);
    options.network = NetworkMode::Netns;
    let exe = Path::new(env!("CARGO_BIN_EXE_yarn-ha"));
    let err = yarn_chaos::run_blocking(&options, exe, &mut Vec::new()).unwrap_err();
    let expected = if has_netns_rights() {
        "before any other thread starts"
    } else {
        "needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN"
    };
    assert!(format!("{err:#}").contains(expected), "{err:#}");
}

#[test]
fn the_kernel_partitions_a_netns_run_and_every_invariant_holds() {
    let dir = tempfile::tempdir().unwrap();
    let report_file = dir.path().join("report.json");
    let run = output(yarn_ha_command().args([
        "chaos",
        "run",
        "--network",
        "netns",
        "--faults",
        "isolate-leader,cut-nm,add-remove-rm",
        "--duration",
        "30s",
        "--drain",
        "40s",
        "--seed",
        "11",
        "--dir",
        dir.path().join("run").to_str().unwrap(),
        "--report",
        report_file.to_str().unwrap(),
    ]));
    if let Some(missing) = netns_missing() {
        assert!(!run.status.success(), "{}", stdout(&run));
        let said = stderr(&run);
        assert!(said.contains(missing), "expected {missing:?}: {said}");
        return;
    }
    let printed = stdout(&run);
    assert!(
        run.status.success(),
        "the run failed:\n{printed}\n{}",
        stderr(&run)
    );
    let cgroups = printed
        .split_once("each in its cgroup under ")
        .and_then(|(_, rest)| rest.split_once(", faulted by iptables"))
        .map(|(dir, _)| Path::new(dir))
        .unwrap_or_else(|| panic!("the run names no cgroup directory: {printed}"));
    assert!(!cgroups.exists(), "{} was left behind", cgroups.display());
    let report: ChaosReport =
        serde_json::from_slice(&std::fs::read(&report_file).unwrap()).unwrap();
    assert_eq!(report.settings.network, NetworkMode::Netns);
    assert!(report.passed, "{printed}");
    let injected = |fault: Fault| {
        report
            .timeline
            .iter()
            .filter(|entry| entry.fault == fault && entry.status == FaultStatus::Injected)
            .count()
    };
    assert!(injected(Fault::IsolateLeader) > 0, "{printed}");
    assert!(injected(Fault::CutNm) > 0, "{printed}");
    assert!(injected(Fault::AddRemoveRm) > 0, "{printed}");
    // No process was killed and no proxy ran: only dropped packets can have moved leadership
    // while the partition was in force (before its heal).
    let moved_while_isolated = |failover: &Failover| {
        let healed_at = report
            .timeline
            .iter()
            .find(|entry| entry.seq == failover.seq)
            .and_then(|entry| entry.healed_at_ms);
        failover.fault == Fault::IsolateLeader
            && failover.leader_changed()
            && matches!(
                (failover.first_write_ms, healed_at),
                (Some(written), Some(healed)) if written <= healed
            )
    };
    assert!(
        report.failovers.iter().any(moved_while_isolated),
        "no isolation of the leader led to a new leader while in force: {:?}\n{printed}",
        report.failovers
    );
}
