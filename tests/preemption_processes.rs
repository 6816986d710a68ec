//! Container preemption with real processes: three ResourceManager processes with the
//! preemption monitor on, one NodeManager, and distributed-shell jobs in two queues.
//!
//! What this file proves: a job in queue `a` that fills the node is told (its ApplicationMaster
//! logs the containers the RM will preempt) and then loses containers, killed as PREEMPTED,
//! until a job in queue `b` runs at `b`'s guarantee and succeeds; and the same happens when the
//! active ResourceManager is SIGKILLed after the message and before the kill, the new leader
//! carrying on from the replicated waits.

mod common;

use yarn_minicluster::LayoutOptions;

use common::hadoop_clients::container_logs;
use common::process_cluster::{
    DshellJob, ProcessCluster, dshell_job, eventually, one_cluster_at_a_time, wait_exit,
};
use common::{stderr, stdout};

/// Between telling an ApplicationMaster and killing its container: long enough for the test to
/// see "Resources To Preempt" and SIGKILL the leader before the kill.
const WAIT_BEFORE_KILL_MS: &str = "6000";

/// One 4 GB NodeManager, preemption on with a round every 200 ms, everything owed taken back in
/// one round.
fn layout() -> LayoutOptions {
    let preemption = |key: &str| format!("yarn.resourcemanager.monitor.capacity.preemption.{key}");
    let site = [
        ("yarn.nodemanager.resource.memory-mb".to_owned(), "4096"),
        (
            "yarn.resourcemanager.scheduler.monitor.enable".to_owned(),
            "true",
        ),
        (preemption("monitoring_interval"), "200"),
        (preemption("max_wait_before_kill"), WAIT_BEFORE_KILL_MS),
        (preemption("total_preemption_per_round"), "1.0"),
        (preemption("natural_termination_factor"), "1.0"),
        (preemption("max_ignored_over_capacity"), "0"),
    ];
    LayoutOptions {
        site: site
            .into_iter()
            .map(|(key, value)| (key, value.to_owned()))
            .collect(),
        ..LayoutOptions::default()
    }
}

/// Queues `a` and `b`, half the cluster each, either growing into all of it.
fn two_queues(cluster: &ProcessCluster) {
    cluster.refresh_queues(&[
        // `default` stays, emptied: a RUNNING queue cannot be removed.
        ("yarn.scheduler.capacity.root.queues", "default,a,b"),
        ("yarn.scheduler.capacity.root.default.capacity", "0"),
        ("yarn.scheduler.capacity.maximum-am-resource-percent", "1.0"),
        ("yarn.scheduler.capacity.root.a.capacity", "50"),
        ("yarn.scheduler.capacity.root.a.maximum-capacity", "100"),
        ("yarn.scheduler.capacity.root.a.user-limit-factor", "2"),
        ("yarn.scheduler.capacity.root.b.capacity", "50"),
        ("yarn.scheduler.capacity.root.b.maximum-capacity", "100"),
        ("yarn.scheduler.capacity.root.b.user-limit-factor", "2"),
    ]);
}

/// `queue -status <queue>`'s value of `label`.
fn queue_status(cluster: &ProcessCluster, queue: &str, label: &str) -> String {
    let out = cluster.yarn(&["queue", "-status", queue]);
    let text = stdout(&out);
    text.lines()
        .find_map(|line| line.trim().strip_prefix(&format!("{label} : ")))
        .unwrap_or_else(|| panic!("no {label} in\n{text}\n{}", stderr(&out)))
        .to_owned()
}

/// `text` without ANSI colour sequences, as the daemons' logs may carry them.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for end in chars.by_ref() {
                if end.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The raw container ids a replica's log lists under `field` (`announced` or `killed`) in its
/// "preemption round committed" lines.
fn round_containers(cluster: &ProcessCluster, rm_id: &str, field: &str) -> Vec<String> {
    let log = std::fs::read_to_string(cluster.base_dir().join("logs").join(format!("{rm_id}.log")))
        .unwrap_or_default();
    let prefix = format!("{field}=[");
    plain(&log)
        .lines()
        .filter(|line| line.contains("preemption round committed"))
        .filter_map(|line| {
            let list = &line[line.find(&prefix)? + prefix.len()..];
            Some(list[..list.find(']')?].to_owned())
        })
        .flat_map(|list| {
            list.split("container_id: ")
                .skip(1)
                .filter_map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Fills the node from queue `a`, then submits a job to `b` that needs two containers (its AM
/// and one task), waits until `a` is told it will lose one, and, with `kill_leader`, SIGKILLs
/// the active ResourceManager then. Returns when `b`'s job succeeded.
fn b_gets_its_guarantee(kill_leader: bool) {
    let _turn = one_cluster_at_a_time();
    let mut cluster = ProcessCluster::start_with(1, &layout());
    two_queues(&cluster);
    assert_eq!(queue_status(&cluster, "a", "Preemption"), "enabled");

    let _a_job = DshellJob::start(&cluster, &dshell_job("a", "3", "sleep 600"));
    let a_app = cluster.running_application();
    eventually("a to hold the whole node", || {
        (queue_status(&cluster, "a", "Used Resources") == "<memory:4096, vCores:4>").then_some(())
    });

    // Bounded, so that preemption failing ends b's job, and the test, within the deadline.
    let mut b_args = dshell_job("b", "1", "true");
    b_args.extend(["--timeout".to_owned(), "90000".to_owned()]);
    let b_args: Vec<&str> = b_args.iter().map(String::as_str).collect();
    let b_job = cluster.spawn_dshell(&b_args);
    let told = eventually("a to have a container to preempt", || {
        let figure = queue_status(&cluster, "a", "Resources To Preempt");
        (!figure.ends_with(" in 0 containers")).then_some(figure)
    });
    assert_eq!(told, "<memory:1024, vCores:1> in 1 containers");
    let killed = kill_leader.then(|| {
        let killed = cluster.kill_leader();
        eprintln!("SIGKILLed {killed} between the announcement and the kill");
        killed
    });

    let out = wait_exit(b_job, "b's dshell client");
    assert_eq!(
        out.status.code(),
        Some(0),
        "b's job ran at b's guarantee and succeeded"
    );
    let preempted = queue_status(&cluster, "a", "Preempted Resources");
    assert!(
        preempted.starts_with("<memory:") && !preempted.ends_with(" in 0 containers"),
        "{preempted}"
    );
    let logs = container_logs(cluster.base_dir(), &a_app);
    assert!(
        logs.contains("the ResourceManager will preempt these containers"),
        "a's AM was told:\n{logs}"
    );
    if let Some(old) = killed {
        // The old leader announced the container and died before its wait was over; a new
        // leader killed it.
        let announced = round_containers(&cluster, &old, "announced");
        assert!(!announced.is_empty(), "{old} announced a container");
        assert!(
            round_containers(&cluster, &old, "killed").is_empty(),
            "{old} was SIGKILLed before any kill"
        );
        let killed_by_others: Vec<String> = ["rm1", "rm2", "rm3"]
            .into_iter()
            .filter(|rm_id| *rm_id != old)
            .flat_map(|rm_id| round_containers(&cluster, rm_id, "killed"))
            .collect();
        assert!(
            killed_by_others.contains(&announced[0]),
            "the new leader killed {announced:?}: it killed {killed_by_others:?}"
        );
    }
}

#[test]
fn a_queue_over_its_guarantee_is_told_then_preempted_for_another_queue() {
    b_gets_its_guarantee(false);
}

#[test]
fn the_new_leader_preempts_what_a_sigkilled_leader_announced() {
    b_gets_its_guarantee(true);
}
