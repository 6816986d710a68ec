//! How to start one daemon: program, arguments, log file and the addresses it will serve.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::cluster_manifest::ManifestDaemon;
use crate::daemon_role::DaemonRole;

/// Everything the supervisor needs to start (and restart) one daemon.
///
/// The program is a field rather than fixed to `yarn-ha`, so tests can supervise stand-in
/// processes (`/bin/sh -c ...`) through the same code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaemonSpec {
    /// ResourceManager or NodeManager.
    pub role: DaemonRole,
    /// The rm id or NodeManager name, unique in the cluster.
    pub id: String,
    /// The executable to run.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The daemon's configuration directory (recorded in `cluster.json`).
    pub conf_dir: PathBuf,
    /// The file stdout and stderr are appended to.
    pub log_file: PathBuf,
    /// The daemon's endpoints by service name, as `host:port` (recorded in `cluster.json`).
    pub addresses: BTreeMap<String, String>,
    /// Variables added to the inherited environment at every start.
    pub env: BTreeMap<String, String>,
    /// The cgroup v2 directory the process joins before it execs, at every start (the netns
    /// chaos mode tells daemons' packets apart by it); `None` leaves it in the supervisor's.
    pub cgroup: Option<PathBuf>,
}

impl DaemonSpec {
    /// The `yarn-ha` daemon `daemon` run by the executable `exe`:
    /// `<exe> resourcemanager --rm-id <id> --conf-dir <conf_dir>` for an RM and
    /// `<exe> nodemanager --conf-dir <conf_dir>` for an NM.
    ///
    /// The conf dir goes on the command line so it overrides a `YARN_CONF_DIR` the supervisor
    /// may have inherited; the rest of the environment (such as `YARN_HA_LOG`) is inherited,
    /// and nothing is added to it.
    pub fn yarn_ha(
        exe: &Path,
        daemon: &ManifestDaemon,
        log_file: PathBuf,
        addresses: BTreeMap<String, String>,
    ) -> Self {
        let mut args: Vec<OsString> = vec![daemon.role.subcommand().into()];
        if daemon.role == DaemonRole::ResourceManager {
            args.push("--rm-id".into());
            args.push(daemon.id.clone().into());
        }
        args.push("--conf-dir".into());
        args.push(daemon.conf_dir.clone().into());
        DaemonSpec {
            role: daemon.role,
            id: daemon.id.clone(),
            program: exe.to_owned(),
            args,
            conf_dir: daemon.conf_dir.clone(),
            log_file,
            addresses,
            env: BTreeMap::new(),
            cgroup: None,
        }
    }

    /// The command line as one line of text, for the log header written before each start.
    /// Arguments are joined with spaces, unquoted: it is for reading, not for a shell.
    pub fn command_line(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|part| part.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn daemon(role: DaemonRole, id: &str) -> ManifestDaemon {
        ManifestDaemon {
            role,
            id: id.to_owned(),
            conf_dir: PathBuf::from(format!("/c/{id}/conf")),
        }
    }

    #[test]
    fn a_resourcemanager_runs_with_its_rm_id_and_conf_dir() {
        let addresses = BTreeMap::from([("admin".to_owned(), "127.0.0.1:1".to_owned())]);
        let spec = DaemonSpec::yarn_ha(
            Path::new("/bin/yarn-ha"),
            &daemon(DaemonRole::ResourceManager, "rm2"),
            PathBuf::from("/c/logs/rm2.log"),
            addresses.clone(),
        );
        assert_eq!(spec.program, Path::new("/bin/yarn-ha"));
        assert_eq!(
            spec.args,
            [
                "resourcemanager",
                "--rm-id",
                "rm2",
                "--conf-dir",
                "/c/rm2/conf"
            ]
        );
        assert_eq!(spec.id, "rm2");
        assert_eq!(spec.conf_dir, Path::new("/c/rm2/conf"));
        assert_eq!(spec.log_file, Path::new("/c/logs/rm2.log"));
        assert_eq!(spec.addresses, addresses);
        assert_eq!(
            spec.command_line(),
            "/bin/yarn-ha resourcemanager --rm-id rm2 --conf-dir /c/rm2/conf"
        );
    }

    #[test]
    fn a_nodemanager_runs_with_its_conf_dir_only() {
        let spec = DaemonSpec::yarn_ha(
            Path::new("/bin/yarn-ha"),
            &daemon(DaemonRole::NodeManager, "nm1"),
            PathBuf::from("/c/logs/nm1.log"),
            BTreeMap::new(),
        );
        assert_eq!(spec.role, DaemonRole::NodeManager);
        assert_eq!(spec.args, ["nodemanager", "--conf-dir", "/c/nm1/conf"]);
    }
}
