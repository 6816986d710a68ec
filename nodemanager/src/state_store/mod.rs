//! The NodeManager state store: what a restarted NodeManager needs to keep its containers, its
//! token keys and its replay protection, after YARN's `NMStateStoreService`.
//!
//! [`NmStateStore`] is the one type callers hold. With `yarn.nodemanager.recovery.enabled` it
//! keeps its records in a sled database under `yarn.nodemanager.recovery.dir`; without it, it
//! is [disabled](NmStateStore::disabled): nothing is stored and nothing is recovered, but replay
//! records still live in memory so that a container token can never start two containers while
//! the process runs.
//!
//! ```text
//!   container manager ── store_container_queued ──┐
//!   container scheduler ─ store_container_running ┤
//!   executor exit ──────── store_container_completed
//!   token check ────────── record_replay ─────────┼─> NmStateStore ──> sled trees, then
//!   node status updater ── store_master_keys,     │                   flush + fdatasync
//!                          store_rm_epoch ... ────┘
//!
//!   NM start ──> load() ──> RecoveredState: queued (queue order), running (start order, pids),
//!                            completed, master keys, replay records, RM epoch
//! ```
//!
//! # Durability contract
//!
//! Every write returns only once it is on stable storage: sled's flush (which alone ends in
//! `sync_file_range` and would survive a crash of the process but not a loss of power or a
//! kernel crash) followed by `fdatasync` of sled's files, group-committed so that concurrent
//! writes share one sync (`yarn_sled_sync::DurableDb`). A record a method reported stored
//! survives a SIGKILL of the NodeManager and, on a disk that honours cache flushes, a power
//! loss. After a failed sync every later write fails too. A write whose future is dropped
//! before it completes may or may not have reached the disk. Each record is one sled key,
//! replaced whole, so a reader sees the record before or after a write, never a mix.
//!
//! # On-disk format
//!
//! The sled trees are `containers` (keyed by container id string), `replays` (container id
//! string to token expiry), `master_keys` (keyed by Hadoop's token kind name) and `meta` (the RM
//! epoch and the last heartbeat response id). Every value is one format version byte followed by
//! postcard; a record in any other version is refused with an error naming it rather than
//! guessed at.

mod codec;
mod completed_retention;
mod container_record;
mod container_record_state;
mod master_key_pair;
mod nm_state_store;
mod proxy_records;
mod recovered_container;
mod recovered_state;
mod replay_table;
mod sled_store;
mod storage_cause;
mod stored_container;
mod stored_local_resource;
mod stored_record;

use replay_table::ReplayTable;
use sled_store::SledStore;
use stored_container::StoredContainer;

pub use codec::FORMAT_VERSION;
pub use completed_retention::CompletedRetention;
pub use container_record::ContainerRecord;
pub use container_record_state::ContainerRecordState;
pub use master_key_pair::MasterKeyPair;
pub use nm_state_store::NmStateStore;
pub use proxy_records::ProxyRecords;
pub use recovered_container::RecoveredContainer;
pub use recovered_state::RecoveredState;
pub use storage_cause::StorageCause;
pub use stored_record::StoredRecord;
