//! [`CgroupV2Unusable`]: why a cgroup cannot hold containers' cgroup v2 memory limits.

use std::path::PathBuf;

use super::IoCause;

/// Why the cgroup configured for the NodeManager
/// (`yarn.nodemanager.linux-container-executor.cgroups.mount-path` and `.hierarchy`) cannot
/// hold one cgroup v2 memory limit per container. Each reason names the path and what is
/// missing, so that an operator knows what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CgroupV2Unusable {
    /// The cgroup does not exist.
    #[error(
        "{} does not exist; create it on the cgroup v2 mount and delegate it to the \
         NodeManager's user",
        path.display()
    )]
    Missing {
        /// The configured cgroup.
        path: PathBuf,
    },
    /// The path exists but is not a directory.
    #[error("{} is not a directory, so it cannot be a cgroup", path.display())]
    NotADirectory {
        /// The configured cgroup.
        path: PathBuf,
    },
    /// The directory lacks a cgroup v2 interface file: it is on a cgroup v1 hierarchy or not a
    /// cgroup at all.
    #[error(
        "{} has no {file}, so it is not a cgroup v2 directory (cgroup v1, or not a cgroup)",
        path.display()
    )]
    NotCgroupV2 {
        /// The configured cgroup.
        path: PathBuf,
        /// The missing file, such as `cgroup.controllers`.
        file: &'static str,
    },
    /// An interface file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: IoCause,
    },
    /// The memory controller is not available to the cgroup: its parent does not pass it down.
    #[error(
        "the memory controller is not available in {}: cgroup.controllers lists {controllers:?}, \
         expected it to list memory (enable it in the parent's cgroup.subtree_control)",
        path.display()
    )]
    MemoryControllerMissing {
        /// The configured cgroup.
        path: PathBuf,
        /// What `cgroup.controllers` lists.
        controllers: String,
    },
    /// The memory controller could not be enabled for the cgroup's children. `EBUSY` means
    /// processes live in the cgroup itself, which cgroup v2 forbids once it distributes
    /// controllers (the NodeManager must not run inside it).
    #[error(
        "cannot enable the memory controller for the children of {} by writing +memory to its \
         cgroup.subtree_control: {source}",
        path.display()
    )]
    EnableMemory {
        /// The configured cgroup.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: IoCause,
    },
    /// The NodeManager may not create child cgroups: the cgroup is not delegated to its user.
    #[error(
        "cannot create a child cgroup {} (is the cgroup delegated to the NodeManager's user?): \
         {source}",
        path.display()
    )]
    CreateChild {
        /// The probe cgroup that could not be created.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: IoCause,
    },
}
