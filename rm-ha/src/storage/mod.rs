//! The replica's Raft storage: sled in a replica, a simulated disk in the simulation.
//!
//! # Durability contract
//!
//! A vote, a log append or a truncation is acknowledged to openraft only once it is on stable
//! storage, which [`StorageEngine::flush`] promises. In a replica the engine is a
//! [`DurableDb`], whose flush is sled's flush (`pwrite` and `sync_file_range`, which alone would
//! not survive a power loss) followed by `fdatasync` of sled's files, group-committed so that
//! concurrent writers share one sync. `last_purged` is
//! made durable before any entry is deleted. A snapshot, built or installed, is one sled key
//! written and made durable as a unit before openraft learns of it: a reader sees the old
//! snapshot or the new one, never a mix. The only durable writes still exposed to a power loss
//! are those of a disk that lies about its cache flushes.
//!
//! Every storage failure is reported as an openraft `StorageError`, which stops the Raft node:
//! a replica never runs on with storage it cannot trust. A failed sync fails every later one
//! too, since the pages it could not write may be gone from the page cache.
//!
//! In test builds with the `failpoints` feature, [`Failpoints`] can stall or fail every log
//! append and vote write, to play a stalled or full disk.
//!
//! The stores are generic over the [`StorageEngine`] so that the deterministic simulation runs
//! them unchanged on a disk that keeps written and synced data apart. The trees are `log`
//! (entries keyed by big-endian index), `meta` (vote and last purged log id) and `snapshot`
//! (the current snapshot). Every value starts with a format version byte.

mod codec;
mod engine;
mod failpoints;
mod log_store;
mod snapshot_builder;
mod state_machine_store;

use std::path::Path;

use openraft::{AnyError, ErrorSubject, ErrorVerb, StorageError, StorageIOError};

pub use engine::{BatchWrite, EngineTree, KeyValue, StorageEngine};
pub use failpoints::{FAILPOINTS_VARIABLE, Failpoints};
pub use log_store::RmLogStore;
pub use snapshot_builder::RmSnapshotBuilder;
pub use state_machine_store::RmStateMachineStore;
pub use yarn_sled_sync::DurableDb;
use yarn_sled_sync::{GrowthLimit, LOCK_WAIT, open_rewriting_if_grown};

use crate::error::Error;
use crate::raft_types::RmNodeId;

/// sled's largest segment, its write buffer, under the planted `plant.unflushed-appends` bug.
const PLANTED_SEGMENT_BYTES: usize = 16 << 20;

/// Opens (creating if absent) the sled database under `dir`, the replica's
/// `yarn.resourcemanager.ha.raft.storage-dir`, for durable flushes, first rewriting it when
/// its files have grown past [`GrowthLimit::DEFAULT`] (sled's segments keep purged log
/// entries' space; see [`open_rewriting_if_grown`]), with
/// sled's background flush every 500 ms (it only shortens what a crash of the process loses of
/// writes nobody waited for) unless a planted bug of `failpoints` turns it off:
/// `plant.unflushed-appends` (which also enlarges sled's write buffer) or
/// `plant.unsynced-appends` (which also leaves out the fdatasync of every flush).
///
/// # Errors
///
/// [`Error::OpenStorage`] naming `dir` when sled cannot open it (permissions, corruption, or
/// another process holding it).
pub fn open_db(dir: &Path, failpoints: &Failpoints) -> Result<DurableDb, Error> {
    let config = || {
        let config = sled::Config::new();
        if !failpoints.syncs_flushes() {
            // PLANTED BUG (plant.unsynced-appends): sled's background fsync would make most
            // acknowledged appends durable within 500 ms; without it, only snapshots are.
            config.flush_every_ms(None)
        } else if failpoints.flushes_appends() {
            config
        } else {
            // PLANTED BUG (plant.unflushed-appends): nothing writes the acknowledged appends
            // out in the background either, and sled's write buffer (one segment) is as large
            // as sled allows, so a crash of every replica loses all appends since the last
            // flush.
            config
                .flush_every_ms(None)
                .segment_size(PLANTED_SEGMENT_BYTES)
        }
    };
    let open_storage_error = |source| Error::OpenStorage {
        path: dir.to_path_buf(),
        source,
    };
    let db = open_rewriting_if_grown(
        dir,
        config,
        GrowthLimit::DEFAULT,
        LOCK_WAIT,
        "the Raft storage",
    )
    .map_err(open_storage_error)?;
    #[cfg(feature = "failpoints")]
    if !failpoints.syncs_flushes() {
        // PLANTED BUG (plant.unsynced-appends): acknowledged after sled's flush alone.
        db.plant_sled_flush_only();
    }
    Ok(db)
}

fn open_tree<E: StorageEngine>(db: &E, tree: &'static str) -> Result<E::Tree, Error> {
    db.open_tree(tree)
        .map_err(|source| Error::OpenTree { tree, source })
}

/// Wraps a crate error as openraft's fatal storage error.
fn storage_error(
    subject: ErrorSubject<RmNodeId>,
    verb: ErrorVerb,
    error: &Error,
) -> StorageError<RmNodeId> {
    StorageIOError::new(subject, verb, AnyError::new(error)).into()
}
