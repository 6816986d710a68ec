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
/// The file system's error listing `dir` or reading a file's metadata.
pub fn disk_use(dir: &Path) -> io::Result<DiskUse> {
    let mut total = DiskUse::default();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            let metadata = entry.metadata()?;
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
