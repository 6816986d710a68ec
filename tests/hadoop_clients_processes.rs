//! Hadoop's own Java clients, unmodified, against a minicluster of real processes over Hadoop
//! IPC: a YarnClient program submits an ApplicationMaster written on AMRMClient and NMClient,
//! queries the cluster, kills an application; an AM with a forged AMRMToken is refused; the
//! same AM finishes across a SIGKILL of the active RM; Spark computes pi in cluster and client
//! mode. The Java programs are this repository's (`tests/hadoop/src/yarnha`); the jars are
//! Hadoop's and Spark's from PyPI's pyspark (see `common::hadoop_clients` and `.ci/run`).

mod common;

use std::path::Path;
use std::time::Duration;

use yarn_conf::keys;
use yarn_minicluster::LayoutOptions;

use common::hadoop_clients::{
    HadoopClients, JarSet, JavaRun, container_logs, ipc_site, write_hadoop_conf,
};
use common::process_cluster::{ProcessCluster, one_cluster_at_a_time};
use common::{stderr, stdout};

/// How long one submission may take from `getNewApplication` to its final state.
const APP_DEADLINE: Duration = Duration::from_secs(240);
/// How long one Spark run may take (JVMs start slowly on a loaded two-core machine).
const SPARK_DEADLINE: Duration = Duration::from_secs(420);
/// What the Java AM's container gets: its JVM does not fit the 256 MB a shell AM gets.
const JAVA_AM_MB: &str = "512";

/// A cluster of `nodes` NodeManagers (4 GB and 8 vcores each) serving Hadoop IPC, with a
/// Hadoop client configuration directory for it.
struct HadoopCluster {
    cluster: ProcessCluster,
    hadoop_conf: tempfile::TempDir,
}

impl HadoopCluster {
    /// With `amrmproxy`, AMs talk to the AMRMProxy of the first NodeManager (so the cluster
    /// should have one), which holds their token; else to the ResourceManagers directly.
    fn start(nodes: usize, node_mb: u32, amrmproxy: bool) -> HadoopCluster {
        Self::start_with(nodes, node_mb, amrmproxy, &[])
    }

    /// As [`start`](Self::start), with `extra` `yarn-site.xml` properties.
    fn start_with(
        nodes: usize,
        node_mb: u32,
        amrmproxy: bool,
        extra: &[(&yarn_conf::Key, &str)],
    ) -> HadoopCluster {
        let site = |key: &yarn_conf::Key, value: &str| (key.name.to_string(), value.to_owned());
        let mut options = LayoutOptions {
            site: vec![
                site(&keys::NM_PMEM_MB, &node_mb.to_string()),
                site(&keys::NM_VCORES, "8"),
                site(&keys::SCHEDULER_MINIMUM_ALLOCATION_MB, "128"),
            ],
            ..LayoutOptions::default()
        };
        options.site.extend(ipc_site(amrmproxy));
        options
            .site
            .extend(extra.iter().map(|(key, value)| site(key, value)));
        let cluster = ProcessCluster::start_with(nodes, &options);
        let proxy = amrmproxy.then(|| {
            let output = common::yarn_ha_command()
                .arg("--conf-dir")
                .arg(cluster.base_dir().join("nm1/conf"))
                .args(["conf", "get", &keys::AMRM_PROXY_ADDRESS.name])
                .output()
                .expect("yarn-ha conf get");
            String::from_utf8(output.stdout).unwrap().trim().to_owned()
        });
        let hadoop_conf = tempfile::tempdir().unwrap();
        write_hadoop_conf(cluster.conf_dir(), hadoop_conf.path(), proxy.as_deref());
        HadoopCluster {
            cluster,
            hadoop_conf,
        }
    }

    fn conf(&self) -> &Path {
        self.hadoop_conf.path()
    }

    /// The container logs of `app_id`, for assertions and failure messages.
    fn logs(&self, app_id: &str) -> String {
        container_logs(self.cluster.base_dir(), app_id)
    }
}

/// `SubmitShellApp submit` with the Java AM (`ShellAm`) asking for `containers` containers
/// running `command`, expected to end FINISHED/SUCCEEDED.
fn submit_shell_am_args(containers: &str, command: &str) -> Vec<String> {
    [
        "submit",
        "--am",
        "java",
        "--containers",
        containers,
        "--container-command",
        command,
        "--name",
        "hadoop-shell-am",
        "--type",
        "YARNHA-TEST",
        "--am-memory",
        JAVA_AM_MB,
        "--deadline-secs",
        "200",
        "--expect-state",
        "FINISHED",
        "--expect-final",
        "SUCCEEDED",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// Checks what a successful ShellAm submission printed and what its AM logged: the report's
/// fields, the attempt and its AM container while RUNNING, `containers` containers started
/// and exited 0. Returns the application id.
fn assert_shell_am_succeeded(cluster: &HadoopCluster, run: &JavaRun, containers: usize) -> String {
    let app_id = run
        .value("APP_ID")
        .unwrap_or_else(|| panic!("no application id: {run}"))
        .to_owned();
    let logs = cluster.logs(&app_id);
    assert_eq!(run.code(), Some(0), "{run}\n--- container logs\n{logs}");
    assert_eq!(run.value("FINAL_STATE"), Some("FINISHED"), "{run}");
    assert_eq!(run.value("FINAL_STATUS"), Some("SUCCEEDED"), "{run}");
    assert_eq!(run.value("APPLICATION_TYPE"), Some("YARNHA-TEST"), "{run}");
    // Hadoop 3.4 and later report the queue's full path (YARN-9879), as yarn-ha does.
    assert_eq!(run.value("APP_QUEUE"), Some("root.default"), "{run}");
    // While RUNNING: getApplicationAttempts named the first attempt and its AM container,
    // and getContainers listed that container.
    let attempt = run.value("ATTEMPT").expect("an attempt while RUNNING");
    let mut words = attempt.split_whitespace();
    let attempt_id = words.next().unwrap();
    assert!(
        attempt_id.starts_with(&app_id.replacen("application_", "appattempt_", 1)),
        "{run}"
    );
    let am_container = words.nth(1).expect("the AM container id");
    assert!(
        run.values("CONTAINER")
            .any(|line| line.starts_with(am_container)),
        "getContainers lists the AM container {am_container}: {run}"
    );
    assert!(logs.contains("REGISTERED"), "{logs}");
    let exited_zero = logs
        .lines()
        .filter(|line| line.starts_with("COMPLETED ") && line.ends_with(" exit 0"))
        .count();
    assert_eq!(exited_zero, containers, "{logs}");
    assert!(logs.contains("UNREGISTERED exit 0"), "{logs}");
    app_id
}

/// Checks what ShellAm logged of `--resize-to 256`: the increase came back as version 1 of
/// 256 MB and the NodeManager ran the container at that size once the AM brought it; the
/// decrease to 128 MB came back as version 2 and reached the NodeManager without the AM; no
/// update was refused.
fn assert_resized(logs: &str) {
    let update = |kind: &str| {
        logs.lines()
            .find_map(|line| line.strip_prefix(&format!("UPDATED {kind} ")))
            .unwrap_or_else(|| panic!("no {kind} update: {logs}"))
            .split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let increase = update("INCREASE_RESOURCE");
    assert_eq!(increase[1..], ["256", "v1"], "{logs}");
    let decrease = update("DECREASE_RESOURCE");
    assert_eq!(decrease[..], [&increase[0], "128", "v2"], "{logs}");
    for size in ["256", "128"] {
        let seen = format!("NM_SIZE {} {size}", increase[0]);
        assert!(logs.lines().any(|line| line == seen), "{seen}: {logs}");
    }
    assert!(!logs.contains("UPDATE_ERROR"), "{logs}");
}

/// YarnClient submits the AMRMClient/NMClient AM (three containers on two nodes, one resized
/// up and down while it runs) to FINISHED/SUCCEEDED; the queries see it and the cluster; a shell AM is killed, another at
/// the end of its lifetime; AMs whose AMRMToken is forged (a wrong password, another
/// application's identifier) are refused.
#[test]
fn hadoop_clients_submit_query_kill_and_a_forged_token_is_refused() {
    let Some(clients) = HadoopClients::find(JarSet::Hadoop35) else {
        return;
    };
    let _turn = one_cluster_at_a_time();
    let cluster =
        HadoopCluster::start_with(2, 4096, false, &[(&keys::NODE_LABELS_ENABLED, "true")]);
    let conf = cluster.conf();

    // Submit, run three containers, resizing the first while it runs, finish.
    let mut args = submit_shell_am_args("3", "sleep 12");
    args.extend(["--resize-to".to_owned(), "256".to_owned()]);
    let run = clients.run_java(conf, "SubmitShellApp", &strs(&args), APP_DEADLINE);
    let app_id = assert_shell_am_succeeded(&cluster, &run, 3);
    assert_resized(&cluster.logs(&app_id));

    // Bad frames close their own connection, and every ResourceManager serves on.
    send_bad_frames(&cluster);

    // The queries, with one node labelled.
    let nodes = stdout(&cluster.cluster.yarn(&["node", "-list"]));
    let labelled = nodes
        .lines()
        .find_map(|line| {
            line.split_whitespace()
                .next()
                .filter(|id| id.starts_with("127."))
        })
        .unwrap_or_else(|| panic!("a node in {nodes}"));
    for args in [
        &["rmadmin", "-addToClusterNodeLabels", "GPU(exclusive=false)"][..],
        &[
            "rmadmin",
            "-replaceLabelsOnNode",
            &format!("{labelled}=GPU"),
        ],
    ] {
        let out = cluster.cluster.yarn(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    let run = clients.run_java(conf, "SubmitShellApp", &["queries"], APP_DEADLINE);
    run.assert_success();
    assert!(
        run.values("APPLICATION")
            .any(|line| line.starts_with(&format!(
                "{app_id} FINISHED SUCCEEDED YARNHA-TEST root.default "
            ))),
        "getApplications lists the finished application: {run}"
    );
    assert_eq!(run.value("CLUSTER_NODE_MANAGERS"), Some("2"), "{run}");
    assert_eq!(run.value("NODES"), Some("2"), "{run}");
    for node in run.values("NODE") {
        let words: Vec<&str> = node.split_whitespace().collect();
        assert_eq!(words[1..4], ["RUNNING", "4096", "8"], "{run}");
        let label = (words[0] == labelled).then_some("GPU");
        assert_eq!(
            words.get(5).copied(),
            label,
            "getNodeReports' labels: {run}"
        );
    }
    assert_eq!(
        run.value("NODE_LABELS"),
        Some("<GPU:exclusivity=false>"),
        "getClusterNodeLabels: {run}"
    );
    assert_eq!(
        run.values("NODE_TO_LABELS").collect::<Vec<_>>(),
        [format!("{labelled}=GPU")],
        "getNodeToLabels: {run}"
    );
    assert_eq!(
        run.values("LABELS_TO_NODES").collect::<Vec<_>>(),
        [format!("GPU={labelled}")],
        "getLabelsToNodes: {run}"
    );
    let queue = run.value("QUEUE").expect("getQueueInfo(default)");
    assert!(queue.starts_with("default RUNNING "), "{run}");
    // Not a weight (-1), and all of the default partition, guaranteed and at most: the 4 GB
    // and 8 vcores of the unlabelled node (the other is the GPU partition's).
    assert_eq!(
        run.value("QUEUE_EFFECTIVE"),
        Some("-1.0 4096 8 4096"),
        "weight and effective capacities: {run}"
    );
    assert!(
        run.values("QUEUE_ACL")
            .any(|acl| acl.starts_with("default ") && acl.contains("SUBMIT_APPLICATIONS")),
        "getQueueAclsInfo grants submission to default: {run}"
    );
    let unserved = run
        .value("UNSERVED")
        .expect("getClusterAttributes' outcome");
    assert!(
        unserved
            .starts_with("getClusterAttributes org.apache.hadoop.ipc.RpcNoSuchMethodException "),
        "a method yarn-ha does not serve is Hadoop's RpcNoSuchMethodException: {run}"
    );
    assert_eq!(
        run.value("AFTER_UNSERVED"),
        Some("2"),
        "the connection serves the next call: {run}"
    );

    // Kill a shell AM that would sleep for five minutes.
    let run = clients.run_java(
        conf,
        "SubmitShellApp",
        &[
            "kill",
            "--am-command",
            "sleep 300",
            "--deadline-secs",
            "200",
        ],
        APP_DEADLINE,
    );
    run.assert_success();
    assert!(run.value("KILLING_FROM").is_some(), "{run}");
    assert_eq!(run.value("FINAL_STATE"), Some("KILLED"), "{run}");

    // A lifetime: asked for at submission, reported, moved with updateApplicationTimeouts, and
    // the application killed when it is over; Hadoop's own `yarn application -status` shows it.
    let run = clients.run_java(
        conf,
        "SubmitShellApp",
        &[
            "lifetime",
            "--lifetime-secs",
            "3600",
            "--expire-in-secs",
            "8",
        ],
        APP_DEADLINE,
    );
    run.assert_success();
    let first = run.value("TIMEOUT").expect("the report's timeout");
    let [kind, _expiry, remaining] = first.split(' ').collect::<Vec<_>>()[..] else {
        panic!("TIMEOUT type expiry remaining: {run}");
    };
    assert_eq!(kind, "LIFETIME", "{run}");
    let remaining: i64 = remaining.parse().expect("seconds left");
    assert!((3500..=3600).contains(&remaining), "{run}");
    assert_eq!(
        run.value("UPDATED"),
        run.value("REQUESTED"),
        "within the queue's (unlimited) maximum, the expiry asked for is set: {run}"
    );
    let expiry = run.value("UPDATED").unwrap().to_owned();
    assert_eq!(
        run.value("TIMEOUT_AT_END"),
        Some(format!("LIFETIME {expiry} 0").as_str()),
        "{run}"
    );
    assert_eq!(
        run.value("DIAGNOSTICS"),
        Some("Application is killed by ResourceManager as it has exceeded the lifetime period."),
        "{run}"
    );
    let app_id = run.value("APP_ID").unwrap().to_owned();
    let status = clients
        .spawn_main(
            conf,
            "org.apache.hadoop.yarn.client.cli.ApplicationCLI",
            &["application", "-status", &app_id],
        )
        .finish(APP_DEADLINE);
    status.assert_success();
    assert!(
        status.stdout.contains(&format!(
            "\tTimeoutType : LIFETIME\tExpiryTime : {expiry}\tRemainingTime : 0seconds"
        )),
        "{status}"
    );

    // Forged AMRMTokens: the AM's registration is refused, so it exits 3 without
    // unregistering and its only attempt fails.
    for forge in ["wrong-password", "other-attempt"] {
        let run = clients.run_java(
            conf,
            "SubmitShellApp",
            &[
                "submit",
                "--am",
                "forged",
                "--forge",
                forge,
                "--am-memory",
                JAVA_AM_MB,
                "--deadline-secs",
                "200",
                "--expect-state",
                "FAILED",
                "--expect-final",
                "FAILED",
            ],
            APP_DEADLINE,
        );
        let app_id = run
            .value("APP_ID")
            .unwrap_or_else(|| panic!("no application id: {run}"))
            .to_owned();
        let logs = cluster.logs(&app_id);
        assert_eq!(
            run.code(),
            Some(0),
            "{forge}: {run}\n--- container logs\n{logs}"
        );
        assert!(logs.contains(&format!("mode={forge}")), "{forge}: {logs}");
        assert!(logs.contains("\nREFUSED "), "{forge}: {logs}");
        assert!(!logs.contains("\nACCEPTED"), "{forge} was accepted: {logs}");
    }
}

/// Hadoop's YarnClient, unmodified, reserves capacity of a reservable queue over Hadoop IPC:
/// createReservation, submitReservation, listReservations with the allocation, a refused
/// definition with the reason, and deleteReservation.
#[test]
fn hadoop_clients_reserve_list_and_delete() {
    let Some(clients) = HadoopClients::find(JarSet::Hadoop35) else {
        return;
    };
    let _turn = one_cluster_at_a_time();
    let cluster = HadoopCluster::start_with(
        1,
        8192,
        false,
        &[(&keys::RM_RESERVATION_SYSTEM_ENABLE, "true")],
    );
    cluster.cluster.refresh_queues(&[
        ("yarn.scheduler.capacity.root.queues", "default,a"),
        ("yarn.scheduler.capacity.root.default.capacity", "50"),
        ("yarn.scheduler.capacity.root.a.capacity", "50"),
        ("yarn.scheduler.capacity.root.a.reservable", "true"),
    ]);
    let run = clients.run_java(cluster.conf(), "Reservations", &["a"], APP_DEADLINE);
    run.assert_success();
    let id = run.value("RESERVATION_ID").expect("an id").to_owned();
    assert!(id.starts_with("reservation_"), "{run}");
    let arrival: i64 = run
        .value("SUBMITTED")
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|arrival| arrival.parse().ok())
        .expect("the submitted arrival");
    assert_eq!(
        run.values("LISTED").collect::<Vec<_>>(),
        ["1", "0"],
        "listed before and after the delete: {run}"
    );
    let listed: Vec<&str> = run
        .value("RESERVATION")
        .expect("the reservation")
        .split_whitespace()
        .collect();
    assert_eq!(listed[0], id, "{run}");
    assert_eq!(
        listed[2..],
        [format!("{arrival}-{}:2048", arrival + 600_000)],
        "both 1 GB containers together for ten minutes from the arrival: {run}"
    );
    let refused = run.value("BACKWARDS_REFUSED").expect("a refusal");
    assert!(refused.contains("deadline"), "{run}");
    assert_eq!(run.value("DELETED"), Some(id.as_str()), "{run}");
}

/// Behind the AMRMProxy: the NodeManager hands the AM a proxy-signed AMRMToken in its Hadoop
/// credentials file, and the AM, whose scheduler address is the proxy's, proves it over SASL
/// there and runs its OPPORTUNISTIC containers through the proxy's interceptor chain,
/// distributed scheduling included.
#[test]
fn a_hadoop_application_master_runs_behind_the_amrmproxy() {
    let Some(clients) = HadoopClients::find(JarSet::Hadoop35) else {
        return;
    };
    let _turn = one_cluster_at_a_time();
    let cluster = HadoopCluster::start(1, 4096, true);
    let mut args = submit_shell_am_args("2", "exit 0");
    // OPPORTUNISTIC asks, which the proxy's distributed scheduler places itself.
    args.extend(["--execution-type", "OPPORTUNISTIC"].map(str::to_owned));
    let run = clients.run_java(cluster.conf(), "SubmitShellApp", &strs(&args), APP_DEADLINE);
    let app_id = assert_shell_am_succeeded(&cluster, &run, 2);
    let logs = cluster.logs(&app_id);
    let opportunistic = logs
        .lines()
        .filter(|line| line.starts_with("STARTED ") && line.ends_with(" OPPORTUNISTIC"))
        .count();
    assert_eq!(opportunistic, 2, "{logs}");
}

/// The older client generation: Hadoop 3.3.4's jars (from pyspark 3.5.9) run the same AM and
/// queries.
#[test]
fn hadoop_3_3_clients_run_the_application_master() {
    let Some(clients) = HadoopClients::find(JarSet::Hadoop33) else {
        return;
    };
    let _turn = one_cluster_at_a_time();
    let cluster = HadoopCluster::start(1, 4096, false);
    let args = submit_shell_am_args("2", "exit 0");
    let run = clients.run_java(cluster.conf(), "SubmitShellApp", &strs(&args), APP_DEADLINE);
    assert_shell_am_succeeded(&cluster, &run, 2);
    let run = clients.run_java(cluster.conf(), "SubmitShellApp", &["queries"], APP_DEADLINE);
    run.assert_success();
    assert_eq!(run.value("CLUSTER_NODE_MANAGERS"), Some("1"), "{run}");
}

/// The active RM is SIGKILLed while the AM's containers run: YarnClient and AMRMClient fail
/// over to the new leader (the AM re-registering if told to resync) and the application still
/// ends FINISHED/SUCCEEDED with every container exited 0.
#[test]
fn a_hadoop_application_master_survives_a_sigkill_of_the_leader() {
    let Some(clients) = HadoopClients::find(JarSet::Hadoop35) else {
        return;
    };
    let _turn = one_cluster_at_a_time();
    let mut cluster = HadoopCluster::start(2, 4096, false);
    let args = submit_shell_am_args("3", "sleep 8; exit 0");
    let mut submitter = clients.spawn_java(cluster.conf(), "SubmitShellApp", &strs(&args));
    // The AM registered (RUNNING) and asked for its containers: kill the leader under it.
    submitter.wait_for_line("ATTEMPTS ", APP_DEADLINE);
    std::thread::sleep(Duration::from_secs(2));
    let killed = cluster.cluster.kill_leader();
    eprintln!("SIGKILLed the leader {killed}");
    let run = submitter.finish(APP_DEADLINE);
    assert_shell_am_succeeded(&cluster, &run, 3);
}

/// Spark on YARN, unmodified: SparkPi in cluster mode (the driver in the AM container) and
/// client mode (the driver here, the ExecutorLauncher AM in the cluster).
#[test]
fn spark_computes_pi_in_cluster_and_client_mode() {
    let Some(clients) = HadoopClients::find(JarSet::Hadoop35) else {
        return;
    };
    let _turn = one_cluster_at_a_time();
    let cluster = HadoopCluster::start(1, 8192, false);
    let app_jar = clients.app_jar.display().to_string();

    let run = clients.spark_submit(
        cluster.conf(),
        &[
            "--deploy-mode",
            "cluster",
            "--conf",
            "spark.yarn.appMasterEnv.SPARK_LOCAL_IP=127.0.0.1",
            "--class",
            "yarnha.SparkPi",
            &app_jar,
            "2",
        ],
        SPARK_DEADLINE,
    );
    let output = format!("{}\n{}", run.stdout, run.stderr);
    let app_id = application_id(&output);
    let logs = app_id.map(|id| cluster.logs(id)).unwrap_or_default();
    assert_eq!(run.code(), Some(0), "{run}\n--- container logs\n{logs}");
    assert!(output.contains("final status: SUCCEEDED"), "{run}");
    assert!(logs.contains("Pi is roughly 3."), "{logs}");

    let run = clients.spark_submit(
        cluster.conf(),
        &[
            "--deploy-mode",
            "client",
            "--class",
            "yarnha.SparkPi",
            &app_jar,
            "2",
        ],
        SPARK_DEADLINE,
    );
    run.assert_success();
    assert!(run.stdout.contains("Pi is roughly 3."), "{run}");
}

/// Spark survives its leader: SparkPi in cluster mode with slow tasks; once the application
/// runs, the active RM is SIGKILLed, and Spark's AM (on AMRMClient) and its client fail over
/// and the job still ends SUCCEEDED on its only attempt.
#[test]
fn spark_survives_a_sigkill_of_the_leader() {
    let Some(clients) = HadoopClients::find(JarSet::Hadoop35) else {
        return;
    };
    let _turn = one_cluster_at_a_time();
    let mut cluster = HadoopCluster::start(1, 8192, false);
    let app_jar = clients.app_jar.display().to_string();
    let mut submit = clients.spawn_spark_submit(
        cluster.conf(),
        &[
            "--deploy-mode",
            "cluster",
            "--conf",
            "spark.yarn.appMasterEnv.SPARK_LOCAL_IP=127.0.0.1",
            "--class",
            "yarnha.SparkPi",
            &app_jar,
            "4",
            "3000",
        ],
    );
    submit.wait_for_text("(state: RUNNING)", SPARK_DEADLINE);
    std::thread::sleep(Duration::from_secs(3));
    let killed = cluster.cluster.kill_leader();
    eprintln!("SIGKILLed the leader {killed}");
    let run = submit.finish(SPARK_DEADLINE);
    let output = format!("{}\n{}", run.stdout, run.stderr);
    let logs = application_id(&output)
        .map(|id| cluster.logs(id))
        .unwrap_or_default();
    assert_eq!(run.code(), Some(0), "{run}\n--- container logs\n{logs}");
    assert!(output.contains("final status: SUCCEEDED"), "{run}");
    assert!(logs.contains("Pi is roughly 3."), "{logs}");
}

/// Sends each ResourceManager's client port Hadoop IPC it must refuse: a frame longer than
/// `ipc.maximum.data.length`, an IPC version it does not speak, and a frame that is not an RPC
/// header. Each connection must be closed by the server (after its fatal answer, where Hadoop
/// has one); the caller then checks that the cluster serves on.
fn send_bad_frames(cluster: &HadoopCluster) {
    use std::io::{Read, Write};
    let preamble = |version: u8| [b'h', b'r', b'p', b'c', version, 0, 0];
    let too_long = [&preamble(9)[..], &[0x7f, 0xff, 0xff, 0xff]].concat();
    let old_version = preamble(7).to_vec();
    let garbage = [&preamble(9)[..], &[0, 0, 0, 3, 0xff, 0xff, 0xff]].concat();
    for rm in ["rm1", "rm2", "rm3"] {
        let output = common::yarn_ha_command()
            .arg("--conf-dir")
            .arg(cluster.cluster.conf_dir())
            .args(["conf", "get", &format!("{}.{rm}", keys::RM_ADDRESS.name)])
            .output()
            .expect("yarn-ha conf get");
        let address = String::from_utf8(output.stdout).unwrap().trim().to_owned();
        for bytes in [&too_long, &old_version, &garbage] {
            let mut stream = std::net::TcpStream::connect(&address).expect("the port accepts");
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .unwrap();
            stream.write_all(bytes).unwrap();
            let mut answer = Vec::new();
            // A closed connection ends the read (a reset is an error); a timeout fails.
            if let Err(err) = stream.read_to_end(&mut answer) {
                assert!(
                    !matches!(
                        err.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ),
                    "{rm} kept a connection that sent {bytes:02x?} open"
                );
            }
        }
    }
}

/// The first `application_<ts>_<seq>` id in `text`.
fn application_id(text: &str) -> Option<&str> {
    let start = text.find("application_")?;
    let rest = &text[start..];
    let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let ts = digits(&rest["application_".len()..]);
    let seq_start = "application_".len() + ts + 1;
    if rest.as_bytes().get(seq_start - 1) != Some(&b'_') {
        return None;
    }
    Some(&rest[..seq_start + digits(&rest[seq_start..])])
}
