//! [`ContainerRefusal`]: why the container manager refused one container of a bulk call.

use yarn_proto::ProtoError;
use yarn_proto::ids::ContainerId;
use yarn_proto::pb;
use yarn_proto::token_metadata::{NM_TOKEN_METADATA_KEY, PresentedToken};

use crate::Error;
use crate::token_check::{ContainerStartRefusal, NmTokenRefusal};

/// YARN's generic exception class, for refusals without a more specific one.
const YARN_EXCEPTION: &str = "org.apache.hadoop.yarn.exceptions.YarnException";
/// YARN's exception for starts while the node is not connected with the ResourceManager.
const NM_NOT_YET_READY_EXCEPTION: &str = "org.apache.hadoop.yarn.exceptions.NMNotYetReadyException";
/// YARN's exception for a container that cannot be run as asked.
const INVALID_CONTAINER_EXCEPTION: &str =
    "org.apache.hadoop.yarn.exceptions.InvalidContainerException";

/// One container of a start, stop, status or update call that the container manager refused.
///
/// A domain outcome, not a fault: it lands in that container's entry of the response's
/// `failed_requests` (see [`to_exception`](Self::to_exception)) while the other containers of
/// the call go on. Each message says what was wrong; token refusals keep YARN's words.
#[derive(Debug, thiserror::Error)]
pub enum ContainerRefusal {
    /// The node may not start containers now: it is not registered with the ResourceManager
    /// (start-up, RESYNC) or is shutting down. `reason` is the refusal in YARN's words.
    #[error("{reason}")]
    NotReady {
        /// Why, from the node's connection state.
        reason: String,
    },

    /// A field the request needs is absent.
    #[error("{message}.{field} is required but absent")]
    MissingField {
        /// The protobuf message.
        message: &'static str,
        /// The absent field.
        field: &'static str,
    },

    /// The call carries no NM token.
    #[error(
        "Unauthorized request: no NMToken was sent (expected a TokenProto in gRPC metadata \
         {NM_TOKEN_METADATA_KEY}); an application master must present the NMToken the \
         ResourceManager issued for this node"
    )]
    MissingNmToken,

    /// The call's NM token metadata cannot be read as a token.
    #[error(
        "Unauthorized request: the NMToken in gRPC metadata {NM_TOKEN_METADATA_KEY} is unusable: {reason}"
    )]
    MalformedNmToken {
        /// What is wrong with it.
        reason: String,
    },

    /// The container token does not authorise the start or update.
    #[error(transparent)]
    ContainerToken(#[from] ContainerStartRefusal),

    /// The NM token does not let the caller act on the container's application.
    #[error(transparent)]
    NmToken(#[from] NmTokenRefusal),

    /// A container id in the request is not a valid container id.
    #[error("the request names an invalid container id: {source}")]
    InvalidContainerId {
        /// What is wrong with it.
        source: ProtoError,
    },

    /// The container token's resource cannot be accounted for.
    #[error("container {container_id}: the container token's resource is unusable: {source}")]
    InvalidResource {
        /// The container.
        container_id: ContainerId,
        /// What is wrong with the resource.
        source: Box<Error>,
    },

    /// The node does not know the container: never started here, or already forgotten after
    /// the ResourceManager acknowledged its completion.
    #[error("Container {container_id} is not handled by this NodeManager")]
    UnknownContainer {
        /// The container named.
        container_id: ContainerId,
    },

    /// An update named a container that has already completed.
    #[error("Container {container_id} has already completed; it can no longer be updated")]
    AlreadyCompleted {
        /// The container named.
        container_id: ContainerId,
    },

    /// An update carried the token version the container has, with another size or execution
    /// type than the container got at that version: two tokens of one version disagree.
    #[error(
        "Container {container_id} already has version {version}, with another size or \
         execution type than this update names; updates must name a newer version"
    )]
    ConflictingUpdate {
        /// The container named.
        container_id: ContainerId,
        /// The version both name.
        version: i32,
    },

    /// The container scheduler refused: a container larger than the node, a stale token
    /// version, or a container already being killed.
    #[error(transparent)]
    Scheduler(Box<Error>),

    /// The AM container could not be put behind this node's AMRMProxy: its credentials hold
    /// no AMRMToken, or the proxy could not serve the attempt. It is not started, since it
    /// would otherwise reach the RM with the RM's own token.
    #[error("AM container {container_id} cannot start behind the AMRMProxy: {reason}")]
    AmrmProxy {
        /// The AM container.
        container_id: ContainerId,
        /// What went wrong.
        reason: String,
    },

    /// The state store failed, so the request could not be made durable and was not carried
    /// out.
    #[error(
        "container {container_id}: the request was not carried out because the NodeManager \
         state store failed: {source}"
    )]
    Storage {
        /// The container.
        container_id: ContainerId,
        /// The store's error.
        source: Box<Error>,
    },
}

impl ContainerRefusal {
    /// The NM token a call presented, to be checked against the application of a container.
    ///
    /// # Errors
    ///
    /// [`ContainerRefusal::MissingNmToken`] when the call carried none, and
    /// [`ContainerRefusal::MalformedNmToken`] with the reason when it carried something that is
    /// not a token.
    pub(super) fn usable_nm_token(presented: &PresentedToken) -> Result<&pb::TokenProto, Self> {
        match presented {
            PresentedToken::Token(token) => Ok(token),
            PresentedToken::Missing => Err(Self::MissingNmToken),
            PresentedToken::Malformed { reason } => Err(Self::MalformedNmToken {
                reason: reason.clone(),
            }),
        }
    }

    /// YARN's exception class for the refusal, so that callers can tell kinds apart without
    /// reading messages: `NMNotYetReadyException` while the node is not connected or has not
    /// yet registered with the RM epoch of the container token (both pass once the node
    /// registers, so a retry can succeed), `InvalidContainerException` for a container that
    /// cannot fit, `YarnException` otherwise.
    pub fn class_name(&self) -> &'static str {
        match self {
            Self::NotReady { .. }
            | Self::ContainerToken(ContainerStartRefusal::LaterEpoch { .. }) => {
                NM_NOT_YET_READY_EXCEPTION
            }
            Self::InvalidResource { .. } => INVALID_CONTAINER_EXCEPTION,
            Self::Scheduler(err) if matches!(**err, Error::ExceedsNodeCapacity { .. }) => {
                INVALID_CONTAINER_EXCEPTION
            }
            _ => YARN_EXCEPTION,
        }
    }

    /// The refusal as it travels in `failed_requests`.
    pub fn to_exception(&self) -> pb::SerializedExceptionProto {
        pb::SerializedExceptionProto {
            message: self.to_string(),
            trace: String::new(),
            class_name: self.class_name().to_owned(),
            cause: None,
        }
    }

    /// The `failed_requests` entry of the refused container, named as the request named it.
    pub(super) fn for_container(
        &self,
        container_id: Option<pb::ContainerIdProto>,
    ) -> pb::ContainerExceptionMapProto {
        pb::ContainerExceptionMapProto {
            container_id,
            exception: Some(self.to_exception()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_ready_keeps_yarns_words_and_class() {
        let refusal = ContainerRefusal::NotReady {
            reason: crate::node_status_updater::NOT_CONNECTED.to_owned(),
        };
        let exception = refusal.to_exception();
        assert_eq!(exception.message, crate::node_status_updater::NOT_CONNECTED);
        assert_eq!(exception.class_name, NM_NOT_YET_READY_EXCEPTION);
    }

    #[test]
    fn a_missing_nm_token_names_the_metadata_key() {
        let message = ContainerRefusal::MissingNmToken.to_string();
        assert!(message.contains(NM_TOKEN_METADATA_KEY), "{message}");
        assert_eq!(
            ContainerRefusal::MissingNmToken.class_name(),
            YARN_EXCEPTION
        );
    }

    #[test]
    fn a_token_of_a_later_epoch_is_not_yet_ready_so_that_the_caller_retries() {
        let refusal = ContainerRefusal::from(ContainerStartRefusal::LaterEpoch {
            container_id: "container_e04_1410901177871_0001_01_000005"
                .parse()
                .unwrap(),
            token_epoch: 4,
            rm_epoch: 3,
        });
        assert_eq!(refusal.class_name(), NM_NOT_YET_READY_EXCEPTION);
    }

    #[test]
    fn only_a_readable_nm_token_is_usable() {
        let token = pb::TokenProto {
            kind: "NMToken".to_owned(),
            ..Default::default()
        };
        let presented = PresentedToken::Token(token.clone());
        assert_eq!(
            ContainerRefusal::usable_nm_token(&presented).ok(),
            Some(&token)
        );
        assert!(matches!(
            ContainerRefusal::usable_nm_token(&PresentedToken::Missing),
            Err(ContainerRefusal::MissingNmToken)
        ));
        let garbled = PresentedToken::Malformed {
            reason: "it is not valid base64".to_owned(),
        };
        let refusal = ContainerRefusal::usable_nm_token(&garbled).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            format!(
                "Unauthorized request: the NMToken in gRPC metadata {NM_TOKEN_METADATA_KEY} is \
                 unusable: it is not valid base64"
            )
        );
    }
}
