//! [`VolatileMount`]: a [`VolatileTree`] mounted on a directory with FUSE, and the power cut
//! that drops what it holds unsynced.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use fuser::{BackgroundSession, Config, MountOption};

use crate::volatile_fs::VolatileFs;
use crate::volatile_tree::{LostWrites, VolatileTree};

/// Why a volatile file system could not be mounted.
#[derive(Debug, thiserror::Error)]
pub enum MountError {
    /// The mount point is missing, not a directory, or not empty.
    #[error("{path}: {problem}")]
    MountPoint {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The kernel refused the mount.
    #[error(
        "mounting a volatile FUSE file system on {path}: {source} (it needs root and /dev/fuse: \
         it mounts with mount(2), not with a fusermount helper)"
    )]
    Mount {
        /// The directory.
        path: PathBuf,
        /// The error of opening /dev/fuse or of mount(2).
        source: io::Error,
    },
}

/// Whether this process can mount a volatile file system: it runs as root and `/dev/fuse` is a
/// character device.
pub fn can_mount() -> bool {
    use std::os::unix::fs::FileTypeExt;
    // SAFETY: geteuid(2) takes no arguments and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let fuse = std::fs::metadata("/dev/fuse").is_ok_and(|m| m.file_type().is_char_device());
    root && fuse
}

/// A directory whose file contents are held in memory, volatile until synced, as on a disk
/// with a write cache; [`power_loss`](Self::power_loss) drops every write not synced since,
/// from the files of every process using it.
///
/// Guarantees: while mounted, reads see every write, and `fsync` or `fdatasync` of a file makes
/// its contents survive later power losses (see [`VolatileTree`] for what else holds).
/// Dropped, or [`unmount`](Self::unmount)ed, the directory is unmounted (lazily, when files on
/// it are still open) and its contents are gone.
#[derive(Debug)]
pub struct VolatileMount {
    dir: PathBuf,
    tree: Arc<Mutex<VolatileTree>>,
    session: Option<BackgroundSession>,
}

impl VolatileMount {
    /// Mounts an empty volatile file system on `dir`, an existing empty directory.
    ///
    /// # Errors
    ///
    /// [`MountError::MountPoint`] when `dir` is not an empty directory;
    /// [`MountError::Mount`] when the kernel refuses (no `/dev/fuse`, no privilege).
    pub fn mount(dir: &Path) -> Result<Self, MountError> {
        let mount_point = |problem: String| MountError::MountPoint {
            path: dir.to_path_buf(),
            problem,
        };
        let mut entries = std::fs::read_dir(dir)
            .map_err(|e| mount_point(format!("cannot be read as a directory: {e}")))?;
        if entries.next().is_some() {
            return Err(mount_point(
                "is not empty; a volatile file system is mounted on an empty directory".to_owned(),
            ));
        }
        // fuser falls back to a setuid fusermount for other users, whose unmount is always lazy
        // and would leave `unmount` waiting for the last open file; only root mounts here.
        // SAFETY: geteuid(2) takes no arguments and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err(MountError::Mount {
                path: dir.to_path_buf(),
                source: io::Error::new(io::ErrorKind::PermissionDenied, "not running as root"),
            });
        }
        let tree = Arc::new(Mutex::new(VolatileTree::new()));
        let mut config = Config::default();
        config.mount_options = vec![
            MountOption::FSName("yarn-ha-volatile".to_owned()),
            MountOption::Subtype("volatile".to_owned()),
            MountOption::RW,
        ];
        let session = fuser::spawn_mount(VolatileFs::new(Arc::clone(&tree)), dir, &config)
            .map_err(|source| MountError::Mount {
                path: dir.to_path_buf(),
                source,
            })?;
        Ok(Self {
            dir: dir.to_path_buf(),
            tree,
            session: Some(session),
        })
    }

    /// The directory it is mounted on.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Cuts the power: every file goes back to its contents at its last sync. Processes that
    /// wrote to it should be gone first (a machine without power runs nothing); one still
    /// writing would see its later writes kept. Returns what was dropped.
    pub fn power_loss(&self) -> LostWrites {
        self.tree
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .power_loss()
    }

    /// Bytes written and not yet synced, over every file.
    pub fn unsynced_bytes(&self) -> u64 {
        self.tree
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unsynced_bytes()
    }

    /// Unmounts the file system, lazily if files on it are still open.
    ///
    /// # Errors
    ///
    /// The error of umount2(2) when the directory could not be unmounted at all.
    pub fn unmount(mut self) -> io::Result<()> {
        self.detach()
    }

    fn detach(&mut self) -> io::Result<()> {
        let Some(session) = self.session.take() else {
            return Ok(());
        };
        // fuser unmounts and joins its thread, which ends as the kernel lets go of the
        // connection; with files still open the unmount is busy and is made lazy instead,
        // lasting until the last of them is closed.
        match session.umount_and_join() {
            Err(err) if err.raw_os_error() == Some(libc::EBUSY) => {
                let path = CString::new(self.dir.as_os_str().as_bytes())?;
                // SAFETY: `path` is a NUL-terminated string that outlives the call.
                if unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) } == 0 {
                    Ok(())
                } else {
                    Err(io::Error::last_os_error())
                }
            }
            unmounted => unmounted,
        }
    }
}

impl Drop for VolatileMount {
    fn drop(&mut self) {
        if let Err(err) = self.detach() {
            tracing::warn!(dir = %self.dir.display(), %err, "unmounting a volatile file system");
        }
    }
}
