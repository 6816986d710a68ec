//! The in-memory replicated state machine, snapshotted to a [`StorageEngine`].

use std::io::Cursor;
use std::sync::Arc;
use std::time::Instant;

use openraft::storage::RaftStateMachine;
use openraft::{
    Entry, EntryPayload, ErrorSubject, ErrorVerb, LogId, Snapshot, SnapshotMeta, StorageError,
    StoredMembership,
};

use super::codec::{decode, decode_state};
use super::snapshot_builder::{CURRENT_SNAPSHOT_KEY, StoredSnapshot, store_snapshot};
use super::{
    DurableDb, EngineTree, Failpoints, RmSnapshotBuilder, StorageEngine, open_tree, storage_error,
};
use crate::error::{Error, Record};
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig};
use crate::state_machine::{AppliedPosition, RmCommand, RmResponse, RmState, StateView};
use crate::telemetry::RmMetrics;

/// The replicated state machine: [`RmState`] in memory, snapshots in the tree `snapshot` of a
/// [`StorageEngine`].
///
/// On open it loads the stored snapshot, if any; openraft then re-applies the committed log
/// entries after the snapshot's last log id. A snapshot, built or installed, is one sled key
/// written and made durable ([`StorageEngine::flush`]) before openraft is told it exists.
#[derive(Debug)]
pub struct RmStateMachineStore<E: StorageEngine = DurableDb> {
    db: E,
    tree: E::Tree,
    last_applied: Option<LogId<RmNodeId>>,
    membership: StoredMembership<RmNodeId, RmNode>,
    state: StateView,
    failpoints: Failpoints,
    /// The replica's metrics, where apply latencies and snapshot sizes go; none for a store
    /// of its own.
    metrics: Option<Arc<RmMetrics>>,
}

impl<E: StorageEngine> RmStateMachineStore<E> {
    /// Opens the state machine inside `db`, recovering the state from the stored snapshot.
    ///
    /// # Errors
    ///
    /// [`Error::OpenTree`] or [`Error::Storage`] when the engine fails, and [`Error::Decode`],
    /// [`Error::UnsupportedFormatVersion`] or [`Error::EmptyRecord`] when the stored snapshot
    /// cannot be read by this binary.
    pub fn new(db: &E) -> Result<Self, Error> {
        let tree = open_tree(db, "snapshot")?;
        let mut store = Self {
            db: db.clone(),
            tree,
            last_applied: None,
            membership: StoredMembership::default(),
            state: StateView::default(),
            failpoints: Failpoints::default(),
            metrics: None,
        };
        if let Some(stored) = store.read_snapshot()? {
            store.restore(&stored.meta, &stored.data)?;
        }
        Ok(store)
    }

    /// The same store applying entries under `failpoints`: only the planted
    /// `plant.reissue-container-id` bug changes how entries apply.
    pub fn with_failpoints(self, failpoints: Failpoints) -> Self {
        Self { failpoints, ..self }
    }

    /// The same store recording in `metrics` how long each batch takes to apply and how large
    /// each snapshot it builds or installs is.
    pub(crate) fn with_metrics(self, metrics: Arc<RmMetrics>) -> Self {
        Self {
            metrics: Some(metrics),
            ..self
        }
    }

    /// A copy of the state as of [`last_applied`](Self::last_applied).
    pub fn state(&self) -> RmState {
        self.state.read(RmState::clone)
    }

    /// A shared handle on the applied state, for the replica's services to read while openraft
    /// owns this store.
    pub fn state_view(&self) -> StateView {
        self.state.clone()
    }

    /// The id of the last log entry applied, `None` before any.
    pub fn last_applied(&self) -> Option<LogId<RmNodeId>> {
        self.last_applied
    }

    fn read_snapshot(&self) -> Result<Option<StoredSnapshot>, Error> {
        let bytes = self
            .tree
            .get(CURRENT_SNAPSHOT_KEY)
            .map_err(|source| Error::Storage {
                record: Record::Snapshot,
                source,
            })?;
        bytes.map(|b| decode(Record::Snapshot, &b)).transpose()
    }

    fn restore(&mut self, meta: &SnapshotMeta<RmNodeId, RmNode>, data: &[u8]) -> Result<(), Error> {
        let state = decode_state(data)?;
        self.state.write(|s, applied| {
            *s = state;
            *applied = meta.last_log_id.as_ref().map(position_of);
        });
        self.last_applied = meta.last_log_id;
        self.membership = meta.last_membership.clone();
        Ok(())
    }
}

impl<E: StorageEngine> RaftStateMachine<RmTypeConfig> for RmStateMachineStore<E> {
    type SnapshotBuilder = RmSnapshotBuilder<E>;

    async fn applied_state(
        &mut self,
    ) -> Result<(Option<LogId<RmNodeId>>, StoredMembership<RmNodeId, RmNode>), StorageError<RmNodeId>>
    {
        Ok((self.last_applied, self.membership.clone()))
    }

    async fn apply<I>(&mut self, entries: I) -> Result<Vec<RmResponse>, StorageError<RmNodeId>>
    where
        I: IntoIterator<Item = Entry<RmTypeConfig>> + Send,
        I::IntoIter: Send,
    {
        let started = Instant::now();
        // One write lock per batch: readers see the state between batches, and applying is pure
        // and quick, so they never wait long.
        let responses = self.state.write(|state, applied| {
            let mut responses = Vec::new();
            for entry in entries {
                self.last_applied = Some(entry.log_id);
                *applied = Some(position_of(&entry.log_id));
                let response = match entry.payload {
                    EntryPayload::Blank => RmResponse::NoCommand,
                    EntryPayload::Normal(ref cmd) => apply_command(&self.failpoints, state, cmd),
                    EntryPayload::Membership(membership) => {
                        self.membership = StoredMembership::new(Some(entry.log_id), membership);
                        RmResponse::NoCommand
                    }
                };
                responses.push(response);
            }
            responses
        });
        if let Some(metrics) = &self.metrics {
            metrics.record_apply(started.elapsed());
        }
        Ok(responses)
    }

    async fn get_snapshot_builder(&mut self) -> Self::SnapshotBuilder {
        RmSnapshotBuilder {
            db: self.db.clone(),
            tree: self.tree.clone(),
            last_applied: self.last_applied,
            membership: self.membership.clone(),
            state: self.state(),
            metrics: self.metrics.clone(),
        }
    }

    async fn begin_receiving_snapshot(
        &mut self,
    ) -> Result<Box<Cursor<Vec<u8>>>, StorageError<RmNodeId>> {
        Ok(Box::new(Cursor::new(Vec::new())))
    }

    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta<RmNodeId, RmNode>,
        snapshot: Box<Cursor<Vec<u8>>>,
    ) -> Result<(), StorageError<RmNodeId>> {
        let fail = |e: &Error| {
            storage_error(
                ErrorSubject::Snapshot(Some(meta.signature())),
                ErrorVerb::Write,
                e,
            )
        };
        let stored = StoredSnapshot {
            meta: meta.clone(),
            data: snapshot.into_inner(),
        };
        // Decoded before storing: a snapshot this binary cannot read must not replace a good one.
        let state = decode_state(&stored.data).map_err(|e| fail(&e))?;
        store_snapshot(&self.db, &self.tree, &stored, self.metrics.as_deref())
            .await
            .map_err(|e| fail(&e))?;
        self.state.write(|s, applied| {
            *s = state;
            *applied = meta.last_log_id.as_ref().map(position_of);
        });
        self.last_applied = meta.last_log_id;
        self.membership = meta.last_membership.clone();
        Ok(())
    }

    async fn get_current_snapshot(
        &mut self,
    ) -> Result<Option<Snapshot<RmTypeConfig>>, StorageError<RmNodeId>> {
        let stored = self
            .read_snapshot()
            .map_err(|e| storage_error(ErrorSubject::Snapshot(None), ErrorVerb::Read, &e))?;
        Ok(stored.map(StoredSnapshot::into_snapshot))
    }
}

/// The position a state view records for `log_id`.
fn position_of(log_id: &LogId<RmNodeId>) -> AppliedPosition {
    AppliedPosition {
        term: log_id.leader_id.term,
        index: log_id.index,
    }
}

/// Applies one command to `state`.
#[cfg(not(feature = "failpoints"))]
fn apply_command(_: &Failpoints, state: &mut RmState, cmd: &RmCommand) -> RmResponse {
    state.apply(cmd)
}

/// Applies one command to `state`; under the planted `plant.reissue-container-id` bug,
/// allocations skip the container-id re-validation.
#[cfg(feature = "failpoints")]
fn apply_command(failpoints: &Failpoints, state: &mut RmState, cmd: &RmCommand) -> RmResponse {
    if failpoints.reissues_container_ids() {
        state.apply_without_id_validation(cmd)
    } else {
        state.apply(cmd)
    }
}
