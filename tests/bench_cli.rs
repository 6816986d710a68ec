//! `yarn-ha bench raft`, `yarn-ha bench allocate` and `yarn-ha bench rest` as a user runs
//! them: with tiny settings they start real clusters, measure, stop them, and print figures of
//! the documented shape; bad settings are refused naming the flag. No assertion looks at a
//! timing value.

mod common;

use common::process_cluster::one_cluster_at_a_time;
use common::{stderr, stdout, yarn_ha};

#[test]
fn a_tiny_raft_benchmark_reports_every_run_and_trial() {
    let _turn = one_cluster_at_a_time();
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

/// The cells of the table row that starts with `label`, after the label.
fn row_after<'a>(table: &'a str, label: &str) -> Vec<&'a str> {
    table
        .lines()
        .find_map(|line| line.strip_prefix(label))
        .unwrap_or_else(|| panic!("no row {label:?} in\n{table}"))
        .split_whitespace()
        .collect()
}

#[test]
fn a_tiny_allocate_benchmark_reports_every_path_and_share() {
    let _turn = one_cluster_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("clusters");
    let out = yarn_ha(&[
        "bench",
        "allocate",
        "--dir",
        base.to_str().expect("temporary paths are UTF-8"),
        "--rounds",
        "2",
        "--containers",
        "4",
        "--sim-nodes",
        "4",
        "--sim-seconds",
        "20",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = stdout(&out);

    // Each path's row: 2 rounds, then p50, p99 and max in milliseconds; the RM's counters
    // confirm who placed the OPPORTUNISTIC containers (the command fails otherwise). The
    // Hadoop IPC row proves an AM registered, allocated and finished over Hadoop IPC with its
    // AMRMToken: its AM fails otherwise, and so does the command.
    for label in [
        "GUARANTEED via AMRMProxy ",
        "OPPORTUNISTIC distributed ",
        "GUARANTEED direct to RM ",
        "GUARANTEED Hadoop IPC ",
        "OPPORTUNISTIC centralized ",
    ] {
        let cells = row_after(&table, label);
        assert_eq!(cells[0], "2", "{label}: {table}");
        for cell in &cells[1..4] {
            let ms: f64 = cell
                .parse()
                .unwrap_or_else(|_| panic!("{label}: {cell:?} is not a number in\n{table}"));
            assert!(ms > 0.0, "{label}: {table}");
        }
    }
    assert!(
        row_after(&table, "OPPORTUNISTIC distributed ")
            .ends_with(&["RM", "+0,", "by", "proxies", "+12"]),
        "three rounds of 4 placed by the proxies: {table}"
    );
    assert!(
        row_after(&table, "OPPORTUNISTIC centralized ")
            .ends_with(&["RM", "+12,", "by", "proxies", "+0"]),
        "three rounds of 4 placed by the RM: {table}"
    );

    // Each share's row: tasks per second and utilization, both positive.
    for share in ["0", "50", "100"] {
        let cells = table
            .lines()
            .map(|line| line.split_whitespace().collect::<Vec<_>>())
            .find(|cells| cells.len() == 9 && cells[0] == share)
            .unwrap_or_else(|| panic!("no row for {share}% in\n{table}"));
        for cell in &cells[1..3] {
            let value: f64 = cell.parse().unwrap();
            assert!(value > 0.0, "{share}%: {table}");
        }
    }
    assert!(
        table.contains("Mercury's published gain for short tasks: 35%"),
        "{table}"
    );

    // Both clusters were stopped: cluster.json records no daemon running.
    for cluster in ["with-amrm-proxy", "without-amrm-proxy"] {
        let state: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(base.join(cluster).join("cluster.json")).unwrap(),
        )
        .unwrap();
        for daemon in state["daemons"].as_array().unwrap() {
            assert_ne!(daemon["state"], "running", "{cluster}: {daemon}");
        }
    }
}

#[test]
fn bad_allocate_settings_are_refused_naming_the_flag() {
    for (args, flag) in [
        (&["--containers", "16"][..], "--containers 16"),
        (&["--rounds", "0"], "--rounds 0"),
        (&["--sim-seconds", "10"], "--sim-seconds 10"),
        (&["--nodes", "9"], "--nodes 9"),
    ] {
        let out = yarn_ha(&[&["bench", "allocate"][..], args].concat());
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(flag), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_tiny_rest_benchmark_times_every_endpoint_and_a_nodes_heartbeats() {
    let _turn = one_cluster_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("cluster");
    let out = yarn_ha(&[
        "bench",
        "rest",
        "--dir",
        base.to_str().expect("temporary paths are UTF-8"),
        "--apps",
        "60",
        "--nodes",
        "30",
        "--requests",
        "4",
        "--concurrency",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("--json prints one JSON document");

    // One application in 50 is RUNNING: 2 of 60. The command checked the leader's metrics
    // count exactly this before and after measuring.
    assert_eq!(report["state"]["apps"], 60);
    assert_eq!(report["state"]["running"], 2);
    assert_eq!(report["state"]["nodes"], 30);
    assert_eq!(
        (report["requests"].as_u64(), report["concurrency"].as_u64()),
        (Some(4), Some(2))
    );
    let endpoints = report["endpoints"].as_array().unwrap();
    let paths: Vec<&str> = endpoints
        .iter()
        .map(|run| run["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "/apps",
            "/apps?states=RUNNING&limit=100",
            "/nodes",
            "/apps/{id}",
            "/metrics"
        ]
    );
    for run in endpoints {
        assert_eq!(
            (run["ok"].as_u64(), run["errors"].as_u64()),
            (Some(4), Some(0)),
            "{run}"
        );
        assert_eq!(run["latency"]["count"], 4, "{run}");
        assert!(run["largest_body_bytes"].as_u64().unwrap() > 0, "{run}");
        assert_eq!(run["probes"]["heartbeat"]["errors"], 0, "{run}");
        assert_eq!(run["probes"]["commit"]["errors"], 0, "{run}");
    }
    // Every application and every node are in their lists, so those answers are the largest.
    let bytes = |index: usize| endpoints[index]["largest_body_bytes"].as_u64().unwrap();
    assert!(bytes(0) > bytes(1) && bytes(0) > bytes(3), "{report}");
    assert!(bytes(2) > bytes(4), "{report}");
    // Before the requests, both probes timed an idle leader.
    for probe in ["heartbeat", "commit"] {
        let idle = &report["idle"][probe];
        assert!(idle["latency"]["count"].as_u64().unwrap() > 0, "{idle}");
        assert_eq!(idle["errors"], 0, "{idle}");
    }

    // Every daemon was stopped at the end: cluster.json records none as running.
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(base.join("cluster.json")).unwrap()).unwrap();
    for daemon in state["daemons"].as_array().unwrap() {
        assert_ne!(daemon["state"], "running", "{daemon}");
    }
}

#[test]
fn bad_rest_settings_are_refused_naming_the_flag() {
    for (args, flag) in [
        (&["--apps", "0"][..], "--apps 0"),
        (&["--apps", "10001"], "--apps 10001"),
        (&["--nodes", "0"], "--nodes 0"),
        (&["--requests", "0"], "--requests 0"),
        (&["--concurrency", "65"], "--concurrency 65"),
    ] {
        let out = yarn_ha(&[&["bench", "rest"][..], args].concat());
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(flag), "{args:?}: {}", stderr(&out));
    }
}
