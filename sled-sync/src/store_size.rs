//! [`disk_use`] and [`live_bytes`]: what a sled database takes on disk, and what it holds.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What the files under a directory take: their sizes, and the blocks they occupy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiskUse {
    /// The files' sizes.
    pub apparent: u64,
    /// The blocks allocated to them.
    pub allocated: u64,
}

/// What every file under `dir` takes.
///
/// # Errors
///
/// The file system's error listing `dir` or reading a file's metadata; files and directories
/// removed while it looks are counted as taking nothing.
pub fn disk_use(dir: &Path) -> io::Result<DiskUse> {
    let mut total = DiskUse::default();
    let root = dir;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        // sled's threads of an instance just dropped may still remove files (old snapshots,
        // collected blobs) while the walk runs: what vanished takes no space.
        let entries = match fs::read_dir(&dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound && dir != root => continue,
            entries => entries?,
        };
        for entry in entries {
            let entry = entry?;
            let metadata = match entry.metadata() {
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                metadata => metadata?,
            };
            if metadata.is_dir() {
                pending.push(entry.path());
            } else {
                total.apparent += metadata.len();
                total.allocated += metadata.blocks() * 512;
            }
        }
    }
    Ok(total)
}

/// Bytes of every key and value in every tree of `db`.
///
/// # Errors
///
/// sled's error reading a tree.
pub fn live_bytes(db: &sled::Db) -> sled::Result<u64> {
    let mut bytes = 0;
    for name in db.tree_names() {
        for item in db.open_tree(&name)?.iter() {
            let (key, value) = item?;
            bytes += (key.len() + value.len()) as u64;
        }
    }
    Ok(bytes)
}
