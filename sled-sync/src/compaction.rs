//! [`compact_if_grown`]: rewriting a sled database whose files take far more disk than the
//! data it holds.
//!
//! Under steady log purging sled 0.34 keeps segments that are mostly garbage: `bench storage`
//! measured its files at several times the live data (sled's own tests allow five times).
//! sled cannot be compacted in place, so a database that grew past the bound is copied, record
//! by record, into a fresh directory before it is opened, and the copy replaces it.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::{DurableDb, LOCK_WAIT, disk_use, live_bytes};

/// The file that marks a copy complete and durable, written before the copy may replace the
/// original and removed once it has.
const COMPLETE: &str = "yarn-ha-compaction-complete";

/// Records copied per batch.
const COPY_BATCH: usize = 1_000;

/// sled's name for the default tree, which `tree_names` lists but `open_tree` does not open.
const DEFAULT_TREE: &[u8] = b"__sled__default";

/// How far a database's files may outgrow its data before [`compact_if_grown`] rewrites it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrowthLimit {
    /// Files up to this many times the bytes of every key and value are left as they are.
    pub ratio: f64,
    /// Files below this many bytes are left as they are whatever the ratio: small stores cost
    /// little.
    pub min_bytes: u64,
}

impl GrowthLimit {
    /// The limit of both daemons' stores: twice the data, once the files pass 16 MiB. Under
    /// steady purging `bench storage` saw sled settle near four times the data.
    pub const DEFAULT: GrowthLimit = GrowthLimit {
        ratio: 2.0,
        min_bytes: 16 << 20,
    };
}

/// What [`compact_if_grown`] did with a database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrowthCheck {
    /// Left alone unopened: no database, a small one, or a directory that is a mount point
    /// and cannot be renamed.
    Skipped,
    /// Opened to measure its data, closed, and left as it is: its files are within the limit.
    WithinLimit,
    /// Rewritten.
    Rewritten(Compaction),
}

/// What [`compact_if_grown`] found and did when it rewrote a database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compaction {
    /// Bytes of every key and value in the database.
    pub live_bytes: u64,
    /// Bytes of its files before the rewrite.
    pub files_before: u64,
    /// Bytes of its files after.
    pub files_after: u64,
}

/// Rewrites the database in `dir`, opened with the configuration `config` makes, when its files
/// exceed both of `limit`'s bounds (its `min_bytes`, and its `ratio` times the bytes of every
/// key and value it holds), and says what it did ([`GrowthCheck`]). Must run before the database is opened, by its only user, who opens it with
/// [`DurableDb::open_waiting`]: the rewrite's sled threads release their lock shortly after.
///
/// The copy is made in `<dir>.compacting`, made durable and marked complete before anything
/// is renamed; then `dir` becomes `<dir>.retired`, the copy becomes `dir`, and the retired one
/// is removed. A crash at any point leaves the original, or the complete copy, for the next
/// call, which finishes or undoes the interrupted rewrite first.
///
/// # Errors
///
/// sled's or the file system's error. The original is then in `dir` again unless putting it
/// back failed too; [`is_intact`] tells, and a caller must not open a store that is not.
pub fn compact_if_grown(
    dir: &Path,
    config: impl Fn() -> sled::Config,
    limit: GrowthLimit,
) -> sled::Result<GrowthCheck> {
    // Through a symbolic link the renames would move the link, not the data.
    let dir = if dir.exists() {
        fs::canonicalize(dir)?
    } else {
        dir.to_path_buf()
    };
    let staging = sibling(&dir, "compacting");
    let retired = sibling(&dir, "retired");
    finish_interrupted(&dir, &staging, &retired)?;
    if !dir.exists() || is_mount_point(&dir)? {
        return Ok(GrowthCheck::Skipped);
    }
    let files_before = disk_use(&dir)?.apparent;
    if files_before < limit.min_bytes {
        return Ok(GrowthCheck::Skipped);
    }
    let original = DurableDb::open_waiting(&dir, &config, LOCK_WAIT)?;
    let live_bytes = live_bytes(original.db())?;
    if files_before as f64 <= limit.ratio * live_bytes as f64 {
        return Ok(GrowthCheck::WithinLimit);
    }
    let copy = DurableDb::open(&staging, config())?;
    copy_records(original.db(), copy.db())?;
    copy.flush_blocking()?;
    drop(copy);
    drop(original);
    write_synced(&staging.join(COMPLETE))?;
    sync_dir(&staging)?;
    fs::rename(&dir, &retired)?;
    if let Err(err) = fs::rename(&staging, &dir) {
        fs::rename(&retired, &dir)?;
        return Err(err.into());
    }
    sync_parent(&dir)?;
    fs::remove_dir_all(&retired)?;
    fs::remove_file(dir.join(COMPLETE))?;
    sync_dir(&dir)?;
    Ok(GrowthCheck::Rewritten(Compaction {
        live_bytes,
        files_before,
        files_after: disk_use(&dir)?.apparent,
    }))
}

/// Whether `dir` holds the database with no rewrite pending: the only state it may be opened
/// in.
pub fn is_intact(dir: &Path) -> bool {
    dir.exists() && !sibling(dir, "retired").exists() && !dir.join(COMPLETE).exists()
}

/// Finishes or undoes a rewrite a crash interrupted. A missing `dir` takes the copy when it
/// was marked complete, the retired original otherwise; a `dir` holding the marked copy means
/// the swap happened and only the cleanup is left; with the original in `dir`, an unfinished
/// copy is dropped.
fn finish_interrupted(dir: &Path, staging: &Path, retired: &Path) -> io::Result<()> {
    if !dir.exists() {
        if staging.join(COMPLETE).exists() {
            fs::rename(staging, dir)?;
            sync_parent(dir)?;
        } else if retired.exists() {
            fs::rename(retired, dir)?;
            sync_parent(dir)?;
        } else {
            return Ok(());
        }
    }
    if dir.join(COMPLETE).exists() {
        if retired.exists() {
            fs::remove_dir_all(retired)?;
        }
        fs::remove_file(dir.join(COMPLETE))?;
        sync_dir(dir)?;
    }
    if staging.exists() {
        fs::remove_dir_all(staging)?;
    }
    Ok(())
}

/// Copies every record of every tree of `from` into `to`, in batches.
fn copy_records(from: &sled::Db, to: &sled::Db) -> sled::Result<()> {
    for name in from.tree_names() {
        let (source, target) = if name.as_ref() == DEFAULT_TREE {
            (sled::Tree::clone(from), sled::Tree::clone(to))
        } else {
            (from.open_tree(&name)?, to.open_tree(&name)?)
        };
        let mut batch = sled::Batch::default();
        let mut batched = 0;
        for item in source.iter() {
            let (key, value) = item?;
            batch.insert(key, value);
            batched += 1;
            if batched == COPY_BATCH {
                target.apply_batch(std::mem::take(&mut batch))?;
                batched = 0;
            }
        }
        target.apply_batch(batch)?;
    }
    Ok(())
}

/// Whether `dir` is on another file system than its parent: a mount point cannot be renamed.
fn is_mount_point(dir: &Path) -> io::Result<bool> {
    let Some(parent) = dir.parent() else {
        return Ok(true);
    };
    Ok(fs::metadata(dir)?.dev() != fs::metadata(parent)?.dev())
}

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{suffix}"));
    dir.with_file_name(name)
}

fn write_synced(path: &Path) -> io::Result<()> {
    let file = fs::File::create(path)?;
    file.sync_all()
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

fn sync_parent(dir: &Path) -> io::Result<()> {
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
    sync_dir(parent.unwrap_or(Path::new(".")))
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

    fn limit(ratio: f64, min_bytes: u64) -> GrowthLimit {
        GrowthLimit { ratio, min_bytes }
    }

    #[test]
    fn a_grown_database_is_rewritten_with_every_key_and_a_small_one_is_left_alone() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("raft");
        let live = fill(&dir, 40);
        let GrowthCheck::Rewritten(compaction) =
            compact_if_grown(&dir, sled::Config::new, limit(2.0, 0)).unwrap()
        else {
            panic!("a database of mostly garbage is rewritten");
        };
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
        assert_eq!(
            compact_if_grown(&dir, sled::Config::new, limit(2.0, u64::MAX)).unwrap(),
            GrowthCheck::Skipped
        );
        assert!(is_intact(&dir));
    }

    #[test]
    fn a_rewrite_interrupted_at_any_point_keeps_every_record() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("raft");
        let live = fill(&dir, 2);
        // Crashed between the two renames: the original retired, the complete copy staged.
        fs::rename(&dir, sibling(&dir, "retired")).unwrap();
        let copy = DurableDb::open(&sibling(&dir, "compacting"), sled::Config::new()).unwrap();
        let original = open(&sibling(&dir, "retired"));
        copy_records(&original, copy.db()).unwrap();
        copy.flush_blocking().unwrap();
        drop((copy, original));
        write_synced(&sibling(&dir, "compacting").join(COMPLETE)).unwrap();
        assert!(!is_intact(&dir));
        assert_eq!(
            compact_if_grown(&dir, sled::Config::new, limit(1_000.0, 0)).unwrap(),
            GrowthCheck::WithinLimit
        );
        assert!(is_intact(&dir));
        assert!(!sibling(&dir, "retired").exists());
        let db = open(&dir);
        assert_eq!(live_bytes(&db).unwrap(), live);
        drop(db);

        // Crashed while copying: the original is whole and the partial copy is dropped.
        fs::create_dir_all(sibling(&dir, "compacting")).unwrap();
        fs::write(sibling(&dir, "compacting").join("db"), b"partial").unwrap();
        assert_eq!(
            compact_if_grown(&dir, sled::Config::new, limit(1_000.0, 0)).unwrap(),
            GrowthCheck::WithinLimit
        );
        assert!(!sibling(&dir, "compacting").exists());
        assert_eq!(live_bytes(&open(&dir)).unwrap(), live);

        // Crashed after the original was retired but before its copy was marked complete: the
        // original comes back.
        fs::rename(&dir, sibling(&dir, "retired")).unwrap();
        fs::create_dir_all(sibling(&dir, "compacting")).unwrap();
        assert_eq!(
            compact_if_grown(&dir, sled::Config::new, limit(1_000.0, 0)).unwrap(),
            GrowthCheck::WithinLimit
        );
        assert!(is_intact(&dir) && !sibling(&dir, "compacting").exists());
        assert_eq!(live_bytes(&open(&dir)).unwrap(), live);
    }
}
