//! The one error type of the client crate.

use std::path::PathBuf;
use std::time::Duration;

use tonic::Status;
use yarn_conf::{ConfError, HostPortError};
use yarn_security::CertificateRefusal;

use crate::terminal_text::escape_for_terminal;

/// Everything that can go wrong while configuring a client, calling the ResourceManagers or
/// NodeManagers, reading an ApplicationMaster's token file, or running an rmadmin command.
///
/// Every message is one line naming what failed and where: the key, the rm id and address, the
/// number of attempts and the last gRPC status. Statuses are boxed to keep `Result`s small.
/// What a server said (a status message, a NodeManager's refusal), which may quote another
/// caller's input, is escaped for the terminal, so a message stays one line and cannot act on
/// the terminal it is printed to.
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

    /// TLS refused a certificate on the way to a replica: the replica refused this client's, or
    /// this client could not verify the replica's. Every replica trusts the same CA, so the
    /// call was not retried.
    #[error("{}", certificate_refused(rm_id, address, refusal))]
    CertificateRefused {
        /// The replica.
        rm_id: String,
        /// Its address.
        address: String,
        /// Whose certificate was refused, and why.
        refusal: CertificateRefusal,
        /// The failed call's status, which carries the TLS error.
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

    /// An argument of rmadmin's node-label verbs or of schedulerconf that does not read.
    #[error("{option}: {message}")]
    InvalidAdminArgument {
        /// The option, in Hadoop's spelling (`-addToClusterNodeLabels`, `-add`).
        option: &'static str,
        /// What is wrong, in Hadoop's words where it has them.
        message: String,
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

    /// A reply lacks a field the protocol requires, such as the application id of a
    /// `GetNewApplication` reply.
    #[error("{rpc} reply from {rm_id} lacks the required field {field}")]
    MissingResponseField {
        /// The replica the client was talking to when the reply arrived.
        rm_id: String,
        /// The RPC, e.g. `GetNewApplication`.
        rpc: &'static str,
        /// The missing field, as named in the `.proto` file.
        field: &'static str,
    },

    /// A submission context without `application_id`, which is the submission's dedupe key.
    #[error(
        "the application submission context has no application_id: take one from \
         GetNewApplication before submitting"
    )]
    SubmissionWithoutApplicationId,

    /// A word of `-appStates` that is neither `ALL` nor an application state.
    #[error(
        "invalid application state {value:?}: expected ALL or one of NEW, NEW_SAVING, SUBMITTED, \
         ACCEPTED, RUNNING, FINISHED, FAILED, KILLED"
    )]
    InvalidApplicationState {
        /// The word given.
        value: String,
    },

    /// A word of `node -states` that is not a node state.
    #[error(
        "invalid node state {value:?}: expected one of NEW, RUNNING, UNHEALTHY, DECOMMISSIONED, \
         LOST, REBOOTED, DECOMMISSIONING, SHUTDOWN"
    )]
    InvalidNodeState {
        /// The word given.
        value: String,
    },

    /// An application did not reach FINISHED, FAILED or KILLED before the caller's deadline.
    #[error(
        "application {application_id} did not reach a final state (FINISHED, FAILED or KILLED) \
         within {} ms; its last reported state was {}",
        waited.as_millis(),
        last_state.as_str_name()
    )]
    ApplicationWaitTimedOut {
        /// The application waited for.
        application_id: yarn_proto::ids::ApplicationId,
        /// The state of the last report received.
        last_state: yarn_proto::pb::YarnApplicationStateProto,
        /// How long the wait lasted.
        waited: Duration,
    },

    /// `node -status` of a node the ResourceManager has no report for.
    #[error("the ResourceManager has no report for node {node_id} in any state")]
    NodeNotFound {
        /// The node asked for, as `host:port`.
        node_id: String,
    },

    /// A command's output could not be written (for example, stdout was closed).
    #[error("writing the command's output: {source}")]
    WriteOutput {
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// `HADOOP_TOKEN_FILE_LOCATION` is unset, so the ApplicationMaster cannot find its
    /// AMRMToken.
    #[error(
        "{variable} is not set: the ApplicationMaster's token file, which holds its AMRMToken, \
         cannot be found"
    )]
    TokenFileNotSet {
        /// The environment variable, `HADOOP_TOKEN_FILE_LOCATION`.
        variable: &'static str,
    },

    /// The AMRMProxy address the NodeManager gave the ApplicationMaster is not `host:port`.
    #[error("{variable}={value:?} is not the AMRMProxy's host:port: {source}")]
    AmrmProxyAddress {
        /// The environment variable, `YARN_AMRM_PROXY_ADDRESS`.
        variable: &'static str,
        /// Its value.
        value: String,
        /// Why it does not parse.
        source: yarn_conf::HostPortError,
    },

    /// The token file named by `HADOOP_TOKEN_FILE_LOCATION` could not be read.
    #[error("reading the token file {} named by {variable}: {source}", path.display())]
    TokenFileRead {
        /// The environment variable that named it.
        variable: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// A token file whose bytes are not a Hadoop credentials file (`HDTS`, version 0 or 1).
    #[error("token file {} is {source}", path.display())]
    TokenFileMalformed {
        /// The file.
        path: PathBuf,
        /// What the reader refused, and where
        /// ([`yarn_security::Error::MalformedCredentials`]), boxed: the security crate's error
        /// is large, and this one travels in every client `Result`.
        #[source]
        source: Box<yarn_security::Error>,
    },

    /// A token file without a token of kind `YARN_AM_RM_TOKEN`.
    #[error(
        "token file {} holds no token of kind {expected} (kinds found: {})",
        path.display(),
        if found.is_empty() { "none".to_owned() } else { found.join(", ") }
    )]
    AmRmTokenMissing {
        /// The file.
        path: PathBuf,
        /// The kind looked for, `YARN_AM_RM_TOKEN`.
        expected: &'static str,
        /// The kinds of the tokens the file does hold, in file order.
        found: Vec<String>,
    },

    /// An ApplicationMaster call that needs a registration was made before `register`.
    #[error(
        "{operation} before registerApplicationMaster: the ApplicationMaster must register first"
    )]
    AmNotRegistered {
        /// The call, in YARN's spelling (e.g. `allocate`).
        operation: &'static str,
    },

    /// The leader no longer knew the attempt (typically after a failover) and registering it
    /// again failed.
    #[error(
        "{operation}: the RM asked this ApplicationMaster to register again (after a failover) \
         and registering failed: {source}"
    )]
    Reregistration {
        /// The call that was refused, in YARN's spelling.
        operation: &'static str,
        /// Why the registration failed.
        #[source]
        source: Box<Error>,
    },

    /// `finishApplicationMaster` kept answering that the unregistration is not committed yet.
    #[error(
        "finishApplicationMaster: the RM had not confirmed the unregistration after {attempts} \
         attempts ({} ms apart)",
        pause.as_millis()
    )]
    FinishNotConfirmed {
        /// Calls made.
        attempts: u32,
        /// The pause between them.
        pause: Duration,
    },

    /// The AMRM heartbeat task is gone, so its commands and `finish` cannot reach it.
    #[error("the AMRM heartbeat task has stopped; no further requests can be sent through it")]
    HeartbeatStopped,

    /// A container record lacks a field a NodeManager call needs.
    #[error("container {container_id}: ContainerProto.{field} is missing")]
    ContainerFieldMissing {
        /// The container, in Hadoop's string form.
        container_id: String,
        /// The absent field, e.g. `node_id` or `container_token`.
        field: &'static str,
    },

    /// A node id that cannot be a NodeManager address.
    #[error("container {container_id}: invalid node id: {source}")]
    InvalidNodeId {
        /// The container the call was about.
        container_id: String,
        /// Why the node id was refused.
        #[source]
        source: yarn_proto::ProtoError,
    },

    /// A NodeManager address that cannot make a channel.
    #[error("invalid NodeManager address {node}: {source}")]
    InvalidNodeAddress {
        /// The node, `host:port`.
        node: String,
        /// Why it was refused.
        #[source]
        source: Box<yarn_security::Error>,
    },

    /// A ContainerManagementProtocol call failed as a whole (unreachable node, deadline,
    /// refused NM token).
    #[error(
        "{rpc} of container {container_id} on {node} failed: {}",
        describe(status)
    )]
    NmCallFailed {
        /// The RPC, e.g. `StartContainers`.
        rpc: &'static str,
        /// The node, `host:port`.
        node: String,
        /// The container, in Hadoop's string form.
        container_id: String,
        /// The call's status.
        status: Box<Status>,
    },

    /// A NodeManager refused the call for this container (its entry in `failed_requests`).
    #[error(
        "{rpc} of container {container_id} on {node} refused: {} ({})",
        escape_for_terminal(message),
        escape_for_terminal(class_name)
    )]
    ContainerRefused {
        /// The RPC, e.g. `StartContainers`.
        rpc: &'static str,
        /// The node, `host:port`.
        node: String,
        /// The container, in Hadoop's string form.
        container_id: String,
        /// YARN's exception class name, empty when the node gave none.
        class_name: String,
        /// The NodeManager's message.
        message: String,
    },

    /// A NodeManager reply that neither lists the container as succeeded nor as failed.
    #[error("{rpc} reply from {node} does not mention container {container_id}")]
    NmReplyIncomplete {
        /// The RPC, e.g. `GetContainerStatuses`.
        rpc: &'static str,
        /// The node, `host:port`.
        node: String,
        /// The container asked about.
        container_id: String,
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
            | Error::CertificateRefused { status, .. }
            | Error::OutcomeUnknown { status, .. }
            | Error::AttemptsExhausted { status, .. }
            | Error::NmCallFailed { status, .. } => Some(status),
            Error::Admin { source, .. } | Error::Reregistration { source, .. } => source.status(),
            _ => None,
        }
    }
}

/// What [`Error::CertificateRefused`] says: whose certificate was refused, where, and the hint
/// that fits the verdict.
fn certificate_refused(rm_id: &str, address: &str, refusal: &CertificateRefusal) -> String {
    match refusal {
        CertificateRefusal::RefusedByPeer { alert } => {
            let hint = if refusal.points_to_another_ca() {
                " (issued by another CA?)"
            } else {
                ""
            };
            format!(
                "the ResourceManager at {address} does not trust this client's certificate{hint}: \
                 {rm_id} refused it with the TLS alert {alert:?}; check yarn.tls.cert and \
                 yarn.tls.key"
            )
        }
        CertificateRefusal::PeerSignedByAnotherCa => format!(
            "the ResourceManager's certificate at {address} is not signed by the CA in \
             yarn.tls.ca-cert, so this client refused to talk to {rm_id}"
        ),
        CertificateRefusal::PeerCertificateInvalid { reason } => format!(
            "the ResourceManager's certificate at {address} did not verify against \
             yarn.tls.ca-cert, so this client refused to talk to {rm_id}: {reason}"
        ),
    }
}

/// A status as one line: its code, its message and, for failures tonic made from a local
/// transport error, the causes (whose own messages are often as terse as "transport error"),
/// without tonic's metadata dump. The line is escaped for the terminal: a server's message
/// may quote what a caller sent.
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
    escape_for_terminal(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_message_prints_escaped_on_one_line() {
        let err = Error::CallFailed {
            rm_id: "rm1".to_owned(),
            address: "rm1:8032".to_owned(),
            attempts: 1,
            status: Box::new(Status::not_found(
                "no queue root.\x1b]0;pwned\x07\nERROR: all data lost",
            )),
        };
        assert_eq!(
            err.to_string(),
            "call to rm1 at rm1:8032 failed after 1 attempt(s): NotFound: no queue \
             root.\\e]0;pwned\\a\\nERROR: all data lost"
        );
        let admin = Error::Admin {
            operation: "checkHealth",
            source: Box::new(err),
        };
        assert!(
            !admin.to_string().contains(['\x1b', '\x07', '\n']),
            "{admin}"
        );
    }

    #[test]
    fn a_refused_certificate_names_whose_and_suspects_another_ca_only_where_that_fits() {
        let refused = |refusal| {
            Error::CertificateRefused {
                rm_id: "rm1".to_owned(),
                address: "10.0.0.1:8033".to_owned(),
                refusal,
                status: Box::new(Status::unavailable("transport error")),
            }
            .to_string()
        };
        assert_eq!(
            refused(CertificateRefusal::RefusedByPeer {
                alert: rustls::AlertDescription::DecryptError
            }),
            "the ResourceManager at 10.0.0.1:8033 does not trust this client's certificate \
             (issued by another CA?): rm1 refused it with the TLS alert DecryptError; check \
             yarn.tls.cert and yarn.tls.key"
        );
        assert_eq!(
            refused(CertificateRefusal::RefusedByPeer {
                alert: rustls::AlertDescription::CertificateExpired
            }),
            "the ResourceManager at 10.0.0.1:8033 does not trust this client's certificate: rm1 \
             refused it with the TLS alert CertificateExpired; check yarn.tls.cert and \
             yarn.tls.key"
        );
        assert_eq!(
            refused(CertificateRefusal::PeerSignedByAnotherCa),
            "the ResourceManager's certificate at 10.0.0.1:8033 is not signed by the CA in \
             yarn.tls.ca-cert, so this client refused to talk to rm1"
        );
        assert_eq!(
            refused(CertificateRefusal::PeerCertificateInvalid {
                reason: "certificate expired".to_owned()
            }),
            "the ResourceManager's certificate at 10.0.0.1:8033 did not verify against \
             yarn.tls.ca-cert, so this client refused to talk to rm1: certificate expired"
        );
    }

    #[test]
    fn a_nodemanagers_refusal_prints_escaped() {
        let err = Error::ContainerRefused {
            rpc: "StartContainers",
            node: "nm1:8041".to_owned(),
            container_id: "container_1_0001_01_000002".to_owned(),
            class_name: "Invalid\rToken".to_owned(),
            message: "bad token\x1b[2K".to_owned(),
        };
        assert_eq!(
            err.to_string(),
            "StartContainers of container container_1_0001_01_000002 on nm1:8041 refused: \
             bad token\\e[2K (Invalid\\rToken)"
        );
    }
}
