//! [`DurableDb`]: a sled database whose flush reaches stable storage, with group commit.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::{GroupCommit, SledFiles, SyncCounts};

/// How long [`DurableDb::open_waiting`]'s callers in this crate and the daemons wait for an
/// instance of their own process, just dropped, to release a database's lock.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Whether sled failed to open because another holder has the database's file lock: another
/// process on the same directory, or an instance in this process whose background threads have
/// not yet released it. sled reports a failed `flock` only as an `Other` I/O error with this
/// text, so the text is the one thing to recognise it by.
pub fn is_lock_held(error: &sled::Error) -> bool {
    matches!(error, sled::Error::Io(e)
        if e.kind() == std::io::ErrorKind::Other
            && e.to_string().contains("could not acquire lock"))
}

/// A sled database opened for stores that acknowledge only what is on stable storage.
///
/// [`flush`](Self::flush) returns once every write the caller completed before it is on
/// stable storage: sled flushed, then its files fdatasync'd ([`SledFiles`]). Concurrent
/// flushes share syncs ([`GroupCommit`]). After one failed flush every later one fails too.
///
/// Clones share the database and its syncs.
#[derive(Debug, Clone)]
pub struct DurableDb {
    commit: Arc<GroupCommit<SledFiles>>,
}

impl DurableDb {
    /// Opens (creating if absent) the database in `dir` with `config`, whose path is set to
    /// `dir`, and makes what is already there durable.
    ///
    /// # Errors
    ///
    /// sled's error when it cannot open the database, or the I/O error of the first sync.
    pub fn open(dir: &Path, config: sled::Config) -> sled::Result<Self> {
        let db = config.path(dir).open()?;
        Ok(Self {
            commit: Arc::new(GroupCommit::new(SledFiles::new(db, dir)?)),
        })
    }

    /// [`open`](Self::open) with the configuration `config` makes, retrying for up to `wait`
    /// while another instance in this process, just dropped, still holds the database's lock
    /// (sled's threads release it shortly after the drop).
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open); the lock error once `wait` is over.
    pub fn open_waiting(
        dir: &Path,
        config: impl Fn() -> sled::Config,
        wait: Duration,
    ) -> sled::Result<Self> {
        let deadline = Instant::now() + wait;
        loop {
            match Self::open(dir, config()) {
                Err(err) if is_lock_held(&err) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                opened => return opened,
            }
        }
    }

    /// The database, for reads and writes; flush through [`flush`](Self::flush) only, since
    /// sled's own flush does not reach stable storage.
    pub fn db(&self) -> &sled::Db {
        self.commit.target().db()
    }

    /// Returns once every write completed before the call is on stable storage.
    ///
    /// # Errors
    ///
    /// sled's flush error or the I/O error of an fdatasync (EIO, ENOSPC), of this flush or of
    /// an earlier one.
    pub async fn flush(&self) -> sled::Result<()> {
        self.commit.sync().await
    }

    /// [`flush`](Self::flush) for synchronous callers; blocks the thread.
    ///
    /// # Errors
    ///
    /// As [`flush`](Self::flush).
    pub fn flush_blocking(&self) -> sled::Result<()> {
        self.commit.sync_blocking()
    }

    /// PLANTED BUG (`plant.unsynced-appends`, `failpoints` feature only): from now on a flush
    /// acknowledges after sled's own flush, without the fdatasync (see
    /// [`SledFiles::plant_sled_flush_only`]).
    #[cfg(feature = "failpoints")]
    pub fn plant_sled_flush_only(&self) {
        self.commit.target().plant_sled_flush_only();
    }

    /// The flushes asked for and the syncs that served them, so far.
    pub fn counts(&self) -> Arc<SyncCounts> {
        self.commit.counts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sleds_lock_failure_counts_as_lock_held() {
        let held = std::io::Error::other("could not acquire lock on \"/x/db\": Os { code: 11 }");
        assert!(is_lock_held(&sled::Error::Io(held)));
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(!is_lock_held(&sled::Error::Io(denied)));
        assert!(!is_lock_held(&sled::Error::Unsupported("x".to_owned())));
    }

    #[tokio::test]
    async fn a_flush_is_a_sync_and_what_it_covered_is_there_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        {
            let durable = DurableDb::open(&path, sled::Config::new()).unwrap();
            durable.db().insert("k", "v").unwrap();
            durable.flush().await.unwrap();
            durable.db().insert("k2", "v2").unwrap();
            durable.flush_blocking().unwrap();
            let counts = durable.counts();
            assert_eq!((counts.requests(), counts.syncs()), (2, 2));
        }
        let reopened = loop {
            // sled's background threads let go of the lock a moment after the last handle.
            match DurableDb::open(&path, sled::Config::new()) {
                Ok(db) => break db,
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        };
        assert_eq!(reopened.db().get("k").unwrap().unwrap(), "v");
        assert_eq!(reopened.db().get("k2").unwrap().unwrap(), "v2");
    }
}
