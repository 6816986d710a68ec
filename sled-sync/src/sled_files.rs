//! [`SledFiles`]: a sled database's flush, followed by an fdatasync of every file it wrote.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::SyncTarget;

/// The data file sled writes every page and log record into, in its directory.
const DATA_FILE: &str = "db";
/// The directory sled writes values too large for a log segment into, one file each.
const BLOBS_DIR: &str = "blobs";

/// A sled database and the files under its directory, made durable together.
///
/// A [`sync`](SyncTarget::sync) runs sled's blocking `flush` (which writes sled's buffers with
/// `pwrite` and `sync_file_range`: into the disk's queue, not through its cache), then
/// `fdatasync`s the data file `db`, then every other file in the directory and in `blobs/`
/// that is new or has grown since the last sync (blob files, which sled writes and never
/// syncs; sled's `conf` and `snap.*` files), then each of the two directories whose names
/// changed, so that new files are found after a power loss. Blob files are write-once, so a
/// file of the same length as when last synced has nothing unsynced.
#[derive(Debug)]
pub struct SledFiles {
    db: sled::Db,
    dir: PathBuf,
    /// Opened once: every sync needs it.
    data_file: File,
    /// For each of the two directories, the files last synced in it and their lengths then.
    synced: Mutex<HashMap<PathBuf, Listing>>,
    /// The planted bug `plant.unsynced-appends`: syncs stop after sled's own flush.
    #[cfg(feature = "failpoints")]
    sled_flush_only: std::sync::atomic::AtomicBool,
}

/// Files in one directory, by name, with their lengths.
type Listing = HashMap<OsString, u64>;

impl SledFiles {
    /// Takes over syncing `db`, which sled opened in `dir`, and makes everything already under
    /// `dir` durable, the directory's own entry in its parent included.
    ///
    /// # Errors
    ///
    /// The I/O error of opening the data file or of any sync.
    pub fn new(db: sled::Db, dir: &Path) -> sled::Result<Self> {
        let files = Self {
            data_file: File::open(dir.join(DATA_FILE))?,
            db,
            dir: dir.to_path_buf(),
            synced: Mutex::default(),
            #[cfg(feature = "failpoints")]
            sled_flush_only: std::sync::atomic::AtomicBool::new(false),
        };
        files.sync()?;
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(parent)?.sync_all()?;
        }
        Ok(files)
    }

    /// The database.
    pub fn db(&self) -> &sled::Db {
        &self.db
    }

    /// PLANTED BUG (`plant.unsynced-appends`, `failpoints` feature only): from now on a sync
    /// is sled's own flush alone, which survives a crash of the process but not a power loss.
    #[cfg(feature = "failpoints")]
    pub fn plant_sled_flush_only(&self) {
        self.sled_flush_only
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Syncs the files of `dir` other than the data file that differ from `last`, and `dir`
    /// itself if a name came or went; returns what it found.
    fn sync_dir(dir: &Path, last: Option<&Listing>) -> io::Result<Listing> {
        let listing = list_files(dir)?;
        let empty = Listing::new();
        let last = last.unwrap_or(&empty);
        for name in unsynced(last, &listing) {
            match File::open(dir.join(name)) {
                Ok(file) => file.sync_data()?,
                // sled removed it since the listing (a collected blob): nothing left to keep.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        if names_changed(last, &listing) {
            File::open(dir)?.sync_all()?;
        }
        Ok(listing)
    }
}

impl SyncTarget for SledFiles {
    fn sync(&self) -> sled::Result<()> {
        self.db.flush()?;
        #[cfg(feature = "failpoints")]
        if self
            .sled_flush_only
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return Ok(());
        }
        self.data_file.sync_data()?;
        // Only the group commit's leader syncs, so the lock is never contended.
        let mut synced = self.synced.lock().unwrap_or_else(PoisonError::into_inner);
        for dir in [self.dir.clone(), self.dir.join(BLOBS_DIR)] {
            let listing = Self::sync_dir(&dir, synced.get(&dir))?;
            synced.insert(dir, listing);
        }
        Ok(())
    }
}

/// The regular files of `dir` but sled's data file, with their lengths; none if `dir` is
/// absent.
fn list_files(dir: &Path) -> io::Result<Listing> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Listing::new()),
        Err(e) => return Err(e),
    };
    let mut listing = Listing::new();
    for entry in entries {
        let entry = entry?;
        let metadata = match entry.metadata() {
            Ok(metadata) => metadata,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        if metadata.is_file() && entry.file_name() != DATA_FILE {
            listing.insert(entry.file_name(), metadata.len());
        }
    }
    Ok(listing)
}

/// The files of `now` that are new since `last` or have another length.
fn unsynced<'a>(last: &Listing, now: &'a Listing) -> impl Iterator<Item = &'a OsString> {
    now.iter()
        .filter(|(name, len)| last.get(*name) != Some(len))
        .map(|(name, _)| name)
}

/// Whether a file was created, renamed or removed between `last` and `now`.
fn names_changed(last: &Listing, now: &Listing) -> bool {
    last.len() != now.len() || now.keys().any(|name| !last.contains_key(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(files: &[(&str, u64)]) -> Listing {
        files
            .iter()
            .map(|(name, len)| (OsString::from(name), *len))
            .collect()
    }

    #[test]
    fn new_and_grown_files_are_unsynced_and_new_or_gone_names_change_the_directory() {
        let last = listing(&[("10", 5), ("20", 7), ("30", 9)]);
        let now = listing(&[("10", 5), ("20", 8), ("40", 1)]);
        let mut stale: Vec<_> = unsynced(&last, &now).collect();
        stale.sort();
        assert_eq!(stale, ["20", "40"]);
        assert!(names_changed(&last, &now));
        assert!(names_changed(&last, &listing(&[("10", 5), ("20", 7)])));
        assert!(!names_changed(
            &last,
            &listing(&[("10", 6), ("20", 7), ("30", 9)])
        ));
        assert_eq!(unsynced(&last, &last).count(), 0);
    }

    #[test]
    fn a_value_sled_puts_in_a_blob_file_is_synced_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        let db = sled::Config::new().path(&path).open().unwrap();
        let files = SledFiles::new(db, &path).unwrap();
        // Above a quarter of sled's 512 KiB default segment, a value goes to its own file.
        let value = vec![7u8; 300 << 10];
        files.db().insert("big", value.clone()).unwrap();
        files.sync().unwrap();

        let synced = files.synced.lock().unwrap();
        let blobs = &synced[&path.join(BLOBS_DIR)];
        assert!(
            blobs.values().any(|&len| len > value.len() as u64),
            "no blob file synced: {blobs:?}"
        );
        assert_eq!(blobs, &list_files(&path.join(BLOBS_DIR)).unwrap());
        drop(synced);
        assert_eq!(files.db().get("big").unwrap().unwrap(), value);
    }
}
