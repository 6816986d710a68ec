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
use common::process_cluster::{ProcessCluster, eventually, one_cluster_at_a_time, wait_exit};
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

/// `dshell` arguments for `containers` tasks of 1 GB running `command` in `queue`.
fn job(queue: &str, containers: &str, command: &str) -> Vec<String> {
    [
        "--queue",
        queue,
        "--shell_command",
        command,
        "--num_containers",
        containers,
        "--container_memory",
        "1024",
        "--master_memory",
        "1024",
    ]
    .map(str::to_owned)
    .to_vec()
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

/// Fills the node from queue `a`, then submits a job to `b` that needs two containers (its AM
/// and one task), waits until `a` is told it will lose one, and, with `kill_leader`, SIGKILLs
/// the active ResourceManager then. Returns when `b`'s job succeeded.
fn b_gets_its_guarantee(kill_leader: bool) {
    let _turn = one_cluster_at_a_time();
    let mut cluster = ProcessCluster::start_with(1, &layout());
    two_queues(&cluster);
    assert_eq!(queue_status(&cluster, "a", "Preemption"), "enabled");

    let a_args = job("a", "3", "sleep 600");
    let a_args: Vec<&str> = a_args.iter().map(String::as_str).collect();
    let mut a_job = cluster.spawn_dshell(&a_args);
    let a_app = cluster.running_application();
    eventually("a to hold the whole node", || {
        (queue_status(&cluster, "a", "Used Resources") == "<memory:4096, vCores:4>").then_some(())
    });

    let b_args = job("b", "1", "true");
    let b_args: Vec<&str> = b_args.iter().map(String::as_str).collect();
    let b_job = cluster.spawn_dshell(&b_args);
    let told = eventually("a to have a container to preempt", || {
        let figure = queue_status(&cluster, "a", "Resources To Preempt");
        (!figure.ends_with(" in 0 containers")).then_some(figure)
    });
    assert_eq!(told, "<memory:1024, vCores:1> in 1 containers");
    if kill_leader {
        let killed = cluster.kill_leader();
        eprintln!("SIGKILLed {killed} between the announcement and the kill");
    }

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
    let _ = a_job.kill();
    let _ = a_job.wait();
}

#[test]
fn a_queue_over_its_guarantee_is_told_then_preempted_for_another_queue() {
    b_gets_its_guarantee(false);
}

#[test]
fn the_new_leader_preempts_what_a_sigkilled_leader_announced() {
    b_gets_its_guarantee(true);
}
