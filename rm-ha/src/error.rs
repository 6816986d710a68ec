//! The crate's error type.

use std::fmt;
use std::path::PathBuf;

/// A stored record kind, named in errors so that a failure says which record was bad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record {
    /// The Raft log entry at this index.
    LogEntry {
        /// The entry's log index.
        index: u64,
    },
    /// The Raft log as a whole (a range or batch of entries).
    Log,
    /// The persisted Raft vote.
    Vote,
    /// The id of the last purged log entry.
    LastPurgedLogId,
    /// The stored snapshot (metadata plus encoded state).
    Snapshot,
    /// The encoded replicated state inside a snapshot.
    State,
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LogEntry { index } => write!(f, "log entry at index {index}"),
            Self::Log => f.write_str("Raft log"),
            Self::Vote => f.write_str("vote"),
            Self::LastPurgedLogId => f.write_str("last purged log id"),
            Self::Snapshot => f.write_str("snapshot"),
            Self::State => f.write_str("snapshot state"),
        }
    }
}

/// Everything that can go wrong in the replica outside openraft's own error types.
///
/// Inside the Raft storage these become openraft `StorageError`s, which openraft treats as
/// fatal: the replica stops rather than run on storage it cannot trust.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The sled database under the storage directory could not be opened.
    #[error("cannot open the Raft storage at {path}: {source}")]
    OpenStorage {
        /// `yarn.resourcemanager.ha.raft.storage-dir`.
        path: PathBuf,
        /// sled's reason.
        source: sled::Error,
    },
    /// A read, write or flush of the Raft storage failed.
    #[error("Raft storage I/O failed on the {record}: {source}")]
    Storage {
        /// The record being read or written.
        record: Record,
        /// The storage engine's reason.
        source: std::io::Error,
    },
    /// A tree of the Raft storage could not be opened.
    #[error("cannot open the Raft storage tree {tree:?}: {source}")]
    OpenTree {
        /// The tree's name.
        tree: &'static str,
        /// The storage engine's reason.
        source: std::io::Error,
    },
    /// A stored record carries a format version this binary does not read.
    #[error(
        "stored {record} has format version {found}; this binary reads up to version {expected}"
    )]
    UnsupportedFormatVersion {
        /// The record.
        record: Record,
        /// The version byte found.
        found: u8,
        /// The newest version this binary reads, and the one it writes.
        expected: u8,
    },
    /// A stored record is empty where a format version byte was expected.
    #[error("stored {record} is empty; expected a format version byte")]
    EmptyRecord {
        /// The record.
        record: Record,
    },
    /// A value could not be encoded.
    #[error("cannot encode the {record}: {source}")]
    Encode {
        /// The record.
        record: Record,
        /// postcard's reason.
        source: postcard::Error,
    },
    /// A stored value could not be decoded, for instance a command version or variant written by
    /// a newer binary.
    #[error("cannot decode the stored {record} (written by a newer binary?): {source}")]
    Decode {
        /// The record.
        record: Record,
        /// postcard's reason.
        source: postcard::Error,
    },
    /// An endpoint could not be bound.
    #[error("cannot bind the {service} endpoint at {address}: {source}")]
    Bind {
        /// The service, e.g. `admin`.
        service: &'static str,
        /// The configured `host:port`.
        address: String,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The replica's rm-id has no configured endpoints.
    #[error("{rm_id} is not one of yarn.resourcemanager.ha.rm-ids")]
    UnknownRmId {
        /// The rm-id.
        rm_id: String,
    },
    /// openraft refused the configured timings.
    #[error("invalid Raft settings (yarn.resourcemanager.ha.raft.*): {source}")]
    RaftConfig {
        /// openraft's reason, boxed because it is large and rare.
        source: Box<openraft::ConfigError>,
    },
    /// Raft could not start.
    #[error("cannot start Raft: {source}")]
    RaftStart {
        /// openraft's reason, boxed because it is large and rare.
        source: Box<openraft::error::Fatal<crate::RmNodeId>>,
    },
    /// Raft stopped on a fatal error (storage failure, a panic in openraft).
    #[error("the Raft node stopped: {reason}")]
    RaftStopped {
        /// openraft's reason.
        reason: String,
    },
    /// Initializing a new group failed.
    #[error("cannot initialize the Raft group: {reason}")]
    Bootstrap {
        /// openraft's reason.
        reason: String,
    },
    /// A gRPC server stopped with an error.
    #[error("the {service} server failed: {source}")]
    Serve {
        /// The service.
        service: &'static str,
        /// tonic's reason.
        source: tonic::transport::Error,
    },
    /// The web server (`yarn.resourcemanager.webapp.address`) stopped with an error.
    #[error(transparent)]
    WebServe(yarn_web::ServeError),
    /// A replica task panicked.
    #[error("a replica task panicked: {reason}")]
    TaskPanicked {
        /// The panic, as the runtime reported it.
        reason: String,
    },
    /// A replica task ended before shutdown was asked for.
    #[error("a replica task ended before the replica was asked to stop")]
    TaskEnded,
    /// The failpoints variable names a failpoint this binary does not know, or gives one a
    /// bad value (builds with the `failpoints` feature only).
    #[error("{variable}: cannot use {entry:?}: {problem}")]
    InvalidFailpoint {
        /// The environment variable, `YARN_HA_FAILPOINTS`.
        variable: &'static str,
        /// The entry refused.
        entry: String,
        /// What is wrong with it and what was expected.
        problem: &'static str,
    },
    /// `capacity-scheduler.xml` could not be read or parsed as Hadoop configuration.
    #[error("cannot read the queue configuration: {source}")]
    ReadQueueConfiguration {
        /// The configuration loader's positioned error.
        source: yarn_conf::ConfError,
    },
    /// `capacity-scheduler.xml` describes no valid queue hierarchy.
    #[error("{file}: invalid queue configuration: {source}")]
    InvalidQueueConfiguration {
        /// The file read.
        file: String,
        /// The scheduler's reason (boxed: it is large, and errors travel by value).
        source: Box<yarn_scheduler::SchedulerError>,
    },
}
