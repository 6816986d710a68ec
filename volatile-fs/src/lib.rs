//! A FUSE file system whose file contents are volatile until synced, for power-loss faults on
//! real processes.
//!
//! A process crash (SIGKILL) loses only what a process had not yet handed to the kernel; the
//! page cache and the disk's write cache keep the rest. A power loss also drops what the
//! kernel and the disk had not made durable, so a store that acknowledges a write before it
//! `fdatasync`s it survives every SIGKILL and still loses acknowledged writes when a rack
//! loses power. [`VolatileMount`] makes that loss happen on demand: a directory mounted with
//! it holds file contents in memory, a sync of a file makes its contents durable, and
//! [`VolatileMount::power_loss`] drops every write since each file's last sync. The chaos
//! harness puts each ResourceManager's Raft storage on one (`chaos run --disks volatile`) for
//! its `power-loss` faults.
//!
//! The model is [`VolatileTree`], pure and tested apart from FUSE; `volatile_fs` is the FUSE
//! shell over it. Mounting needs root and `/dev/fuse`: the mount is made with mount(2)
//! directly, never through a fusermount helper.

mod file_data;
mod volatile_fs;
mod volatile_mount;
mod volatile_tree;

pub use file_data::MAX_FILE_BYTES;
pub use volatile_mount::{MountError, VolatileMount, can_mount};
pub use volatile_tree::{Attr, Kind, LostWrites, ROOT, TreeError, VolatileTree};
