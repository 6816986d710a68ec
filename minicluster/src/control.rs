//! The supervisor's control socket: how `minicluster restart` asks the running `minicluster
//! start` to start a daemon again.
//!
//! Restarts go through the supervisor, rather than being spawned by the `restart` command
//! itself, so that every daemon stays a child of one process: it alone reaps them, learns their
//! exit status, stops them at shutdown and writes `cluster.json`, which therefore never needs
//! a lock or a merge.
//!
//! The protocol is one JSON request line and one JSON reply line per connection:
//!
//! ```text
//! restart ──{"restart":{"id":"rm2"}}──▶ supervisor
//!         ◀──{"restarted":{"daemon":{...DaemonRecord...}}}   or   {"refused":{"reason":"..."}}
//! ```
//!
//! A restart may add environment variables for that one start (`"env":{"K":"V"}`), as the
//! chaos harness does to arm a failpoint in a ResourceManager; the next restart without them
//! runs the daemon as before.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::cluster_state::{ClusterState, DaemonRecord};

/// The socket's file name inside the cluster directory.
pub(crate) const SOCKET_FILE_NAME: &str = "supervisor.sock";

/// Longest socket path Linux accepts (`sun_path` is 108 bytes with a terminating NUL).
const MAX_SOCKET_PATH: usize = 107;

/// How long the client waits for the reply: the supervisor may first wait for a just-killed
/// daemon's exit to be reported (see `MiniCluster`) and then spawn it.
const REPLY_TIMEOUT: Duration = Duration::from_secs(15);

/// A request to the supervisor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ControlRequest {
    /// Start the exited or stopped daemon `id` again.
    Restart {
        /// The daemon's id.
        id: String,
        /// Variables added to the daemon's environment for this start only.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, String>,
    },
}

/// The supervisor's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ControlReply {
    /// The daemon runs again; its record as now written to `cluster.json`.
    Restarted {
        /// The daemon's new record.
        daemon: DaemonRecord,
    },
    /// Nothing was started, for this reason.
    Refused {
        /// Why, naming the daemon.
        reason: String,
    },
}

/// The control socket of the cluster in `base_dir`.
///
/// # Errors
///
/// When the path is longer than a Unix socket path may be; the message names it.
pub(crate) fn socket_path(base_dir: &Path) -> anyhow::Result<PathBuf> {
    let path = base_dir.join(SOCKET_FILE_NAME);
    let length = path.as_os_str().len();
    anyhow::ensure!(
        length <= MAX_SOCKET_PATH,
        "the supervisor's control socket {} is {length} bytes long, more than the \
         {MAX_SOCKET_PATH} a Unix socket path may have; use a shorter cluster directory",
        path.display()
    );
    Ok(path)
}

/// Asks the supervisor of the cluster in `base_dir` to start the daemon `id` again, and returns
/// the daemon's new record once it runs. Blocks for at most about 15 seconds.
///
/// # Errors
///
/// When no supervisor is running for the cluster (the message says how to start one), when the
/// supervisor refuses (the daemon is unknown or still running; its reason is the message), or
/// when the exchange fails or times out.
pub fn restart(base_dir: &Path, id: &str) -> anyhow::Result<DaemonRecord> {
    restart_with_env(base_dir, id, &BTreeMap::new())
}

/// [`restart`], with `env` added to the daemon's environment for this start only.
///
/// # Errors
///
/// As [`restart`].
pub fn restart_with_env(
    base_dir: &Path,
    id: &str,
    env: &BTreeMap<String, String>,
) -> anyhow::Result<DaemonRecord> {
    let socket = socket_path(base_dir)?;
    let mut stream = UnixStream::connect(&socket).with_context(|| {
        let recorded = ClusterState::read(base_dir)
            .ok()
            .and_then(|state| state.supervisor_pid)
            .map(|pid| format!(" (cluster.json names pid {pid}, which no longer listens)"))
            .unwrap_or_default();
        format!(
            "no minicluster supervisor is running for {}{recorded}: connecting to {} failed; \
             start the cluster with `yarn-ha minicluster start --dir {}`",
            base_dir.display(),
            socket.display(),
            base_dir.display()
        )
    })?;
    stream.set_read_timeout(Some(REPLY_TIMEOUT))?;
    stream.set_write_timeout(Some(REPLY_TIMEOUT))?;
    let request = ControlRequest::Restart {
        id: id.to_owned(),
        env: env.clone(),
    };
    let mut line = serde_json::to_string(&request)?;
    line.push('\n');
    stream
        .write_all(line.as_bytes())
        .with_context(|| format!("sending the restart request to {}", socket.display()))?;
    let mut reply = String::new();
    BufReader::new(&stream)
        .read_line(&mut reply)
        .with_context(|| format!("waiting for the supervisor's reply on {}", socket.display()))?;
    let reply: ControlReply = serde_json::from_str(&reply).with_context(|| {
        format!(
            "the supervisor on {} answered {:?}, which is not a control reply",
            socket.display(),
            reply.trim_end()
        )
    })?;
    match reply {
        ControlReply::Restarted { daemon } => Ok(daemon),
        ControlReply::Refused { reason } => Err(anyhow::anyhow!("restart refused: {reason}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_replies_have_a_stable_wire_form() {
        let request = ControlRequest::Restart {
            id: "rm2".to_owned(),
            env: BTreeMap::new(),
        };
        let line = serde_json::to_string(&request).unwrap();
        assert_eq!(line, r#"{"restart":{"id":"rm2"}}"#);
        assert_eq!(
            serde_json::from_str::<ControlRequest>(&line).unwrap(),
            request
        );
        let armed = ControlRequest::Restart {
            id: "rm1".to_owned(),
            env: BTreeMap::from([("YARN_HA_FAILPOINTS".to_owned(), "storage.full".to_owned())]),
        };
        let line = serde_json::to_string(&armed).unwrap();
        assert_eq!(
            line,
            r#"{"restart":{"id":"rm1","env":{"YARN_HA_FAILPOINTS":"storage.full"}}}"#
        );
        assert_eq!(
            serde_json::from_str::<ControlRequest>(&line).unwrap(),
            armed
        );
        let reply = ControlReply::Refused {
            reason: "rm2 is running".to_owned(),
        };
        let line = serde_json::to_string(&reply).unwrap();
        assert_eq!(line, r#"{"refused":{"reason":"rm2 is running"}}"#);
        assert_eq!(serde_json::from_str::<ControlReply>(&line).unwrap(), reply);
    }

    #[test]
    fn an_overlong_socket_path_is_refused_with_its_length() {
        let base = PathBuf::from(format!("/{}", "d".repeat(120)));
        let err = socket_path(&base).unwrap_err().to_string();
        assert!(
            err.contains("supervisor.sock") && err.contains("bytes long"),
            "{err}"
        );
        assert!(socket_path(Path::new("/tmp/c")).is_ok());
    }

    #[test]
    fn restart_without_a_supervisor_says_how_to_start_one() {
        let dir = tempfile::tempdir().unwrap();
        let err = format!("{:#}", restart(dir.path(), "rm1").unwrap_err());
        assert!(
            err.contains("no minicluster supervisor is running")
                && err.contains("minicluster start --dir"),
            "{err}"
        );
    }
}
