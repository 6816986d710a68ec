//! The Raft log and vote, on a [`StorageEngine`].

use std::fmt::Debug;
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;
use std::time::Instant;

use openraft::storage::{LogFlushed, RaftLogStorage};
use openraft::{
    Entry, ErrorSubject, ErrorVerb, LogId, LogState, RaftLogReader, StorageError, Vote,
};

use super::codec::{decode, encode};
use super::{DurableDb, EngineTree, Failpoints, StorageEngine, open_tree, storage_error};
use crate::error::{Error, Record};
use crate::raft_types::{RmNodeId, RmTypeConfig};
use crate::telemetry::RmMetrics;

const VOTE_KEY: &[u8] = b"vote";
const LAST_PURGED_KEY: &[u8] = b"last_purged";

/// The Raft log and vote, kept in the trees `log` and `meta` of a [`StorageEngine`]: sled's
/// [`DurableDb`] in a replica, a simulated disk in the simulation.
///
/// Guarantees, on top of openraft's `RaftLogStorage` contract:
/// - a vote, an append or a truncation is reported done only once it is on stable storage
///   ([`StorageEngine::flush`]);
/// - the log has no holes: appends are contiguous (openraft's contract), truncation removes only
///   a suffix and purging only a prefix;
/// - `purge` makes the new `last_purged` durable before deleting any entry, so after a crash
///   the log state never claims entries that are gone.
///
/// Clones share the same database and metrics; openraft uses a clone as its log reader.
#[derive(Debug, Clone)]
pub struct RmLogStore<E: StorageEngine = DurableDb> {
    db: E,
    log: E::Tree,
    meta: E::Tree,
    failpoints: Failpoints,
    /// The replica's metrics, where append latencies go; none for a store of its own.
    metrics: Option<Arc<RmMetrics>>,
}

impl<E: StorageEngine> RmLogStore<E> {
    /// Opens the log store inside `db`, creating its trees on first use.
    ///
    /// # Errors
    ///
    /// [`Error::OpenTree`] when the engine cannot open a tree.
    pub fn new(db: &E) -> Result<Self, Error> {
        Ok(Self {
            db: db.clone(),
            log: open_tree(db, "log")?,
            meta: open_tree(db, "meta")?,
            failpoints: Failpoints::default(),
            metrics: None,
        })
    }

    /// The same store with `failpoints` stalling or failing its appends and vote writes.
    pub fn with_failpoints(self, failpoints: Failpoints) -> Self {
        Self { failpoints, ..self }
    }

    /// The same store recording how long each append takes, until on disk, in `metrics`.
    pub(crate) fn with_metrics(self, metrics: Arc<RmMetrics>) -> Self {
        Self {
            metrics: Some(metrics),
            ..self
        }
    }

    async fn flush(&self, record: Record) -> Result<(), Error> {
        self.db
            .flush()
            .await
            .map_err(|source| Error::Storage { record, source })
    }

    fn read_meta<T: serde::de::DeserializeOwned>(
        &self,
        key: &[u8],
        record: Record,
    ) -> Result<Option<T>, Error> {
        let bytes = self
            .meta
            .get(key)
            .map_err(|source| Error::Storage { record, source })?;
        bytes.map(|b| decode(record, &b)).transpose()
    }

    /// Deletes every entry whose index lies in `first..=last` in one batch.
    fn remove_range(&self, first: u64, last: u64) -> Result<(), Error> {
        let storage_error = |source| Error::Storage {
            record: Record::LogEntry { index: first },
            source,
        };
        let removals = self
            .log
            .range_keys(&first.to_be_bytes(), &last.to_be_bytes())
            .map_err(storage_error)?
            .into_iter()
            .map(|key| (key, None))
            .collect();
        self.log.apply_batch(removals).map_err(storage_error)
    }
}

/// The inclusive index range `range` covers, or `None` when it is empty.
fn inclusive_range<RB: RangeBounds<u64>>(range: &RB) -> Option<(u64, u64)> {
    let first = match range.start_bound() {
        Bound::Included(&i) => i,
        Bound::Excluded(&i) => i.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let last = match range.end_bound() {
        Bound::Included(&i) => i,
        Bound::Excluded(&i) => i.checked_sub(1)?,
        Bound::Unbounded => u64::MAX,
    };
    (first <= last).then_some((first, last))
}

impl<E: StorageEngine> RaftLogReader<RmTypeConfig> for RmLogStore<E> {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + Send>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Entry<RmTypeConfig>>, StorageError<RmNodeId>> {
        let Some((first, last)) = inclusive_range(&range) else {
            return Ok(Vec::new());
        };
        let stored = self
            .log
            .range(&first.to_be_bytes(), &last.to_be_bytes())
            .map_err(|source| {
                let e = Error::Storage {
                    record: Record::Log,
                    source,
                };
                storage_error(ErrorSubject::Logs, ErrorVerb::Read, &e)
            })?;
        let mut entries = Vec::with_capacity(stored.len());
        for (key, value) in &stored {
            entries.push(
                decode_entry(key, value)
                    .map_err(|e| storage_error(ErrorSubject::Logs, ErrorVerb::Read, &e))?,
            );
        }
        Ok(entries)
    }
}

/// Decodes the entry stored under `key`; the error names the entry's index.
fn decode_entry(key: &[u8], bytes: &[u8]) -> Result<Entry<RmTypeConfig>, Error> {
    decode(
        Record::LogEntry {
            index: index_of(key),
        },
        bytes,
    )
}

/// The index a `log` tree key stores; keys are always 8 big-endian bytes.
fn index_of(key: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = key.len().min(8);
    bytes[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(bytes)
}

impl<E: StorageEngine> RaftLogStorage<RmTypeConfig> for RmLogStore<E> {
    type LogReader = Self;

    async fn get_log_state(&mut self) -> Result<LogState<RmTypeConfig>, StorageError<RmNodeId>> {
        let last_purged_log_id = self
            .read_meta(LAST_PURGED_KEY, Record::LastPurgedLogId)
            .map_err(|e| storage_error(ErrorSubject::Store, ErrorVerb::Read, &e))?;
        let last = self.log.last().map_err(|source| {
            let e = Error::Storage {
                record: Record::Log,
                source,
            };
            storage_error(ErrorSubject::Logs, ErrorVerb::Read, &e)
        })?;
        let last_log_id = match last {
            Some((key, value)) => Some(
                decode_entry(&key, &value)
                    .map_err(|e| storage_error(ErrorSubject::Logs, ErrorVerb::Read, &e))?
                    .log_id,
            ),
            None => last_purged_log_id,
        };
        Ok(LogState {
            last_purged_log_id,
            last_log_id,
        })
    }

    async fn get_log_reader(&mut self) -> Self::LogReader {
        self.clone()
    }

    async fn save_vote(&mut self, vote: &Vote<RmNodeId>) -> Result<(), StorageError<RmNodeId>> {
        let write = async {
            let bytes = encode(Record::Vote, vote)?;
            self.failpoints
                .before_write()
                .await
                .map_err(|source| Error::Storage {
                    record: Record::Vote,
                    source,
                })?;
            self.meta
                .insert(VOTE_KEY, bytes)
                .map_err(|source| Error::Storage {
                    record: Record::Vote,
                    source,
                })?;
            self.flush(Record::Vote).await
        };
        write
            .await
            .map_err(|e| storage_error(ErrorSubject::Vote, ErrorVerb::Write, &e))
    }

    async fn read_vote(&mut self) -> Result<Option<Vote<RmNodeId>>, StorageError<RmNodeId>> {
        self.read_meta(VOTE_KEY, Record::Vote)
            .map_err(|e| storage_error(ErrorSubject::Vote, ErrorVerb::Read, &e))
    }

    async fn append<I>(
        &mut self,
        entries: I,
        callback: LogFlushed<RmTypeConfig>,
    ) -> Result<(), StorageError<RmNodeId>>
    where
        I: IntoIterator<Item = Entry<RmTypeConfig>> + Send,
        I::IntoIter: Send,
    {
        let started = Instant::now();
        let mut records = Vec::new();
        for entry in entries {
            let index = entry.log_id.index;
            let bytes = encode(Record::LogEntry { index }, &entry).map_err(|e| {
                storage_error(ErrorSubject::Log(entry.log_id), ErrorVerb::Write, &e)
            })?;
            records.push((index.to_be_bytes(), bytes));
        }
        let written = match self.failpoints.before_write().await {
            Ok(()) if self.failpoints.flushes_appends() => {
                let batch = records
                    .into_iter()
                    .map(|(key, bytes)| (key.to_vec(), Some(bytes)))
                    .collect();
                match self.log.apply_batch(batch) {
                    Ok(()) => self.db.flush().await,
                    Err(e) => Err(e),
                }
            }
            // PLANTED BUG (plant.unflushed-appends): acknowledged while only in memory.
            // Entry by entry, since a sled batch first writes out the buffer before it.
            Ok(()) => records
                .into_iter()
                .try_for_each(|(key, bytes)| self.log.insert(&key, bytes)),
            Err(e) => Err(e),
        };
        match written {
            Ok(()) => {
                if let Some(metrics) = &self.metrics {
                    metrics.record_append(started.elapsed());
                }
                callback.log_io_completed(Ok(()));
                Ok(())
            }
            Err(source) => {
                let io = std::io::Error::new(source.kind(), source.to_string());
                callback.log_io_completed(Err(io));
                let e = Error::Storage {
                    record: Record::Log,
                    source,
                };
                Err(storage_error(ErrorSubject::Logs, ErrorVerb::Write, &e))
            }
        }
    }

    async fn truncate(&mut self, log_id: LogId<RmNodeId>) -> Result<(), StorageError<RmNodeId>> {
        // Durable so that a crash cannot bring back entries that conflict with the leader's.
        let result = match self.remove_range(log_id.index, u64::MAX) {
            Ok(()) => {
                self.flush(Record::LogEntry {
                    index: log_id.index,
                })
                .await
            }
            Err(e) => Err(e),
        };
        result.map_err(|e| storage_error(ErrorSubject::Logs, ErrorVerb::Delete, &e))
    }

    async fn purge(&mut self, log_id: LogId<RmNodeId>) -> Result<(), StorageError<RmNodeId>> {
        let write_marker = async {
            let bytes = encode(Record::LastPurgedLogId, &log_id)?;
            self.meta
                .insert(LAST_PURGED_KEY, bytes)
                .map_err(|source| Error::Storage {
                    record: Record::LastPurgedLogId,
                    source,
                })?;
            self.flush(Record::LastPurgedLogId).await
        };
        write_marker
            .await
            .map_err(|e| storage_error(ErrorSubject::Store, ErrorVerb::Write, &e))?;
        self.remove_range(0, log_id.index)
            .map_err(|e| storage_error(ErrorSubject::Logs, ErrorVerb::Delete, &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inclusive_range_handles_every_bound_kind() {
        assert_eq!(inclusive_range(&(2..5)), Some((2, 4)));
        assert_eq!(inclusive_range(&(2..=5)), Some((2, 5)));
        assert_eq!(inclusive_range(&(3..)), Some((3, u64::MAX)));
        assert_eq!(inclusive_range(&(..0)), None);
        assert_eq!(inclusive_range(&(5..5)), None);
        assert_eq!(
            inclusive_range(&(Bound::Excluded(u64::MAX), Bound::Unbounded)),
            None
        );
    }

    #[tokio::test]
    async fn a_vote_an_append_a_truncation_and_a_purge_each_wait_for_a_sync() {
        use openraft::storage::RaftLogStorageExt;
        use openraft::{CommittedLeaderId, EntryPayload};

        let dir = tempfile::tempdir().unwrap();
        let db = super::super::open_db(dir.path(), &Failpoints::default()).unwrap();
        let mut store = RmLogStore::new(&db).unwrap();
        let entry = |index| Entry::<RmTypeConfig> {
            log_id: LogId::new(CommittedLeaderId::new(1, 1), index),
            payload: EntryPayload::Blank,
        };
        store.save_vote(&Vote::new(1, 1)).await.unwrap();
        store
            .blocking_append([entry(1), entry(2), entry(3)])
            .await
            .unwrap();
        store.truncate(entry(3).log_id).await.unwrap();
        store.purge(entry(1).log_id).await.unwrap();
        let counts = db.counts();
        assert_eq!((counts.requests(), counts.syncs()), (4, 4));
        let state = store.get_log_state().await.unwrap();
        assert_eq!(state.last_log_id, Some(entry(2).log_id));
    }

    #[cfg(feature = "failpoints")]
    #[tokio::test]
    async fn a_full_disk_acknowledges_no_append_and_no_vote() {
        use openraft::storage::RaftLogStorageExt;
        use openraft::{CommittedLeaderId, EntryPayload};

        let dir = tempfile::tempdir().unwrap();
        let db = super::super::open_db(dir.path(), &Failpoints::default()).unwrap();
        let full = Failpoints::parse("storage.full").unwrap();
        let mut store = RmLogStore::new(&db).unwrap().with_failpoints(full);
        let entry = Entry::<RmTypeConfig> {
            log_id: LogId::new(CommittedLeaderId::new(1, 1), 1),
            payload: EntryPayload::Blank,
        };
        let appended = store.blocking_append([entry]).await;
        assert!(
            appended.is_err(),
            "an append on a full disk was acknowledged"
        );
        let vote = store.save_vote(&Vote::new(1, 1)).await;
        let err = vote.expect_err("a vote on a full disk was acknowledged");
        assert!(err.to_string().contains("no space left"), "{err}");
        let state = store.get_log_state().await.unwrap();
        assert_eq!(state.last_log_id, None);
        assert_eq!(store.read_vote().await.unwrap(), None);
    }
}
