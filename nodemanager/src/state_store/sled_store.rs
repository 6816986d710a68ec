//! [`SledStore`]: the state store's records in a sled database.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use yarn_proto::ids::ContainerId;
use yarn_security::{MasterKey, TokenKind};
use yarn_sled_sync::{DurableDb, GrowthLimit, SyncCounts, is_lock_held, open_rewriting_if_grown};

use crate::Error;
use crate::container_scheduler::ContainerRequest;
use crate::state_store::codec::{decode, encode};
use crate::state_store::{
    CompletedRetention, ContainerRecord, ContainerRecordState, MasterKeyPair, RecoveredState,
    ReplayTable, StoredContainer, StoredRecord,
};

const CONTAINERS_TREE: &str = "containers";
const REPLAYS_TREE: &str = "replays";
const MASTER_KEYS_TREE: &str = "master_keys";
const META_TREE: &str = "meta";
const AMRM_PROXY_TREE: &str = "amrm_proxy";
const RM_EPOCH_KEY: &[u8] = b"rm_epoch";
const HEARTBEAT_RESPONSE_ID_KEY: &[u8] = b"heartbeat_response_id";

/// The state store's sled database and its trees. Every write method returns once its write is
/// on stable storage ([`DurableDb::flush`]). Clones share the database.
#[derive(Debug, Clone)]
pub(super) struct SledStore {
    db: DurableDb,
    containers: sled::Tree,
    replays: sled::Tree,
    master_keys: sled::Tree,
    meta: sled::Tree,
    amrm_proxy: sled::Tree,
}

/// A master key as stored: its id and secret.
#[derive(Serialize, Deserialize)]
struct StoredMasterKey {
    key_id: i32,
    bytes: [u8; MasterKey::LEN],
}

/// A [`MasterKeyPair`] as stored under its token kind's name.
#[derive(Serialize, Deserialize)]
struct StoredMasterKeyPair {
    current: StoredMasterKey,
    previous: Option<StoredMasterKey>,
}

impl SledStore {
    /// The database's durability waits and syncs.
    pub(super) fn sync_counts(&self) -> Arc<SyncCounts> {
        self.db.counts()
    }

    /// Opens (creating if absent) the database under `dir`, first rewriting it when its files
    /// outgrew its data ([`open_rewriting_if_grown`]: container records come and go, and
    /// sled keeps their space). Blocks while sled recovers it.
    pub(super) fn open(dir: &Path) -> Result<Self, Error> {
        let db = open_rewriting_if_grown(
            dir,
            sled::Config::new,
            GrowthLimit::DEFAULT,
            Duration::ZERO,
            "the NodeManager state store",
        )
        .map_err(|source| {
            if is_lock_held(&source) {
                Error::StateStoreLocked {
                    path: dir.to_path_buf(),
                }
            } else {
                Error::OpenStateStore {
                    path: dir.to_path_buf(),
                    source: source.into(),
                }
            }
        })?;
        let open_tree = |name: &'static str| {
            db.db()
                .open_tree(name)
                .map_err(|source| Error::StateStoreIo {
                    record: StoredRecord::Tree { name },
                    source: source.into(),
                })
        };
        Ok(Self {
            containers: open_tree(CONTAINERS_TREE)?,
            replays: open_tree(REPLAYS_TREE)?,
            master_keys: open_tree(MASTER_KEYS_TREE)?,
            meta: open_tree(META_TREE)?,
            amrm_proxy: open_tree(AMRM_PROXY_TREE)?,
            db,
        })
    }

    pub(super) async fn store_container_queued(
        &self,
        record: &ContainerRecord,
    ) -> Result<(), Error> {
        let container_id = record.container_id;
        let stored_record = container_record(container_id);
        let sequence = self.next_sequence()?;
        let value = encode(&stored_record, &StoredContainer::queued(record, sequence))?;
        let swapped = self
            .containers
            .compare_and_swap(container_id.to_string(), None::<&[u8]>, Some(value))
            .map_err(|source| io_error(&stored_record, source))?;
        if swapped.is_err() {
            return Err(Error::ContainerRecordExists { container_id });
        }
        self.flush(stored_record).await
    }

    pub(super) async fn store_container_running(
        &self,
        container_id: ContainerId,
        pid: u32,
        started_at_ms: i64,
    ) -> Result<(), Error> {
        let start_sequence = self.next_sequence()?;
        self.change_container(container_id, |stored| {
            let running = ContainerRecordState::Running { pid, started_at_ms };
            stored.move_to(container_id, running, Some(start_sequence))
        })
        .await
    }

    pub(super) async fn store_container_completed(
        &self,
        container_id: ContainerId,
        exit_code: i32,
        diagnostics: &str,
        completed_at_ms: i64,
    ) -> Result<(), Error> {
        self.change_container(container_id, |stored| {
            let completed = ContainerRecordState::Completed {
                exit_code,
                diagnostics: diagnostics.to_owned(),
                completed_at_ms,
            };
            stored.move_to(container_id, completed, None)
        })
        .await
    }

    pub(super) async fn store_container_updated(
        &self,
        request: &ContainerRequest,
        container_token_identifier: &[u8],
    ) -> Result<(), Error> {
        self.change_container(request.id, |stored| {
            stored.update(
                request.id,
                request.execution_type,
                request.resources,
                request.version,
                container_token_identifier.to_vec(),
            )
        })
        .await
    }

    pub(super) async fn remove_container(&self, container_id: ContainerId) -> Result<(), Error> {
        let record = container_record(container_id);
        self.containers
            .remove(container_id.to_string())
            .map_err(|source| io_error(&record, source))?;
        self.flush(record).await
    }

    pub(super) async fn prune_completed(
        &self,
        retention: CompletedRetention,
        now_ms: i64,
    ) -> Result<usize, Error> {
        let mut batch = sled::Batch::default();
        let mut pruned = 0;
        for entry in self.containers.iter() {
            let (key, value) = entry.map_err(|source| tree_error(CONTAINERS_TREE, source))?;
            let record = StoredRecord::Container {
                container_id: key_text(&key),
            };
            let stored: StoredContainer = decode(&record, &value)?;
            if !retention.keeps(&stored.state(), now_ms) {
                batch.remove(key);
                pruned += 1;
            }
        }
        self.apply_and_flush(&self.containers, CONTAINERS_TREE, batch, pruned)
            .await
    }

    pub(super) async fn record_replay(
        &self,
        container_id: ContainerId,
        expiry_ms: i64,
    ) -> Result<bool, Error> {
        let record = StoredRecord::Replay {
            container_id: container_id.to_string(),
        };
        let value = encode(&record, &expiry_ms)?;
        let swapped = self
            .replays
            .compare_and_swap(container_id.to_string(), None::<&[u8]>, Some(value))
            .map_err(|source| io_error(&record, source))?;
        if swapped.is_err() {
            return Ok(true);
        }
        self.flush(record).await?;
        Ok(false)
    }

    pub(super) fn is_replayed(&self, container_id: &ContainerId) -> Result<bool, Error> {
        let key = container_id.to_string();
        self.replays.contains_key(&key).map_err(|source| {
            let record = StoredRecord::Replay { container_id: key };
            io_error(&record, source)
        })
    }

    pub(super) async fn prune_replays(&self, now_ms: i64) -> Result<usize, Error> {
        let mut batch = sled::Batch::default();
        let mut pruned = 0;
        for entry in self.replays.iter() {
            let (key, value) = entry.map_err(|source| tree_error(REPLAYS_TREE, source))?;
            let record = StoredRecord::Replay {
                container_id: key_text(&key),
            };
            let expiry_ms: i64 = decode(&record, &value)?;
            if ReplayTable::expired(expiry_ms, now_ms) {
                batch.remove(key);
                pruned += 1;
            }
        }
        self.apply_and_flush(&self.replays, REPLAYS_TREE, batch, pruned)
            .await
    }

    pub(super) async fn store_master_keys(
        &self,
        kind: TokenKind,
        keys: &MasterKeyPair,
    ) -> Result<(), Error> {
        let record = StoredRecord::MasterKeys { kind };
        let stored = StoredMasterKeyPair {
            current: stored_key(&keys.current),
            previous: keys.previous.as_ref().map(stored_key),
        };
        let value = encode(&record, &stored)?;
        self.master_keys
            .insert(kind.name(), value)
            .map_err(|source| io_error(&record, source))?;
        self.flush(record).await
    }

    pub(super) async fn store_rm_epoch(&self, epoch: i64) -> Result<(), Error> {
        self.store_meta(StoredRecord::RmEpoch, RM_EPOCH_KEY, &epoch)
            .await
    }

    pub(super) async fn store_heartbeat_response_id(&self, response_id: i32) -> Result<(), Error> {
        let record = StoredRecord::HeartbeatResponseId;
        self.store_meta(record, HEARTBEAT_RESPONSE_ID_KEY, &response_id)
            .await
    }

    pub(super) fn load(&self) -> Result<RecoveredState, Error> {
        let mut containers = Vec::new();
        for entry in self.containers.iter() {
            let (key, value) = entry.map_err(|source| tree_error(CONTAINERS_TREE, source))?;
            let record = StoredRecord::Container {
                container_id: key_text(&key),
            };
            let container_id = parse_container_id(&record, &key)?;
            let stored: StoredContainer = decode(&record, &value)?;
            containers.push(stored.into_recovered(container_id));
        }
        let mut state = RecoveredState::with_containers(containers);

        for entry in self.replays.iter() {
            let (key, value) = entry.map_err(|source| tree_error(REPLAYS_TREE, source))?;
            let record = StoredRecord::Replay {
                container_id: key_text(&key),
            };
            let container_id = parse_container_id(&record, &key)?;
            state.replays.insert(container_id, decode(&record, &value)?);
        }

        for kind in TokenKind::ALL {
            let record = StoredRecord::MasterKeys { kind };
            let value = self
                .master_keys
                .get(kind.name())
                .map_err(|source| io_error(&record, source))?;
            if let Some(value) = value {
                let stored: StoredMasterKeyPair = decode(&record, &value)?;
                let keys = MasterKeyPair {
                    current: master_key(stored.current),
                    previous: stored.previous.map(master_key),
                };
                state.master_keys.insert(kind, keys);
            }
        }

        state.rm_epoch = self.load_meta(StoredRecord::RmEpoch, RM_EPOCH_KEY)?;
        state.last_heartbeat_response_id =
            self.load_meta(StoredRecord::HeartbeatResponseId, HEARTBEAT_RESPONSE_ID_KEY)?;
        Ok(state)
    }

    /// Reads, changes and writes back one container record. A compare-and-swap makes the write
    /// conditional on the record read, so two writers changing the same container never lose
    /// one another's change: the loser reads again and re-applies its change, which may then
    /// refuse it (a completion racing a launch, say).
    async fn change_container(
        &self,
        container_id: ContainerId,
        mut change: impl FnMut(&mut StoredContainer) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let key = container_id.to_string();
        let record = container_record(container_id);
        loop {
            let old = self
                .containers
                .get(&key)
                .map_err(|source| io_error(&record, source))?
                .ok_or(Error::ContainerRecordMissing { container_id })?;
            let mut stored: StoredContainer = decode(&record, &old)?;
            change(&mut stored)?;
            let new = encode(&record, &stored)?;
            let swapped = self
                .containers
                .compare_and_swap(&key, Some(old), Some(new))
                .map_err(|source| io_error(&record, source))?;
            if swapped.is_ok() {
                break;
            }
        }
        self.flush(record).await
    }

    async fn store_meta<T: Serialize>(
        &self,
        record: StoredRecord,
        key: &[u8],
        value: &T,
    ) -> Result<(), Error> {
        let value = encode(&record, value)?;
        self.meta
            .insert(key, value)
            .map_err(|source| io_error(&record, source))?;
        self.flush(record).await
    }

    fn load_meta<T: serde::de::DeserializeOwned>(
        &self,
        record: StoredRecord,
        key: &[u8],
    ) -> Result<Option<T>, Error> {
        let value = self
            .meta
            .get(key)
            .map_err(|source| io_error(&record, source))?;
        value.map(|value| decode(&record, &value)).transpose()
    }

    /// Stores the AMRMProxy's record `key` and returns once it is on stable storage.
    /// Synchronous, blocking the thread: the proxy's store calls are, and its records are small.
    pub(super) fn put_proxy_record(&self, key: &str, value: Vec<u8>) -> Result<(), Error> {
        let record = StoredRecord::AmrmProxy {
            key: key.to_owned(),
        };
        self.amrm_proxy
            .insert(key, value)
            .map_err(|source| io_error(&record, source))?;
        self.db
            .flush_blocking()
            .map_err(|source| io_error(&record, source))?;
        Ok(())
    }

    /// Removes the AMRMProxy's record `key`, if stored, and returns once that is on stable
    /// storage; blocks the thread.
    pub(super) fn remove_proxy_record(&self, key: &str) -> Result<(), Error> {
        let record = StoredRecord::AmrmProxy {
            key: key.to_owned(),
        };
        self.amrm_proxy
            .remove(key)
            .map_err(|source| io_error(&record, source))?;
        self.db
            .flush_blocking()
            .map_err(|source| io_error(&record, source))?;
        Ok(())
    }

    /// Every AMRMProxy record, by key.
    pub(super) fn proxy_records(&self) -> Result<Vec<(String, Vec<u8>)>, Error> {
        let mut records = Vec::new();
        for entry in self.amrm_proxy.iter() {
            let (key, value) = entry.map_err(|source| tree_error(AMRM_PROXY_TREE, source))?;
            let key = String::from_utf8_lossy(&key).into_owned();
            records.push((key, value.to_vec()));
        }
        Ok(records)
    }

    async fn apply_and_flush(
        &self,
        tree: &sled::Tree,
        name: &'static str,
        batch: sled::Batch,
        removed: usize,
    ) -> Result<usize, Error> {
        if removed == 0 {
            return Ok(0);
        }
        tree.apply_batch(batch)
            .map_err(|source| tree_error(name, source))?;
        self.flush(StoredRecord::Tree { name }).await?;
        Ok(removed)
    }

    /// The next number of sled's counter, which only grows, across restarts too (sled persists
    /// it ahead of use), so that containers accepted or launched later sort later. Once every
    /// million numbers (sled's default `idgen_persist_interval`) sled persists the counter with
    /// a blocking flush; that is rare enough to do on the async caller's thread.
    fn next_sequence(&self) -> Result<u64, Error> {
        self.db
            .db()
            .generate_id()
            .map_err(|source| io_error(&StoredRecord::Sequence, source))
    }

    async fn flush(&self, record: StoredRecord) -> Result<(), Error> {
        self.db
            .flush()
            .await
            .map_err(|source| io_error(&record, source))
    }
}

fn container_record(container_id: ContainerId) -> StoredRecord {
    StoredRecord::Container {
        container_id: container_id.to_string(),
    }
}

/// A stored key as text for error messages; keys are written from container ids and token
/// kind names, so only a damaged key is not UTF-8.
fn key_text(key: &[u8]) -> String {
    String::from_utf8_lossy(key).into_owned()
}

fn parse_container_id(record: &StoredRecord, key: &[u8]) -> Result<ContainerId, Error> {
    key_text(key)
        .parse()
        .map_err(|source| Error::InvalidStoredContainerId {
            record: record.clone(),
            source,
        })
}

fn stored_key(key: &MasterKey) -> StoredMasterKey {
    StoredMasterKey {
        key_id: key.key_id(),
        bytes: *key.bytes(),
    }
}

fn master_key(stored: StoredMasterKey) -> MasterKey {
    MasterKey::new(stored.key_id, stored.bytes)
}

fn io_error(record: &StoredRecord, source: sled::Error) -> Error {
    Error::StateStoreIo {
        record: record.clone(),
        source: source.into(),
    }
}

fn tree_error(name: &'static str, source: sled::Error) -> Error {
    io_error(&StoredRecord::Tree { name }, source)
}

#[cfg(test)]
impl SledStore {
    /// Opens `dir` after a store dropped just before has let go of sled's lock: sled's
    /// background threads hold the database a moment past the last handle's drop.
    pub(super) fn open_when_released(dir: &Path) -> Self {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            match Self::open(dir) {
                Ok(store) => return store,
                Err(Error::StateStoreLocked { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) => panic!("cannot open the state store at {}: {e}", dir.display()),
            }
        }
    }
}
