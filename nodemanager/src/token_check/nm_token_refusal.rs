//! Why a NodeManager refuses the NM token an application master presents.

use yarn_proto::ProtoError;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};

use super::claimed::Claimed;

/// An NM token that does not let its holder act on the application at hand. Like a
/// [`ContainerStartRefusal`](super::ContainerStartRefusal), the container manager reports it for
/// the container concerned and goes on with the others.
///
/// Every message names the application attempt (as the token claims it, for tokens whose
/// signature did not verify).
#[derive(Debug, thiserror::Error)]
pub enum NmTokenRefusal {
    /// The token is not a readable NM token: unknown or other kind, or an identifier that does
    /// not decode. `source` says which.
    #[error("Unauthorized request: the NMToken is unusable: {source}")]
    Unreadable {
        /// What the security crate found wrong.
        source: yarn_security::Error,
    },

    /// The NodeManager holds no NM-token master key yet: it has not registered with a
    /// ResourceManager since it started with an empty state store.
    #[error(
        "Given NMToken for application attempt {} seems to have an illegally generated token: \
         this NodeManager has no NM-token master key yet (it has not registered with a \
         ResourceManager)",
        Claimed(attempt_id)
    )]
    NoMasterKey {
        /// The attempt the token claims to be for, if it names one.
        attempt_id: Option<ApplicationAttemptId>,
    },

    /// The token names a master key this NodeManager does not hold.
    #[error(
        "Given NMToken for application attempt {} seems to have an illegally generated token: it \
         is signed under master key {key_id}, but this NodeManager holds only keys {known:?}",
        Claimed(attempt_id)
    )]
    UnknownMasterKey {
        /// The attempt the token claims to be for, if it names one.
        attempt_id: Option<ApplicationAttemptId>,
        /// The key id in the token.
        key_id: i32,
        /// The key ids this NodeManager holds: previous, then current.
        known: Vec<i32>,
    },

    /// The token's password is not the HMAC of its identifier under the key it names.
    #[error(
        "Given NMToken for application attempt {} seems to have an illegally generated token: its \
         password is not the signature of its identifier under master key {key_id}",
        Claimed(attempt_id)
    )]
    InvalidSignature {
        /// The attempt the token claims to be for, if it names one.
        attempt_id: Option<ApplicationAttemptId>,
        /// The key id in the token.
        key_id: i32,
    },

    /// A correctly signed token whose identifier lacks a usable `field`.
    #[error("Unauthorized request: the NMToken's {field} is invalid: {source}")]
    InvalidIdentifier {
        /// The field of `NMTokenIdentifierProto` at fault (`app_attempt_id` or `node_id`).
        field: &'static str,
        /// What is wrong with it.
        source: ProtoError,
    },

    /// The token was issued for another NodeManager.
    #[error(
        "Given NMToken for application attempt {attempt_id} is not valid for current node \
         manager. Expected : {expected} Found : {found}"
    )]
    OtherNode {
        /// The attempt the token is for.
        attempt_id: ApplicationAttemptId,
        /// This NodeManager's id.
        expected: NodeId,
        /// The node the token was issued for.
        found: NodeId,
    },

    /// The token belongs to another application than the one whose container is at hand.
    #[error(
        "Unauthorized request to start container. NMToken for application attempt {attempt_id} \
         was used for a container of application {application_id}"
    )]
    OtherApplication {
        /// The attempt the token is for.
        attempt_id: ApplicationAttemptId,
        /// The application of the container the token was used for.
        application_id: ApplicationId,
    },
}
