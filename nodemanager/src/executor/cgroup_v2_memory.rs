//! [`CgroupV2Memory`]: the cgroup v2 directory delegated to the NodeManager, in which each
//! container gets its own memory-limited cgroup.

use std::io;
use std::path::{Path, PathBuf};

use yarn_proto::ids::ContainerId;

use super::{CgroupV2Unusable, ContainerCgroup};

/// A cgroup v2 directory that the NodeManager may fill with one child cgroup per container,
/// each with its own `memory.max`: it exists, the memory controller is available to it and
/// enabled for its children, and the NodeManager can create children in it.
///
/// Only [`detect`](Self::detect) makes one, after checking all of that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CgroupV2Memory {
    dir: PathBuf,
}

/// What a candidate cgroup's interface files say about limiting its children's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delegation {
    /// The memory controller is available and already enabled for the children.
    Ready,
    /// The memory controller is available but not yet enabled for the children.
    EnableMemory,
    /// The memory controller is not available to the cgroup at all.
    MemoryMissing,
}

impl Delegation {
    /// Decides from the contents of `cgroup.controllers` (the controllers the cgroup may use)
    /// and `cgroup.subtree_control` (those it passes on to its children), both
    /// whitespace-separated controller names as the kernel writes them.
    pub(crate) fn from_files(controllers: &str, subtree_control: &str) -> Self {
        let lists_memory = |text: &str| text.split_whitespace().any(|name| name == "memory");
        if !lists_memory(controllers) {
            Self::MemoryMissing
        } else if lists_memory(subtree_control) {
            Self::Ready
        } else {
            Self::EnableMemory
        }
    }
}

impl CgroupV2Memory {
    /// Checks that `dir` (the configured mount path and hierarchy, see
    /// [`NmConfig::cgroup_dir`](crate::NmConfig::cgroup_dir)) can hold containers' cgroups.
    ///
    /// Reads `cgroup.controllers` and `cgroup.subtree_control`, writes `+memory` to the latter
    /// when memory is available but not yet enabled for children, and creates then removes a
    /// probe child `yarn-ha-probe-<pid>` to prove that the cgroup is delegated to this user.
    /// Nothing is written when the memory controller is missing.
    ///
    /// # Errors
    ///
    /// A [`CgroupV2Unusable`] naming the path and what is missing.
    pub fn detect(dir: &Path) -> Result<Self, CgroupV2Unusable> {
        match std::fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(CgroupV2Unusable::NotADirectory {
                    path: dir.to_owned(),
                });
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                return Err(CgroupV2Unusable::Missing {
                    path: dir.to_owned(),
                });
            }
            Err(err) => {
                return Err(CgroupV2Unusable::Read {
                    path: dir.to_owned(),
                    source: err.into(),
                });
            }
        }
        let controllers = read_interface_file(dir, "cgroup.controllers")?;
        let subtree_control = read_interface_file(dir, "cgroup.subtree_control")?;
        match Delegation::from_files(&controllers, &subtree_control) {
            Delegation::Ready => {}
            Delegation::MemoryMissing => {
                return Err(CgroupV2Unusable::MemoryControllerMissing {
                    path: dir.to_owned(),
                    controllers: controllers.trim().to_owned(),
                });
            }
            Delegation::EnableMemory => {
                std::fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(dir.join("cgroup.subtree_control"))
                    .and_then(|mut file| io::Write::write_all(&mut file, b"+memory"))
                    .map_err(|source| CgroupV2Unusable::EnableMemory {
                        path: dir.to_owned(),
                        source: source.into(),
                    })?;
            }
        }
        let probe = dir.join(format!("yarn-ha-probe-{}", std::process::id()));
        match std::fs::create_dir(&probe) {
            Ok(()) => {}
            // Left by an earlier NodeManager with the same pid, which could create it.
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(source) => {
                return Err(CgroupV2Unusable::CreateChild {
                    path: probe,
                    source: source.into(),
                });
            }
        }
        if let Err(err) = std::fs::remove_dir(&probe) {
            tracing::warn!(path = %probe.display(), %err, "cannot remove the probe cgroup");
        }
        Ok(Self {
            dir: dir.to_owned(),
        })
    }

    /// The delegated cgroup.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cgroup of `container_id` with its allocation of `limit_mb`, at
    /// `<dir>/<container id>` as Hadoop places it, so that a restarted NodeManager finds it
    /// again from the id alone. Touches nothing: [`ContainerCgroup::create`] creates it.
    pub(crate) fn container(&self, container_id: ContainerId, limit_mb: u64) -> ContainerCgroup {
        ContainerCgroup::new(
            container_id,
            self.dir.join(container_id.to_string()),
            limit_mb,
        )
    }
}

/// Reads a cgroup v2 interface file of `dir`; its absence means `dir` is no cgroup v2 directory.
fn read_interface_file(dir: &Path, file: &'static str) -> Result<String, CgroupV2Unusable> {
    let path = dir.join(file);
    std::fs::read_to_string(&path).map_err(|err| {
        if err.kind() == io::ErrorKind::NotFound {
            CgroupV2Unusable::NotCgroupV2 {
                path: dir.to_owned(),
                file,
            }
        } else {
            CgroupV2Unusable::Read {
                path,
                source: err.into(),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_enabled_for_children_is_ready() {
        assert_eq!(
            Delegation::from_files("cpuset cpu io memory pids\n", "cpu memory\n"),
            Delegation::Ready
        );
    }

    #[test]
    fn memory_available_but_not_passed_on_must_be_enabled() {
        assert_eq!(
            Delegation::from_files("cpu memory pids\n", "\n"),
            Delegation::EnableMemory
        );
        assert_eq!(
            Delegation::from_files("memory", "cpu"),
            Delegation::EnableMemory
        );
    }

    #[test]
    fn without_memory_in_the_controllers_the_cgroup_is_unusable() {
        assert_eq!(
            Delegation::from_files("cpu pids\n", "memory\n"),
            Delegation::MemoryMissing
        );
        // Names are whole words: a controller named like memory is not memory.
        assert_eq!(
            Delegation::from_files("memory_fake hugetlb", ""),
            Delegation::MemoryMissing
        );
        assert_eq!(Delegation::from_files("", ""), Delegation::MemoryMissing);
    }
}
