//! The one error type of the client crate.

use std::time::Duration;

use tonic::Status;
use yarn_conf::{ConfError, HostPortError};

/// Everything that can go wrong while configuring a client, calling the ResourceManagers, or
/// running an rmadmin command.
///
/// Every message is one line naming what failed and where: the key, the rm id and address, the
/// number of attempts and the last gRPC status. Statuses are boxed to keep `Result`s small.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration could not be read (a bad value, an unresolvable `${...}`).
    #[error(transparent)]
    Conf(#[from] ConfError),

    /// The client's `yarn.tls.*` setting is unusable (missing key, unreadable or invalid file).
    #[error("client TLS setting: {source}")]
    TlsSetting {
        /// Why the setting failed; it names the key and the file.
        #[source]
        source: Box<yarn_security::Error>,
    },

    /// `yarn.client.failover-sleep-base-ms` is larger than `yarn.client.failover-sleep-max-ms`.
    #[error(
        "yarn.client.failover-sleep-base-ms ({} ms) must not exceed \
         yarn.client.failover-sleep-max-ms ({} ms)",
        base.as_millis(),
        max.as_millis()
    )]
    FailoverSleepInverted {
        /// The configured first pause.
        base: Duration,
        /// The configured longest pause.
        max: Duration,
    },

    /// A per-call deadline of zero, which would fail every call before it is sent.
    #[error("the per-call deadline of the RM client must be more than zero")]
    ZeroCallTimeout,

    /// An rm id that is not one of `yarn.resourcemanager.ha.rm-ids` (Hadoop's wording).
    #[error("{rm_id} is not a valid serviceId. It should be one of {}", configured.join(","))]
    UnknownRmId {
        /// The id given.
        rm_id: String,
        /// The configured ids, in configuration order.
        configured: Vec<String>,
    },

    /// A replica's configured or hinted address cannot be turned into a channel.
    #[error("invalid address {address} of {rm_id}: {source}")]
    InvalidAddress {
        /// The replica.
        rm_id: String,
        /// The address as configured or hinted.
        address: String,
        /// Why it was refused.
        #[source]
        source: Box<yarn_security::Error>,
    },

    /// A call failed with a status that retrying cannot change (a refusal such as
    /// `PERMISSION_DENIED` or `INVALID_ARGUMENT`), or a call aimed at one replica failed.
    #[error(
        "call to {rm_id} at {address} failed after {attempts} attempt(s): {}",
        describe(status)
    )]
    CallFailed {
        /// The replica that answered last.
        rm_id: String,
        /// Its address.
        address: String,
        /// Attempts made, the failed one included.
        attempts: u32,
        /// Its answer.
        status: Box<Status>,
    },

    /// A call that is not idempotent failed after its request may have reached the server, so
    /// it may or may not have taken effect; it was not resent.
    #[error(
        "call to {rm_id} at {address} failed after the request may have been sent, so its \
         outcome is unknown; not retried because the call is not idempotent (attempt \
         {attempts}): {}",
        describe(status)
    )]
    OutcomeUnknown {
        /// The replica the request went to.
        rm_id: String,
        /// Its address.
        address: String,
        /// Attempts made, the failed one included.
        attempts: u32,
        /// What the transport or server reported.
        status: Box<Status>,
    },

    /// Every attempt allowed by `yarn.client.failover-max-attempts` failed.
    #[error(
        "gave up after {attempts} attempts (yarn.client.failover-max-attempts); last tried \
         {rm_id} at {address}: {}",
        describe(status)
    )]
    AttemptsExhausted {
        /// The replica tried last.
        rm_id: String,
        /// Its address.
        address: String,
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        status: Box<Status>,
    },

    /// A reply that breaks the protocol, such as an HA state outside the enum.
    #[error("{rpc} reply from {rm_id}: field {field} has invalid value {value}")]
    InvalidResponse {
        /// The replica that sent it.
        rm_id: String,
        /// The RPC, e.g. `GetServiceStatus`.
        rpc: &'static str,
        /// The offending field.
        field: &'static str,
        /// Its value.
        value: String,
    },

    /// `-transitionToActive` / `-transitionToStandby` without `--forcemanual` while Raft fails
    /// over on its own.
    #[error(
        "Refusing to manually manage HA state, since automatic failover is enabled \
         (yarn.resourcemanager.ha.automatic-failover.enabled=true) and Raft already elects the \
         active ResourceManager; pass --forcemanual to {operation} anyway"
    )]
    ManualTransitionRefused {
        /// What the operator asked for, e.g. "transfer leadership to rm2".
        operation: String,
    },

    /// `-transitionToStandby` of the leader when no other voter could take over.
    #[error(
        "cannot move {rm_id} to standby: no other voter can take over leadership (voters: {})",
        voters.join(",")
    )]
    NoTransferTarget {
        /// The leader to step down.
        rm_id: String,
        /// The voters of the current membership.
        voters: Vec<String>,
    },

    /// A leadership transfer returned with another replica leading than the one asked for.
    #[error("leadership transfer to {target} did not complete: {leader} leads after the transfer")]
    TransferIncomplete {
        /// The replica asked to lead.
        target: String,
        /// The leader reported afterwards (empty when unknown).
        leader: String,
    },

    /// An rm id for a new member that is not `[A-Za-z0-9_-]+`.
    #[error("invalid rm id {rm_id:?}: expected letters, digits, '_' and '-' only")]
    InvalidNewRmId {
        /// The id given.
        rm_id: String,
    },

    /// The Raft address of a new member is not `host:port`.
    #[error("invalid Raft address {address:?} for {rm_id}: {source}")]
    InvalidRaftAddress {
        /// The new member.
        rm_id: String,
        /// The address given.
        address: String,
        /// Why it does not parse.
        #[source]
        source: HostPortError,
    },

    /// An rmadmin operation failed; `source` says where and why.
    #[error("{operation}: {source}")]
    Admin {
        /// The rmadmin operation, in Hadoop's spelling (e.g. `transitionToActive`).
        operation: &'static str,
        /// The failure.
        #[source]
        source: Box<Error>,
    },

    /// The async runtime for a blocking entry point could not be started.
    #[error("starting the client's async runtime: {source}")]
    Runtime {
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// The gRPC status of a failed call, if this error is one.
    pub fn status(&self) -> Option<&Status> {
        match self {
            Error::CallFailed { status, .. }
            | Error::OutcomeUnknown { status, .. }
            | Error::AttemptsExhausted { status, .. } => Some(status),
            Error::Admin { source, .. } => source.status(),
            _ => None,
        }
    }
}

/// A status as one line: its code, its message and, for failures tonic made from a local
/// transport error, the causes (whose own messages are often as terse as "transport error"),
/// without tonic's metadata dump.
pub(crate) fn describe(status: &Status) -> String {
    let mut text = format!("{:?}", status.code());
    if !status.message().is_empty() {
        text.push_str(": ");
        text.push_str(status.message());
    }
    let mut cause = std::error::Error::source(status);
    while let Some(err) = cause {
        let message = err.to_string();
        if !text.contains(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        cause = err.source();
    }
    text
}
