//! Building snapshots of the replicated state into a [`StorageEngine`].

use std::io::Cursor;
use std::sync::Arc;

use openraft::{
    ErrorSubject, ErrorVerb, LogId, RaftSnapshotBuilder, Snapshot, SnapshotMeta, StorageError,
    StoredMembership,
};
use serde::{Deserialize, Serialize};

use super::codec::{encode, encode_state};
use super::{DurableDb, EngineTree, StorageEngine, storage_error};
use crate::error::{Error, Record};
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig};
use crate::state_machine::RmState;
use crate::telemetry::RmMetrics;

/// The key of the current snapshot in the `snapshot` tree.
pub(super) const CURRENT_SNAPSHOT_KEY: &[u8] = b"current";

/// The stored form of a snapshot: openraft's metadata (last applied log id, membership, id)
/// and the encoded [`RmState`], written under one key so it is replaced atomically.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct StoredSnapshot {
    pub(super) meta: SnapshotMeta<RmNodeId, RmNode>,
    pub(super) data: Vec<u8>,
}

impl StoredSnapshot {
    pub(super) fn into_snapshot(self) -> Snapshot<RmTypeConfig> {
        Snapshot {
            meta: self.meta,
            snapshot: Box::new(Cursor::new(self.data)),
        }
    }
}

/// Writes `snapshot` as the current snapshot and waits until it is on stable storage; then records its
/// size in `metrics`, if given. Every snapshot a replica builds or installs goes through here.
pub(super) async fn store_snapshot<E: StorageEngine>(
    db: &E,
    tree: &E::Tree,
    snapshot: &StoredSnapshot,
    metrics: Option<&RmMetrics>,
) -> Result<(), Error> {
    let bytes = encode(Record::Snapshot, snapshot)?;
    let storage_error = |source| Error::Storage {
        record: Record::Snapshot,
        source,
    };
    tree.insert(CURRENT_SNAPSHOT_KEY, bytes)
        .map_err(storage_error)?;
    db.flush().await.map_err(storage_error)?;
    if let Some(metrics) = metrics {
        metrics.record_snapshot(snapshot.data.len());
    }
    Ok(())
}

/// Builds a snapshot of the state as it was when openraft asked for the builder.
///
/// The snapshot is on stable storage before `build_snapshot` returns, so openraft may purge the
/// log it covers.
#[derive(Debug)]
pub struct RmSnapshotBuilder<E: StorageEngine = DurableDb> {
    pub(super) db: E,
    pub(super) tree: E::Tree,
    pub(super) last_applied: Option<LogId<RmNodeId>>,
    pub(super) membership: StoredMembership<RmNodeId, RmNode>,
    pub(super) state: RmState,
    pub(super) metrics: Option<Arc<RmMetrics>>,
}

impl<E: StorageEngine> RaftSnapshotBuilder<RmTypeConfig> for RmSnapshotBuilder<E> {
    async fn build_snapshot(&mut self) -> Result<Snapshot<RmTypeConfig>, StorageError<RmNodeId>> {
        let fail = |e: &Error| storage_error(ErrorSubject::Snapshot(None), ErrorVerb::Write, e);
        let data = encode_state(&self.state).map_err(|e| fail(&e))?;
        // Two snapshots at the same log id hold the same state, so the log id names it.
        let snapshot_id = self
            .last_applied
            .map_or_else(|| "empty".to_owned(), |id| id.to_string());
        let stored = StoredSnapshot {
            meta: SnapshotMeta {
                last_log_id: self.last_applied,
                last_membership: self.membership.clone(),
                snapshot_id,
            },
            data,
        };
        store_snapshot(&self.db, &self.tree, &stored, self.metrics.as_deref())
            .await
            .map_err(|e| fail(&e))?;
        Ok(stored.into_snapshot())
    }
}
