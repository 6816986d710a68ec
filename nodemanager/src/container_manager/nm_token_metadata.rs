//! The NM token an application master presents, carried in the gRPC metadata of every
//! ContainerManagementProtocol call.

use prost::Message;
use tonic::Request;
use tonic::metadata::{MetadataMap, MetadataValue};
use yarn_proto::pb;

use super::ContainerRefusal;

/// The gRPC metadata key (binary, so base64 on the wire) holding the caller's NM token: a
/// protobuf-encoded `TokenProto` of kind `NMToken`, as the RM issued it for this node. It stands
/// in for the token YARN's NodeManager reads from the caller's RPC credentials.
pub const NM_TOKEN_METADATA_KEY: &str = "x-yarn-ha-nm-token-bin";

/// Attaches `token`, the NM token the RM issued for the node being called, to `request` under
/// [`NM_TOKEN_METADATA_KEY`], replacing any token already attached.
pub fn insert_nm_token<T>(request: &mut Request<T>, token: &pb::TokenProto) {
    request.metadata_mut().insert_bin(
        NM_TOKEN_METADATA_KEY,
        MetadataValue::from_bytes(&token.encode_to_vec()),
    );
}

/// What a call carried under [`NM_TOKEN_METADATA_KEY`].
#[derive(Debug, Clone, PartialEq)]
pub(super) enum PresentedNmToken {
    /// Nothing.
    Missing,
    /// Something that is not an encoded `TokenProto`.
    Malformed {
        /// Why it could not be read.
        reason: String,
    },
    /// A token, not yet verified.
    Token(pb::TokenProto),
}

impl PresentedNmToken {
    /// Reads the token from a call's metadata.
    pub(super) fn from_metadata(metadata: &MetadataMap) -> Self {
        let Some(value) = metadata.get_bin(NM_TOKEN_METADATA_KEY) else {
            return Self::Missing;
        };
        let bytes = match value.to_bytes() {
            Ok(bytes) => bytes,
            Err(err) => {
                return Self::Malformed {
                    reason: format!("it is not valid base64: {err}"),
                };
            }
        };
        match pb::TokenProto::decode(bytes) {
            Ok(token) => Self::Token(token),
            Err(err) => Self::Malformed {
                reason: format!("it does not decode as a TokenProto: {err}"),
            },
        }
    }

    /// The token, to be checked against the application of a container.
    ///
    /// # Errors
    ///
    /// [`ContainerRefusal::MissingNmToken`] or [`ContainerRefusal::MalformedNmToken`].
    pub(super) fn token(&self) -> Result<&pb::TokenProto, ContainerRefusal> {
        match self {
            Self::Token(token) => Ok(token),
            Self::Missing => Err(ContainerRefusal::MissingNmToken),
            Self::Malformed { reason } => Err(ContainerRefusal::MalformedNmToken {
                reason: reason.clone(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_round_trips_through_the_metadata() {
        let token = pb::TokenProto {
            identifier: vec![1, 2, 3],
            password: vec![4, 5],
            kind: "NMToken".to_owned(),
            service: "h1:8041".to_owned(),
        };
        let mut request = Request::new(());
        insert_nm_token(&mut request, &token);
        assert_eq!(
            PresentedNmToken::from_metadata(request.metadata()),
            PresentedNmToken::Token(token)
        );
    }

    #[test]
    fn absent_and_garbled_tokens_are_told_apart() {
        let request = Request::new(());
        assert_eq!(
            PresentedNmToken::from_metadata(request.metadata()),
            PresentedNmToken::Missing
        );
        let mut request = Request::new(());
        request
            .metadata_mut()
            .insert_bin(NM_TOKEN_METADATA_KEY, MetadataValue::from_bytes(&[0xFF]));
        let presented = PresentedNmToken::from_metadata(request.metadata());
        assert!(
            matches!(&presented, PresentedNmToken::Malformed { reason } if reason.contains("TokenProto")),
            "{presented:?}"
        );
        assert!(matches!(
            presented.token(),
            Err(ContainerRefusal::MalformedNmToken { .. })
        ));
    }
}
