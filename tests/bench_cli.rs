//! `yarn-ha bench raft` as a user runs it: with tiny settings it starts three real
//! ResourceManagers, measures, stops them, and prints figures of the documented shape; bad
//! settings are refused naming the flag. No assertion looks at a timing value.

mod common;

use common::{stderr, yarn_ha};

#[test]
fn a_tiny_raft_benchmark_reports_every_run_and_trial() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("cluster");
    let out = yarn_ha(&[
        "bench",
        "raft",
        "--dir",
        base.to_str().expect("temporary paths are UTF-8"),
        "--proposers",
        "1,4",
        "--duration-secs",
        "1",
        "--failover-trials",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("--json prints one JSON document");

    assert_eq!(report["replicas"], 3);
    let commit = report["commit"].as_array().unwrap();
    let proposers: Vec<u64> = commit
        .iter()
        .map(|run| run["proposers"].as_u64().unwrap())
        .collect();
    assert_eq!(proposers, [1, 4]);
    for run in commit {
        assert!(run["ops"].as_u64().unwrap() > 0, "{run}");
        assert_eq!(run["latency"]["count"], run["ops"], "{run}");
        assert!(
            run["throughput_ops_per_sec"].as_f64().unwrap() > 0.0,
            "{run}"
        );
        assert!(run["leader"].as_str().unwrap().starts_with("rm"), "{run}");
    }

    let failover = &report["failover"];
    let trials = failover["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 2);
    for trial in trials {
        assert_ne!(trial["killed"], trial["new_leader"], "{trial}");
        assert!(trial["failover_ms"].as_f64().unwrap() > 0.0, "{trial}");
    }
    assert_eq!(failover["summary"]["count"], 2);
    assert!(failover["target_met"].is_boolean());

    // Every daemon was stopped at the end: cluster.json records none as running.
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(base.join("cluster.json")).unwrap()).unwrap();
    for daemon in state["daemons"].as_array().unwrap() {
        assert_ne!(daemon["state"], "running", "{daemon}");
    }
    assert!(state["supervisor_pid"].is_null());
}

#[test]
fn bad_settings_are_refused_naming_the_flag() {
    for (args, flag) in [
        (&["--proposers", "0"][..], "--proposers 0"),
        (&["--failover-trials", "0"], "--failover-trials 0"),
        (&["--duration-secs", "0"], "--duration-secs 0"),
    ] {
        let out = yarn_ha(&[&["bench", "raft"][..], args].concat());
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(flag), "{args:?}: {}", stderr(&out));
    }
}
