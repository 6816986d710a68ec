//! The supervisor: starts every daemon of a cluster as a child process, records them in
//! `cluster.json`, restarts one on request, and stops them all at shutdown.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::future::Future;
use std::io::{self, Write as _};
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::process::{Child, Command};
use tokio::task::JoinSet;
use tokio::time::{Instant, timeout, timeout_at};
use yarn_nodemanager::executor::{Signal, join_cgroup_on_exec, process_exists};

use crate::cluster_state::{ClusterState, DaemonExit, DaemonRecord, DaemonState};
use crate::control::{self, ControlReply, ControlRequest};
use crate::daemon_spec::DaemonSpec;

/// How long shutdown waits, by default, for the daemons to exit after SIGTERM before it
/// SIGKILLs the rest.
pub const DEFAULT_STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a daemon may take to die after SIGKILL before shutdown reports it.
const KILL_WAIT: Duration = Duration::from_secs(5);

/// How long a restart request for a daemon recorded as running waits for its exit to be
/// reported: a process killed just before the request is dead but may not be reaped yet.
const RESTART_GRACE: Duration = Duration::from_secs(2);

/// How long the supervisor waits for a control client to send its request or take its reply,
/// so a stuck client cannot stall supervision.
const CONTROL_IO_TIMEOUT: Duration = Duration::from_secs(2);

/// A running local cluster: every daemon is a child process of this supervisor, in its own
/// process group (so a Ctrl-C in the terminal reaches only the supervisor, which then stops the
/// daemons in order), with stdin closed and stdout and stderr appended to its log file.
///
/// Guarantees:
/// - `<base>/cluster.json` ([`ClusterState`]) is rewritten atomically after every change, and
///   this supervisor is its only writer.
/// - A daemon that exits is recorded as [`DaemonState::Exited`] with its exit status and is
///   never restarted by the supervisor; only a restart request does that (see
///   [`super::restart`]), served on `<base>/supervisor.sock`.
/// - Dropping a `MiniCluster` that was not stopped (for example when the future of
///   [`MiniCluster::run`] is cancelled) SIGKILLs the process groups of its running daemons, so
///   none outlives a failed supervisor.
#[derive(Debug)]
pub struct MiniCluster {
    state: ClusterState,
    /// Parallel to `state.daemons`: index `i` describes the daemon recorded at index `i`.
    specs: Vec<DaemonSpec>,
    /// One task per running child, resolving when the child exits. The child is owned by its
    /// task; the supervisor signals it by pid, which cannot be reused before the task reaps it.
    exits: JoinSet<ChildExit>,
    control: UnixListener,
    stop_timeout: Duration,
}

/// A child process that ended.
#[derive(Debug)]
struct ChildExit {
    id: String,
    pid: u32,
    status: io::Result<ExitStatus>,
}

impl MiniCluster {
    /// Starts every daemon of `specs` in order, binds the control socket and writes
    /// `<base_dir>/cluster.json`. Must be called inside a Tokio runtime, whose process driver
    /// reaps the children.
    ///
    /// `stop_timeout` bounds how long shutdown waits for the daemons after SIGTERM.
    ///
    /// # Errors
    ///
    /// When two specs share an id; when a supervisor already runs for `base_dir` or daemons an
    /// earlier supervisor left behind are still alive (both named in the message); when the
    /// control socket cannot be bound; when a daemon cannot be started (its log file cannot be
    /// opened or its program cannot be run: the daemons started before it are stopped again);
    /// or when `cluster.json` cannot be written.
    pub async fn launch(
        base_dir: &Path,
        client_conf_dir: &Path,
        specs: Vec<DaemonSpec>,
        stop_timeout: Duration,
    ) -> anyhow::Result<Self> {
        for (index, spec) in specs.iter().enumerate() {
            anyhow::ensure!(
                !specs[..index].iter().any(|other| other.id == spec.id),
                "two daemons are named {}; every daemon of a cluster needs its own id",
                spec.id
            );
        }
        let socket = control::socket_path(base_dir)?;
        refuse_running_supervisor(&socket, base_dir)?;
        refuse_leftover_daemons(base_dir)?;
        let control = UnixListener::bind(&socket)
            .with_context(|| format!("binding the control socket {}", socket.display()))?;
        let mut state = ClusterState::new(base_dir, client_conf_dir, &socket, std::process::id());
        state.daemons = specs.iter().map(initial_record).collect();
        let mut cluster = MiniCluster {
            state,
            specs,
            exits: JoinSet::new(),
            control,
            stop_timeout,
        };
        let launched = cluster.start_all();
        if let Err(err) = launched {
            if let Err(stop_err) = cluster.stop().await {
                tracing::warn!("stopping the daemons after a failed launch: {stop_err:#}");
            }
            return Err(err);
        }
        Ok(cluster)
    }

    /// The cluster as last written to `cluster.json`.
    pub fn state(&self) -> &ClusterState {
        &self.state
    }

    /// Supervises until `shutdown` completes, then stops the cluster: SIGTERM to every running
    /// daemon, up to the stop timeout for them to exit, SIGKILL to the process groups of the
    /// rest. Returns the final state, also written to `cluster.json`, with every daemon
    /// exited or stopped and no supervisor pid; the control socket file is removed.
    ///
    /// Meanwhile it records daemons that exit on their own and serves restart requests.
    ///
    /// # Errors
    ///
    /// When `cluster.json` cannot be written (the cluster is then stopped before returning) or
    /// a daemon survives SIGKILL.
    pub async fn run(mut self, shutdown: impl Future<Output = ()>) -> anyhow::Result<ClusterState> {
        let supervised = self.supervise(shutdown).await;
        let stopped = self.stop().await;
        supervised.and(stopped)
    }

    async fn supervise(&mut self, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => return Ok(()),
                Some(joined) = self.exits.join_next() => {
                    let exit = joined.context("a child-process wait task failed")?;
                    self.record_exit(exit, DaemonState::Exited);
                    self.state.write()?;
                }
                accepted = self.control.accept() => match accepted {
                    Ok((stream, _)) => self.serve_control(stream).await?,
                    // Such failures (out of file descriptors) concern one connection; the
                    // supervisor keeps going and the client sees its connect fail.
                    Err(err) => tracing::warn!("accepting a control connection: {err}"),
                },
            }
        }
    }

    fn start_all(&mut self) -> anyhow::Result<()> {
        for index in 0..self.specs.len() {
            self.start_daemon(index, &BTreeMap::new())?;
        }
        self.state.write()
    }

    /// Spawns daemon `index` with `env` added to its environment and records it as running
    /// (without writing `cluster.json`).
    fn start_daemon(&mut self, index: usize, env: &BTreeMap<String, String>) -> anyhow::Result<()> {
        let spec = &self.specs[index];
        let child = spawn(spec, env)?;
        let pid = child
            .id()
            .with_context(|| format!("{} exited before its pid could be read", spec.id))?;
        let id = spec.id.clone();
        self.exits.spawn(wait_for(id, pid, child));
        let record = &mut self.state.daemons[index];
        record.state = DaemonState::Running;
        record.pid = Some(pid);
        record.starts += 1;
        Ok(())
    }

    /// Records that a child ended, in `state` (Exited or Stopped), without writing the file.
    fn record_exit(&mut self, exit: ChildExit, state: DaemonState) {
        let Some(record) = self.state.daemon_mut(&exit.id) else {
            return;
        };
        // A restart happens only after the previous process's exit was recorded, so a
        // mismatching pid means this exit was already accounted for.
        if record.pid != Some(exit.pid) {
            return;
        }
        record.state = state;
        record.pid = None;
        record.last_exit = match exit.status {
            Ok(status) => Some(DaemonExit::from_status(status)),
            Err(err) => {
                tracing::warn!("waiting for {} (pid {}): {err}", exit.id, exit.pid);
                None
            }
        };
        let how = record
            .last_exit
            .map_or_else(|| "unknown status".to_owned(), |exit| exit.to_string());
        match state {
            DaemonState::Exited => tracing::warn!(
                "{} (pid {}) exited on its own: {how}; log: {}",
                exit.id,
                exit.pid,
                record.log_file.display()
            ),
            _ => tracing::info!("{} (pid {}) stopped: {how}", exit.id, exit.pid),
        }
    }

    async fn serve_control(&mut self, stream: UnixStream) -> anyhow::Result<()> {
        let (read, mut write) = stream.into_split();
        let mut line = String::new();
        let received = timeout(
            CONTROL_IO_TIMEOUT,
            BufReader::new(read).read_line(&mut line),
        )
        .await;
        let reply = match received {
            // The client closed without a request, as `launch` does to probe for a live
            // supervisor.
            Ok(Ok(0)) => return Ok(()),
            Ok(Ok(_)) => match serde_json::from_str::<ControlRequest>(&line) {
                Ok(ControlRequest::Restart { id, env }) => self.restart(&id, &env).await?,
                Err(err) => ControlReply::Refused {
                    reason: format!("{:?} is not a control request: {err}", line.trim_end()),
                },
            },
            Ok(Err(err)) => {
                tracing::warn!("reading a control request: {err}");
                return Ok(());
            }
            Err(_) => {
                tracing::warn!("a control client sent no request within {CONTROL_IO_TIMEOUT:?}");
                return Ok(());
            }
        };
        let mut text = serde_json::to_string(&reply).context("serializing a control reply")?;
        text.push('\n');
        match timeout(CONTROL_IO_TIMEOUT, write.write_all(text.as_bytes())).await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => tracing::warn!("sending a control reply: {err}"),
            Err(_) => {
                tracing::warn!("a control client took no reply within {CONTROL_IO_TIMEOUT:?}")
            }
        }
        Ok(())
    }

    /// Starts daemon `id` again, with `env` added to its environment for this start, unless it
    /// runs. Only a failure to write `cluster.json` is an error; every other outcome is the
    /// reply.
    async fn restart(
        &mut self,
        id: &str,
        env: &BTreeMap<String, String>,
    ) -> anyhow::Result<ControlReply> {
        let Some(index) = self.specs.iter().position(|spec| spec.id == id) else {
            return Ok(ControlReply::Refused {
                reason: format!(
                    "the cluster has no daemon {id}; its daemons are {}",
                    self.state.ids()
                ),
            });
        };
        if self.state.daemons[index].state == DaemonState::Running {
            self.await_exit_of(index).await?;
        }
        let record = &self.state.daemons[index];
        if let (DaemonState::Running, Some(pid)) = (record.state, record.pid) {
            return Ok(ControlReply::Refused {
                reason: format!("{id} is still running as pid {pid}; kill it before restarting it"),
            });
        }
        if let Err(err) = self.start_daemon(index, env) {
            return Ok(ControlReply::Refused {
                reason: format!("{err:#}"),
            });
        }
        self.state.write()?;
        let daemon = self.state.daemons[index].clone();
        tracing::info!(
            "restarted {id} as pid {}",
            daemon.pid.map_or_else(String::new, |pid| pid.to_string())
        );
        Ok(ControlReply::Restarted { daemon })
    }

    /// Processes child exits for up to [`RESTART_GRACE`] until daemon `index` is no longer
    /// running.
    async fn await_exit_of(&mut self, index: usize) -> anyhow::Result<()> {
        let deadline = Instant::now() + RESTART_GRACE;
        while self.state.daemons[index].state == DaemonState::Running {
            match timeout_at(deadline, self.exits.join_next()).await {
                Ok(Some(joined)) => {
                    let exit = joined.context("a child-process wait task failed")?;
                    self.record_exit(exit, DaemonState::Exited);
                    self.state.write()?;
                }
                Ok(None) | Err(_) => break,
            }
        }
        Ok(())
    }

    async fn stop(&mut self) -> anyhow::Result<ClusterState> {
        for (id, pid) in self.running() {
            if let Err(err) = Signal::Term.send(pid) {
                tracing::warn!("sending SIGTERM to {id} (pid {pid}): {err}");
            }
        }
        self.collect_exits(Instant::now() + self.stop_timeout).await;
        for (id, pid) in self.running() {
            tracing::warn!(
                "{id} (pid {pid}) did not stop within {:?} of SIGTERM; sending SIGKILL",
                self.stop_timeout
            );
            if let Err(err) = Signal::Kill.send_to_group(pid) {
                tracing::warn!("sending SIGKILL to {id}'s process group {pid}: {err}");
            }
        }
        self.collect_exits(Instant::now() + KILL_WAIT).await;
        let survivors: Vec<String> = self
            .running()
            .into_iter()
            .map(|(id, pid)| format!("{id} (pid {pid})"))
            .collect();
        self.state.supervisor_pid = None;
        if let Err(err) = std::fs::remove_file(&self.state.control_socket) {
            if err.kind() != io::ErrorKind::NotFound {
                tracing::warn!(
                    "removing the control socket {}: {err}",
                    self.state.control_socket.display()
                );
            }
        }
        self.state.write()?;
        anyhow::ensure!(
            survivors.is_empty(),
            "still running {KILL_WAIT:?} after SIGKILL: {}",
            survivors.join(", ")
        );
        Ok(self.state.clone())
    }

    async fn collect_exits(&mut self, deadline: Instant) {
        while !self.running().is_empty() {
            match timeout_at(deadline, self.exits.join_next()).await {
                Ok(Some(Ok(exit))) => self.record_exit(exit, DaemonState::Stopped),
                Ok(Some(Err(err))) => tracing::warn!("a child-process wait task failed: {err}"),
                Ok(None) | Err(_) => return,
            }
        }
    }

    fn running(&self) -> Vec<(String, u32)> {
        self.state
            .daemons
            .iter()
            .filter(|d| d.state == DaemonState::Running)
            .filter_map(|d| d.pid.map(|pid| (d.id.clone(), pid)))
            .collect()
    }
}

impl Drop for MiniCluster {
    fn drop(&mut self) {
        for (id, pid) in self.running() {
            if let Err(err) = Signal::Kill.send_to_group(pid) {
                tracing::warn!("killing {id}'s process group {pid} on drop: {err}");
            }
        }
    }
}

/// The record of a daemon before its first start.
fn initial_record(spec: &DaemonSpec) -> DaemonRecord {
    DaemonRecord {
        role: spec.role,
        id: spec.id.clone(),
        state: DaemonState::Stopped,
        pid: None,
        starts: 0,
        last_exit: None,
        addresses: spec.addresses.clone(),
        log_file: spec.log_file.clone(),
        conf_dir: spec.conf_dir.clone(),
    }
}

/// Starts `spec` in its own process group with its output appended to its log file, after a
/// header line that marks where this run's output begins (naming the variables added). The
/// environment is inherited (so `YARN_HA_LOG` reaches the daemon), plus `NO_COLOR=1`, the
/// spec's variables, and `env` (this start's, which win).
fn spawn(spec: &DaemonSpec, env: &BTreeMap<String, String>) -> anyhow::Result<Child> {
    let mut added = spec.env.clone();
    added.extend(env.iter().map(|(key, value)| (key.clone(), value.clone())));
    if let Some(dir) = spec.log_file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let open_log = || -> io::Result<(std::fs::File, std::fs::File)> {
        let mut log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&spec.log_file)?;
        let variables: String = added
            .iter()
            .map(|(key, value)| format!("{key}={value} "))
            .collect();
        writeln!(
            log,
            "--- yarn-ha minicluster, {}: starting {}: {variables}{}",
            time::OffsetDateTime::now_utc(),
            spec.id,
            spec.command_line()
        )?;
        let stderr = log.try_clone()?;
        Ok((log, stderr))
    };
    let (stdout, stderr) = open_log().with_context(|| {
        format!(
            "opening {}, the log file of {}",
            spec.log_file.display(),
            spec.id
        )
    })?;
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .stdin(Stdio::null())
        // The output goes to a file: ask tracing (and other NO_COLOR-aware writers) for plain
        // text instead of terminal colour codes.
        .env("NO_COLOR", "1")
        .envs(&added)
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    spawn_in_cgroup(&mut command, spec.cgroup.as_deref())
        .with_context(|| format!("starting {}: {}", spec.id, spec.command_line()))
}

/// Starts `command`, in the cgroup v2 directory `cgroup` when one is given: the process joins
/// it between fork and exec, so it and everything it forks are inside from the first
/// instruction of the program.
///
/// # Errors
///
/// When the process cannot be started or cannot join (a missing or foreign cgroup), or the
/// cgroup's path holds a NUL byte; the message names the cgroup.
pub fn spawn_in_cgroup(command: &mut Command, cgroup: Option<&Path>) -> anyhow::Result<Child> {
    let Some(cgroup) = cgroup else {
        return Ok(command.spawn()?);
    };
    let join = join_cgroup_on_exec(&cgroup.join("cgroup.procs"))
        .with_context(|| format!("the cgroup {}", cgroup.display()))?;
    // SAFETY: the closure only makes async-signal-safe calls and does not allocate
    // (join_cgroup_on_exec's guarantee), as code between fork and exec must.
    unsafe { command.pre_exec(join) };
    command
        .spawn()
        .with_context(|| format!("in the cgroup {}", cgroup.display()))
}

async fn wait_for(id: String, pid: u32, mut child: Child) -> ChildExit {
    let status = child.wait().await;
    ChildExit { id, pid, status }
}

/// A live supervisor answers on the socket; a socket file nobody answers on was left by a
/// supervisor that died, and is removed so this one can bind.
fn refuse_running_supervisor(socket: &Path, base_dir: &Path) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(socket).is_err() {
        return Ok(());
    }
    anyhow::ensure!(
        std::os::unix::net::UnixStream::connect(socket).is_err(),
        "a minicluster supervisor is already running for {} (it answers on {})",
        base_dir.display(),
        socket.display()
    );
    std::fs::remove_file(socket)
        .with_context(|| format!("removing the stale control socket {}", socket.display()))
}

/// Daemons recorded as running by an earlier supervisor that died without stopping them would
/// hold the ports the new ones need.
fn refuse_leftover_daemons(base_dir: &Path) -> anyhow::Result<()> {
    if !ClusterState::path_in(base_dir).exists() {
        return Ok(());
    }
    let previous = ClusterState::read(base_dir)?;
    let alive: Vec<String> = previous
        .daemons
        .iter()
        .filter(|d| d.state == DaemonState::Running)
        .filter_map(|d| d.pid.map(|pid| (d, pid)))
        .filter(|(_, pid)| process_exists(*pid))
        .map(|(d, pid)| format!("{} (pid {pid})", d.id))
        .collect();
    anyhow::ensure!(
        alive.is_empty(),
        "daemons an earlier supervisor of {} left running are still alive: {}; stop them \
         (kill PID) before starting the cluster again",
        base_dir.display(),
        alive.join(", ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::DaemonRole;

    #[test]
    fn an_initial_record_carries_the_spec_and_no_process() {
        let spec = DaemonSpec {
            role: DaemonRole::NodeManager,
            id: "nm1".to_owned(),
            program: PathBuf::from("/bin/true"),
            args: Vec::new(),
            conf_dir: PathBuf::from("/c/nm1/conf"),
            log_file: PathBuf::from("/c/logs/nm1.log"),
            addresses: [("webapp".to_owned(), "127.0.0.1:1".to_owned())].into(),
            env: BTreeMap::new(),
            cgroup: None,
        };
        let record = initial_record(&spec);
        assert_eq!(record.state, DaemonState::Stopped);
        assert_eq!(
            (record.pid, record.starts, record.last_exit),
            (None, 0, None)
        );
        assert_eq!(record.addresses, spec.addresses);
        assert_eq!(record.log_file, spec.log_file);
        assert_eq!(record.conf_dir, spec.conf_dir);
    }
}
