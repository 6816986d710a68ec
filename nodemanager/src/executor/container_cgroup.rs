//! [`ContainerCgroup`]: one container's cgroup v2, which the kernel holds to its memory
//! allocation.

use std::ffi::{CStr, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::time::Instant;
use yarn_proto::ids::ContainerId;
use yarn_proto::pb::ContainerExitStatusProto;

use super::ContainerExit;
use crate::Error;

const MB: u64 = 1024 * 1024;

/// How long [`ContainerCgroup::remove`] waits for the processes it killed to leave the cgroup.
const REMOVE_TIMEOUT: Duration = Duration::from_secs(2);
/// How often it tries again meanwhile.
const REMOVE_RETRY_INTERVAL: Duration = Duration::from_millis(10);

/// The cgroup `<delegated cgroup>/<container id>` of one container, whose `memory.max` is the
/// container's allocation.
///
/// The container's root process joins it between fork and exec (see
/// [`join_on_exec`](Self::join_on_exec)), so every process of the container is inside before
/// the user's command runs, and the kernel both enforces the limit and counts its OOM kills in
/// `memory.events`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContainerCgroup {
    container_id: ContainerId,
    dir: PathBuf,
    limit_mb: u64,
}

impl ContainerCgroup {
    /// The cgroup at `dir` for `container_id` with an allocation of `limit_mb`; touches nothing.
    pub(crate) fn new(container_id: ContainerId, dir: PathBuf, limit_mb: u64) -> Self {
        Self {
            container_id,
            dir,
            limit_mb,
        }
    }

    /// The cgroup's directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a process writes its pid to in order to join the cgroup.
    pub(crate) fn procs_file(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// Creates the cgroup and sets its limits: `memory.max` to the allocation in bytes, and,
    /// where the kernel offers them, `memory.swap.max` to 0 (the allocation is physical memory,
    /// as YARN's) and `memory.oom.group` to 1 (an OOM kill ends the whole container rather
    /// than one of its processes).
    ///
    /// A cgroup left by an earlier run of the same container is replaced, so that its OOM kills
    /// are not counted against this one. Files are opened with `O_CREAT`, harmless on cgroupfs
    /// where they exist, so that a plain directory can stand in for a cgroup in tests.
    ///
    /// # Errors
    ///
    /// [`Error::ContainerCgroup`] naming the directory or file and the OS error; the cgroup is
    /// removed again when one of its files could not be written.
    pub(crate) async fn create(&self) -> Result<(), Error> {
        match tokio::fs::create_dir(&self.dir).await {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                tokio::fs::remove_dir(&self.dir)
                    .await
                    .map_err(|source| self.error("replace the stale cgroup", &self.dir, source))?;
                tokio::fs::create_dir(&self.dir)
                    .await
                    .map_err(|source| self.error("create the cgroup", &self.dir, source))?;
            }
            Err(source) => return Err(self.error("create the cgroup", &self.dir, source)),
        }
        let limits = [
            (
                "memory.max",
                memory_max_bytes(self.limit_mb).to_string(),
                true,
            ),
            ("memory.swap.max", "0".to_owned(), false),
            ("memory.oom.group", "1".to_owned(), false),
        ];
        for (file, value, required) in limits {
            let path = self.dir.join(file);
            let written = match write_control(path.clone(), value, required).await {
                Err(err) if !required && err.kind() == io::ErrorKind::NotFound => Ok(()),
                written => written,
            };
            if let Err(source) = written {
                self.remove().await;
                return Err(self.error("write the limit to", &path, source));
            }
        }
        Ok(())
    }

    /// Sets `memory.max` of the existing cgroup to the allocation, after the container was
    /// resized. Lowering it below what the container uses makes the kernel reclaim memory and,
    /// failing that, OOM-kill the container, as a container over its allocation is killed.
    ///
    /// # Errors
    ///
    /// [`Error::ContainerCgroup`] naming the file and the OS error (the cgroup is gone, or the
    /// kernel refused the value).
    pub(crate) async fn set_memory_max(&self) -> Result<(), Error> {
        let path = self.dir.join("memory.max");
        write_control(
            path.clone(),
            memory_max_bytes(self.limit_mb).to_string(),
            false,
        )
        .await
        .map_err(|source| self.error("write the limit to", &path, source))
    }

    /// What makes the calling process join the cgroup, for `pre_exec` (see
    /// [`join_cgroup_on_exec`]).
    ///
    /// # Errors
    ///
    /// [`Error::ContainerCgroup`] when the path holds a NUL byte and so cannot be passed to
    /// `open(2)`.
    pub(crate) fn join_on_exec(
        &self,
    ) -> Result<impl FnMut() -> io::Result<()> + Send + Sync + 'static, Error> {
        let procs = self.procs_file();
        join_cgroup_on_exec(&procs).map_err(|source| self.error("name", &procs, source))
    }

    /// How many processes the kernel's OOM killer has killed in the cgroup: the `oom_kill`
    /// count of `memory.events`, 0 when the file or the count is absent (a cgroup the
    /// container never had, or a kernel that does not count).
    ///
    /// # Errors
    ///
    /// The OS error of reading `memory.events`, other than its absence.
    pub(crate) async fn oom_kills(&self) -> io::Result<u64> {
        match tokio::fs::read_to_string(self.dir.join("memory.events")).await {
            Ok(events) => Ok(parse_oom_kills(&events).unwrap_or(0)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(0),
            Err(err) => Err(err),
        }
    }

    /// The exit of a container whose root process `pid` ended after the kernel's OOM killer
    /// killed `oom_kills` processes in the cgroup: `KILLED_EXCEEDED_PMEM`, as YARN reports a
    /// container beyond its memory, with a diagnostic naming the limit and the cgroup.
    pub(crate) fn oom_kill_exit(&self, pid: u32, oom_kills: u64) -> ContainerExit {
        ContainerExit {
            exit_code: ContainerExitStatusProto::KilledExceededPmem as i32,
            diagnostics: format!(
                "Container [pid={pid},containerID={}] was killed by the kernel for exceeding its \
                 cgroup memory.max of {} MB (cgroup {}, {oom_kills} OOM kill(s) in \
                 memory.events).",
                self.container_id,
                self.limit_mb,
                self.dir.display()
            ),
        }
    }

    /// Removes the cgroup once the container has ended. Never fails: problems are logged.
    ///
    /// A cgroup still holding processes (those that left the container's process group, or
    /// killed ones still exiting) cannot be removed: they are killed through `cgroup.kill`
    /// where the kernel has it, and removal is retried for up to two seconds. A cgroup already
    /// gone is fine. A directory that still holds files is no cgroupfs directory (a stand-in
    /// in tests, whose control files are plain files): it is left in place, logged at debug.
    /// Cancelling the removal leaves the cgroup, which a later launch of the same container
    /// replaces.
    pub(crate) async fn remove(&self) {
        let deadline = Instant::now() + REMOVE_TIMEOUT;
        let mut killed = false;
        loop {
            let err = match tokio::fs::remove_dir(&self.dir).await {
                Ok(()) => {
                    tracing::debug!(
                        container_id = %self.container_id, cgroup = %self.dir.display(),
                        "removed the container's cgroup"
                    );
                    return;
                }
                Err(err) => err,
            };
            match err.raw_os_error() {
                _ if err.kind() == io::ErrorKind::NotFound => return,
                Some(libc::EBUSY) if Instant::now() < deadline => {
                    if !killed {
                        killed = true;
                        self.kill_remaining().await;
                    }
                    tokio::time::sleep(REMOVE_RETRY_INTERVAL).await;
                }
                Some(libc::ENOTEMPTY | libc::EEXIST) => {
                    tracing::debug!(
                        container_id = %self.container_id, cgroup = %self.dir.display(),
                        "the cgroup directory holds files, so it is no cgroupfs directory; \
                         left in place"
                    );
                    return;
                }
                _ => {
                    tracing::warn!(
                        container_id = %self.container_id, cgroup = %self.dir.display(), %err,
                        "cannot remove the container's cgroup"
                    );
                    return;
                }
            }
        }
    }

    /// Kills every process left in the cgroup, where the kernel offers `cgroup.kill` (5.14+).
    async fn kill_remaining(&self) {
        let path = self.dir.join("cgroup.kill");
        match write_control(path.clone(), "1".to_owned(), false).await {
            Ok(()) => {
                tracing::info!(
                    container_id = %self.container_id, cgroup = %self.dir.display(),
                    "killed the processes left in the container's cgroup"
                );
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => {
                tracing::warn!(
                    container_id = %self.container_id, path = %path.display(), %err,
                    "cannot kill the processes left in the container's cgroup"
                );
            }
        }
    }

    fn error(&self, action: &'static str, path: &Path, source: io::Error) -> Error {
        Error::ContainerCgroup {
            container_id: self.container_id,
            action,
            path: path.to_owned(),
            source: source.into(),
        }
    }
}

/// Writes `value` to the interface file `path`, creating it only when `create` is set.
///
/// With blocking writes on a blocking-pool thread, rather than `tokio::fs::File`, whose
/// buffered writes would report cgroupfs's refusal of a value (`EINVAL`) only on a later flush.
async fn write_control(path: PathBuf, value: String, create: bool) -> io::Result<()> {
    tokio::task::spawn_blocking(move || {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(create)
            .truncate(true)
            .open(path)?;
        io::Write::write_all(&mut file, value.as_bytes())
    })
    .await
    .map_err(io::Error::other)?
}

/// The `memory.max` value of an allocation of `limit_mb`: bytes, saturating rather than
/// wrapping for absurd allocations.
pub(crate) fn memory_max_bytes(limit_mb: u64) -> u64 {
    limit_mb.saturating_mul(MB)
}

/// The `oom_kill` count of a `memory.events` file (lines of `<event> <count>`), or `None` when
/// it has no such line or its count is not a number.
pub(crate) fn parse_oom_kills(memory_events: &str) -> Option<u64> {
    memory_events.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        match (fields.next(), fields.next()) {
            (Some("oom_kill"), Some(count)) => count.parse().ok(),
            _ => None,
        }
    })
}

/// What makes the calling process join the cgroup v2 whose `cgroup.procs` is `procs_file`, for
/// `pre_exec`: it writes the process's own pid there using only async-signal-safe calls
/// (`getpid`, `open`, `write`, `close`) and no allocation, as code between fork and exec must.
///
/// # Errors
///
/// `InvalidInput` when the path holds a NUL byte and so cannot be passed to `open(2)`.
pub fn join_cgroup_on_exec(
    procs_file: &Path,
) -> io::Result<impl FnMut() -> io::Result<()> + Send + Sync + 'static + use<>> {
    let path = CString::new(procs_file.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the path holds a NUL byte"))?;
    Ok(move || join(&path))
}

/// Writes the calling process's pid to the `cgroup.procs` file `procs`. Runs in the forked
/// child before exec: only async-signal-safe calls, no allocation, no locks.
fn join(procs: &CStr) -> io::Result<()> {
    // SAFETY: getpid(2) takes no arguments and cannot fail.
    let pid = unsafe { libc::getpid() }.unsigned_abs();
    let mut buffer = [0u8; 10];
    let digits = decimal(pid, &mut buffer);
    // SAFETY: `procs` is a valid NUL-terminated string that outlives the call; open(2) is
    // async-signal-safe. O_CREAT (with mode 0644) lets a plain file stand in for cgroupfs's.
    let fd = unsafe {
        libc::open(
            procs.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `digits` is valid for `digits.len()` bytes; write(2) is async-signal-safe.
    let written = unsafe { libc::write(fd, digits.as_ptr().cast(), digits.len()) };
    // Read before close(2) may overwrite it; from_raw_os_error does not allocate.
    let result = if written < 0 {
        Err(io::Error::last_os_error())
    } else if written.unsigned_abs() != digits.len() {
        Err(io::Error::from_raw_os_error(libc::EIO))
    } else {
        Ok(())
    };
    // SAFETY: `fd` was opened above and is closed once; close(2) is async-signal-safe.
    unsafe { libc::close(fd) };
    result
}

/// `value` in decimal ASCII, in the tail of `buffer`; no allocation, for use before exec.
fn decimal(mut value: u32, buffer: &mut [u8; 10]) -> &[u8] {
    let mut start = buffer.len();
    loop {
        start -= 1;
        // `value % 10` is below 10, so the cast cannot truncate.
        buffer[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return &buffer[start..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cgroup(limit_mb: u64) -> ContainerCgroup {
        ContainerCgroup::new(
            "container_1410901177871_0001_01_000005".parse().unwrap(),
            PathBuf::from("/sys/fs/cgroup/hadoop-yarn/container_1410901177871_0001_01_000005"),
            limit_mb,
        )
    }

    #[test]
    fn the_limit_is_the_allocation_in_bytes() {
        assert_eq!(memory_max_bytes(1), 1_048_576);
        assert_eq!(memory_max_bytes(16), 16 * 1024 * 1024);
        assert_eq!(memory_max_bytes(u64::MAX), u64::MAX);
    }

    #[tokio::test]
    async fn a_resize_rewrites_the_limit_of_the_existing_cgroup_only() {
        let root = tempfile::tempdir().unwrap();
        let at = |limit_mb| {
            ContainerCgroup::new(
                "container_1410901177871_0001_01_000005".parse().unwrap(),
                root.path().join("container"),
                limit_mb,
            )
        };
        at(16).create().await.unwrap();
        at(32).set_memory_max().await.unwrap();
        let limit = std::fs::read_to_string(root.path().join("container/memory.max")).unwrap();
        assert_eq!(limit, (32 * 1024 * 1024).to_string());
        std::fs::remove_dir_all(root.path().join("container")).unwrap();
        let gone = at(8).set_memory_max().await.unwrap_err().to_string();
        assert!(gone.contains("memory.max"), "{gone}");
    }

    #[test]
    fn the_oom_kill_count_is_read_from_memory_events() {
        let events = "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 1\n";
        assert_eq!(parse_oom_kills(events), Some(1));
        assert_eq!(parse_oom_kills("oom_kill 0\n"), Some(0));
        // `oom_group_kill` is another event, and `oom` counts reclaim failures, not kills.
        assert_eq!(parse_oom_kills("oom 3\noom_group_kill 2\n"), None);
        assert_eq!(parse_oom_kills("oom_kill many\n"), None);
        assert_eq!(parse_oom_kills(""), None);
    }

    #[test]
    fn an_oom_kill_is_reported_as_exceeding_pmem_naming_the_limit_and_cgroup() {
        let exit = cgroup(16).oom_kill_exit(4242, 1);
        assert_eq!(exit.exit_code, -104);
        assert_eq!(
            exit.diagnostics,
            "Container [pid=4242,containerID=container_1410901177871_0001_01_000005] was killed \
             by the kernel for exceeding its cgroup memory.max of 16 MB (cgroup \
             /sys/fs/cgroup/hadoop-yarn/container_1410901177871_0001_01_000005, 1 OOM kill(s) \
             in memory.events)."
        );
    }

    #[test]
    fn the_procs_file_is_in_the_cgroup() {
        assert_eq!(
            cgroup(1).procs_file(),
            PathBuf::from(
                "/sys/fs/cgroup/hadoop-yarn/container_1410901177871_0001_01_000005/cgroup.procs"
            )
        );
    }

    #[test]
    fn pids_are_written_in_decimal_without_allocating() {
        let mut buffer = [0u8; 10];
        assert_eq!(decimal(0, &mut buffer), b"0");
        assert_eq!(decimal(4242, &mut buffer), b"4242");
        assert_eq!(decimal(u32::MAX, &mut buffer), b"4294967295");
    }

    #[test]
    fn joining_writes_the_callers_pid_to_the_procs_file() {
        let dir = tempfile::tempdir().unwrap();
        let procs = dir.path().join("cgroup.procs");
        std::fs::write(&procs, "a longer stale content").unwrap();
        join(&CString::new(procs.as_os_str().as_bytes()).unwrap()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&procs).unwrap(),
            std::process::id().to_string()
        );

        let missing = dir.path().join("no-such-cgroup/cgroup.procs");
        let err = join(&CString::new(missing.as_os_str().as_bytes()).unwrap()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
