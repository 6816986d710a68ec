//! Why a NodeManager refuses to start a container with the token it was given.

use yarn_proto::ProtoError;
use yarn_proto::ids::{ContainerId, NodeId};

use super::claimed::Claimed;
use super::epoch_millis::EpochMillis;

/// A container token that does not authorise the start it came with. The container manager
/// reports it for that one container (in `failed_requests`) and goes on with the others.
///
/// This is a domain outcome, not a fault of the NodeManager. Every message names the container
/// (as the token claims it, for tokens whose signature did not verify) and keeps the words of
/// YARN's own refusal, so operators can search for them as they do in Hadoop's logs.
#[derive(Debug, thiserror::Error)]
pub enum ContainerStartRefusal {
    /// The token is not a readable container token: unknown or other kind, or an identifier that
    /// does not decode. `source` says which.
    #[error("Unauthorized request to start container: the container token is unusable: {source}")]
    Unreadable {
        /// What the security crate found wrong.
        source: yarn_security::Error,
    },

    /// The NodeManager holds no container-token master key yet: it has not registered with a
    /// ResourceManager since it started with an empty state store.
    #[error(
        "Given Container {} seems to have an illegally generated token: this NodeManager has no \
         container-token master key yet (it has not registered with a ResourceManager)",
        Claimed(container_id)
    )]
    NoMasterKey {
        /// The container the token claims to be for, if it names one.
        container_id: Option<ContainerId>,
    },

    /// The token names a master key this NodeManager does not hold (older than the previous key,
    /// or never issued).
    #[error(
        "Given Container {} seems to have an illegally generated token: it is signed under master \
         key {key_id}, but this NodeManager holds only keys {known:?}",
        Claimed(container_id)
    )]
    UnknownMasterKey {
        /// The container the token claims to be for, if it names one.
        container_id: Option<ContainerId>,
        /// The key id in the token.
        key_id: i32,
        /// The key ids this NodeManager holds: previous, then current.
        known: Vec<i32>,
    },

    /// The token's password is not the HMAC of its identifier under the key it names: it was
    /// forged or tampered with.
    #[error(
        "Given Container {} seems to have an illegally generated token: its password is not the \
         signature of its identifier under master key {key_id}",
        Claimed(container_id)
    )]
    InvalidSignature {
        /// The container the token claims to be for, if it names one.
        container_id: Option<ContainerId>,
        /// The key id in the token.
        key_id: i32,
    },

    /// A correctly signed token whose identifier carries no usable container id.
    #[error(
        "Unauthorized request to start container: the container token names no valid container: {source}"
    )]
    InvalidContainerId {
        /// What is wrong with the identifier's `container_id`.
        source: ProtoError,
    },

    /// The token was issued for another NodeManager.
    #[error(
        "Given Container {container_id} identifier is not valid for current Node manager. \
         Expected : {expected} Found : {found}"
    )]
    OtherNode {
        /// The container the token is for.
        container_id: ContainerId,
        /// This NodeManager's id.
        expected: NodeId,
        /// The `nm_host_addr` the token was issued for.
        found: String,
    },

    /// The token has already started its container once; replay records last until the token
    /// expires.
    #[error(
        "Unauthorized request to start container. Attempt to relaunch the same container with id \
         {container_id}: its token was already used once and cannot be used again"
    )]
    Replayed {
        /// The container the token is for.
        container_id: ContainerId,
    },

    /// The token's expiry time has passed.
    #[error(
        "Unauthorized request to start container {container_id}. This token is expired. current \
         time is {} found {}. Note: the clocks of the ResourceManager and this NodeManager may be \
         out of sync; check their system times and time zones",
        EpochMillis(*now_ms),
        EpochMillis(*expiry_ms)
    )]
    Expired {
        /// The container the token is for.
        container_id: ContainerId,
        /// This NodeManager's time, milliseconds since the Unix epoch.
        now_ms: i64,
        /// The token's expiry time, milliseconds since the Unix epoch.
        expiry_ms: i64,
    },

    /// The token was issued under a later ResourceManager epoch than the one this NodeManager
    /// follows: a new leader allocated the container, but this node has not registered with it
    /// yet (it does on its next heartbeat, which the new leader answers with RESYNC). The start
    /// succeeds once it has, so the application master retries. Tokens of earlier epochs are
    /// accepted: every allocation is replicated before any AM sees it, so a later leader knows
    /// the containers its predecessors allocated.
    #[error(
        "Container {container_id} rejected as it is allocated by a newer RM: its token carries \
         RM epoch {token_epoch}, but this NodeManager follows RM epoch {rm_epoch} and has not \
         registered with the ResourceManager of RM epoch {token_epoch} yet; retry the start once \
         it has"
    )]
    LaterEpoch {
        /// The container the token is for.
        container_id: ContainerId,
        /// The `rm_identifier` in the token, greater than `rm_epoch`.
        token_epoch: i64,
        /// The RM epoch this NodeManager follows, from its last registration.
        rm_epoch: i64,
    },
}
