//! `minicluster.json`: what `minicluster init` laid out, for `start` to launch.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::daemon_role::DaemonRole;
use crate::json_file;
use crate::{ClusterLayout, ProxyRoute, RmLayout};

/// The version of the manifest format this build writes and reads.
const FORMAT: u32 = 1;

/// The manifest `minicluster init` writes as `<base>/minicluster.json`: every daemon with its
/// configuration directory, plus the shared directories. It never changes after `init`; the
/// running state lives in `cluster.json` ([`super::ClusterState`]).
///
/// All paths are absolute, because the configuration files written beside them are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterManifest {
    /// The manifest format version (1).
    pub format: u32,
    /// The cluster directory.
    pub base_dir: PathBuf,
    /// The cluster CA and every daemon's and the user's certificate.
    pub pki_dir: PathBuf,
    /// Configuration for CLI calls as [`crate::HARNESS_USER`] (`YARN_CONF_DIR` for clients).
    pub client_conf_dir: PathBuf,
    /// Where each daemon's log file `<id>.log` goes.
    pub logs_dir: PathBuf,
    /// The daemons: ResourceManagers in `rm-ids` order, then NodeManagers.
    pub daemons: Vec<ManifestDaemon>,
    /// The fronts of a proxied layout (see [`crate::LayoutOptions::proxied`]); empty for a
    /// plain one, and absent from manifests written before proxies existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proxy_routes: Vec<ProxyRoute>,
}

/// One daemon of a [`ClusterManifest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestDaemon {
    /// ResourceManager or NodeManager.
    pub role: DaemonRole,
    /// The rm id (`rm1`) or NodeManager name (`nm1`), unique in the cluster.
    pub id: String,
    /// The daemon's configuration directory, holding `yarn-site.xml` and
    /// `capacity-scheduler.xml`.
    pub conf_dir: PathBuf,
}

impl ManifestDaemon {
    /// The ResourceManager laid out as `layout`.
    pub fn resourcemanager(layout: &RmLayout) -> Self {
        Self {
            role: DaemonRole::ResourceManager,
            id: layout.rm_id.clone(),
            conf_dir: layout.conf_dir.clone(),
        }
    }
}

impl ClusterManifest {
    /// The manifest's file name inside the cluster directory.
    pub const FILE_NAME: &'static str = "minicluster.json";

    /// The manifest of `layout`, with logs under `<base>/logs`.
    pub fn from_layout(layout: &ClusterLayout) -> Self {
        let rms = layout.rms.iter().map(ManifestDaemon::resourcemanager);
        let nms = layout.nms.iter().map(|nm| ManifestDaemon {
            role: DaemonRole::NodeManager,
            id: nm.name.clone(),
            conf_dir: nm.conf_dir.clone(),
        });
        ClusterManifest {
            format: FORMAT,
            base_dir: layout.base.clone(),
            pki_dir: layout.pki_dir.clone(),
            client_conf_dir: layout.client_conf_dir.clone(),
            logs_dir: layout.base.join("logs"),
            daemons: rms.chain(nms).collect(),
            proxy_routes: Vec::new(),
        }
    }

    /// The manifest file of the cluster in `base_dir`.
    pub fn path_in(base_dir: &Path) -> PathBuf {
        base_dir.join(Self::FILE_NAME)
    }

    /// Reads the manifest of the cluster in `base_dir`.
    ///
    /// # Errors
    ///
    /// When the file is missing (the message says to run `minicluster init`), is not valid JSON
    /// (with line and column), or has another format version.
    pub fn read(base_dir: &Path) -> anyhow::Result<Self> {
        let path = Self::path_in(base_dir);
        anyhow::ensure!(
            path.is_file(),
            "{} not found: {} is not a minicluster directory (create one with \
             `yarn-ha minicluster init --dir {}`)",
            path.display(),
            base_dir.display(),
            base_dir.display()
        );
        let manifest: ClusterManifest = json_file::read(&path)?;
        anyhow::ensure!(
            manifest.format == FORMAT,
            "{}: format {} is not supported by this build, which reads format {FORMAT}",
            path.display(),
            manifest.format
        );
        Ok(manifest)
    }

    /// Writes the manifest to `<base_dir>/minicluster.json` and returns that path.
    ///
    /// # Errors
    ///
    /// When the file cannot be written; the message names it.
    pub fn write(&self) -> anyhow::Result<PathBuf> {
        let path = Self::path_in(&self.base_dir);
        json_file::write_atomically(&path, self)?;
        Ok(path)
    }

    /// The ResourceManagers, in `rm-ids` order.
    pub fn resourcemanagers(&self) -> impl Iterator<Item = &ManifestDaemon> {
        self.daemons
            .iter()
            .filter(|d| d.role == DaemonRole::ResourceManager)
    }

    /// The log file of the daemon `id`: `<logs_dir>/<id>.log`.
    pub fn log_file(&self, id: &str) -> PathBuf {
        self.logs_dir.join(format!("{id}.log"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NmLayout, RmLayout};

    fn layout() -> ClusterLayout {
        let base = PathBuf::from("/clusters/a");
        ClusterLayout {
            base: base.clone(),
            pki_dir: base.join("pki"),
            rms: ["rm1", "rm2"]
                .into_iter()
                .map(|id| RmLayout {
                    rm_id: id.to_owned(),
                    conf_dir: base.join(id).join("conf"),
                    storage_dir: base.join(id).join("raft"),
                })
                .collect(),
            nms: vec![NmLayout {
                name: "nm1".to_owned(),
                conf_dir: base.join("nm1/conf"),
            }],
            client_conf_dir: base.join("client/conf"),
        }
    }

    #[test]
    fn a_manifest_lists_rms_in_order_then_nms_with_their_conf_dirs() {
        let manifest = ClusterManifest::from_layout(&layout());
        let daemons: Vec<(DaemonRole, &str, &Path)> = manifest
            .daemons
            .iter()
            .map(|d| (d.role, d.id.as_str(), d.conf_dir.as_path()))
            .collect();
        assert_eq!(
            daemons,
            [
                (
                    DaemonRole::ResourceManager,
                    "rm1",
                    Path::new("/clusters/a/rm1/conf")
                ),
                (
                    DaemonRole::ResourceManager,
                    "rm2",
                    Path::new("/clusters/a/rm2/conf")
                ),
                (
                    DaemonRole::NodeManager,
                    "nm1",
                    Path::new("/clusters/a/nm1/conf")
                ),
            ]
        );
        assert_eq!(manifest.resourcemanagers().count(), 2);
        assert_eq!(
            manifest.log_file("rm2"),
            Path::new("/clusters/a/logs/rm2.log")
        );
        assert_eq!(
            manifest.client_conf_dir,
            Path::new("/clusters/a/client/conf")
        );
    }

    #[test]
    fn a_manifest_round_trips_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = ClusterManifest::from_layout(&layout());
        manifest.base_dir = dir.path().to_owned();
        let path = manifest.write().unwrap();
        assert_eq!(path, dir.path().join("minicluster.json"));
        assert_eq!(ClusterManifest::read(dir.path()).unwrap(), manifest);
    }

    #[test]
    fn reading_a_missing_or_foreign_manifest_says_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let err = format!("{:#}", ClusterManifest::read(dir.path()).unwrap_err());
        assert!(err.contains("minicluster init"), "{err}");

        let mut manifest = ClusterManifest::from_layout(&layout());
        manifest.base_dir = dir.path().to_owned();
        manifest.format = 7;
        manifest.write().unwrap();
        let err = format!("{:#}", ClusterManifest::read(dir.path()).unwrap_err());
        assert!(err.contains("format 7"), "{err}");

        std::fs::write(
            dir.path().join("minicluster.json"),
            "{\n  \"format\": 1,\n  oops",
        )
        .unwrap();
        let err = format!("{:#}", ClusterManifest::read(dir.path()).unwrap_err());
        assert!(
            err.contains("minicluster.json") && err.contains("line 3"),
            "{err}"
        );
    }
}
