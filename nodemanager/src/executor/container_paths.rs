//! [`ContainerPaths`]: where a container's files live, computed without touching the disk.

use std::path::{Path, PathBuf};

use yarn_proto::ids::ContainerId;
use yarn_proto::token_metadata::CONTAINER_TOKENS_FILE;

use crate::Error;

/// The directories and files of one container, laid out as Hadoop's NodeManager lays them out.
///
/// ```text
/// <local-dir>/usercache/<user>/                            user dir (LOCAL_USER_DIRS)
/// <local-dir>/usercache/<user>/appcache/<app>/              application dir (LOCAL_DIRS)
/// <local-dir>/usercache/<user>/appcache/<app>/<container>/  working dir (first local dir: PWD)
/// <local-dir>/usercache/<user>/appcache/<app>/<container>/container_tokens
///                                                           token file
///                                                           (HADOOP_TOKEN_FILE_LOCATION)
/// <local-dir>/usercache/<user>/appcache/<app>/<container>/launch_container.sh
///                                                           launch script
/// <local-dir>/usercache/<user>/appcache/<app>/<container>/tmp/
///                                                           temporary files (Java's
///                                                           java.io.tmpdir in Hadoop apps)
/// <local-dir>/nmPrivate/<app>/<container>/<container>.pid.exitcode
///                                                           exit code file (first local dir)
/// <log-dir>/<app>/<container>/                              log dir (LOG_DIRS); the first
///                                                           one's is <LOG_DIR>, and holds
///                                                           prelaunch.out and prelaunch.err
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContainerPaths {
    /// The user's directory in every local dir.
    pub(crate) user_local_dirs: Vec<PathBuf>,
    /// The application's directory in every local dir.
    pub(crate) app_local_dirs: Vec<PathBuf>,
    /// The container's working directory, in the first local dir.
    pub(crate) work_dir: PathBuf,
    /// The container's log directory in every log dir.
    pub(crate) container_log_dirs: Vec<PathBuf>,
    /// Where the launch wrapper records the exit code, out of the container's own directories.
    pub(crate) exit_code_file: PathBuf,
}

impl ContainerPaths {
    /// Lays out the paths of `container_id` run for `user`.
    ///
    /// `local_dirs` and `log_dirs` are non-empty, as [`NmConfig`](crate::NmConfig) guarantees.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidUser`] when `user` could not be a single directory name (empty, `.`,
    /// `..`, or holding `/` or NUL), which would place files outside the user's cache.
    pub(crate) fn new(
        local_dirs: &[PathBuf],
        log_dirs: &[PathBuf],
        user: &str,
        container_id: ContainerId,
    ) -> Result<Self, Error> {
        if user.is_empty() || user == "." || user == ".." || user.contains(['/', '\0']) {
            return Err(Error::InvalidUser {
                container_id,
                user: user.to_owned(),
            });
        }
        let app = container_id.application_id().to_string();
        let container = container_id.to_string();
        let user_local_dirs: Vec<PathBuf> = local_dirs
            .iter()
            .map(|dir| dir.join("usercache").join(user))
            .collect();
        let app_local_dirs: Vec<PathBuf> = user_local_dirs
            .iter()
            .map(|dir| dir.join("appcache").join(&app))
            .collect();
        let work_dir = app_local_dirs
            .first()
            .map(|dir| dir.join(&container))
            .unwrap_or_default();
        Ok(Self {
            user_local_dirs,
            app_local_dirs,
            work_dir,
            container_log_dirs: log_dirs
                .iter()
                .map(|dir| dir.join(&app).join(&container))
                .collect(),
            exit_code_file: Self::exit_code_file(local_dirs, container_id),
        })
    }

    /// The exit code file of `container_id`, which does not depend on the user so that a
    /// re-acquired container can be found from its id alone.
    pub(crate) fn exit_code_file(local_dirs: &[PathBuf], container_id: ContainerId) -> PathBuf {
        let container = container_id.to_string();
        local_dirs
            .first()
            .map(PathBuf::as_path)
            .unwrap_or(Path::new(""))
            .join("nmPrivate")
            .join(container_id.application_id().to_string())
            .join(&container)
            .join(format!("{container}.pid.exitcode"))
    }

    /// The container's token file, in its working directory under the name Hadoop's
    /// NodeManager gives it; `HADOOP_TOKEN_FILE_LOCATION` names it.
    pub(crate) fn token_file(&self) -> PathBuf {
        self.work_dir.join(CONTAINER_TOKENS_FILE)
    }

    /// The container's launch script, in its working directory under the name Hadoop gives it.
    pub(crate) fn launch_script(&self) -> PathBuf {
        self.work_dir.join("launch_container.sh")
    }

    /// The container's directory for temporary files, which Hadoop's executor creates in the
    /// working directory and Hadoop applications name as `java.io.tmpdir` (`{{PWD}}/tmp`).
    pub(crate) fn tmp_dir(&self) -> PathBuf {
        self.work_dir.join("tmp")
    }

    /// The log directory that `<LOG_DIR>` stands for, which receives the launch script's own
    /// output.
    pub(crate) fn log_dir(&self) -> &Path {
        self.container_log_dirs
            .first()
            .map_or(Path::new(""), PathBuf::as_path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container() -> ContainerId {
        "container_e02_1410901177871_0001_01_000005"
            .parse()
            .unwrap()
    }

    #[test]
    fn the_layout_follows_hadoop() {
        let paths = ContainerPaths::new(
            &["/l1".into(), "/l2".into()],
            &["/g1".into(), "/g2".into()],
            "alice",
            container(),
        )
        .unwrap();
        let app = "application_1410901177871_0001";
        let cid = "container_e02_1410901177871_0001_01_000005";
        assert_eq!(
            paths.user_local_dirs,
            [
                PathBuf::from("/l1/usercache/alice"),
                PathBuf::from("/l2/usercache/alice"),
            ]
        );
        assert_eq!(
            paths.app_local_dirs,
            [
                PathBuf::from(format!("/l1/usercache/alice/appcache/{app}")),
                PathBuf::from(format!("/l2/usercache/alice/appcache/{app}")),
            ]
        );
        assert_eq!(
            paths.work_dir,
            PathBuf::from(format!("/l1/usercache/alice/appcache/{app}/{cid}"))
        );
        assert_eq!(
            paths.container_log_dirs,
            [
                PathBuf::from(format!("/g1/{app}/{cid}")),
                PathBuf::from(format!("/g2/{app}/{cid}")),
            ]
        );
        assert_eq!(
            paths.token_file(),
            PathBuf::from(format!(
                "/l1/usercache/alice/appcache/{app}/{cid}/container_tokens"
            ))
        );
        assert_eq!(
            paths.launch_script(),
            PathBuf::from(format!(
                "/l1/usercache/alice/appcache/{app}/{cid}/launch_container.sh"
            ))
        );
        assert_eq!(
            paths.tmp_dir(),
            PathBuf::from(format!("/l1/usercache/alice/appcache/{app}/{cid}/tmp"))
        );
        assert_eq!(paths.log_dir(), Path::new(&format!("/g1/{app}/{cid}")));
        assert_eq!(
            paths.exit_code_file,
            PathBuf::from(format!("/l1/nmPrivate/{app}/{cid}/{cid}.pid.exitcode"))
        );
    }

    #[test]
    fn users_that_would_escape_the_user_cache_are_refused() {
        for user in ["", ".", "..", "../root", "a/b", "nul\0"] {
            let err =
                ContainerPaths::new(&["/l".into()], &["/g".into()], user, container()).unwrap_err();
            assert_eq!(
                err,
                Error::InvalidUser {
                    container_id: container(),
                    user: user.to_owned()
                }
            );
        }
    }
}
