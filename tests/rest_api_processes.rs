//! Hadoop's ResourceManager REST API on a minicluster of real processes, called by curl over
//! the cluster's mutual TLS: the active found by probing every replica's `/ws/v1/cluster/info`,
//! a standby's redirect to the active, the read endpoints' shapes after a real job, a kill
//! through `PUT .../state`, refusals of bad input in Hadoop's `RemoteException` form, another
//! user's view of an application without VIEW_APP access, and the active found again after the
//! leader is SIGKILLed.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;
use yarn_security::{Role, TlsFiles};

use common::process_cluster::{ProcessCluster, eventually, one_cluster_at_a_time, wait_exit};
use common::rest_client::{Credentials, active, curl, setup};
use common::{stderr, stdout, yarn_ha};

/// `GET url` asking for Hadoop's XML form; the body.
fn get_xml(credentials: &Credentials, url: &str) -> String {
    let out = Command::new("curl")
        .args(["-sS", "--max-time", "30", "-H", "Accept: application/xml"])
        .arg("--cacert")
        .arg(&credentials.ca)
        .arg("--cert")
        .arg(&credentials.cert)
        .arg("--key")
        .arg(&credentials.key)
        .arg(url)
        .output()
        .expect("curl runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

/// `base`'s `/metrics` page as parsed by Prometheus's own Python parser
/// (`prometheus_client`, which `.ci/run` installs): every sample by name and labels.
fn scrape(credentials: &Credentials, base: &str) -> BTreeMap<String, f64> {
    const PARSE: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
samples = {}
for family in text_string_to_metric_families(sys.stdin.read()):
    for sample in family.samples:
        labels = ",".join('%s="%s"' % item for item in sorted(sample.labels.items()))
        samples[sample.name + ("{%s}" % labels if labels else "")] = sample.value
print(json.dumps(samples))
"#;
    let page = curl(
        Some(credentials),
        "GET",
        &format!("{base}/metrics"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(page.status, 200, "{page:?}");
    let mut parser = Command::new("python3")
        .args(["-c", PARSE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    parser
        .stdin
        .take()
        .unwrap()
        .write_all(page.body.as_bytes())
        .unwrap();
    let out = parser.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "Prometheus's parser refused the page: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        page.body
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The sample `name` of `samples`, 0 when absent.
fn sample(samples: &BTreeMap<String, f64>, name: &str) -> f64 {
    samples.get(name).copied().unwrap_or(0.0)
}

fn app_state(credentials: &Credentials, base: &str, id: &str) -> Option<String> {
    let answer = curl(
        Some(credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/apps/{id}/state"),
        None,
        true,
    )
    .ok()?;
    (answer.status == 200).then(|| answer.json()["state"].as_str().unwrap().to_owned())
}

/// A new user certificate `name`, signed by the cluster's CA, as curl takes it.
fn new_user(cluster: &ProcessCluster, name: &str) -> Credentials {
    let pki = cluster.base_dir().join("pki");
    let out = yarn_ha(&[
        "pki",
        "issue",
        "--dir",
        pki.to_str().unwrap(),
        "--role",
        "user",
        "--name",
        name,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let files = TlsFiles::in_pki_dir(&pki, Role::User, name);
    Credentials {
        ca: files.ca_cert,
        cert: files.cert,
        key: files.key,
    }
}

/// Makes `root.default` the only queue and lets nobody but the cluster administrators
/// administer it (Hadoop's unset root ACL lets everyone administer every queue).
fn restrict_queue_administration(cluster: &ProcessCluster) {
    cluster.refresh_queues(&[
        ("yarn.scheduler.capacity.root.queues", "default"),
        ("yarn.scheduler.capacity.root.default.capacity", "100"),
        ("yarn.scheduler.capacity.root.acl_administer_queue", " "),
    ]);
}

#[test]
fn hadoops_rest_api_over_mutual_tls_on_every_replica() {
    let _turn = one_cluster_at_a_time();
    let mut cluster = ProcessCluster::start(1);
    let (credentials, web) = setup(&cluster);
    let (leader, base) = active(&credentials, &web);

    // A standby sends everything but clusterInfo to the active, path and query kept.
    let (_, standby) = web.iter().find(|(rm_id, _)| *rm_id != leader).unwrap();
    let redirect = curl(
        Some(&credentials),
        "GET",
        &format!("{standby}/ws/v1/cluster/apps?states=RUNNING"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(redirect.status, 307, "{redirect:?}");
    assert_eq!(
        redirect.location.as_deref(),
        Some(format!("{base}/ws/v1/cluster/apps?states=RUNNING").as_str()),
        "{redirect:?}"
    );

    // Every replica's metrics parse, and each replica times its own log appends and applies;
    // the leader's count the job that follows.
    for (_, replica) in &web {
        let samples = scrape(&credentials, replica);
        assert!(samples.contains_key("yarn_raft_term"), "{samples:?}");
        eventually("a replica to time its Raft appends and applies", || {
            let samples = scrape(&credentials, replica);
            (sample(&samples, "yarn_raft_append_duration_seconds_count") > 0.0
                && sample(&samples, "yarn_raft_apply_duration_seconds_count") > 0.0)
                .then_some(())
        });
    }
    let before = scrape(&credentials, &base);
    assert_eq!(sample(&before, "yarn_raft_leader"), 1.0, "{before:?}");
    assert!(
        sample(&before, "yarn_raft_leader_changes_total") >= 1.0,
        "the leader saw its own leadership begin: {before:?}"
    );
    const QUEUE_SUBMITTED: &str = r#"yarn_queue_apps_submitted_total{queue="root.default"}"#;
    const QUEUE_COMPLETED: &str = r#"yarn_queue_apps_completed_total{queue="root.default"}"#;
    for series in [QUEUE_SUBMITTED, QUEUE_COMPLETED] {
        assert!(before.contains_key(series), "{series} in {before:?}");
    }

    // A real job, then what the API says of it.
    let out = cluster.yarn(&["dshell", "--shell_command", "true", "--num_containers", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let followed = curl(
        Some(&credentials),
        "GET",
        &format!("{standby}/ws/v1/cluster/apps?states=finished"),
        None,
        true,
    )
    .unwrap();
    assert_eq!(followed.status, 200, "{followed:?}");
    let apps = followed.json();
    let app = apps["apps"]["app"][0].clone();
    let id = app["id"].as_str().expect("an application id").to_owned();
    assert!(id.starts_with("application_"), "{app}");
    assert_eq!(app["state"], "FINISHED", "{app}");
    assert_eq!(app["finalStatus"], "SUCCEEDED", "{app}");
    // dshell's AM gives no tracking URL.
    assert_eq!(app["trackingUI"], "UNASSIGNED", "{app}");
    assert_eq!(app["progress"], 100.0, "{app}");
    assert_eq!(app["allocatedMB"], -1, "{app}");
    assert!(app["startedTime"].as_i64().unwrap() > 0, "{app}");
    assert!(
        app["finishedTime"].as_i64().unwrap() >= app["startedTime"].as_i64().unwrap(),
        "{app}"
    );
    assert!(app["memorySeconds"].is_i64(), "{app}");
    let one = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/apps/{id}"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(one.json()["app"]["id"], id.as_str(), "{one:?}");
    let attempts = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/apps/{id}/appattempts"),
        None,
        false,
    )
    .unwrap()
    .json();
    let attempt = &attempts["appAttempts"]["appAttempt"][0];
    assert_eq!(attempt["id"], 1, "{attempts}");
    assert_eq!(attempt["appAttemptState"], "FINISHED", "{attempts}");
    assert!(
        attempt["containerId"]
            .as_str()
            .unwrap()
            .starts_with("container_"),
        "{attempts}"
    );
    assert!(
        !attempt["nodeId"].as_str().unwrap().is_empty(),
        "{attempts}"
    );
    // The attempt's containers, with where their logs are; then one of them, and refusals.
    let attempt_id = attempt["appAttemptId"].as_str().unwrap();
    let containers_url =
        format!("{base}/ws/v1/cluster/apps/{id}/appattempts/{attempt_id}/containers");
    // The AM container completes when its node next reports, after the application ended.
    let am = eventually("the AM container to be reported COMPLETE", || {
        let containers = curl(Some(&credentials), "GET", &containers_url, None, false)
            .unwrap()
            .json();
        let listed = containers["containers"]["container"].as_array().unwrap();
        assert_eq!(
            listed.len(),
            2,
            "the AM and one shell container: {containers}"
        );
        let am = listed
            .iter()
            .find(|container| container["containerId"] == attempt["containerId"])
            .unwrap_or_else(|| panic!("the AM container is listed: {containers}"))
            .clone();
        (am["containerState"] == "COMPLETE").then_some(am)
    });
    let am = &am;
    assert_eq!(am["containerExitStatus"], 0, "{am}");
    assert_eq!(am["executionType"], "GUARANTEED", "{am}");
    let node_web = am["nodeHttpAddress"].as_str().unwrap();
    assert!(!node_web.is_empty(), "{am}");
    assert_eq!(
        am["logUrl"],
        format!(
            "https://{node_web}/node/containerlogs/{}/{}",
            am["containerId"].as_str().unwrap(),
            app["user"].as_str().unwrap()
        )
        .as_str(),
        "{am}"
    );
    assert_eq!(attempt["logsLink"], am["logUrl"], "{attempts}");
    let container_id = am["containerId"].as_str().unwrap();
    let one = curl(
        Some(&credentials),
        "GET",
        &format!("{containers_url}/{container_id}"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(one.json()["container"], *am, "{one:?}");
    let missing = curl(
        Some(&credentials),
        "GET",
        &format!(
            "{containers_url}/{}",
            container_id.replace("_000001", "_000099")
        ),
        None,
        false,
    )
    .unwrap();
    assert_eq!(missing.status, 404, "{missing:?}");
    let foreign = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/apps/{id}/appattempts/appattempt_1_0001_000001/containers"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(foreign.status, 400, "{foreign:?}");
    assert!(foreign.body.contains("is not an attempt of"), "{foreign:?}");
    let statistics = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/appstatistics?states=FINISHED"),
        None,
        false,
    )
    .unwrap()
    .json();
    let item = &statistics["appStatInfo"]["statItem"][0];
    assert_eq!(item["state"], "FINISHED", "{statistics}");
    assert!(item["count"].as_u64().unwrap() >= 1, "{statistics}");
    let none = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/apps?states=RUNNING"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(none.json(), serde_json::json!({"apps": {}}), "{none:?}");

    let after = scrape(&credentials, &base);
    const SUBMITTED: &str = "yarn_applications_submitted_total";
    assert!(
        sample(&after, SUBMITTED) > sample(&before, SUBMITTED),
        "{before:?}\n{after:?}"
    );
    const SUBMIT_CALLS: &str = r#"yarn_rpc_requests_total{method="SubmitApplication",protocol="ApplicationClientProtocol"}"#;
    assert!(
        sample(&after, SUBMIT_CALLS) > sample(&before, SUBMIT_CALLS),
        "{after:?}"
    );
    assert!(
        sample(&after, "yarn_scheduler_allocations_total") >= 1.0,
        "{after:?}"
    );
    // The job's queue counted it, as did its user there.
    for series in [QUEUE_SUBMITTED, QUEUE_COMPLETED] {
        assert!(
            sample(&after, series) > sample(&before, series),
            "{series}: {before:?}\n{after:?}"
        );
    }
    assert!(
        after.iter().any(|(series, value)| {
            series
                .starts_with(r#"yarn_queue_user_apps_completed_total{queue="root.default",user=""#)
                && *value >= 1.0
        }),
        "{after:?}"
    );
    assert!(
        sample(&after, r#"yarn_queue_apps_submitted_total{queue="root"}"#)
            >= sample(&after, QUEUE_SUBMITTED),
        "root adds up its children: {after:?}"
    );
    assert!(
        sample(&after, "yarn_raft_append_duration_seconds_count")
            > sample(&before, "yarn_raft_append_duration_seconds_count"),
        "{before:?}\n{after:?}"
    );

    let metrics = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/metrics"),
        None,
        false,
    )
    .unwrap()
    .json();
    let metrics = &metrics["clusterMetrics"];
    assert!(metrics["appsSubmitted"].as_u64().unwrap() >= 1, "{metrics}");
    assert!(metrics["appsCompleted"].as_u64().unwrap() >= 1, "{metrics}");
    assert_eq!(metrics["activeNodes"], 1, "{metrics}");
    assert!(metrics["totalMB"].as_u64().unwrap() > 0, "{metrics}");

    let scheduler = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/scheduler"),
        None,
        false,
    )
    .unwrap()
    .json();
    let root = &scheduler["scheduler"]["schedulerInfo"];
    assert_eq!(root["type"], "capacityScheduler", "{scheduler}");
    assert!(
        root["queues"]["queue"]
            .as_array()
            .unwrap()
            .iter()
            .any(|queue| queue["queueName"] == "default"),
        "{scheduler}"
    );
    // The configuration behind it, for an administrator (`yarn.admin.acl` is `*` here).
    let conf = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/scheduler-conf"),
        None,
        false,
    )
    .unwrap()
    .json();
    assert!(
        conf["property"].as_array().unwrap().iter().any(|property| {
            property["name"] == "yarn.scheduler.capacity.root.queues"
                && property["value"] == "default"
        }),
        "{conf}"
    );
    let conf_xml = get_xml(
        &credentials,
        &format!("{base}/ws/v1/cluster/scheduler-conf"),
    );
    assert!(
        conf_xml.contains("<configuration><property><name>yarn.scheduler.capacity.",),
        "{conf_xml}"
    );

    let nodes = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/nodes?states=running"),
        None,
        false,
    )
    .unwrap()
    .json();
    let node = &nodes["nodes"]["node"][0];
    assert_eq!(node["state"], "RUNNING", "{nodes}");
    let node_id = node["id"].as_str().unwrap().to_owned();
    // The node's own Prometheus page, at the web address the RM reports for it.
    let nm_web = node["nodeHTTPAddress"].as_str().unwrap().to_owned();
    let nm_samples = scrape(&credentials, &format!("https://{nm_web}"));
    assert!(
        sample(&nm_samples, "yarn_nm_capacity_memory_megabytes") > 0.0,
        "{nm_samples:?}"
    );
    for series in [
        r#"yarn_nm_containers{execution_type="guaranteed",state="RUNNING"}"#,
        r#"yarn_nm_containers{execution_type="opportunistic",state="SCHEDULED"}"#,
        "yarn_nm_opportunistic_queued_containers",
        "yarn_nm_available_memory_megabytes",
    ] {
        assert!(nm_samples.contains_key(series), "{series}: {nm_samples:?}");
    }
    let by_id = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/nodes/{node_id}"),
        None,
        false,
    )
    .unwrap()
    .json();
    assert_eq!(by_id["node"]["id"], node_id.as_str(), "{by_id}");

    let new = curl(
        Some(&credentials),
        "POST",
        &format!("{base}/ws/v1/cluster/apps/new-application"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(new.status, 200, "{new:?}");
    assert!(
        new.json()["application-id"]
            .as_str()
            .unwrap()
            .starts_with("application_"),
        "{new:?}"
    );
    assert!(
        new.json()["maximum-resource-capability"]["memory"]
            .as_i64()
            .unwrap()
            > 0,
        "{new:?}"
    );

    // A submission by REST, in Hadoop's JSON form: its AM container runs (and never
    // registers), and the application is killed by REST.
    let submitted_id = new.json()["application-id"].as_str().unwrap().to_owned();
    let context = format!(
        r#"{{"application-id": "{submitted_id}", "application-name": "rest-submitted",
            "am-container-spec": {{"commands": {{"command": "sleep 30"}},
                                   "environment": {{"entry": [{{"key": "A", "value": "1"}}]}}}},
            "max-app-attempts": 1, "resource": {{"memory": 64, "vCores": 1}},
            "application-type": "YARN", "application-tags": {{"tag": ["rest"]}}}}"#
    );
    let submit = curl(
        Some(&credentials),
        "POST",
        &format!("{base}/ws/v1/cluster/apps"),
        Some(&context),
        false,
    )
    .unwrap();
    assert_eq!(submit.status, 202, "{submit:?}");
    assert_eq!(
        submit.location.as_deref(),
        Some(format!("{base}/ws/v1/cluster/apps/{submitted_id}").as_str()),
        "{submit:?}"
    );
    let by_rest = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/apps/{submitted_id}"),
        None,
        false,
    )
    .unwrap()
    .json();
    assert_eq!(by_rest["app"]["name"], "rest-submitted", "{by_rest}");
    assert_eq!(by_rest["app"]["applicationTags"], "rest", "{by_rest}");
    let kill_submitted = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/apps/{submitted_id}/state"),
        Some(r#"{"state":"KILLED"}"#),
        false,
    )
    .unwrap();
    assert!(
        matches!(kill_submitted.status, 200 | 202),
        "{kill_submitted:?}"
    );
    eventually("the REST-submitted application to be KILLED", || {
        (app_state(&credentials, &base, &submitted_id)? == "KILLED").then_some(())
    });
    let refused_submission = curl(
        Some(&credentials),
        "POST",
        &format!("{base}/ws/v1/cluster/apps"),
        Some(r#"{"application-id": "application_1_0001", "log-aggregation-context": {}}"#),
        false,
    )
    .unwrap();
    assert_eq!(refused_submission.status, 400, "{refused_submission:?}");
    assert!(
        refused_submission.body.contains("log-aggregation-context"),
        "{refused_submission:?}"
    );

    // Hadoop's XML form, for clients that ask for it.
    let info = get_xml(&credentials, &format!("{base}/ws/v1/cluster/info"));
    assert!(info.starts_with(r#"<?xml version="1.0""#), "{info}");
    assert!(info.contains("<clusterInfo><id>"), "{info}");
    assert!(info.contains("<haState>ACTIVE</haState>"), "{info}");
    let apps = get_xml(
        &credentials,
        &format!("{base}/ws/v1/cluster/apps?states=FINISHED"),
    );
    assert!(
        apps.contains(&format!("<apps><app><id>{id}</id>")),
        "{apps}"
    );
    let state = get_xml(
        &credentials,
        &format!("{base}/ws/v1/cluster/apps/{id}/state"),
    );
    assert!(
        state.contains("<appstate><state>FINISHED</state></appstate>"),
        "{state}"
    );
    let missing = get_xml(
        &credentials,
        &format!("{base}/ws/v1/cluster/apps/application_1_9999"),
    );
    assert!(
        missing.contains("<RemoteException><exception>NotFoundException</exception>"),
        "{missing}"
    );

    // Someone else's application: a user without VIEW_APP access sees where it stands, not
    // its details, and is refused its attempts.
    restrict_queue_administration(&cluster);
    let bob = new_user(&cluster, "bob");
    let owners = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/apps/{id}"),
        None,
        false,
    )
    .unwrap()
    .json();
    assert_ne!(owners["app"]["diagnostics"], "N/A", "{owners}");
    let hidden = curl(
        Some(&bob),
        "GET",
        &format!("{base}/ws/v1/cluster/apps/{id}"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(hidden.status, 200, "{hidden:?}");
    let hidden = hidden.json();
    assert_eq!(hidden["app"]["user"], owners["app"]["user"], "{hidden}");
    assert_eq!(hidden["app"]["state"], "FINISHED", "{hidden}");
    assert_eq!(hidden["app"]["diagnostics"], "N/A", "{hidden}");
    let attempts_refused = curl(
        Some(&bob),
        "GET",
        &format!("{base}/ws/v1/cluster/apps/{id}/appattempts"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(attempts_refused.status, 403, "{attempts_refused:?}");
    assert_eq!(
        attempts_refused.json()["RemoteException"]["message"],
        format!("User bob does not have privilege to see this application {id}").as_str(),
        "{attempts_refused:?}"
    );

    // Refusals, in Hadoop's RemoteException form.
    let refused = |path: &str, status: u16, exception: &str, needle: &str| {
        let answer = curl(
            Some(&credentials),
            "GET",
            &format!("{base}{path}"),
            None,
            false,
        )
        .unwrap();
        assert_eq!(answer.status, status, "{path}: {answer:?}");
        let remote = &answer.json()["RemoteException"];
        assert_eq!(remote["exception"], exception, "{path}: {answer:?}");
        assert!(
            remote["message"].as_str().unwrap().contains(needle),
            "{path}: {answer:?}"
        );
        assert!(
            remote["javaClassName"]
                .as_str()
                .unwrap()
                .ends_with(exception),
            "{path}: {answer:?}"
        );
    };
    refused(
        "/ws/v1/cluster/apps?states=SLEEPING",
        400,
        "BadRequestException",
        "SLEEPING",
    );
    refused(
        "/ws/v1/cluster/apps?limit=0",
        400,
        "BadRequestException",
        "limit",
    );
    refused(
        "/ws/v1/cluster/apps/application_bogus",
        400,
        "BadRequestException",
        "application_bogus",
    );
    refused(
        "/ws/v1/cluster/apps/application_1_9999",
        404,
        "NotFoundException",
        "application_1_9999",
    );
    refused(
        "/ws/v1/cluster/nodes/nowhere:1",
        404,
        "NotFoundException",
        "nowhere:1",
    );
    refused(
        "/ws/v1/cluster/nonsense",
        404,
        "NotFoundException",
        "/ws/v1/cluster/nonsense",
    );
    refused(
        "/ws/v1/cluster/apps/%FF",
        400,
        "BadRequestException",
        "/ws/v1/cluster/apps",
    );
    // A body over the API's limit: 413, in the same form, answered to the declared length
    // before curl sends the body (it asks to continue first over HTTP/1.1; over HTTP/2 the
    // server's reset of the unread stream would race the answer in curl).
    let body_file = cluster.base_dir().join("oversized.json");
    let oversized = format!("{{\"queue\": \"{}\"}}", "q".repeat(2 * 1024 * 1024));
    std::fs::write(&body_file, oversized).unwrap();
    let too_large = Command::new("curl")
        .args([
            "-sS",
            "--http1.1",
            "--max-time",
            "30",
            "-X",
            "PUT",
            "-w",
            "\n%{http_code}",
        ])
        .args(["-H", "Content-Type: application/json", "--data-binary"])
        .arg(format!("@{}", body_file.display()))
        .arg("--cacert")
        .arg(&credentials.ca)
        .arg("--cert")
        .arg(&credentials.cert)
        .arg("--key")
        .arg(&credentials.key)
        .arg(format!("{base}/ws/v1/cluster/apps/{id}/queue"))
        .output()
        .expect("curl runs");
    let too_large = stdout(&too_large);
    let (body, status) = too_large.rsplit_once('\n').unwrap();
    assert_eq!(status, "413", "{too_large}");
    let body: Value = serde_json::from_str(body).unwrap_or_else(|err| panic!("{err}: {body}"));
    assert_eq!(
        body["RemoteException"]["exception"], "BadRequestException",
        "{body}"
    );
    let without_certificate = curl(
        None,
        "GET",
        &format!("{base}/ws/v1/cluster/info"),
        None,
        false,
    );
    assert!(without_certificate.is_err(), "{without_certificate:?}");

    // A kill through the state resource.
    let job = cluster.spawn_dshell(&["--shell_command", "sleep 60", "--num_containers", "1"]);
    let running = cluster.running_application();
    // While it runs, its queue shows it running and holding containers.
    eventually("the running job's queue to show it", || {
        let samples = scrape(&credentials, &base);
        let queue = |name: &str| sample(&samples, &format!(r#"{name}{{queue="root.default"}}"#));
        (queue("yarn_queue_apps_running") >= 1.0
            && queue("yarn_queue_allocated_containers") >= 1.0
            && queue("yarn_queue_allocated_megabytes") > 0.0)
            .then_some(())
    });
    const QUEUE_KILLED: &str = r#"yarn_queue_apps_killed_total{queue="root.default"}"#;
    let killed_before = sample(&scrape(&credentials, &base), QUEUE_KILLED);
    let same_state = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/apps/{running}/state"),
        Some(r#"{"state":"RUNNING"}"#),
        false,
    )
    .unwrap();
    assert_eq!(same_state.status, 200, "{same_state:?}");
    assert_eq!(same_state.json()["state"], "RUNNING", "{same_state:?}");
    let bad_target = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/apps/{running}/state"),
        Some(r#"{"state":"FINISHED"}"#),
        false,
    )
    .unwrap();
    assert_eq!(bad_target.status, 400, "{bad_target:?}");
    let unknown = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/apps/application_1_9999/state"),
        Some(r#"{"state":"KILLED"}"#),
        false,
    )
    .unwrap();
    assert_eq!(unknown.status, 404, "{unknown:?}");
    let priority = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/apps/{running}/priority"),
        Some(r#"{"priority":3}"#),
        false,
    )
    .unwrap();
    assert_eq!(priority.status, 200, "{priority:?}");
    assert!(priority.json()["priority"].is_i64(), "{priority:?}");
    let queue = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/apps/{running}/queue"),
        None,
        false,
    )
    .unwrap();
    assert!(
        queue.json()["queue"].as_str().unwrap().ends_with("default"),
        "{queue:?}"
    );
    let nowhere = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/apps/{running}/queue"),
        Some(r#"{"queue":"nowhere"}"#),
        false,
    )
    .unwrap();
    assert_eq!(nowhere.status, 400, "{nowhere:?}");
    assert!(nowhere.body.contains("nowhere"), "{nowhere:?}");
    let kill = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/apps/{running}/state"),
        Some(r#"{"state":"KILLED"}"#),
        false,
    )
    .unwrap();
    assert!(matches!(kill.status, 200 | 202), "{kill:?}");
    if kill.status == 202 {
        assert_eq!(
            kill.location.as_deref(),
            Some(format!("{base}/ws/v1/cluster/apps/{running}/state").as_str()),
            "{kill:?}"
        );
    }
    eventually("the application to be KILLED", || {
        (app_state(&credentials, &base, &running)? == "KILLED").then_some(())
    });
    wait_exit(job, "the killed job");
    let killed_after = sample(&scrape(&credentials, &base), QUEUE_KILLED);
    assert!(
        killed_after > killed_before,
        "{killed_before} -> {killed_after}"
    );

    // The leader dies: a standby becomes active and says so.
    let killed = cluster.kill_leader();
    assert_eq!(killed, leader);
    let survivors: Vec<(String, String)> = web
        .iter()
        .filter(|(rm_id, _)| *rm_id != killed)
        .cloned()
        .collect();
    let (new_leader, new_base) = active(&credentials, &survivors);
    assert_ne!(new_leader, killed);
    let after = curl(
        Some(&credentials),
        "GET",
        &format!("{new_base}/ws/v1/cluster/apps/{id}"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(after.json()["app"]["state"], "FINISHED", "{after:?}");
}

#[test]
fn the_queue_configuration_changes_live_over_rest_and_schedulerconf() {
    let _turn = one_cluster_at_a_time();
    let options = minicluster_options(&[("yarn.scheduler.configuration.store.class", "memory")]);
    let cluster = ProcessCluster::start_with(1, &options);
    let (credentials, web) = setup(&cluster);
    let (_, base) = active(&credentials, &web);
    let job = cluster.spawn_dshell(&["--shell_command", "sleep 15", "--num_containers", "1"]);
    cluster.running_application();
    let version = || {
        let answer = curl(
            Some(&credentials),
            "GET",
            &format!("{base}/ws/v1/cluster/scheduler-conf/version"),
            None,
            false,
        )
        .unwrap();
        answer.json()["versionID"].as_u64().expect("a version")
    };
    let first = version();

    // A queue added and root.default shrunk in one change, while the job runs in root.default.
    let added = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/scheduler-conf"),
        Some(
            r#"{"add-queue": {"queue-name": "root.batch",
                              "params": {"entry": {"key": "capacity", "value": "40"}}},
                "update-queue": {"queue-name": "root.default",
                                 "params": {"entry": {"key": "capacity", "value": "60"}}}}"#,
        ),
        false,
    )
    .unwrap();
    assert_eq!(added.status, 200, "{added:?}");
    assert_eq!(added.body, "Configuration change successfully applied.");
    assert_eq!(version(), first + 1);
    let queue = cluster.yarn(&["queue", "-status", "batch"]);
    assert!(
        stdout(&queue).contains("Queue Name : batch"),
        "{}",
        stdout(&queue)
    );

    // One that breaks the capacities is refused in Hadoop's form and changes nothing.
    let refused = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/scheduler-conf"),
        Some(r#"{"update-queue": {"queue-name": "root.default", "params": {"entry": {"key": "capacity", "value": "90"}}}}"#),
        false,
    )
    .unwrap();
    assert_eq!(refused.status, 400, "{refused:?}");
    let message = refused.json()["RemoteException"]["message"].clone();
    assert!(
        message
            .as_str()
            .unwrap()
            .contains("Failed to re-init queues"),
        "{refused:?}"
    );
    assert_eq!(version(), first + 1);

    // The same through yarn-ha schedulerconf, Hadoop's options.
    let updated = cluster.yarn(&["schedulerconf", "-update", "root.batch:maximum-capacity=50"]);
    assert_eq!(updated.status.code(), Some(0), "{}", stderr(&updated));
    assert!(
        stdout(&updated).starts_with("Configuration changed successfully."),
        "{}",
        stdout(&updated)
    );
    let shown = cluster.yarn(&["schedulerconf", "-getconf"]);
    assert!(
        stdout(&shown).contains(
            "<name>yarn.scheduler.capacity.root.batch.maximum-capacity</name>\n    <value>50</value>"
        ),
        "{}",
        stdout(&shown)
    );
    let stop = cluster.yarn(&["schedulerconf", "-update", "root.batch:state=STOPPED"]);
    assert_eq!(stop.status.code(), Some(0), "{}", stderr(&stop));
    let removed = cluster.yarn(&[
        "schedulerconf",
        "-remove",
        "root.batch",
        "-update",
        "root.default:capacity=100",
    ]);
    assert_eq!(removed.status.code(), Some(0), "{}", stderr(&removed));
    assert_eq!(version(), first + 4);
    let gone = cluster.yarn(&["queue", "-status", "batch"]);
    assert_ne!(gone.status.code(), Some(0), "{}", stdout(&gone));
    let bad = cluster.yarn(&["schedulerconf", "-add", "root.x:capacity"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("confKey=confVal"), "{}", stderr(&bad));

    // The file is no longer the source: -refreshQueues is refused, -format commits it again.
    let refresh = cluster.yarn(&["rmadmin", "-refreshQueues"]);
    assert_eq!(refresh.status.code(), Some(1));
    assert!(
        stderr(&refresh).contains("refreshQueues is not allowed in this scenario"),
        "{}",
        stderr(&refresh)
    );
    let format = cluster.yarn(&["schedulerconf", "-format"]);
    assert_eq!(format.status.code(), Some(0), "{}", stderr(&format));

    // Replaced versions are kept, read and restored.
    let versions = cluster.yarn(&["schedulerconf", "-versions"]);
    let listed = stdout(&versions);
    let kept = listed.split("kept: ").nth(1).unwrap_or_default();
    assert!(
        kept.split_whitespace()
            .any(|v| v == (first + 1).to_string()),
        "{listed}"
    );
    let kept = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/scheduler-conf?version={}", first + 1),
        None,
        false,
    )
    .unwrap();
    assert_eq!(kept.status, 200, "{kept:?}");
    assert!(kept.body.contains("root.batch.capacity"), "{kept:?}");
    let restore = cluster.yarn(&["schedulerconf", "-restore", &(first + 1).to_string()]);
    assert_eq!(restore.status.code(), Some(0), "{}", stderr(&restore));
    let queue = cluster.yarn(&["queue", "-status", "batch"]);
    assert!(
        stdout(&queue).contains("Queue Name : batch"),
        "{}",
        stdout(&queue)
    );

    // The job in root.default ran through every change.
    let out = wait_exit(job, "the job running through the changes");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Activities over REST on a real cluster: a dshell job whose container would take its queue
/// over its maximum capacity shows why in its application activities, in the scheduler activities of the next pass and
/// on its application page; a bad parameter is answered with Hadoop's message.
#[test]
fn activities_say_why_a_request_is_not_allocated() {
    let _turn = one_cluster_at_a_time();
    let cluster = ProcessCluster::start(1);
    let (credentials, web) = setup(&cluster);
    let (_, base) = active(&credentials, &web);
    // The one node offers 8 GiB, all root.default may have, and the AM holds part of it: an
    // 8 GiB container would take the queue over its maximum.
    let job = cluster.spawn_dshell(&[
        "--shell_command",
        "true",
        "--num_containers",
        "1",
        "--container_memory",
        "8192",
    ]);
    let app = cluster.running_application();
    let get = |path: &str| {
        let answer = curl(
            Some(&credentials),
            "GET",
            &format!("{base}{path}"),
            None,
            false,
        )
        .unwrap_or_else(|err| panic!("GET {path}: {err}"));
        assert_eq!(answer.status, 200, "{answer:?}");
        answer.json()
    };
    let no_room = "Queue hits max-capacity limit";

    // The first read starts recording (Hadoop's "waiting for display"); later ones show it.
    let recorded = eventually("the application's activities to name the reason", || {
        let value = get(&format!("/ws/v1/cluster/scheduler/app-activities/{app}"));
        let allocations = value["appActivities"]["allocations"].as_array()?.clone();
        allocations.into_iter().find(|allocation| {
            allocation["children"].as_array().is_some_and(|requests| {
                requests.iter().any(|request| {
                    request["diagnostic"]
                        .as_str()
                        .is_some_and(|d| d.starts_with(no_room))
                })
            })
        })
    });
    assert_eq!(recorded["queueName"], "root.default", "{recorded}");
    assert_eq!(recorded["allocationState"], "SKIPPED", "{recorded}");
    let request = &recorded["children"][0];
    assert_eq!(request["allocationState"], "SKIPPED", "{recorded}");

    let pass = eventually("a recorded pass to hold the application", || {
        let value = get("/ws/v1/cluster/scheduler/activities");
        let allocations = value["activities"]["allocations"].as_array()?.clone();
        allocations
            .into_iter()
            .find(|allocation| allocation.to_string().contains(&app))
    });
    assert_eq!(pass["finalAllocationState"], "SKIPPED", "{pass}");
    assert_eq!(pass["root"]["name"], "root", "{pass}");
    assert!(pass.to_string().contains(no_room), "{pass}");

    let page = curl(
        Some(&credentials),
        "GET",
        &format!("{base}/cluster/app/{app}"),
        None,
        false,
    )
    .unwrap();
    assert_eq!(page.status, 200);
    assert!(page.body.contains("id=\"app-activities\""), "{}", page.body);
    assert!(page.body.contains(no_room), "{}", page.body);

    let bad = get(&format!(
        "/ws/v1/cluster/scheduler/app-activities/{app}?limit=0"
    ));
    assert_eq!(
        bad["appActivities"]["diagnostic"],
        "limit must be greater than 0!"
    );
    let unknown = get("/ws/v1/cluster/scheduler/activities?nodeId=nowhere:1");
    assert_eq!(
        unknown["activities"]["diagnostic"],
        "Cannot find node manager with given node id"
    );

    let killed = cluster.yarn(&["application", "-kill", &app]);
    assert_eq!(killed.status.code(), Some(0), "{}", stderr(&killed));
    let finished = get(&format!("/ws/v1/cluster/scheduler/app-activities/{app}"));
    assert_eq!(
        finished["appActivities"]["diagnostic"],
        "fail to get application activities after finished"
    );
    wait_exit(job, "the killed job");
}

/// Layout options adding `site` to every `yarn-site.xml`.
fn minicluster_options(site: &[(&str, &str)]) -> yarn_minicluster::LayoutOptions {
    yarn_minicluster::LayoutOptions {
        site: site
            .iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect(),
        ..Default::default()
    }
}
