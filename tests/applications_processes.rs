//! Applications end to end with real processes: ResourceManagers, NodeManagers, the
//! ApplicationMasters the RM launches and the containers they start are all separate `yarn-ha`
//! processes on a minicluster, driven through the user commands.
//!
//! What this file proves:
//! - `minicluster demo`: a distributed-shell job survives the SIGKILL of the active RM and ends
//!   SUCCEEDED with every container once (no duplicate container id);
//! - a failing shell command makes the application FAILED with the container's exit status in
//!   the diagnostics, and `dshell` exits 1;
//! - `application -kill` kills a running job, and its client sees KILLED;
//! - an ApplicationMaster that crashes (SIGKILL) gets a second attempt that finishes the job;
//! - `pi` prints an estimate of pi.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;
use yarn_chaos::Signal;
use yarn_chaos::bench::BenchCluster;

use common::{output, stderr, stdout, yarn_ha_command};

/// How long any wait may take before the test fails, naming what it waited for.
const DEADLINE: Duration = Duration::from_secs(60);
/// How often a wait checks again.
const POLL: Duration = Duration::from_millis(100);

/// One cluster at a time: two clusters' daemons and jobs on a two-core machine would mostly
/// test the OS scheduler.
static ONE_CLUSTER_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_yarn-ha"))
}

/// Polls `check` until it returns `Some`, failing after [`DEADLINE`].
fn eventually<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {DEADLINE:?} waiting for {what}"
        );
        std::thread::sleep(POLL);
    }
}

/// A three-RM cluster with `nodes` NodeManagers, supervised on a runtime of its own, stopped
/// (every daemon) when dropped.
struct Cluster {
    runtime: tokio::runtime::Runtime,
    cluster: Option<BenchCluster>,
    _dir: TempDir,
    conf_dir: PathBuf,
}

impl Cluster {
    fn start(nodes: usize) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cluster = runtime
            .block_on(BenchCluster::start_with_nodes(dir.path(), &exe(), nodes))
            .expect("the cluster starts");
        let conf_dir = cluster.client_conf_dir().to_path_buf();
        let this = Self {
            runtime,
            cluster: Some(cluster),
            _dir: dir,
            conf_dir,
        };
        eventually(&format!("{nodes} NodeManagers to register"), || {
            let out = this.yarn(&["node", "-list"]);
            stdout(&out)
                .contains(&format!("Total Nodes:{nodes}"))
                .then_some(())
        });
        this
    }

    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut command = yarn_ha_command();
        command.arg("--conf-dir").arg(&self.conf_dir).args(args);
        command
    }

    fn yarn(&self, args: &[&str]) -> std::process::Output {
        output(&mut self.command(args))
    }

    /// Starts `yarn-ha dshell` with `args` in the background.
    fn spawn_dshell(&self, args: &[&str]) -> Child {
        self.command(&[&["dshell"], args].concat())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("dshell starts")
    }

    /// The id of the one RUNNING application.
    fn running_application(&self) -> String {
        eventually("an application to be RUNNING", || {
            let out = self.yarn(&["application", "-list", "-appStates", "RUNNING"]);
            stdout(&out)
                .lines()
                .find(|line| line.starts_with("application_"))
                .and_then(|line| line.split_whitespace().next())
                .map(str::to_owned)
        })
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(cluster) = self.cluster.take() {
            let _ = self.runtime.block_on(cluster.stop());
        }
    }
}

/// The pid of the running `dshell-am` process of the cluster configured in `conf_dir`.
fn am_pid(conf_dir: &Path) -> Option<u32> {
    let conf_dir = conf_dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let words: Vec<String> = cmdline
                .split(|b| *b == 0)
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect();
            (words.iter().any(|w| w == "dshell-am") && words.iter().any(|w| w.contains(&conf_dir)))
                .then_some(pid)
        })
}

fn wait_exit(child: Child, what: &str) -> std::process::Output {
    let out = child.wait_with_output().expect(what);
    eprintln!(
        "{what} stdout:\n{}\nstderr:\n{}",
        stdout(&out),
        stderr(&out)
    );
    out
}

#[test]
fn the_demo_job_survives_the_sigkill_of_its_resourcemanager() {
    let _turn = ONE_CLUSTER_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
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
    let _turn = ONE_CLUSTER_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let cluster = Cluster::start(1);

    // A failing command: FAILED with the exit status, and dshell exits 1.
    let out = cluster.yarn(&["dshell", "--shell_command", "exit 3"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    assert!(text.contains("final status FAILED"), "{text}");
    assert!(text.contains("exit 3"), "{text}");

    // An AM that crashes gets a second attempt, which runs the job to success.
    let job = cluster.spawn_dshell(&["--shell_command", "sleep 2", "--num_containers", "2"]);
    let app = cluster.running_application();
    let first_am = eventually("the ApplicationMaster process", || {
        am_pid(&cluster.conf_dir)
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
