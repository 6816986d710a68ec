//! [`VolatileDisks`]: the ResourceManagers' Raft storage on volatile file systems, for the
//! power-loss faults.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use yarn_volatile_fs::{LostWrites, VolatileMount};

/// Each ResourceManager's storage directory with a [`VolatileMount`] on it, by rm id; none in
/// a run on real disks.
///
/// Guarantees: every mount is unmounted when this is dropped (lazily if a daemon still has
/// files open on it), so no mount outlives the run.
#[derive(Debug, Default)]
pub struct VolatileDisks {
    mounts: BTreeMap<String, VolatileMount>,
}

impl VolatileDisks {
    /// Mounts a volatile file system on each of `dirs` (rm id to storage directory), creating
    /// the directories.
    ///
    /// # Errors
    ///
    /// When a directory cannot be created or mounted on; the message names the replica and
    /// what the mount needs. The mounts already made are undone.
    pub fn mount(dirs: &BTreeMap<String, PathBuf>) -> anyhow::Result<Self> {
        let mut disks = Self::default();
        for (rm, dir) in dirs {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            let mount = VolatileMount::mount(dir)
                .with_context(|| format!("--disks volatile: {rm}'s Raft storage"))?;
            disks.mounts.insert(rm.clone(), mount);
        }
        Ok(disks)
    }

    /// Whether the replicas' storage is volatile.
    pub fn is_volatile(&self) -> bool {
        !self.mounts.is_empty()
    }

    /// Cuts the power of `rm`'s disk: every write it had not fsync'd is dropped. `rm`'s process
    /// must be gone already.
    ///
    /// # Errors
    ///
    /// When `rm` has no volatile disk.
    pub fn power_loss(&self, rm: &str) -> anyhow::Result<LostWrites> {
        let mount = self
            .mounts
            .get(rm)
            .with_context(|| format!("{rm} has no volatile disk (run with --disks volatile)"))?;
        Ok(mount.power_loss())
    }

    /// Unmounts every disk, once the daemons using them are stopped.
    ///
    /// # Errors
    ///
    /// The first unmount that failed; the others are still unmounted.
    pub fn unmount(self) -> anyhow::Result<()> {
        let mut first_error = None;
        for (rm, mount) in self.mounts {
            let dir = mount.dir().display().to_string();
            if let Err(err) = mount.unmount() {
                first_error.get_or_insert(anyhow::anyhow!("unmounting {rm}'s {dir}: {err}"));
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}
