//! [`compact_if_grown`]: rewriting a sled database whose files take far more disk than the
//! data it holds.
//!
//! Under steady log purging sled 0.34 keeps segments that are mostly garbage: `bench storage`
//! measured its files at several times the live data (sled's own tests allow five times).
//! sled cannot be compacted in place, so a database that grew past the bound is copied, key by
//! key, into a fresh directory before it is opened, and the copy replaces it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::DurableDb;

/// How long opening waits for an instance just dropped in this process to release the lock.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// What [`compact_if_grown`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compaction {
    /// Bytes of every key and value in the database.
    pub live_bytes: u64,
    /// Bytes of its files before the rewrite.
    pub files_before: u64,
    /// Bytes of its files after.
    pub files_after: u64,
}

/// Whether `error` is sled's refusal to open a database whose lock another instance holds.
pub fn is_lock_held(error: &sled::Error) -> bool {
    matches!(error, sled::Error::Io(e)
        if e.kind() == io::ErrorKind::Other && e.to_string().contains("could not acquire lock"))
}

/// Rewrites the database in `dir` when its files exceed both `min_bytes` and `ratio` times the
/// bytes of every key and value it holds; `None` when it did not (or there is no database).
/// Must run before the database is opened, by its only user, who opens it with
/// [`DurableDb::open_waiting`]: the rewrite's sled threads release their lock shortly after.
///
/// The copy is made in `<dir>.compacting` and made durable before anything is renamed; then
/// `dir` becomes `<dir>.retired`, the copy becomes `dir`, and the retired one is removed. A
/// crash at any point leaves the original or the complete copy to be found by the next call,
/// which finishes or undoes the interrupted rewrite first: data is never lost.
///
/// # Errors
///
/// sled's or the file system's error; the database is then left as it was.
pub fn compact_if_grown(
    dir: &Path,
    ratio: f64,
    min_bytes: u64,
) -> sled::Result<Option<Compaction>> {
    let staging = sibling(dir, "compacting");
    let retired = sibling(dir, "retired");
    finish_interrupted(dir, &staging, &retired)?;
    if !dir.exists() {
        return Ok(None);
    }
    let files_before = disk_use(dir)?.apparent;
    if files_before < min_bytes {
        return Ok(None);
    }
    let original = DurableDb::open_waiting(dir, sled::Config::new, LOCK_WAIT)?;
    let live_bytes = live_bytes(original.db())?;
    if files_before as f64 <= ratio * live_bytes as f64 {
        return Ok(None);
    }
    let copy = DurableDb::open(&staging, sled::Config::new())?;
    copy.db().import(original.db().export());
    copy.flush_blocking()?;
    drop(copy);
    drop(original);
    fs::rename(dir, &retired)?;
    fs::rename(&staging, dir)?;
    sync_parent(dir)?;
    fs::remove_dir_all(&retired)?;
    Ok(Some(Compaction {
        live_bytes,
        files_before,
        files_after: disk_use(dir)?.apparent,
    }))
}

/// Completes or undoes a rewrite a crash interrupted: a missing `dir` with a retired original
/// means the copy was complete and durable (it is made so before the first rename), so it takes
/// the original's place; any other leftover is removed.
fn finish_interrupted(dir: &Path, staging: &Path, retired: &Path) -> io::Result<()> {
    if !dir.exists() && retired.exists() && staging.exists() {
        fs::rename(staging, dir)?;
        sync_parent(dir)?;
    }
    if !dir.exists() && retired.exists() {
        fs::rename(retired, dir)?;
        sync_parent(dir)?;
    }
    for leftover in [staging, retired] {
        if leftover.exists() {
            fs::remove_dir_all(leftover)?;
        }
    }
    Ok(())
}

/// Bytes of every key and value in every tree of `db`.
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

/// What the files under a directory take: their sizes, and the blocks they occupy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiskUse {
    /// The files' sizes.
    pub apparent: u64,
    /// The blocks allocated to them.
    pub allocated: u64,
}

/// What every file under `dir` takes.
pub fn disk_use(dir: &Path) -> io::Result<DiskUse> {
    use std::os::unix::fs::MetadataExt;
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

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{suffix}"));
    dir.with_file_name(name)
}

fn sync_parent(dir: &Path) -> io::Result<()> {
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
    fs::File::open(parent.unwrap_or(Path::new(".")))?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opens `dir` once the last instance's threads let go of it.
    fn open(dir: &Path) -> sled::Db {
        DurableDb::open_waiting(dir, sled::Config::new, LOCK_WAIT)
            .unwrap()
            .db()
            .clone()
    }

    fn fill(dir: &Path, rounds: u32) -> u64 {
        let db = DurableDb::open(dir, sled::Config::new()).unwrap();
        let tree = db.db().open_tree("log").unwrap();
        // Write and delete much more than is kept, as a purged Raft log does.
        for round in 0..rounds {
            for i in 0..500u32 {
                tree.insert((round * 500 + i).to_be_bytes(), vec![7u8; 1024])
                    .unwrap();
            }
            if round > 0 {
                for i in 0..500u32 {
                    tree.remove(((round - 1) * 500 + i).to_be_bytes()).unwrap();
                }
            }
            db.flush_blocking().unwrap();
        }
        let live = live_bytes(db.db()).unwrap();
        drop(db);
        live
    }

    #[test]
    fn a_grown_database_is_rewritten_with_every_key_and_a_small_one_is_left_alone() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("raft");
        let live = fill(&dir, 40);
        let compaction = compact_if_grown(&dir, 2.0, 0)
            .unwrap()
            .expect("a database of mostly garbage is rewritten");
        assert_eq!(compaction.live_bytes, live);
        assert!(compaction.files_before > 2 * live, "{compaction:?}");
        assert!(
            compaction.files_after < compaction.files_before,
            "{compaction:?}"
        );
        let db = open(&dir);
        assert_eq!(live_bytes(&db).unwrap(), live);
        let tree = db.open_tree("log").unwrap();
        assert_eq!(tree.len(), 500);
        assert_eq!(
            tree.first().unwrap().unwrap().0.as_ref(),
            (39 * 500u32).to_be_bytes()
        );
        drop((tree, db));
        assert!(!sibling(&dir, "compacting").exists() && !sibling(&dir, "retired").exists());
        // Below the size floor nothing happens, whatever the ratio.
        assert_eq!(compact_if_grown(&dir, 2.0, u64::MAX).unwrap(), None);
    }

    #[test]
    fn a_rewrite_interrupted_after_its_copy_was_complete_is_finished_and_one_before_is_undone() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("raft");
        let live = fill(&dir, 2);
        // Crashed between the two renames: the original retired, the complete copy staged.
        fs::rename(&dir, sibling(&dir, "retired")).unwrap();
        let copy = DurableDb::open(&sibling(&dir, "compacting"), sled::Config::new()).unwrap();
        let original = open(&sibling(&dir, "retired"));
        copy.db().import(original.export());
        copy.flush_blocking().unwrap();
        drop((copy, original));
        assert_eq!(compact_if_grown(&dir, 1_000.0, 0).unwrap(), None);
        let db = open(&dir);
        assert_eq!(live_bytes(&db).unwrap(), live);
        drop(db);

        // Crashed while copying: the original is whole and the partial copy is dropped.
        fs::create_dir_all(sibling(&dir, "compacting")).unwrap();
        fs::write(sibling(&dir, "compacting").join("db"), b"partial").unwrap();
        assert_eq!(compact_if_grown(&dir, 1_000.0, 0).unwrap(), None);
        assert!(!sibling(&dir, "compacting").exists());
        assert_eq!(live_bytes(&open(&dir)).unwrap(), live);
    }
}
