//! A production-style `capacity-scheduler.xml` on real processes: three ResourceManagers,
//! three NodeManagers of 4 GB and 4 cores (one of them labelled `GPU`), and distributed-shell
//! jobs.
//!
//! What this file proves: `rmadmin` labels a NodeManager `GPU`, which `cluster -lnl`,
//! `node -list -showDetails` and the REST API show; a file with an absolute parent, weighted
//! children, a fair leaf, a GPU partition and Hadoop keys yarn-ha does not honour is committed
//! by `-refreshQueues`, which names the keys it ignores; a job asking for the GPU label runs on
//! the GPU node only, while the other queues' shares are those of the two unlabelled nodes; `queue -status` and the REST API show each queue's configured capacity beside the
//! resources it resolves to on this cluster; and jobs in each queue run and keep to the
//! maximums the file gives (how a fair leaf splits itself is shown, deterministically, by the
//! scheduler's own tests). A queue's maximum application lifetime, applied by a refresh,
//! reaches a running job's `application -status` and REST timeouts, caps an
//! `application -updateLifetime`, and the REST API's shorter lifetime kills the job when it is
//! over.

mod common;

use std::collections::BTreeMap;

use serde_json::Value;
use yarn_minicluster::LayoutOptions;

use common::process_cluster::{DshellJob, ProcessCluster, dshell_job, one_cluster_at_a_time};
use common::rest_client::{active, curl, setup};
use common::{stderr, stdout};

/// The file an operator might run: `prod` holds 4 GB and 4 cores whatever the cluster's size
/// and may grow to 6 GB; its `etl` and `adhoc` share it three to one; `dev` takes the rest.
const QUEUES: &[(&str, &str)] = &[
    ("yarn.scheduler.capacity.legacy-queue-mode.enabled", "false"),
    ("yarn.scheduler.capacity.maximum-am-resource-percent", "1.0"),
    (
        "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments",
        "1",
    ),
    ("yarn.scheduler.capacity.root.queues", "default,prod,dev"),
    // `default` stays, emptied: a RUNNING queue cannot be removed.
    ("yarn.scheduler.capacity.root.default.capacity", "0"),
    (
        "yarn.scheduler.capacity.root.prod.capacity",
        "[memory=4096,vcores=4]",
    ),
    (
        "yarn.scheduler.capacity.root.prod.maximum-capacity",
        "[memory=6144,vcores=6]",
    ),
    ("yarn.scheduler.capacity.root.prod.queues", "etl,adhoc"),
    ("yarn.scheduler.capacity.root.prod.etl.capacity", "3w"),
    (
        "yarn.scheduler.capacity.root.prod.etl.ordering-policy",
        "fair",
    ),
    (
        "yarn.scheduler.capacity.root.prod.etl.user-limit-factor",
        "-1",
    ),
    ("yarn.scheduler.capacity.root.prod.adhoc.capacity", "1w"),
    ("yarn.scheduler.capacity.root.dev.capacity", "1w"),
    ("yarn.scheduler.capacity.root.dev.maximum-capacity", "50"),
    // The GPU partition belongs to prod, and within it to etl.
    (
        "yarn.scheduler.capacity.root.accessible-node-labels.GPU.capacity",
        "100",
    ),
    (
        "yarn.scheduler.capacity.root.prod.accessible-node-labels",
        "GPU",
    ),
    (
        "yarn.scheduler.capacity.root.prod.accessible-node-labels.GPU.capacity",
        "100",
    ),
    (
        "yarn.scheduler.capacity.root.prod.etl.accessible-node-labels.GPU.capacity",
        "100",
    ),
];

/// `queue -status <queue>`'s lines as label to value.
fn queue_status(cluster: &ProcessCluster, queue: &str) -> BTreeMap<String, String> {
    let out = cluster.yarn(&["queue", "-status", queue]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .filter_map(|line| line.trim().split_once(" : "))
        .map(|(label, value)| (label.to_owned(), value.to_owned()))
        .collect()
}

/// How often a queue's usage is sampled while its jobs run.
const SAMPLE: std::time::Duration = std::time::Duration::from_millis(200);

/// `dshell` arguments for `containers` tasks of 1 GB sleeping `seconds` in `queue`, the job
/// bounded to two minutes.
fn job(queue: &str, containers: &str, seconds: &str) -> Vec<String> {
    let mut args = dshell_job(queue, containers, &format!("sleep {seconds}"));
    args.extend(["--timeout".to_owned(), "120000".to_owned()]);
    args
}

#[test]
fn a_production_style_file_resolves_its_modes_and_its_queues_keep_to_their_shares() {
    let _serial = one_cluster_at_a_time();
    // Hadoop's table mapping puts the NodeManagers (all on 127.0.0.1) on a rack of their own.
    let topology = tempfile::tempdir().unwrap();
    let table = topology.path().join("racks");
    std::fs::write(&table, "# address rack\n127.0.0.1 /rack-a\n").unwrap();
    let table = table.display().to_string();
    let layout = LayoutOptions {
        site: [
            ("yarn.nodemanager.resource.memory-mb", "4096"),
            ("yarn.nodemanager.resource.cpu-vcores", "4"),
            (
                "net.topology.node.switch.mapping.impl",
                "org.apache.hadoop.net.TableMapping",
            ),
            ("net.topology.table.file.name", table.as_str()),
            ("yarn.node-labels.enabled", "true"),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect(),
        ..LayoutOptions::default()
    };
    let cluster = ProcessCluster::start_with(3, &layout);
    let nodes = stdout(&cluster.yarn(&["node", "-list"])).to_owned();
    let mut node_ids: Vec<&str> = nodes
        .lines()
        .filter_map(|line| {
            line.split_whitespace()
                .next()
                .filter(|id| id.starts_with("127.0.0.1:"))
        })
        .collect();
    node_ids.sort_unstable();
    assert_eq!(node_ids.len(), 3, "{nodes}");
    let status = stdout(&cluster.yarn(&["node", "-status", node_ids[0]]));
    assert!(status.contains("\tRack : /rack-a\n"), "{status}");

    // One NodeManager becomes the GPU partition, before the queues that use it are refreshed.
    let gpu_node = node_ids[2];
    for args in [
        &["rmadmin", "-addToClusterNodeLabels", "GPU(exclusive=true)"][..],
        &[
            "rmadmin",
            "-replaceLabelsOnNode",
            &format!("{gpu_node}=GPU"),
            "-failOnUnknownNodes",
        ],
    ] {
        let out = cluster.yarn(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    let labels = cluster.yarn(&["cluster", "-lnl"]);
    assert_eq!(
        stdout(&labels),
        "Node Labels: <GPU:exclusivity=true>\n",
        "{}",
        stderr(&labels)
    );
    let details = stdout(&cluster.yarn(&["node", "-list", "-showDetails"])).to_owned();
    assert_eq!(
        details.matches("\tNode-Labels : GPU\n").count(),
        1,
        "{details}"
    );

    // The refresh commits the file and names the key it ignores.
    let xml = yarn_conf::writer::site_xml(QUEUES.iter().copied());
    for replica in std::fs::read_dir(cluster.base_dir()).unwrap().flatten() {
        let conf = replica.path().join("conf");
        if replica.file_name().to_string_lossy().starts_with("rm") && conf.is_dir() {
            std::fs::write(conf.join("capacity-scheduler.xml"), &xml).unwrap();
        }
    }
    let out = cluster.yarn(&["rmadmin", "-refreshQueues"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .contains("warning: yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments is not honoured"),
        "{}",
        stdout(&out)
    );

    // Configured beside effective, on the default partition's 8 GB and 8 cores.
    for (queue, configured, effective, effective_maximum, absolute) in [
        (
            "prod",
            "[memory=4096,vcores=4]",
            "<memory:4096, vCores:4>",
            "<memory:6144, vCores:6>",
            "50.0%",
        ),
        (
            "etl",
            "3w",
            "<memory:3072, vCores:3>",
            "<memory:6144, vCores:6>",
            "37.5%",
        ),
        (
            "adhoc",
            "1w",
            "<memory:1024, vCores:1>",
            "<memory:6144, vCores:6>",
            "12.5%",
        ),
        (
            "dev",
            "1w",
            "<memory:4096, vCores:4>",
            "<memory:4096, vCores:4>",
            "50.0%",
        ),
    ] {
        let status = queue_status(&cluster, queue);
        assert_eq!(
            status["Configured Capacity"], configured,
            "{queue}: {status:?}"
        );
        assert_eq!(
            status["Effective Capacity"], effective,
            "{queue}: {status:?}"
        );
        assert_eq!(
            status["Effective Maximum Capacity"], effective_maximum,
            "{queue}: {status:?}"
        );
        assert_eq!(status["Absolute Capacity"], absolute, "{queue}: {status:?}");
    }

    // The REST API says the same in Hadoop's fields.
    let (credentials, web) = setup(&cluster);
    let (_, base) = active(&credentials, &web);
    let scheduler = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/scheduler"),
        None,
        true,
    )
    .expect("the scheduler page")
    .json();
    let queues = &scheduler["scheduler"]["schedulerInfo"]["queues"]["queue"];
    let prod = find(queues, "prod");
    assert_eq!(prod["mode"], "absolute", "{prod}");
    assert_eq!(prod["minEffectiveCapacity"]["memory"], 4096, "{prod}");
    let etl = find(&prod["queues"]["queue"], "etl");
    assert_eq!(etl["mode"], "weight", "{etl}");
    assert_eq!(etl["weight"], 3.0, "{etl}");
    assert_eq!(etl["normalizedWeight"], 0.75, "{etl}");
    assert_eq!(etl["orderingPolicyInfo"], "fair", "{etl}");
    assert_eq!(prod["orderingPolicyInfo"], "utilization", "{prod}");
    let labels = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/get-node-labels"),
        None,
        true,
    )
    .expect("the node labels")
    .json();
    assert_eq!(
        labels["nodeLabelsInfo"]["nodeLabelInfo"][0],
        serde_json::json!({"name": "GPU", "exclusivity": true}),
        "{labels}"
    );
    let gpu_report = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/nodes/{gpu_node}"),
        None,
        true,
    )
    .expect("the GPU node")
    .json();
    assert_eq!(
        gpu_report["node"]["nodeLabels"],
        serde_json::json!(["GPU"]),
        "{gpu_report}"
    );

    // A job asking for the GPU label runs its containers there and nowhere else.
    let mut gpu_args = job("root.prod.etl", "3", "1");
    gpu_args.extend(["--node_label_expression".to_owned(), "GPU".to_owned()]);
    let out = DshellJob::start(&cluster, &gpu_args).wait("the GPU job");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = stdout(&out).to_owned();
    let placed: Vec<&str> = printed
        .lines()
        .filter(|line| line.contains(" exit "))
        .filter_map(|line| line.split(" on ").nth(1)?.split_whitespace().next())
        .collect();
    assert_eq!(placed, [gpu_node; 3], "{printed}");

    // Jobs in each queue keep to the shares: dev to its maximum of half the default partition,
    // prod to its absolute maximum of 6 GB, however much more they ask for; the GPU node is
    // left out of both.
    let memory_used = |queue: &str| {
        let used = &queue_status(&cluster, queue)["Used Resources"];
        used.trim_start_matches("<memory:")
            .split(',')
            .next()
            .and_then(|memory| memory.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{queue}: {used}"))
    };
    // Each queue's usage is sampled until its jobs end (bounded by their --timeout).
    let mut dev = DshellJob::start(&cluster, &job("dev", "8", "4"));
    let mut dev_most = 0;
    while dev.running() {
        dev_most = dev_most.max(memory_used("dev"));
        std::thread::sleep(SAMPLE);
    }
    let out = dev.wait("the dev job");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        dev_most, 4096,
        "dev at its maximum of half the cluster, never above"
    );

    let mut etl = DshellJob::start(&cluster, &job("root.prod.etl", "8", "4"));
    let adhoc = DshellJob::start(&cluster, &job("adhoc", "2", "4"));
    let mut prod_most = 0;
    while etl.running() {
        prod_most = prod_most.max(memory_used("prod"));
        std::thread::sleep(SAMPLE);
    }
    for (job, what) in [(etl, "the etl job"), (adhoc, "the adhoc job")] {
        let out = job.wait(what);
        assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
    }
    assert_eq!(prod_most, 6144, "prod at its absolute maximum, never above");

    // A lifetime: dev's maximum stands in for a default, the CLI and the REST API show it, a
    // longer one is capped, and the application is killed when a shorter one is over.
    let mut with_lifetime = QUEUES.to_vec();
    with_lifetime.push((
        "yarn.scheduler.capacity.root.dev.maximum-application-lifetime",
        "600",
    ));
    cluster.refresh_queues(&with_lifetime);
    let sleeper = DshellJob::start(&cluster, &job("dev", "1", "300"));
    let app = cluster.running_application();
    let status = stdout(&cluster.yarn(&["application", "-status", &app])).to_owned();
    let timeout_line = status
        .lines()
        .find(|line| line.starts_with("\tTimeoutType : LIFETIME\tExpiryTime : "))
        .unwrap_or_else(|| panic!("no timeout line: {status}"));
    let remaining: u64 = timeout_line
        .rsplit_once("RemainingTime : ")
        .and_then(|(_, rest)| rest.strip_suffix("seconds"))
        .and_then(|secs| secs.parse().ok())
        .unwrap_or_else(|| panic!("{timeout_line}"));
    assert!((500..=600).contains(&remaining), "{timeout_line}");
    let timeouts = |path: &str| {
        curl(
            Some(&credentials),
            "GET",
            &format!("{base}/ws/v1/cluster/apps/{app}/{path}"),
            None,
            true,
        )
        .expect("the timeouts")
    };
    let listed = timeouts("timeouts").json();
    let expiry = listed["timeouts"]["timeout"][0]["expiryTime"].clone();
    assert_eq!(
        listed["timeouts"]["timeout"][0]["type"], "LIFETIME",
        "{listed}"
    );
    assert!(
        timeout_line.contains(&format!("ExpiryTime : {}\t", expiry.as_str().unwrap())),
        "the CLI and REST agree: {timeout_line} {listed}"
    );
    let unknown = timeouts("timeouts/DEADLINE");
    assert_eq!(unknown.status, 400, "{unknown:?}");

    let out = cluster.yarn(&["application", "-appId", &app, "-updateLifetime", "100000"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let capped = stdout(&out);
    assert!(
        capped.contains(&format!(
            "Updated lifetime of an application  {app} to queue max/default lifetime. New expiry \
             time is {}",
            expiry.as_str().unwrap()
        )),
        "capped at submission plus 600 s: {capped}"
    );
    let soon = yarn_proto::expiry_time::format_expiry_time(yarn_security::now_ms() + 3_000);
    let put = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/apps/{app}/timeout"),
        Some(&format!(
            r#"{{"timeout": {{"type": "LIFETIME", "expiryTime": "{soon}"}}}}"#
        )),
        true,
    )
    .expect("the update");
    assert_eq!(put.status, 200, "{put:?}");
    assert_eq!(
        put.json()["timeout"]["expiryTime"],
        soon.as_str(),
        "{put:?}"
    );
    let killed = sleeper.wait("the job whose lifetime ends");
    assert_ne!(killed.status.code(), Some(0), "{}", stdout(&killed));
    let report = stdout(&cluster.yarn(&["application", "-status", &app])).to_owned();
    assert!(
        report.contains("\tState : KILLED\n")
            && report.contains(
                "Application is killed by ResourceManager as it has exceeded the lifetime period."
            ),
        "{report}"
    );
}

/// The queue named `name` in a REST queue list.
fn find<'a>(queues: &'a Value, name: &str) -> &'a Value {
    queues
        .as_array()
        .and_then(|queues| queues.iter().find(|queue| queue["queueName"] == name))
        .unwrap_or_else(|| panic!("no queue {name} in {queues}"))
}
