//! `cluster.json`: the running minicluster as its supervisor last recorded it.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use serde::{Deserialize, Serialize};

use crate::daemon_role::DaemonRole;
use crate::json_file;

/// The version of the state format this build writes and reads.
const FORMAT: u32 = 1;

/// The state of a minicluster as `<base>/cluster.json` holds it.
///
/// The supervisor (`minicluster start`) is its only writer and replaces the file atomically
/// after every change (start, a daemon's exit, a restart, shutdown), so readers such as tests
/// and fault drills may read it at any time and see a whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterState {
    /// The state format version (1).
    pub format: u32,
    /// The cluster directory.
    pub base_dir: PathBuf,
    /// Configuration for CLI calls as [`crate::HARNESS_USER`].
    pub client_conf_dir: PathBuf,
    /// The supervisor's process id while it runs; `None` once it has stopped the cluster.
    pub supervisor_pid: Option<u32>,
    /// The Unix socket on which the supervisor takes restart requests.
    pub control_socket: PathBuf,
    /// Every daemon, in the manifest's order.
    pub daemons: Vec<DaemonRecord>,
}

/// One daemon of a [`ClusterState`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonRecord {
    /// ResourceManager or NodeManager.
    pub role: DaemonRole,
    /// The rm id or NodeManager name.
    pub id: String,
    /// Whether it runs.
    pub state: DaemonState,
    /// Its process id while [`DaemonState::Running`], `None` otherwise. The daemon leads its own
    /// process group, whose id is the same number.
    pub pid: Option<u32>,
    /// How many times this supervisor started it (1 after launch, +1 per restart).
    pub starts: u32,
    /// How its last process ended, once one has.
    pub last_exit: Option<DaemonExit>,
    /// Its endpoints by service name (`client`, `scheduler`, `resource-tracker`, `admin`,
    /// `webapp`, `raft` for an RM; `address`, `webapp` for an NM), as `host:port`.
    pub addresses: BTreeMap<String, String>,
    /// The file its stdout and stderr are appended to, across restarts.
    pub log_file: PathBuf,
    /// Its configuration directory.
    pub conf_dir: PathBuf,
}

/// Whether a daemon runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DaemonState {
    /// Its process runs (or has exited so recently that the supervisor has not yet noticed).
    Running,
    /// Its process ended on its own or was killed from outside; the supervisor does not restart
    /// it (`minicluster restart` does).
    Exited,
    /// The supervisor stopped it while shutting the cluster down.
    Stopped,
}

/// How a daemon process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DaemonExit {
    /// It exited with this status code.
    Code(i32),
    /// A signal ended it (9 for SIGKILL, 15 for SIGTERM).
    Signal(i32),
}

impl DaemonExit {
    /// The exit of a process as the OS reported it. A status with neither a code nor a signal
    /// cannot come from `wait` for an ended process; it maps to `Code(-1)` rather than failing.
    pub fn from_status(status: ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(code), _) => DaemonExit::Code(code),
            (None, Some(signal)) => DaemonExit::Signal(signal),
            (None, None) => DaemonExit::Code(-1),
        }
    }
}

impl fmt::Display for DaemonExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DaemonExit::Code(code) => write!(f, "exit code {code}"),
            DaemonExit::Signal(signal) => write!(f, "killed by signal {signal}"),
        }
    }
}

impl ClusterState {
    /// The state file's name inside the cluster directory.
    pub const FILE_NAME: &'static str = "cluster.json";

    /// A state with no daemons yet, for a supervisor with process id `supervisor_pid`.
    pub fn new(
        base_dir: &Path,
        client_conf_dir: &Path,
        control_socket: &Path,
        supervisor_pid: u32,
    ) -> Self {
        ClusterState {
            format: FORMAT,
            base_dir: base_dir.to_owned(),
            client_conf_dir: client_conf_dir.to_owned(),
            supervisor_pid: Some(supervisor_pid),
            control_socket: control_socket.to_owned(),
            daemons: Vec::new(),
        }
    }

    /// The state file of the cluster in `base_dir`.
    pub fn path_in(base_dir: &Path) -> PathBuf {
        base_dir.join(Self::FILE_NAME)
    }

    /// Reads the state of the cluster in `base_dir`.
    ///
    /// # Errors
    ///
    /// When the file is missing (the cluster was never started), is not valid JSON (with line
    /// and column) or has another format version.
    pub fn read(base_dir: &Path) -> anyhow::Result<Self> {
        let path = Self::path_in(base_dir);
        anyhow::ensure!(
            path.is_file(),
            "{} not found: the minicluster in {} was never started",
            path.display(),
            base_dir.display()
        );
        let state: ClusterState = json_file::read(&path)?;
        anyhow::ensure!(
            state.format == FORMAT,
            "{}: format {} is not supported by this build, which reads format {FORMAT}",
            path.display(),
            state.format
        );
        Ok(state)
    }

    /// Replaces `<base_dir>/cluster.json` with this state atomically.
    ///
    /// # Errors
    ///
    /// When the file cannot be written; the message names it.
    pub fn write(&self) -> anyhow::Result<()> {
        json_file::write_atomically(&Self::path_in(&self.base_dir), self)
    }

    /// The daemon named `id`, if the cluster has one.
    pub fn daemon(&self, id: &str) -> Option<&DaemonRecord> {
        self.daemons.iter().find(|d| d.id == id)
    }

    /// The daemon named `id`, for the supervisor to update.
    pub(crate) fn daemon_mut(&mut self, id: &str) -> Option<&mut DaemonRecord> {
        self.daemons.iter_mut().find(|d| d.id == id)
    }

    /// The ids of every daemon, comma-separated, for messages naming what exists.
    pub fn ids(&self) -> String {
        let ids: Vec<&str> = self.daemons.iter().map(|d| d.id.as_str()).collect();
        ids.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(base: &Path) -> ClusterState {
        let mut state = ClusterState::new(
            base,
            &base.join("client/conf"),
            &base.join("supervisor.sock"),
            4242,
        );
        state.daemons.push(DaemonRecord {
            role: DaemonRole::ResourceManager,
            id: "rm1".to_owned(),
            state: DaemonState::Running,
            pid: Some(4243),
            starts: 2,
            last_exit: Some(DaemonExit::Signal(9)),
            addresses: BTreeMap::from([
                ("admin".to_owned(), "127.0.0.1:40001".to_owned()),
                ("webapp".to_owned(), "127.0.0.1:40002".to_owned()),
            ]),
            log_file: base.join("logs/rm1.log"),
            conf_dir: base.join("rm1/conf"),
        });
        state.daemons.push(DaemonRecord {
            role: DaemonRole::NodeManager,
            id: "nm1".to_owned(),
            state: DaemonState::Exited,
            pid: None,
            starts: 1,
            last_exit: Some(DaemonExit::Code(3)),
            addresses: BTreeMap::new(),
            log_file: base.join("logs/nm1.log"),
            conf_dir: base.join("nm1/conf"),
        });
        state
    }

    #[test]
    fn a_state_round_trips_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let state = state(dir.path());
        state.write().unwrap();
        assert_eq!(ClusterState::read(dir.path()).unwrap(), state);
        // Nothing is left behind by the temporary-file-and-rename write.
        let files: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(files, ["cluster.json"]);
    }

    #[test]
    fn the_json_uses_the_documented_names() {
        let json = serde_json::to_value(state(Path::new("/c"))).unwrap();
        let rm1 = &json["daemons"][0];
        assert_eq!(rm1["role"], "resourcemanager");
        assert_eq!(rm1["state"], "running");
        assert_eq!(rm1["pid"], 4243);
        assert_eq!(rm1["last_exit"]["signal"], 9);
        assert_eq!(rm1["addresses"]["admin"], "127.0.0.1:40001");
        let nm1 = &json["daemons"][1];
        assert_eq!(nm1["role"], "nodemanager");
        assert_eq!(nm1["state"], "exited");
        assert!(nm1["pid"].is_null());
        assert_eq!(nm1["last_exit"]["code"], 3);
        assert_eq!(json["supervisor_pid"], 4242);
    }

    #[test]
    fn lookups_and_exit_descriptions() {
        let state = state(Path::new("/c"));
        assert_eq!(state.daemon("nm1").unwrap().starts, 1);
        assert!(state.daemon("rm9").is_none());
        assert_eq!(state.ids(), "rm1, nm1");
        assert_eq!(DaemonExit::Code(3).to_string(), "exit code 3");
        assert_eq!(DaemonExit::Signal(9).to_string(), "killed by signal 9");
    }

    #[test]
    fn exit_statuses_become_codes_or_signals() {
        let exited = std::process::Command::new("/bin/sh")
            .args(["-c", "exit 3"])
            .status()
            .unwrap();
        assert_eq!(DaemonExit::from_status(exited), DaemonExit::Code(3));
        let killed = std::process::Command::new("/bin/sh")
            .args(["-c", "kill -KILL $$"])
            .status()
            .unwrap();
        assert_eq!(DaemonExit::from_status(killed), DaemonExit::Signal(9));
    }

    #[test]
    fn a_state_of_another_format_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = state(dir.path());
        state.format = 2;
        state.write().unwrap();
        let err = format!("{:#}", ClusterState::read(dir.path()).unwrap_err());
        assert!(
            err.contains("cluster.json") && err.contains("format 2"),
            "{err}"
        );
    }
}
