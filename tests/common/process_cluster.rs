//! A minicluster of real `yarn-ha` processes for the end-to-end tests, and the waits they share.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tempfile::TempDir;
use yarn_minicluster::{LayoutOptions, RunningCluster};
use yarn_nodemanager::executor::Signal;

use super::{output, stderr, stdout, yarn_ha_command};

/// How long any wait may take before the test fails, naming what it waited for.
pub const DEADLINE: Duration = Duration::from_secs(60);
/// How often a wait checks again.
const POLL: Duration = Duration::from_millis(100);

/// One cluster at a time: two clusters' daemons and jobs on a two-core machine would mostly
/// test the OS scheduler.
static ONE_CLUSTER_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Holds the machine for one cluster until dropped.
pub fn one_cluster_at_a_time() -> MutexGuard<'static, ()> {
    ONE_CLUSTER_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

fn exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_yarn-ha"))
}

/// Polls `check` until it returns `Some`, failing after [`DEADLINE`].
pub fn eventually<T>(what: &str, check: impl FnMut() -> Option<T>) -> T {
    yarn_test_support::poll::eventually_blocking(what, DEADLINE, check)
}

/// A three-RM cluster with `nodes` NodeManagers, supervised on a runtime of its own, stopped
/// (every daemon) when dropped.
pub struct ProcessCluster {
    runtime: tokio::runtime::Runtime,
    cluster: Option<RunningCluster>,
    dir: TempDir,
    conf_dir: PathBuf,
}

impl ProcessCluster {
    /// Starts the cluster and waits until every NodeManager has registered.
    pub fn start(nodes: usize) -> Self {
        Self::start_with(nodes, &LayoutOptions::default())
    }

    /// As [`start`](Self::start), with `options` (extra `yarn-site.xml` properties) in the
    /// layout.
    pub fn start_with(nodes: usize, options: &LayoutOptions) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cluster = runtime
            .block_on(RunningCluster::start_with_layout(
                dir.path(),
                &exe(),
                nodes,
                options,
            ))
            .expect("the cluster starts");
        let conf_dir = cluster.client_conf_dir().to_path_buf();
        let this = Self {
            runtime,
            cluster: Some(cluster),
            dir,
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

    /// The runtime the cluster's supervisor runs on, for the test's own calls.
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        &self.runtime
    }

    /// The harness user's configuration directory.
    pub fn conf_dir(&self) -> &Path {
        &self.conf_dir
    }

    /// The cluster's directory (`cluster.json`, the daemons' directories and logs).
    pub fn base_dir(&self) -> &Path {
        self.dir.path()
    }

    fn cluster(&self) -> &RunningCluster {
        self.cluster.as_ref().expect("a running cluster")
    }

    /// `yarn-ha --conf-dir <client conf> args...`, not started.
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let mut command = yarn_ha_command();
        command.arg("--conf-dir").arg(&self.conf_dir).args(args);
        command
    }

    /// Runs `yarn-ha args...` against the cluster to its end.
    pub fn yarn(&self, args: &[&str]) -> std::process::Output {
        output(&mut self.command(args))
    }

    /// Starts `yarn-ha dshell` with `args` in the background.
    pub fn spawn_dshell(&self, args: &[&str]) -> Child {
        self.command(&[&["dshell"], args].concat())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("dshell starts")
    }

    /// The id of the one RUNNING application.
    pub fn running_application(&self) -> String {
        eventually("an application to be RUNNING", || {
            let out = self.yarn(&["application", "-list", "-appStates", "RUNNING"]);
            stdout(&out)
                .lines()
                .find(|line| line.starts_with("application_"))
                .and_then(|line| line.split_whitespace().next())
                .map(str::to_owned)
        })
    }

    /// Writes `properties` as `capacity-scheduler.xml` on every ResourceManager's host and
    /// commits them with `rmadmin -refreshQueues`.
    pub fn refresh_queues(&self, properties: &[(&str, &str)]) {
        let xml = yarn_conf::writer::site_xml(properties.iter().copied());
        let replicas = std::fs::read_dir(self.base_dir()).expect("the cluster's directory");
        for replica in replicas.flatten() {
            let is_rm = replica.file_name().to_string_lossy().starts_with("rm");
            let conf = replica.path().join("conf");
            if is_rm && conf.is_dir() {
                std::fs::write(conf.join("capacity-scheduler.xml"), &xml).unwrap();
            }
        }
        let out = self.yarn(&["rmadmin", "-refreshQueues"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }

    /// Has the supervisor start daemon `id` (a ResourceManager or a NodeManager) again after
    /// it was killed.
    pub fn restart(&self, id: &str) {
        eventually(&format!("the supervisor to restart {id}"), || {
            self.runtime.block_on(self.cluster().restart(id)).ok()
        });
    }

    /// SIGKILLs the active ResourceManager and returns its id.
    pub fn kill_leader(&mut self) -> String {
        let runtime = &self.runtime;
        let cluster = self.cluster.as_mut().expect("a running cluster");
        let leader = runtime.block_on(cluster.leader()).expect("a leader").rm_id;
        let pid = cluster.pid(&leader).expect("the leader's pid");
        Signal::Kill.send(pid).expect("SIGKILL the leader");
        leader
    }
}

impl Drop for ProcessCluster {
    fn drop(&mut self) {
        if let Some(cluster) = self.cluster.take() {
            let _ = self.runtime.block_on(cluster.stop());
        }
    }
}

/// The pid of the running `dshell-am` process of the cluster configured in `conf_dir`.
pub fn am_pid(conf_dir: &Path) -> Option<u32> {
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

/// Waits for `child` to end and prints its output, for the test log.
pub fn wait_exit(child: Child, what: &str) -> std::process::Output {
    let out = child.wait_with_output().expect(what);
    eprintln!(
        "{what} stdout:\n{}\nstderr:\n{}",
        stdout(&out),
        stderr(&out)
    );
    out
}

/// `dshell` arguments for `containers` tasks of 1 GB running `command` in `queue`, with an AM of
/// 1 GB.
pub fn dshell_job(queue: &str, containers: &str, command: &str) -> Vec<String> {
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

/// A `dshell` client running in the background, killed when dropped so that a failed assertion
/// leaves no job behind.
pub struct DshellJob(Option<Child>);

impl DshellJob {
    /// Starts `yarn-ha dshell args...` against `cluster`.
    pub fn start(cluster: &ProcessCluster, args: &[String]) -> Self {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Self(Some(cluster.spawn_dshell(&args)))
    }

    /// Whether the client is still running.
    pub fn running(&mut self) -> bool {
        self.0
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(None)))
    }

    /// Waits for the client to end, as [`wait_exit`] does.
    pub fn wait(mut self, what: &str) -> std::process::Output {
        wait_exit(self.0.take().expect("a running job"), what)
    }
}

impl Drop for DshellJob {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
