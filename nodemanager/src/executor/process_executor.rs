//! [`ProcessExecutor`]: containers as real processes, as Hadoop's `DefaultContainerExecutor`
//! runs them.

use std::fs::Permissions;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::fs::OpenOptions;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;
use yarn_proto::ids::{ApplicationId, ContainerId};
use yarn_security::hadoop_credentials::Credentials;

use super::process_supervisor::{ProcessSupervisor, Tracked, is_running_leader};
use super::{
    CgroupV2Memory, ContainerCgroup, ContainerExit, ContainerHandle, ContainerPaths,
    ContainersMonitor, LaunchScript, LaunchSettings, LaunchSpec, MemoryEnforcement,
    MonitoredContainers, PmemLimit, ProcStat, ReacquireSpec, TaskSet, signal,
};
use crate::localizer::Localizer;
use crate::{Error, NmConfig};

/// The script `/bin/sh` runs at the root of every container, YARN's
/// `default_container_executor.sh` in spirit: it runs the container's launch script (`$1`)
/// with bash in a child process and records its exit code in a file (`$2`) that a restarted
/// NodeManager reads.
///
/// It catches SIGTERM instead of dying of it, so that on a stop it outlives the command, which
/// the group's SIGTERM reaches as well, and still records the command's code. A caught signal
/// is reset to its default in the exec'd command, whereas an ignored one would be inherited.
/// SIGKILL ends it without a record; the NodeManager that sent it knows why the container ended.
const LAUNCH_WRAPPER: &str = "trap : TERM
/bin/bash \"$1\"
rc=$?
echo \"$rc\" > \"$2\"
exit \"$rc\"
";

/// Runs containers as processes, each the leader of its own session and process group, with
/// the NodeManager's OS user, as Hadoop's `DefaultContainerExecutor` runs them.
///
/// A launch lays the container out (see [`LaunchSpec`]): working directory
/// `<first local dir>/usercache/<user>/appcache/<app>/<container>` with `tmp/` in it, log
/// directory `<first log dir>/<app>/<container>/`, the launch context's tokens in
/// `<working dir>/container_tokens` (mode 0600, written before the container starts; empty
/// Hadoop credentials when the launch context has none), and `launch_container.sh` in the
/// working directory, written as Hadoop writes it (see `LaunchScript`): Hadoop's variables,
/// the launch context's environment, the whitelisted variables of the NodeManager's own
/// environment and the admin environment, then `exec /bin/bash -c "<commands>"`. The script
/// starts with nothing else of the NodeManager's environment, as Hadoop's containers do.
/// Configured directories are made absolute against the NodeManager's working directory, so
/// every path in the container's environment is absolute.
///
/// Memory is enforced as [`MemoryEnforcement`] decides at construction: with cgroup v2, each
/// container with an allocation runs in its own cgroup whose `memory.max` is that allocation,
/// joined before the user's command starts; otherwise, with
/// `yarn.nodemanager.pmem-check-enabled`, a containers monitor kills containers whose process
/// group's resident memory exceeds their allocation.
///
/// Dropping the executor stops supervising but leaves the containers running, so that a
/// restarted NodeManager can [`reacquire`](Self::reacquire) them.
#[derive(Debug)]
pub struct ProcessExecutor {
    local_dirs: Vec<PathBuf>,
    log_dirs: Vec<PathBuf>,
    sigkill_delay: Duration,
    monitored: Option<MonitoredContainers>,
    /// The delegated cgroup when containers get cgroups, or why no container can be launched
    /// (cgroup v2 was required but is unusable; see [`ProcessExecutor::new`]).
    cgroup_memory: Result<Option<CgroupV2Memory>, Error>,
    /// What every container's launch script takes from the NodeManager (boxed: the executor is
    /// one variant of `ContainerExecutor`, the other small).
    launch_settings: Box<LaunchSettings>,
    /// Makes the launch contexts' local resources available in working directories (boxed,
    /// as the launch settings are).
    localizer: Box<Localizer>,
    tasks: TaskSet,
}

impl ProcessExecutor {
    /// An executor with the directories, stop delay and memory enforcement of `config` (see
    /// [`MemoryEnforcement::detect`], which logs the choice). Starts the containers monitor
    /// when `yarn.nodemanager.pmem-check-enabled` is true, for containers without a cgroup, so
    /// it must be called within a Tokio runtime.
    ///
    /// # Errors
    ///
    /// [`Error::CgroupMemoryUnavailable`] when cgroup v2 memory limits are required but the
    /// configured cgroup cannot hold them.
    pub fn try_new(config: &NmConfig) -> Result<Self, Error> {
        let enforcement = MemoryEnforcement::detect(config)?;
        Ok(Self::with_cgroup_memory(
            config,
            Ok(enforcement.cgroup_v2().cloned()),
        ))
    }

    /// As [`try_new`](Self::try_new), except that required but unusable cgroup v2 memory
    /// limits do not fail here: the error is logged, and every [`launch`](Self::launch)
    /// returns it, while [`reacquire`](Self::reacquire) still takes containers over.
    pub fn new(config: &NmConfig) -> Self {
        let cgroup_memory = MemoryEnforcement::detect(config)
            .map(|enforcement| enforcement.cgroup_v2().cloned())
            .inspect_err(|err| {
                tracing::error!(%err, "no container can be launched");
            });
        Self::with_cgroup_memory(config, cgroup_memory)
    }

    fn with_cgroup_memory(
        config: &NmConfig,
        cgroup_memory: Result<Option<CgroupV2Memory>, Error>,
    ) -> Self {
        let tasks = TaskSet::default();
        let monitored = config.pmem_check_enabled.then(|| {
            let monitored = MonitoredContainers::default();
            let monitor =
                ContainersMonitor::new(monitored.clone(), config.container_monitor_interval);
            tasks.spawn(monitor.run());
            monitored
        });
        let local_dirs = absolute_dirs(&config.local_dirs);
        Self {
            localizer: Box::new(Localizer::new(local_dirs.clone())),
            local_dirs,
            log_dirs: absolute_dirs(&config.log_dirs),
            sigkill_delay: config.sleep_delay_before_sigkill,
            monitored,
            cgroup_memory,
            launch_settings: Box::new(LaunchSettings::of_process(config)),
            tasks,
        }
    }

    /// Creates the container's directories, localizes its local resources into its working
    /// directory (see [`Localizer`]), writes its token file and launch script, and starts the
    /// script.
    ///
    /// `<LOG_DIR>`, `<CPS>`, `<ADD_OPENS>` and `{{VAR}}` in the commands and environment are
    /// expanded as Hadoop expands them. The returned handle's [`pid`](ContainerHandle::pid)
    /// leads the container's process group. With cgroup v2 and an allocation, the container's
    /// cgroup is created first and the root process joins it before it runs the script.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidUser`] for a user that cannot name a directory,
    /// [`Error::Localization`] naming the resource that could not be localized and why,
    /// [`Error::CreateContainerDirectory`], [`Error::PrepareContainerFile`],
    /// [`Error::ContainerCgroup`], [`Error::StartContainerProcess`] and
    /// [`Error::StartContainerProcessInCgroup`] naming the path or command and the OS error;
    /// [`Error::CgroupMemoryUnavailable`] from an executor made by [`new`](Self::new) whose
    /// required cgroup is unusable.
    pub async fn launch(&self, spec: LaunchSpec) -> Result<ContainerHandle, Error> {
        let cgroup_memory = self.cgroup_memory.as_ref().map_err(Clone::clone)?;
        let container_id = spec.container_id;
        let paths =
            ContainerPaths::new(&self.local_dirs, &self.log_dirs, &spec.user, container_id)?;
        let private_dir = paths.exit_code_file.parent().unwrap_or(Path::new("/"));
        for dir in paths
            .app_local_dirs
            .iter()
            .chain([&paths.work_dir, &paths.tmp_dir()])
            .chain(&paths.container_log_dirs)
            .map(PathBuf::as_path)
            .chain([private_dir])
        {
            tokio::fs::create_dir_all(dir).await.map_err(|source| {
                Error::CreateContainerDirectory {
                    container_id,
                    path: dir.to_owned(),
                    source: source.into(),
                }
            })?;
        }
        if !spec.local_resources.is_empty() {
            self.localizer
                .localize(
                    &spec.user,
                    spec.application_id(),
                    &paths.work_dir,
                    &spec.local_resources,
                )
                .await
                .map_err(|source| Error::Localization {
                    container_id,
                    source: Box::new(source),
                })?;
        }
        // A stale code from an earlier run of this container must not be read as this one's.
        match tokio::fs::remove_file(&paths.exit_code_file).await {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::PrepareContainerFile {
                    container_id,
                    path: paths.exit_code_file.clone(),
                    source: err.into(),
                });
            }
            _ => {}
        }
        let tokens = if spec.tokens.is_empty() {
            Credentials::new().encode()
        } else {
            spec.tokens.clone()
        };
        write_private_file(container_id, &paths.token_file(), &tokens, 0o600).await?;
        let script = LaunchScript::build(&spec, &paths, &self.launch_settings);
        write_private_file(
            container_id,
            &paths.launch_script(),
            script.render().as_bytes(),
            0o700,
        )
        .await?;
        // The script sends its output to these files itself; the wrapper's own complaints (no
        // bash, an unreadable script) land there too.
        let stdout = open_log(container_id, &script.prelaunch_out).await?;
        let stderr = open_log(container_id, &script.prelaunch_err).await?;
        let command_line = script.command.clone();
        let cgroup = match cgroup_memory {
            Some(memory) if spec.memory_mb > 0 => {
                let cgroup = memory.container(container_id, spec.memory_mb);
                let join = cgroup.join_on_exec()?;
                cgroup.create().await?;
                Some((cgroup, join))
            }
            _ => None,
        };

        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(LAUNCH_WRAPPER)
            .arg("default_container_executor")
            .arg(paths.launch_script())
            .arg(&paths.exit_code_file)
            .current_dir(&paths.work_dir)
            // As Hadoop's executor: the environment the script starts with, and nothing of the
            // NodeManager's own but what the script exports from the whitelist.
            .env_clear()
            .envs(&script.environment)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        // SAFETY: the closure only calls setsid(2), which is async-signal-safe, as code
        // between fork and exec must be.
        unsafe {
            command.pre_exec(signal::become_session_leader);
        }
        let cgroup = cgroup.map(|(cgroup, join)| {
            // SAFETY: `join` only calls getpid(2), open(2), write(2) and close(2) on a path
            // built before the fork, with no allocation: all async-signal-safe. It runs after
            // setsid, so the whole session starts inside the cgroup.
            unsafe {
                command.pre_exec(join);
            }
            cgroup
        });
        let start_error = |source: std::io::Error| match &cgroup {
            Some(cgroup) => Error::StartContainerProcessInCgroup {
                container_id,
                cgroup: cgroup.dir().to_owned(),
                command: command_line.clone(),
                source: source.into(),
            },
            None => Error::StartContainerProcess {
                container_id,
                command: command_line.clone(),
                source: source.into(),
            },
        };
        let started = command.spawn().and_then(|child| {
            let pid = child.id().ok_or_else(|| {
                std::io::Error::other("the process ended before its pid was read")
            })?;
            Ok((child, pid))
        });
        let (child, pid) = match started {
            Ok(started) => started,
            Err(source) => {
                let err = start_error(source);
                if let Some(cgroup) = &cgroup {
                    cgroup.remove().await;
                }
                return Err(err);
            }
        };
        tracing::info!(
            %container_id, pid, command = %command_line,
            cgroup = cgroup.as_ref().map(|cgroup| cgroup.dir().display().to_string()),
            "launched container"
        );
        Ok(self.supervise(
            container_id,
            pid,
            spec.memory_mb,
            Tracked::Child(child),
            cgroup,
        ))
    }

    /// Applies a running container's new allocation of `memory_mb`: its cgroup's `memory.max`
    /// where containers get cgroups, and the containers monitor's limit where it checks
    /// physical memory. Without either, nothing enforces memory and nothing changes.
    ///
    /// # Errors
    ///
    /// [`Error::ContainerCgroup`] when the cgroup's limit cannot be written.
    pub async fn update_memory_limit(
        &self,
        container_id: ContainerId,
        memory_mb: u64,
    ) -> Result<(), Error> {
        if let Some(monitored) = &self.monitored {
            monitored.set_limit(container_id, memory_mb);
        }
        match &self.cgroup_memory {
            Ok(Some(memory)) => {
                memory
                    .container(container_id, memory_mb)
                    .set_memory_max()
                    .await
            }
            Ok(None) | Err(_) => Ok(()),
        }
    }

    /// Removes what the node keeps for `application_id` once it has finished: its APPLICATION
    /// cache (see [`Localizer::remove_application_cache`]).
    pub async fn application_finished(&self, application_id: ApplicationId) {
        let removed = self
            .localizer
            .remove_application_cache(application_id)
            .await;
        if !removed.is_empty() {
            tracing::info!(%application_id, ?removed, "removed the application's cache");
        }
    }

    /// Takes over a container started before a NodeManager restart, from the pid the state
    /// store kept.
    ///
    /// While the pid still leads its process group, the container is watched by polling
    /// (every [`REACQUIRED_POLL_INTERVAL`](super::REACQUIRED_POLL_INTERVAL)), its memory is
    /// checked again, and it can be stopped. With cgroup v2, the container's existing cgroup
    /// (found from its id) is taken over too, its `memory.max` rewritten to the stored size (a
    /// resize may have been stored before its limit was written), so that an OOM kill is still
    /// reported and the cgroup removed at the end; a container launched without one falls back to the
    /// resident-memory check when `yarn.nodemanager.pmem-check-enabled` is true.
    ///
    /// Once it has ended, its exit code is read from the file the launch wrapper writes, as
    /// YARN reads `<pid file>.exitcode`. When there is no code (the container was killed by a
    /// signal, or the pid now belongs to another process), the exit is [`ContainerExit::LOST`]
    /// with a diagnostic saying why, as YARN reports a container it could not recover; unless
    /// its cgroup recorded an OOM kill, which makes it `KILLED_EXCEEDED_PMEM`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidContainerPid`] for pid 0, 1 or one beyond the OS's range.
    pub fn reacquire(&self, spec: ReacquireSpec) -> Result<ContainerHandle, Error> {
        let ReacquireSpec {
            container_id,
            pid,
            memory_mb,
        } = spec;
        if pid <= 1 || libc::pid_t::try_from(pid).is_err() {
            return Err(Error::InvalidContainerPid { container_id, pid });
        }
        let cgroup = match &self.cgroup_memory {
            Ok(Some(memory)) if memory_mb > 0 => Some(memory.container(container_id, memory_mb))
                .filter(|cgroup| cgroup.dir().is_dir()),
            _ => None,
        };
        if let Some(stat) = ProcStat::read(pid)
            && !stat.is_zombie()
            && stat.pgrp != pid
        {
            if let Some(cgroup) = cgroup {
                self.tasks.spawn(async move { cgroup.remove().await });
            }
            return Ok(ContainerHandle::finished(
                container_id,
                Some(pid),
                ContainerExit {
                    exit_code: ContainerExit::LOST,
                    diagnostics: format!(
                        "Container {container_id} cannot be re-acquired: pid {pid} belongs to \
                         a process outside the container's process group (process group {}), so \
                         the container has ended and its pid was reused. Its exit status is \
                         unknown and it is reported as lost (exit code {}).",
                        stat.pgrp,
                        ContainerExit::LOST
                    ),
                },
            ));
        }
        tracing::info!(
            %container_id, pid, running = is_running_leader(pid), "re-acquiring container"
        );
        // The stored size may be newer than the cgroup's limit: a resize stored before the
        // restart whose limit the runner had not written yet.
        if let Some(cgroup) = cgroup.clone() {
            self.tasks.spawn(async move {
                if let Err(err) = cgroup.set_memory_max().await {
                    tracing::warn!(%container_id, %err, "cannot restore a re-acquired container's memory limit");
                }
            });
        }
        let exit_code_file = ContainerPaths::exit_code_file(&self.local_dirs, container_id);
        Ok(self.supervise(
            container_id,
            pid,
            memory_mb,
            Tracked::Reacquired { exit_code_file },
            cgroup,
        ))
    }

    /// Starts the container's supervisor; the resident-memory check watches it only when it
    /// has no cgroup, whose limit the kernel enforces exactly.
    fn supervise(
        &self,
        container_id: ContainerId,
        pid: u32,
        memory_mb: u64,
        tracked: Tracked,
        cgroup: Option<ContainerCgroup>,
    ) -> ContainerHandle {
        let (handle, control) = ContainerHandle::new(container_id, Some(pid));
        if let Some(monitored) = &self.monitored
            && memory_mb > 0
            && cgroup.is_none()
        {
            let limit = PmemLimit {
                container_id,
                pid,
                limit_mb: memory_mb,
            };
            monitored.add(limit, handle.clone());
        }
        let supervisor = ProcessSupervisor {
            container_id,
            pid,
            tracked,
            control,
            sigkill_delay: self.sigkill_delay,
            monitored: self.monitored.clone(),
            cgroup,
        };
        self.tasks.spawn(supervisor.run());
        handle
    }
}

/// `dirs` made absolute against the NodeManager's working directory: a container runs in its
/// own working directory, where a relative `PWD`, `LOCAL_DIRS`, `LOG_DIRS` or
/// `HADOOP_TOKEN_FILE_LOCATION` would point elsewhere. A directory stays as configured only if
/// the NodeManager's working directory cannot be read, when no better path exists.
fn absolute_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    dirs.iter()
        .map(|dir| std::path::absolute(dir).unwrap_or_else(|_| dir.clone()))
        .collect()
}

/// Writes one of the container's files with `mode`, accessible to the NodeManager's user only:
/// the token file holds secrets (an AMRMToken's password), and the launch script names them.
/// A file left by an earlier launch of the same container is overwritten.
async fn write_private_file(
    container_id: ContainerId,
    path: &Path,
    content: &[u8],
    mode: u32,
) -> Result<(), Error> {
    let written = async {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(path)
            .await?;
        // `mode` applies only when the file is created; an existing file keeps its own.
        file.set_permissions(Permissions::from_mode(mode)).await?;
        file.write_all(content).await?;
        // Tokio completes file writes in the background: the bytes must be in the file before
        // the container can read it.
        file.flush().await
    };
    written
        .await
        .map_err(|source: std::io::Error| Error::PrepareContainerFile {
            container_id,
            path: path.to_owned(),
            source: source.into(),
        })
}

/// Opens one of the container's output files, appending so that nothing an earlier run of the
/// same container wrote is lost.
async fn open_log(container_id: ContainerId, path: &Path) -> Result<std::fs::File, Error> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .await
        .map_err(|source| Error::PrepareContainerFile {
            container_id,
            path: path.to_owned(),
            source: source.into(),
        })?;
    Ok(file.into_std().await)
}
