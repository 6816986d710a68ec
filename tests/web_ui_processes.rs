//! The web UI of a minicluster of real processes, loaded by a real browser: headless Chromium
//! (Debian's `chromium`, which `.ci/run` installs) renders each page, none with a script, over
//! HTTPS without a client certificate (the cluster allows anonymous reads), and the test reads
//! the DOM it built. While an OPPORTUNISTIC job runs, the nodes page shows the
//! node's opportunistic figures and the application page lists the job's containers; the
//! NodeManager shows a container's log files to its owner. A screenshot of every page is kept
//! under `target/tmp/web-ui/` as an artifact of the run.

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use yarn_conf::{Configuration, RmHaConfig, keys};
use yarn_minicluster::LayoutOptions;

use common::process_cluster::{ProcessCluster, eventually, one_cluster_at_a_time, wait_exit};
use common::stdout;

/// How long one browser run may take before it is killed.
const BROWSER_DEADLINE: Duration = Duration::from_secs(90);

/// The browser binary: Debian's `chromium`, or another Chromium build on the `PATH`.
fn chromium() -> PathBuf {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let found = Command::new("which").arg(name).output().ok()?;
            found
                .status
                .success()
                .then(|| PathBuf::from(String::from_utf8_lossy(&found.stdout).trim()))
        })
        .expect("a headless Chromium on the PATH: `.ci/run` installs Debian's chromium package")
}

/// Runs Chromium headless on `url` with `action` (`--dump-dom` or `--screenshot=...`), with
/// a profile of its own, killed with its whole process group if it overruns.
fn browse(profile: &Path, action: &str, url: &str) -> String {
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            // The cluster's CA is not the browser's; curl checks the servers against it.
            "--ignore-certificate-errors",
            "--window-size=1600,1000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(action)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("chromium starts");
    let started = Instant::now();
    loop {
        match child.try_wait().expect("chromium can be waited for") {
            Some(_) => break,
            None if started.elapsed() > BROWSER_DEADLINE => {
                let group = i32::try_from(child.id()).expect("a pid");
                // SAFETY: signals the process group this test created for the browser.
                unsafe { libc::kill(-group, libc::SIGKILL) };
                let _ = child.wait();
                panic!("chromium did not finish {action} {url} within {BROWSER_DEADLINE:?}");
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    let out = child.wait_with_output().expect("chromium's output");
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

/// The DOM Chromium rendered for `url`, which must hold no script: every page works without
/// JavaScript. (Chromium's `--dump-dom` itself needs scripts on, so they are not turned off.)
fn dom(profile: &Path, url: &str) -> String {
    let page = browse(profile, "--dump-dom", url);
    assert!(
        !page.contains("<script"),
        "a page with a script: {url}: {page}"
    );
    page
}

/// Keeps a screenshot of `url` as `<name>.png` in the run's artifacts.
fn screenshot(profile: &Path, name: &str, url: &str) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-ui");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&file);
    browse(profile, &format!("--screenshot={}", file.display()), url);
    let written = std::fs::metadata(&file).map(|meta| meta.len()).unwrap_or(0);
    assert!(written > 0, "no screenshot of {url} at {}", file.display());
}

/// The cluster's CA and the harness user's certificate, for curl.
struct Credentials {
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
}

/// `GET url` with curl (API calls and redirects, which a browser hides), trusting the
/// cluster's CA, as the harness user when `as_harness`, anonymously otherwise: status,
/// `Location`, body.
fn curl(credentials: &Credentials, as_harness: bool, url: &str) -> (u16, Option<String>, String) {
    let mut command = Command::new("curl");
    command
        .args(["-sS", "--max-time", "30", "-D", "-", "-o", "-"])
        .arg("--cacert")
        .arg(&credentials.ca);
    if as_harness {
        command
            .arg("--cert")
            .arg(&credentials.cert)
            .arg("--key")
            .arg(&credentials.key);
    }
    let out = command.arg(url).output().expect("curl runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let location = lines.find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("location")
            .then(|| value.trim().to_owned())
    });
    (status, location, body.to_owned())
}

/// An anonymous `GET url`'s JSON.
fn json(credentials: &Credentials, url: &str) -> Value {
    let (status, _, body) = curl(credentials, false, url);
    assert_eq!(status, 200, "{url}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|err| panic!("{url}: not JSON ({err}): {body}"))
}

/// The text of the `<td>` with class `class` in the table row of `row_marker` in `dom`.
fn cell(dom: &str, row_marker: &str, class: &str) -> Option<String> {
    let row_start = dom.find(row_marker)?;
    let row = &dom[row_start..row_start + dom[row_start..].find("</tr>")?];
    let at = row.find(&format!("{class}\">"))? + class.len() + 2;
    Some(row[at..at + row[at..].find("</td>")?].to_owned())
}

#[test]
fn the_web_ui_renders_the_cluster_in_a_real_browser() {
    let _turn = one_cluster_at_a_time();
    let site = |key: &yarn_conf::Key, value: &str| (key.name.to_string(), value.to_owned());
    let options = LayoutOptions {
        site: vec![
            // A browser without an imported certificate may read every page.
            site(
                &keys::HADOOP_HTTP_AUTHENTICATION_SIMPLE_ANONYMOUS_ALLOWED,
                "true",
            ),
            site(&keys::NM_PMEM_MB, "4096"),
            site(&keys::NM_VCORES, "8"),
            site(&keys::SCHEDULER_MINIMUM_ALLOCATION_MB, "128"),
        ],
        ..LayoutOptions::default()
    };
    let cluster = ProcessCluster::start_with(1, &options);
    let profile = tempfile::tempdir().unwrap();
    let profile = profile.path();
    let conf = Configuration::load_dir(cluster.conf_dir()).unwrap();
    let path = |key: &yarn_conf::Key| PathBuf::from(conf.get(&key.name).unwrap().expect("set"));
    let credentials = &Credentials {
        ca: path(&keys::TLS_CA_CERT),
        cert: path(&keys::TLS_CERT),
        key: path(&keys::TLS_KEY),
    };
    let web: Vec<(String, String)> = RmHaConfig::from_conf(&conf)
        .unwrap()
        .members
        .iter()
        .map(|member| (member.rm_id.clone(), format!("https://{}", member.webapp)))
        .collect();
    let (leader, base) = eventually("a replica to report ACTIVE", || {
        web.iter()
            .find(|(_, base)| {
                let (status, _, body) =
                    curl(credentials, false, &format!("{base}/ws/v1/cluster/info"));
                status == 200 && body.contains("\"haState\":\"ACTIVE\"")
            })
            .cloned()
    });

    // A standby sends the browser to the active's page; the active answers it.
    let (_, standby) = web.iter().find(|(rm_id, _)| *rm_id != leader).unwrap();
    let (status, location, _) = curl(credentials, false, &format!("{standby}/cluster"));
    assert_eq!(status, 307);
    assert_eq!(location, Some(format!("{base}/cluster")));
    assert_eq!(curl(credentials, false, &format!("{base}/cluster")).0, 200);

    let job = cluster.spawn_dshell(&[
        "--shell_command=sleep 60",
        "--num_containers=2",
        "--container_memory=256",
        "--container_type=OPPORTUNISTIC",
        "--master_memory=128",
    ]);
    let node = eventually("two OPPORTUNISTIC containers running on the node", || {
        let nodes = json(credentials, &format!("{base}/ws/v1/cluster/nodes"));
        let node = nodes["nodes"]["node"][0].clone();
        (node["numRunningOpportContainers"] == 2).then_some(node)
    });
    let node_id = node["id"].as_str().unwrap().to_owned();

    // The nodes page holds the node's opportunistic figures in Hadoop's columns.
    let nodes_url = format!("{base}/cluster/nodes");
    let page = dom(profile, &nodes_url);
    for heading in [
        "Running Containers (O)",
        "Mem Used (O)",
        "VCores Used (O)",
        "Queued Containers",
    ] {
        assert!(page.contains(heading), "no {heading:?} column: {page}");
    }
    let row = format!("data-node=\"{node_id}\"");
    let opportunistic = |class: &str| cell(&page, &row, class);
    assert_eq!(
        opportunistic("opportunistic-containers").as_deref(),
        Some("2"),
        "{page}"
    );
    assert_eq!(
        opportunistic("opportunistic-memory"),
        Some(format!("{} MB", node["usedMemoryOpportGB"])),
        "{page}"
    );
    assert_eq!(
        opportunistic("opportunistic-vcores").as_deref(),
        Some("2"),
        "{page}"
    );
    screenshot(profile, "nodes", &nodes_url);

    // The application page lists the job's containers, as the REST API does.
    let apps = json(
        credentials,
        &format!("{base}/ws/v1/cluster/apps?states=RUNNING"),
    );
    let app_id = apps["apps"]["app"][0]["id"].as_str().unwrap().to_owned();
    let attempts = json(
        credentials,
        &format!("{base}/ws/v1/cluster/apps/{app_id}/appattempts"),
    );
    let attempt_id = attempts["appAttempts"]["appAttempt"][0]["appAttemptId"]
        .as_str()
        .unwrap()
        .to_owned();
    let containers = json(
        credentials,
        &format!("{base}/ws/v1/cluster/apps/{app_id}/appattempts/{attempt_id}/containers"),
    );
    let containers = containers["containers"]["container"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        containers.len(),
        3,
        "the AM and two shell containers: {containers:?}"
    );
    let app_url = format!("{base}/cluster/app/{app_id}");
    let page = dom(profile, &app_url);
    for container in &containers {
        let id = container["containerId"].as_str().unwrap();
        assert!(
            page.contains(id),
            "{id} is not on the application page: {page}"
        );
    }
    assert_eq!(
        page.matches("<td>OPPORTUNISTIC</td>").count(),
        2,
        "two OPPORTUNISTIC containers: {page}"
    );
    assert!(page.contains(&attempt_id), "{page}");
    screenshot(profile, "application", &app_url);

    // The applications page, sorted by a heading's link, and the state filter.
    let apps_url = format!("{base}/cluster/apps?sort=user&order=asc");
    let page = dom(profile, &apps_url);
    assert!(page.contains(&format!("/cluster/app/{app_id}")), "{page}");
    assert!(
        page.contains("User \u{25B2}"),
        "sorted by user, ascending: {page}"
    );
    screenshot(profile, "applications", &apps_url);
    let finished = dom(profile, &format!("{base}/cluster/apps/FINISHED"));
    assert!(!finished.contains(&app_id), "{finished}");
    let refused = dom(profile, &format!("{base}/cluster/apps?sort=colour"));
    assert!(refused.contains("400 Bad Request"), "{refused}");

    // The overview names every replica and its role; the scheduler page draws the queues.
    let overview_url = format!("{base}/cluster");
    let page = dom(profile, &overview_url);
    for (rm_id, _) in &web {
        assert!(
            page.contains(&format!("<td>{rm_id}</td>")),
            "{rm_id}: {page}"
        );
    }
    assert_eq!(page.matches("<td>active</td>").count(), 1, "{page}");
    assert_eq!(page.matches("<td>standby</td>").count(), 2, "{page}");
    screenshot(profile, "overview", &overview_url);
    let scheduler_url = format!("{base}/cluster/scheduler");
    let page = dom(profile, &scheduler_url);
    assert!(page.contains("data-queue=\"root.default\""), "{page}");
    assert!(page.contains("class=\"bar\""), "{page}");
    screenshot(profile, "scheduler", &scheduler_url);

    // The NodeManager's own pages: its containers, and a container's logs for its owner only.
    let nm = format!("https://{}", node["nodeHTTPAddress"].as_str().unwrap());
    let page = dom(profile, &format!("{nm}/node/allContainers"));
    for container in &containers {
        let id = container["containerId"].as_str().unwrap();
        assert!(page.contains(id), "{id} is not on the node's page: {page}");
    }
    screenshot(profile, "node", &format!("{nm}/node"));
    let am = containers
        .iter()
        .find(|container| container["executionType"] == "GUARANTEED")
        .expect("the AM container");
    let logs = am["logUrl"].as_str().unwrap();
    assert!(logs.starts_with(&nm), "{am}");
    let (status, _, page) = curl(credentials, true, logs);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("stderr"),
        "the AM's log files, for its owner: {page}"
    );
    let refused = dom(profile, logs);
    assert!(
        refused.contains("ForbiddenException"),
        "an anonymous reader: {refused}"
    );

    let mut job = job;
    let _ = job.kill();
    let _ = wait_exit(job, "the OPPORTUNISTIC job");
}
