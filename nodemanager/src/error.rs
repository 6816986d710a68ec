//! The one error type of the NodeManager crate.

use std::path::PathBuf;

use yarn_proto::ProtoError;
use yarn_proto::ids::ContainerId;

use crate::container_scheduler::Resources;
use crate::executor::{CgroupV2Unusable, IoCause};
use crate::localizer::LocalizationError;
use crate::state_store::{StorageCause, StoredRecord};

/// Everything that can go wrong inside the NodeManager.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A container was handed to the container scheduler while it already queues or runs a
    /// container with the same id.
    #[error("container {id} is already queued or running in the container scheduler")]
    DuplicateContainer {
        /// The container named twice.
        id: ContainerId,
    },
    /// An event named a container the container scheduler neither queues nor runs.
    #[error("container {id} is neither queued nor running in the container scheduler")]
    UnknownContainer {
        /// The container named.
        id: ContainerId,
    },
    /// A container asks for more than the whole node offers, so it could never start and would
    /// block the queue behind it forever.
    #[error(
        "container {id} asks for {requested}, more than the node's whole capacity {capacity} \
         (yarn.nodemanager.resource.memory-mb, yarn.nodemanager.resource.cpu-vcores)"
    )]
    ExceedsNodeCapacity {
        /// The container refused.
        id: ContainerId,
        /// What it asks for.
        requested: Resources,
        /// What the node offers in total.
        capacity: Resources,
    },
    /// An update carried a container-token version that is not newer than the one the container
    /// already has: it is a replay or lost a race with another update.
    #[error(
        "update of container {id} carries container token version {offered}, \
         expected a version newer than the current {current}"
    )]
    StaleContainerVersion {
        /// The container the update named.
        id: ContainerId,
        /// The version the container has.
        current: i32,
        /// The version the update carried.
        offered: i32,
    },
    /// An update named a container that is already being killed, whose execution type no
    /// longer matters.
    #[error("container {id} is being killed; its execution type can no longer be changed")]
    ContainerBeingKilled {
        /// The container the update named.
        id: ContainerId,
    },
    /// A `ResourceProto` held a negative amount.
    #[error("ResourceProto field {field} is {value}, expected a non-negative amount")]
    NegativeResource {
        /// The protobuf field: `memory` or `virtual_cores`.
        field: &'static str,
        /// The value received.
        value: i64,
    },
    /// A container's user cannot name a directory, so its files would land outside the
    /// user's cache (or nowhere).
    #[error(
        "container {container_id}: user {user:?} cannot name a directory under usercache/ \
         (expected a non-empty name without '/' or NUL, other than '.' and '..')"
    )]
    InvalidUser {
        /// The container being launched.
        container_id: ContainerId,
        /// The user it was to run for.
        user: String,
    },
    /// One of a container's directories could not be created.
    #[error("container {container_id}: cannot create directory {}: {source}", path.display())]
    CreateContainerDirectory {
        /// The container being launched.
        container_id: ContainerId,
        /// The directory.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: IoCause,
    },
    /// One of a container's files (stdout, stderr, a stale exit code file) could not be
    /// opened or removed.
    #[error("container {container_id}: cannot prepare file {}: {source}", path.display())]
    PrepareContainerFile {
        /// The container being launched.
        container_id: ContainerId,
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: IoCause,
    },
    /// One of a container's local resources could not be made available; the container does
    /// not start.
    #[error("container {container_id}: localization failed: {source}")]
    Localization {
        /// The container being launched.
        container_id: ContainerId,
        /// Which resource, and why (boxed: it is large, and errors travel in results).
        #[source]
        source: Box<LocalizationError>,
    },
    /// `/bin/sh` could not be started for a container.
    #[error("container {container_id}: cannot start /bin/sh for command {command:?}: {source}")]
    StartContainerProcess {
        /// The container being launched.
        container_id: ContainerId,
        /// The command line, after parameter expansion.
        command: String,
        /// What the OS said.
        #[source]
        source: IoCause,
    },
    /// `/bin/sh` could not be started for a container that was to run in a cgroup: either
    /// the child could not join the cgroup (writing its pid to `cgroup.procs` between fork and
    /// exec) or the exec failed; the OS error alone cannot tell which.
    #[error(
        "container {container_id}: cannot start /bin/sh for command {command:?} in cgroup {} \
         (joining it by writing the pid to cgroup.procs before exec, or the exec, failed): \
         {source}",
        cgroup.display()
    )]
    StartContainerProcessInCgroup {
        /// The container being launched.
        container_id: ContainerId,
        /// The container's cgroup directory.
        cgroup: PathBuf,
        /// The command line, after parameter expansion.
        command: String,
        /// What the OS said.
        #[source]
        source: IoCause,
    },
    /// A container's cgroup could not be created or its memory limit written; the container
    /// does not start.
    #[error("container {container_id}: cannot {action} {}: {source}", path.display())]
    ContainerCgroup {
        /// The container being launched.
        container_id: ContainerId,
        /// What was being done, such as `create the cgroup`.
        action: &'static str,
        /// The cgroup directory or control file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: IoCause,
    },
    /// `yarn.nodemanager.resource.memory.enabled` requires cgroup v2 memory limits, but the
    /// configured cgroup cannot hold them.
    #[error(
        "yarn.nodemanager.resource.memory.enabled is true, but containers' memory cannot be \
         limited with cgroup v2 (yarn.nodemanager.linux-container-executor.cgroups.mount-path \
         and .hierarchy): {reason}"
    )]
    CgroupMemoryUnavailable {
        /// Why the cgroup cannot be used, naming its path.
        #[source]
        reason: CgroupV2Unusable,
    },
    /// A simulated container's launch context gave a duration that is not a whole number of
    /// milliseconds.
    #[error(
        "container {container_id}: environment variable {variable}={value:?} is not a valid \
         simulated run time (expected a whole number of milliseconds)"
    )]
    InvalidSimulatedDuration {
        /// The container being launched.
        container_id: ContainerId,
        /// The launch-context variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// An endpoint of the NodeManager could not be bound.
    #[error("cannot bind {address} ({key}): {source}")]
    Bind {
        /// The key the address comes from.
        key: &'static str,
        /// The configured `host:port`.
        address: String,
        /// The operating system's reason.
        source: crate::executor::IoCause,
    },
    /// The container-management server stopped with an error.
    #[error("the NodeManager server at {address} failed: {reason}")]
    Serve {
        /// The served address.
        address: String,
        /// tonic's reason.
        reason: String,
    },
    /// The ResourceManager ordered this node to shut down (decommissioned or refused).
    #[error("the ResourceManager shut this NodeManager down: {reason}")]
    ShutDownByResourceManager {
        /// The RM's diagnostics.
        reason: String,
    },
    /// A NodeManager task panicked.
    #[error("a NodeManager task panicked: {reason}")]
    TaskPanicked {
        /// The panic as the runtime reported it.
        reason: String,
    },
    /// A container to re-acquire came with a pid no container can have.
    #[error(
        "container {container_id}: pid {pid} cannot be re-acquired (expected a pid above 1 \
         and within the OS's range)"
    )]
    InvalidContainerPid {
        /// The container to re-acquire.
        container_id: ContainerId,
        /// The pid given.
        pid: u32,
    },
    /// The executor was dropped before the container ended, so its end is unknown to this
    /// process; a process container may still be running.
    #[error(
        "container {container_id}: the executor stopped before the container ended; a \
         restarted NodeManager can re-acquire it"
    )]
    ExecutorStopped {
        /// The container waited for.
        container_id: ContainerId,
    },
    /// The NodeManager state store could not be opened.
    #[error(
        "cannot open the NodeManager state store at {} (yarn.nodemanager.recovery.dir): {source}",
        path.display()
    )]
    OpenStateStore {
        /// The store's directory.
        path: PathBuf,
        /// sled's reason.
        #[source]
        source: StorageCause,
    },
    /// The state store's directory is locked by another holder: another NodeManager using the
    /// same directory, or a store of this process that was dropped and whose background
    /// threads have not released the lock yet.
    #[error(
        "the NodeManager state store at {} (yarn.nodemanager.recovery.dir) is locked by another \
         process or by a store not yet released; each NodeManager needs its own recovery \
         directory",
        path.display()
    )]
    StateStoreLocked {
        /// The store's directory.
        path: PathBuf,
    },
    /// The state store's AMRMProxy tree holds a record under a key the proxy never writes: the
    /// store was changed by something else, and guessing what the record means could resume
    /// the wrong application's chain.
    #[error(
        "the NodeManager state store's AMRMProxy tree holds an unknown record {key:?}; expected \
         \"master_keys\" or \"application/<application id>\""
    )]
    UnknownProxyRecord {
        /// The record's key.
        key: String,
    },
    /// The AMRMProxy could not start: a pipeline naming an unknown interceptor, or state it
    /// cannot read back.
    #[error("the AMRMProxy (yarn.nodemanager.amrmproxy.*) could not start: {reason}")]
    AmrmProxy {
        /// The proxy's error, as text: this enum is cloneable and comparable, the proxy's is
        /// not.
        reason: String,
    },

    /// A state store read, write or flush failed.
    #[error("NodeManager state store I/O failed on the {record}: {source}")]
    StateStoreIo {
        /// The record being read or written.
        record: StoredRecord,
        /// sled's reason.
        #[source]
        source: StorageCause,
    },
    /// A stored record was written in a format version this binary does not read.
    #[error(
        "the {record} in the NodeManager state store has format version {found}, expected \
         {expected}"
    )]
    UnsupportedRecordVersion {
        /// The record.
        record: StoredRecord,
        /// The version byte found.
        found: u8,
        /// The only version this binary reads.
        expected: u8,
    },
    /// A stored record is empty: not even its format version byte is there.
    #[error(
        "the {record} in the NodeManager state store is empty, expected a format version byte \
         and a body"
    )]
    EmptyRecord {
        /// The record.
        record: StoredRecord,
    },
    /// A record could not be encoded for the state store.
    #[error("cannot encode the {record} for the NodeManager state store: {source}")]
    EncodeRecord {
        /// The record.
        record: StoredRecord,
        /// postcard's reason.
        #[source]
        source: StorageCause,
    },
    /// A stored record's body could not be decoded.
    #[error("cannot decode the {record} in the NodeManager state store: {source}")]
    DecodeRecord {
        /// The record.
        record: StoredRecord,
        /// postcard's reason.
        #[source]
        source: StorageCause,
    },
    /// A record is stored under a key that is not a container id.
    #[error("the {record} in the NodeManager state store is not keyed by a container id: {source}")]
    InvalidStoredContainerId {
        /// The record, named by its key.
        record: StoredRecord,
        /// Why the key is not a container id.
        #[source]
        source: ProtoError,
    },
    /// A container's state was to be stored, but the container was never stored as accepted.
    #[error("container {container_id} has no record in the NodeManager state store")]
    ContainerRecordMissing {
        /// The container.
        container_id: ContainerId,
    },
    /// A container was to be stored as accepted, but it already has a record.
    #[error("container {container_id} already has a record in the NodeManager state store")]
    ContainerRecordExists {
        /// The container.
        container_id: ContainerId,
    },
    /// A stored container was to move to a state it cannot reach from its current one.
    #[error(
        "container {container_id} is {from} in the NodeManager state store and cannot become \
         {to}"
    )]
    InvalidContainerTransition {
        /// The container.
        container_id: ContainerId,
        /// Its stored state.
        from: &'static str,
        /// The state or change refused.
        to: &'static str,
    },
}
