//! sled databases whose flush reaches stable storage before a store acknowledges a write.
//!
//! sled 0.34's `flush` writes its buffers into the data file `db` with `pwrite` and then
//! `sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)` on Linux: the pages are handed to the
//! disk, but neither the disk's write cache nor the file's size (metadata) are made durable,
//! and values sled stores in `blobs/` (those above a quarter of a segment, 128 KiB by default)
//! are written with `write_all` and never synced at all. Only sled's background thread calls
//! `fsync`, every `flush_every_ms`. A flushed write therefore survives a crash of the process,
//! not a power loss or a kernel crash.
//!
//! [`DurableDb`] closes that gap without changing sled: each flush is sled's flush followed by
//! `fdatasync` of the data file and of every new or grown file under the database's directory,
//! and an `fsync` of each directory whose entries changed ([`SledFiles`]). Flushes are group
//! committed ([`GroupCommit`]): callers that arrive while a sync runs share the next one, so
//! concurrent writers pay one sync between them. [`SyncCounts`] counts both, for metrics.
//!
//! The ResourceManager's Raft storage and the NodeManager's state store both open their sled
//! databases through [`DurableDb`]. sled's files grow well past the data under steady log
//! purging; [`compact_if_grown`] rewrites a database that did before it is opened, and
//! [`open_rewriting_if_grown`] is how both daemons open theirs.

mod compaction;
mod durable_db;
mod group_commit;
mod grown_store;
mod sled_files;
mod store_size;
mod sync_counts;
mod sync_target;

pub use compaction::{Compaction, GrowthCheck, GrowthLimit, compact_if_grown, is_intact};
pub use durable_db::{DurableDb, LOCK_WAIT, is_lock_held};
pub use group_commit::GroupCommit;
pub use grown_store::open_rewriting_if_grown;
pub use sled_files::SledFiles;
pub use store_size::{DiskUse, disk_use, live_bytes};
pub use sync_counts::SyncCounts;
pub use sync_target::SyncTarget;
