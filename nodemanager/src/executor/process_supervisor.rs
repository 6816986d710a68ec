//! [`ProcessSupervisor`]: the task that watches one process container until it ends, carries
//! out its stop, and reports its exit.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::process::Child;
use tokio::time::Instant;
use yarn_proto::ids::ContainerId;

use super::signal::{self, process_exists};
use super::{
    ContainerCgroup, ContainerControl, ContainerExit, MonitoredContainers, ProcStat, ProcessOutcome,
};

/// How often a re-acquired container, which is not this process's child and so sends no
/// SIGCHLD, is checked for life. YARN checks once a second; a shorter period reports exits
/// sooner for the price of one `kill(2)` and one small `/proc` read per container.
pub const REACQUIRED_POLL_INTERVAL: Duration = Duration::from_millis(100);

/// How the supervisor learns that the container's root process ended.
#[derive(Debug)]
pub(crate) enum Tracked {
    /// A process this NodeManager started: `wait(2)` gives its status.
    Child(Child),
    /// A process started before a NodeManager restart: polled for life, its exit code read
    /// from the file the launch wrapper writes.
    Reacquired {
        /// Where the launch wrapper writes the exit code.
        exit_code_file: PathBuf,
    },
}

/// Watches one process container: its root process `pid`, which leads the container's process
/// group.
///
/// On a kill request it sends SIGTERM to the group and, if the root process is still there
/// after `sigkill_delay`, SIGKILL. Once the root process has ended it reports the
/// [`ContainerExit`], then cleans up what the container left behind in its group: SIGTERM, and
/// SIGKILL after the delay, as YARN does after every container.
///
/// A container with a cgroup that the kernel's OOM killer acted in, and that ended without
/// being asked to, is reported as `KILLED_EXCEEDED_PMEM`; the cgroup is removed last.
#[derive(Debug)]
pub(crate) struct ProcessSupervisor {
    pub(crate) container_id: ContainerId,
    pub(crate) pid: u32,
    pub(crate) tracked: Tracked,
    pub(crate) control: ContainerControl,
    pub(crate) sigkill_delay: Duration,
    pub(crate) monitored: Option<MonitoredContainers>,
    pub(crate) cgroup: Option<ContainerCgroup>,
}

impl ProcessSupervisor {
    /// Supervises until the container's group is gone. Aborting the task (when the executor is
    /// dropped) at any `.await` leaves the processes running and the exit unreported; handles
    /// then get [`Error::ExecutorStopped`](crate::Error::ExecutorStopped).
    pub(crate) async fn run(self) {
        let Self {
            container_id,
            pid,
            mut tracked,
            mut control,
            sigkill_delay,
            monitored,
            cgroup,
        } = self;
        let mut sigkill_at: Option<Instant> = None;
        let mut sigkill_sent = false;
        let outcome = loop {
            if sigkill_at.is_none() && control.kill_request().is_some() {
                send(container_id, pid, libc::SIGTERM);
                sigkill_at = Some(Instant::now() + sigkill_delay);
            }
            let deadline = sigkill_at.unwrap_or_else(Instant::now);
            tokio::select! {
                outcome = tracked.ended(container_id, pid) => break outcome,
                _ = control.kill_requested(), if sigkill_at.is_none() => {}
                () = tokio::time::sleep_until(deadline), if sigkill_at.is_some() && !sigkill_sent => {
                    send(container_id, pid, libc::SIGKILL);
                    sigkill_sent = true;
                }
            }
        };
        if let Some(monitored) = &monitored {
            monitored.remove(container_id);
        }
        let kill = control.kill_request();
        let oom_kills = match &cgroup {
            Some(cgroup) => cgroup.oom_kills().await.unwrap_or_else(|err| {
                tracing::warn!(
                    %container_id, cgroup = %cgroup.dir().display(), %err,
                    "cannot read the container's memory.events; OOM kills are not reported"
                );
                0
            }),
            None => 0,
        };
        let exit = match &cgroup {
            Some(cgroup) if outcome.ended_by_oom_kill(kill.as_ref(), oom_kills) => {
                cgroup.oom_kill_exit(pid, oom_kills)
            }
            _ => outcome.into_container_exit(kill.as_ref(), sigkill_sent),
        };
        tracing::info!(
            %container_id, pid, exit_code = exit.exit_code, diagnostics = %exit.diagnostics,
            "container exited"
        );
        control.report(exit);

        // Whatever the container left running in its group goes too.
        if !sigkill_sent && group_has_live_members(pid).await {
            let deadline = sigkill_at.unwrap_or_else(|| {
                send(container_id, pid, libc::SIGTERM);
                Instant::now() + sigkill_delay
            });
            tokio::time::sleep_until(deadline).await;
            send(container_id, pid, libc::SIGKILL);
        }
        if let Some(cgroup) = &cgroup {
            cgroup.remove().await;
        }
    }
}

impl Tracked {
    /// Returns once the root process has ended, with how it ended. Cancel-safe.
    async fn ended(&mut self, container_id: ContainerId, pid: u32) -> ProcessOutcome {
        match self {
            Self::Child(child) => match child.wait().await {
                Ok(status) => ProcessOutcome::from_status(status),
                Err(err) => ProcessOutcome::Unknown(format!(
                    "Waiting for container {container_id} (pid {pid}) failed: {err}"
                )),
            },
            Self::Reacquired { exit_code_file } => {
                while is_running_leader(pid) {
                    tokio::time::sleep(REACQUIRED_POLL_INTERVAL).await;
                }
                read_exit_code(container_id, pid, exit_code_file).await
            }
        }
    }
}

/// Whether `pid` is a live (not zombie) process leading its own process group, as a container's
/// root process does; once it is not, the container's root has ended (or its pid was reused).
pub(crate) fn is_running_leader(pid: u32) -> bool {
    process_exists(pid)
        && ProcStat::read(pid).is_some_and(|stat| !stat.is_zombie() && stat.pgrp == pid)
}

/// Whether a process of group `pgid` is still running. Zombies do not count: they are dead,
/// and once the root has ended they are no longer children of anyone here, so only their new
/// parent (init, which may be slow) can reap them.
async fn group_has_live_members(pgid: u32) -> bool {
    // Reading /proc is blocking file I/O proportional to the number of processes.
    tokio::task::spawn_blocking(move || {
        ProcStat::read_all()
            .iter()
            .any(|stat| stat.pgrp == pgid && !stat.is_zombie())
    })
    .await
    .unwrap_or(true)
}

async fn read_exit_code(container_id: ContainerId, pid: u32, file: &Path) -> ProcessOutcome {
    let problem = match tokio::fs::read_to_string(file).await {
        Ok(text) => match text.trim().parse::<i32>() {
            Ok(code) => return ProcessOutcome::Exited(code),
            Err(_) => format!(
                "{} holds {:?}, not an exit code",
                file.display(),
                text.trim()
            ),
        },
        Err(err) => format!(
            "its exit code cannot be read from {}: {err}",
            file.display()
        ),
    };
    ProcessOutcome::Unknown(format!(
        "Container {container_id} (pid {pid}) was re-acquired after a NodeManager restart and \
         has ended, but {problem}; the launch wrapper records the code only when the container \
         ends by itself. Its exit status is unknown and it is reported as lost (exit code {}).",
        ContainerExit::LOST
    ))
}

/// Signals the container's group; a group already gone is not a problem, anything else is
/// logged because it leaves processes running.
fn send(container_id: ContainerId, pgid: u32, signal: libc::c_int) {
    if let Err(err) = signal::signal_group(pgid, signal)
        && err.raw_os_error() != Some(libc::ESRCH)
    {
        tracing::warn!(%container_id, pgid, signal, %err, "cannot signal the container's process group");
    }
}
