//! [`NmStateStore`]: the one state store type the NodeManager holds, enabled or not.

use std::path::Path;
use std::sync::Arc;

use yarn_sled_sync::SyncCounts;

use yarn_proto::ids::ContainerId;
use yarn_security::TokenKind;

use crate::container_scheduler::ContainerRequest;
use crate::state_store::{
    CompletedRetention, ContainerRecord, MasterKeyPair, ProxyRecords, RecoveredState, ReplayTable,
    SledStore,
};
use crate::{Error, NmConfig};

/// The NodeManager's state store.
///
/// Opened on a directory it keeps containers, master keys, replay records, the RM epoch and the
/// last heartbeat response id in sled; every write method returns only once its change is
/// flushed (see the [module documentation](crate::state_store) for what that survives).
/// [Disabled](Self::disabled), its writes do nothing and [`load`](Self::load) recovers
/// nothing, except that replay records are kept in memory for the life of the process.
///
/// Clones share the same store. Write methods are cancellation-safe only in the weak sense that
/// a dropped write either happened or not; its durability is then unknown until the next
/// completed write, which flushes it too.
#[derive(Debug, Clone)]
pub struct NmStateStore {
    backend: Backend,
}

#[derive(Debug, Clone)]
enum Backend {
    Sled(SledStore),
    Disabled(ReplayTable, ProxyRecords),
}

impl NmStateStore {
    /// Opens, creating it if absent, the store under `dir` (`yarn.nodemanager.recovery.dir`).
    /// Blocks while sled recovers the database.
    ///
    /// # Errors
    ///
    /// [`Error::StateStoreLocked`] when another holder has the directory locked: another
    /// NodeManager, or a store of this process that was just dropped and whose background
    /// threads have not released the lock yet. [`Error::OpenStateStore`] when sled cannot open
    /// the directory, and [`Error::StateStoreIo`] when it cannot open one of its trees.
    pub fn open(dir: &Path) -> Result<Self, Error> {
        Ok(Self {
            backend: Backend::Sled(SledStore::open(dir)?),
        })
    }

    /// How many writes waited for durability and how many syncs served them; `None` for a
    /// disabled store.
    pub fn sync_counts(&self) -> Option<Arc<SyncCounts>> {
        match &self.backend {
            Backend::Sled(store) => Some(store.sync_counts()),
            Backend::Disabled(..) => None,
        }
    }

    /// A store for a NodeManager with recovery disabled: it stores nothing on disk.
    pub fn disabled() -> Self {
        Self {
            backend: Backend::Disabled(ReplayTable::default(), ProxyRecords::memory()),
        }
    }

    /// [`open`](Self::open) on `config.recovery_dir` when `config.recovery_enabled`, else
    /// [`disabled`](Self::disabled).
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn from_config(config: &NmConfig) -> Result<Self, Error> {
        if config.recovery_enabled {
            Self::open(&config.recovery_dir)
        } else {
            Ok(Self::disabled())
        }
    }

    /// The AMRMProxy's records in this store: on disk with it, or in memory when it is
    /// disabled. Clones of this store share them.
    pub fn proxy_records(&self) -> ProxyRecords {
        match &self.backend {
            Backend::Sled(store) => ProxyRecords::sled(store.clone()),
            Backend::Disabled(_, proxy) => proxy.clone(),
        }
    }

    /// Whether the store keeps state on disk.
    pub fn is_enabled(&self) -> bool {
        matches!(self.backend, Backend::Sled(_))
    }

    /// Stores a container the NodeManager has accepted, queued, after every container accepted
    /// before it. A container that starts at once is stored queued and then
    /// [running](Self::store_container_running); a NodeManager that dies in between recovers
    /// it queued and launches it again.
    ///
    /// # Errors
    ///
    /// [`Error::ContainerRecordExists`] when the container already has a record, and the
    /// storage errors ([`Error::StateStoreIo`], [`Error::EncodeRecord`]).
    pub async fn store_container_queued(&self, record: &ContainerRecord) -> Result<(), Error> {
        match &self.backend {
            Backend::Sled(store) => store.store_container_queued(record).await,
            Backend::Disabled(..) => Ok(()),
        }
    }

    /// Stores that a queued container was launched as process `pid` at `started_at_ms`
    /// (milliseconds since the Unix epoch), after every container launched before it.
    ///
    /// # Errors
    ///
    /// [`Error::ContainerRecordMissing`] when the container was never stored,
    /// [`Error::InvalidContainerTransition`] when it is already running or completed, and the
    /// storage errors, including [`Error::DecodeRecord`] and
    /// [`Error::UnsupportedRecordVersion`] for a damaged record.
    pub async fn store_container_running(
        &self,
        container_id: ContainerId,
        pid: u32,
        started_at_ms: i64,
    ) -> Result<(), Error> {
        match &self.backend {
            Backend::Sled(store) => {
                store
                    .store_container_running(container_id, pid, started_at_ms)
                    .await
            }
            Backend::Disabled(..) => Ok(()),
        }
    }

    /// Stores that a container ended (or was stopped or shed before it ran) with `exit_code`
    /// and `diagnostics`, at `completed_at_ms`. The record is final and stays until
    /// [removed](Self::remove_container) or [pruned](Self::prune_completed).
    ///
    /// # Errors
    ///
    /// [`Error::ContainerRecordMissing`] when the container was never stored,
    /// [`Error::InvalidContainerTransition`] when it already completed, and the storage errors.
    pub async fn store_container_completed(
        &self,
        container_id: ContainerId,
        exit_code: i32,
        diagnostics: &str,
        completed_at_ms: i64,
    ) -> Result<(), Error> {
        match &self.backend {
            Backend::Sled(store) => {
                store
                    .store_container_completed(
                        container_id,
                        exit_code,
                        diagnostics,
                        completed_at_ms,
                    )
                    .await
            }
            Backend::Disabled(..) => Ok(()),
        }
    }

    /// Stores a promotion, demotion or resize of a queued or running container: its new
    /// execution type, allocation and token version from `request`, and the new token's
    /// protobuf-encoded identifier.
    ///
    /// # Errors
    ///
    /// [`Error::ContainerRecordMissing`] when the container was never stored,
    /// [`Error::InvalidContainerTransition`] when it completed, and the storage errors.
    pub async fn store_container_updated(
        &self,
        request: &ContainerRequest,
        container_token_identifier: &[u8],
    ) -> Result<(), Error> {
        match &self.backend {
            Backend::Sled(store) => {
                store
                    .store_container_updated(request, container_token_identifier)
                    .await
            }
            Backend::Disabled(..) => Ok(()),
        }
    }

    /// Removes a container's record, once the RM has acknowledged its completion. Removing a
    /// container without a record does nothing. Its replay record stays until its token
    /// expires.
    ///
    /// # Errors
    ///
    /// [`Error::StateStoreIo`] when sled fails.
    pub async fn remove_container(&self, container_id: ContainerId) -> Result<(), Error> {
        match &self.backend {
            Backend::Sled(store) => store.remove_container(container_id).await,
            Backend::Disabled(..) => Ok(()),
        }
    }

    /// Removes the records of containers that completed longer ago than `retention` allows at
    /// `now_ms`; returns how many it removed.
    ///
    /// # Errors
    ///
    /// The storage errors; a damaged record fails the whole pruning and names the record.
    pub async fn prune_completed(
        &self,
        retention: CompletedRetention,
        now_ms: i64,
    ) -> Result<usize, Error> {
        match &self.backend {
            Backend::Sled(store) => store.prune_completed(retention, now_ms).await,
            Backend::Disabled(..) => Ok(0),
        }
    }

    /// Records that the container token of `container_id`, which expires at `expiry_ms`, has
    /// been used to start it; returns `true` if it already had been, which makes this start a
    /// replay to refuse. The check and the insert are one atomic step, so of two concurrent
    /// starts with the same token exactly one sees `false`. A first use is durable before this
    /// returns.
    ///
    /// # Errors
    ///
    /// The storage errors ([`Error::StateStoreIo`], [`Error::EncodeRecord`]); the start must
    /// then be refused, since its replay record may not survive a restart.
    pub async fn record_replay(
        &self,
        container_id: ContainerId,
        expiry_ms: i64,
    ) -> Result<bool, Error> {
        match &self.backend {
            Backend::Sled(store) => store.record_replay(container_id, expiry_ms).await,
            Backend::Disabled(table, _) => Ok(table.record(container_id, expiry_ms)),
        }
    }

    /// Whether the container token of `container_id` has been used.
    ///
    /// # Errors
    ///
    /// [`Error::StateStoreIo`] when sled fails.
    pub fn is_replayed(&self, container_id: &ContainerId) -> Result<bool, Error> {
        match &self.backend {
            Backend::Sled(store) => store.is_replayed(container_id),
            Backend::Disabled(table, _) => Ok(table.contains(container_id)),
        }
    }

    /// Deletes the replay records of tokens that have expired at `now_ms` (a token is valid up
    /// to and including its expiry instant); returns how many it deleted.
    ///
    /// # Errors
    ///
    /// The storage errors; a damaged record fails the whole pruning and names the record.
    pub async fn prune_replays(&self, now_ms: i64) -> Result<usize, Error> {
        match &self.backend {
            Backend::Sled(store) => store.prune_replays(now_ms).await,
            Backend::Disabled(table, _) => Ok(table.prune(now_ms)),
        }
    }

    /// Stores the master keys that sign tokens of `kind` (the NodeManager keeps
    /// [`TokenKind::Container`] and [`TokenKind::Nm`]), replacing those stored before.
    ///
    /// # Errors
    ///
    /// The storage errors ([`Error::StateStoreIo`], [`Error::EncodeRecord`]).
    pub async fn store_master_keys(
        &self,
        kind: TokenKind,
        keys: &MasterKeyPair,
    ) -> Result<(), Error> {
        match &self.backend {
            Backend::Sled(store) => store.store_master_keys(kind, keys).await,
            Backend::Disabled(..) => Ok(()),
        }
    }

    /// Stores the RM epoch the NodeManager registered with.
    ///
    /// # Errors
    ///
    /// The storage errors ([`Error::StateStoreIo`], [`Error::EncodeRecord`]).
    pub async fn store_rm_epoch(&self, epoch: i64) -> Result<(), Error> {
        match &self.backend {
            Backend::Sled(store) => store.store_rm_epoch(epoch).await,
            Backend::Disabled(..) => Ok(()),
        }
    }

    /// Stores the response id of the last heartbeat response received.
    ///
    /// # Errors
    ///
    /// The storage errors ([`Error::StateStoreIo`], [`Error::EncodeRecord`]).
    pub async fn store_heartbeat_response_id(&self, response_id: i32) -> Result<(), Error> {
        match &self.backend {
            Backend::Sled(store) => store.store_heartbeat_response_id(response_id).await,
            Backend::Disabled(..) => Ok(()),
        }
    }

    /// Reads back everything stored, ordered for replay (see [`RecoveredState`]). A disabled
    /// store recovers an empty state.
    ///
    /// # Errors
    ///
    /// The first bad record fails the load and is named: [`Error::UnsupportedRecordVersion`],
    /// [`Error::EmptyRecord`], [`Error::DecodeRecord`], [`Error::InvalidStoredContainerId`];
    /// and [`Error::StateStoreIo`] when sled fails. Nothing is guessed: a NodeManager that
    /// cannot read its state must not run containers it may already be running.
    pub fn load(&self) -> Result<RecoveredState, Error> {
        match &self.backend {
            Backend::Sled(store) => store.load(),
            Backend::Disabled(..) => Ok(RecoveredState::default()),
        }
    }
}
