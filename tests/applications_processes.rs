//! Applications end to end with real processes: ResourceManagers, NodeManagers, the
//! ApplicationMasters the RM launches and the containers they start are all separate `yarn-ha`
//! processes on a minicluster, driven through the user commands.
//!
//! What this file proves:
//! - `minicluster demo`: a distributed-shell job survives the SIGKILL of the active RM and ends
//!   SUCCEEDED with every container once (no duplicate container id);
//! - a failing shell command makes the application FAILED with the container's exit status in
//!   the diagnostics, and `dshell` exits 1; its containers, the ApplicationMaster's included,
//!   end COMPLETE with a finish time in `container -list`;
//! - an ask above the maximum allocation fails the application with the RM's refusal, which
//!   `dshell` prints, rather than with the exit code of an ApplicationMaster that gave up;
//! - `application -kill` kills a running job, and its client sees KILLED;
//! - an ApplicationMaster that crashes (SIGKILL) gets a second attempt that finishes the job;
//! - `pi` prints an estimate of pi.

mod common;

use yarn_nodemanager::executor::Signal;

use common::process_cluster::{
    ProcessCluster, am_pid, eventually, one_cluster_at_a_time, wait_exit,
};
use common::{output, stderr, stdout, yarn_ha_command};

#[test]
fn the_demo_job_survives_the_sigkill_of_its_resourcemanager() {
    let _turn = one_cluster_at_a_time();
    let out = output(yarn_ha_command().args(["minicluster", "demo"]));
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("SIGKILLed the active ResourceManager"),
        "{text}"
    );
    assert!(
        text.contains("ended with state FINISHED and final status SUCCEEDED"),
        "{text}"
    );
    assert!(text.contains("6 of 6 succeeded, 6 distinct ids"), "{text}");
    // The leader placed them as OPPORTUNISTIC containers (the minicluster enables centralized
    // opportunistic allocation), not as GUARANTEED ones.
    let opportunistic = text
        .lines()
        .filter(|line| line.contains(" OPPORTUNISTIC exit 0"))
        .count();
    assert_eq!(opportunistic, 6, "{text}");
}

#[test]
fn failures_kills_and_crashed_application_masters_end_as_yarn_says() {
    let _turn = one_cluster_at_a_time();
    let cluster = ProcessCluster::start(1);

    // A failing command: FAILED with the exit status, and dshell exits 1.
    let out = cluster.yarn(&["dshell", "--shell_command", "exit 3"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    assert!(text.contains("final status FAILED"), "{text}");
    assert!(text.contains("exit 3"), "{text}");

    // Its containers: the task's and, once its NodeManager reported the process's exit, the
    // ApplicationMaster's, each COMPLETE with the time the RM recorded that.
    let attempt = first_attempt(&text);
    let listing = eventually("the ApplicationMaster container's completion", || {
        let text = stdout(&cluster.yarn(&["container", "-list", &attempt]));
        (!text.contains("RUNNING")).then_some(text)
    });
    let rows: Vec<Vec<&str>> = listing
        .lines()
        .skip(2)
        .map(|line| line.split('\t').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{listing}");
    for row in rows {
        assert_eq!(row[3], "COMPLETE", "{listing}");
        assert!(
            row[2].contains(" +0000 "),
            "a finish time, not N/A: {listing}"
        );
    }

    // An ask above the maximum allocation: the RM's refusal, not an AM container's exit code.
    let out = cluster.yarn(&[
        "dshell",
        "--shell_command",
        "true",
        "--container_memory",
        "100000",
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("ended with state FINISHED and final status FAILED")
            && text.contains("exceeds the maximum allocation"),
        "{text}"
    );
    assert!(!text.contains("exitCode"), "{text}");

    // An AM that crashes gets a second attempt, which runs the job to success.
    // Long enough that the AM is still there to be killed on a slow machine.
    let job = cluster.spawn_dshell(&["--shell_command", "sleep 8", "--num_containers", "2"]);
    let app = cluster.running_application();
    let first_am = eventually("the ApplicationMaster process", || {
        am_pid(cluster.conf_dir())
    });
    Signal::Kill.send(first_am).expect("SIGKILL the AM");
    let out = wait_exit(job, "the dshell client of the crashed AM");
    assert_eq!(out.status.code(), Some(0), "the second attempt succeeds");
    let attempts = cluster.yarn(&["applicationattempt", "-list", &app]);
    let attempts = stdout(&attempts);
    assert!(
        attempts.contains("Total number of application attempts :2"),
        "{attempts}"
    );

    // A kill: the job's client sees KILLED.
    let job = cluster.spawn_dshell(&["--shell_command", "sleep 120"]);
    let app = cluster.running_application();
    let killed = cluster.yarn(&["application", "-kill", &app]);
    assert_eq!(killed.status.code(), Some(0), "{}", stderr(&killed));
    assert!(stdout(&killed).contains(&format!("Killed application {app}")));
    let out = wait_exit(job, "the dshell client of the killed job");
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("KILLED"), "{}", stdout(&out));

    // pi: two maps, one of them asked as OPPORTUNISTIC.
    let out = cluster.yarn(&["pi", "2", "2000", "--opportunistic_percent=50"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    assert!(text.contains("Estimated value of Pi is 3.1"), "{text}");
}

/// The first attempt of the application a `dshell` client printed it submitted.
fn first_attempt(dshell_output: &str) -> String {
    let application = dshell_output
        .lines()
        .find_map(|line| line.strip_prefix("Submitted application application_"))
        .unwrap_or_else(|| panic!("no submission in {dshell_output}"));
    format!("appattempt_{application}_000001")
}
