//! Where tokens and protocol signals travel outside the message bodies: gRPC metadata keys, and
//! the environment and file through which a container receives its credentials.
//!
//! YARN carries an AM's AMRMToken and NM tokens in its RPC layer's SASL handshake; yarn-ha's
//! transport is mutual TLS, so the token travels beside each call as binary metadata instead,
//! and the server verifies it on every call.

use prost::Message;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Request, Status};

use crate::pb;

/// The binary metadata key holding the AMRMToken of the calling application attempt (an encoded
/// `TokenProto` of kind `YARN_AM_RM_TOKEN`) on every ApplicationMasterProtocol call.
pub const AMRM_TOKEN_METADATA_KEY: &str = "x-yarn-ha-amrm-token-bin";

/// The binary metadata key holding the caller's NM token (an encoded `TokenProto` of kind
/// `NMToken`, issued for the node being called) on every ContainerManagementProtocol call.
pub const NM_TOKEN_METADATA_KEY: &str = "x-yarn-ha-nm-token-bin";

/// The metadata key the leader sets on an allocate or finish refused because it holds no
/// registration for the calling attempt (YARN's `ApplicationMasterNotRegisteredException`),
/// typically right after a failover. The AM registers again and re-sends its outstanding asks.
pub const AM_NOT_REGISTERED_HEADER: &str = "x-yarn-ha-am-not-registered";

/// The metadata key the leader sets when it refuses the OPPORTUNISTIC containers an AMRMProxy
/// reported in `AllocateForDistributedScheduling`: the raw container numbers it refused,
/// comma-separated (empty when it could not name them). Nothing of the call was recorded or
/// served. The containers never reached their AM (a proxy hands them out only once the RM
/// accepted them), so the proxy drops the refused ones and calls again without them.
pub const REMOTE_CONTAINERS_REFUSED_HEADER: &str = "x-yarn-ha-remote-containers-refused";

/// The environment variable naming a container's token file, as in Hadoop.
pub const TOKEN_FILE_ENV: &str = "HADOOP_TOKEN_FILE_LOCATION";

/// The environment variable through which a NodeManager running an AMRMProxy tells the
/// ApplicationMaster it launched where the proxy listens (`host:port`): the AM talks the
/// ApplicationMasterProtocol to that address instead of the RMs, with the local AMRMToken the
/// NodeManager put in its token file.
pub const AMRM_PROXY_ADDRESS_ENV: &str = "YARN_AMRM_PROXY_ADDRESS";

/// The name of the token file the NodeManager writes into a container's working directory: the
/// launch context's `tokens`, a Hadoop credentials file (`HDTS`, see
/// `yarn_security::hadoop_credentials`).
pub const CONTAINER_TOKENS_FILE: &str = "container_tokens";

/// Attaches `token` to `request` under `key`, replacing any token already there.
pub fn insert_token<T>(request: &mut Request<T>, key: &'static str, token: &pb::TokenProto) {
    request
        .metadata_mut()
        .insert_bin(key, MetadataValue::from_bytes(&token.encode_to_vec()));
}

/// What a call carried under a token metadata key.
#[derive(Debug, Clone, PartialEq)]
pub enum PresentedToken {
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

impl PresentedToken {
    /// Reads the token under `key` from a call's metadata.
    pub fn from_metadata(metadata: &MetadataMap, key: &'static str) -> Self {
        let Some(value) = metadata.get_bin(key) else {
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
}

/// Whether `status` is the leader's "application master not registered" refusal.
pub fn is_not_registered(status: &Status) -> bool {
    status.metadata().contains_key(AM_NOT_REGISTERED_HEADER)
}

/// The "application master not registered" refusal of `attempt`, with `message` as its text.
pub fn not_registered(message: impl Into<String>) -> Status {
    let mut status = Status::failed_precondition(message);
    status
        .metadata_mut()
        .insert(AM_NOT_REGISTERED_HEADER, MetadataValue::from_static("true"));
    status
}

/// The refusal of the containers numbered `refused` that an AMRMProxy reported, an
/// `INVALID_ARGUMENT` with `message` as its text.
pub fn remote_containers_refused(message: impl Into<String>, refused: &[i64]) -> Status {
    let mut status = Status::invalid_argument(message);
    let numbers: Vec<String> = refused.iter().map(i64::to_string).collect();
    // Decimal digits and commas are always a valid ASCII metadata value.
    if let Ok(value) = MetadataValue::try_from(numbers.join(",")) {
        status
            .metadata_mut()
            .insert(REMOTE_CONTAINERS_REFUSED_HEADER, value);
    }
    status
}

/// The raw container numbers `status` refuses, when it is the leader's refusal of reported
/// OPPORTUNISTIC containers (see [`REMOTE_CONTAINERS_REFUSED_HEADER`]); numbers that do not
/// parse are left out.
pub fn refused_remote_containers(status: &Status) -> Option<Vec<i64>> {
    let value = status.metadata().get(REMOTE_CONTAINERS_REFUSED_HEADER)?;
    let text = value.to_str().unwrap_or_default();
    Some(
        text.split(',')
            .filter_map(|number| number.trim().parse().ok())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_survives_the_metadata_round_trip() {
        let token = pb::TokenProto {
            identifier: vec![1, 2, 3],
            password: vec![4, 5],
            kind: "YARN_AM_RM_TOKEN".to_owned(),
            service: "rm".to_owned(),
        };
        let mut request = Request::new(());
        insert_token(&mut request, AMRM_TOKEN_METADATA_KEY, &token);
        assert_eq!(
            PresentedToken::from_metadata(request.metadata(), AMRM_TOKEN_METADATA_KEY),
            PresentedToken::Token(token)
        );
        assert_eq!(
            PresentedToken::from_metadata(request.metadata(), NM_TOKEN_METADATA_KEY),
            PresentedToken::Missing
        );
    }

    #[test]
    fn garbage_under_the_key_is_malformed_with_the_reason() {
        let mut request = Request::new(());
        request.metadata_mut().insert_bin(
            AMRM_TOKEN_METADATA_KEY,
            MetadataValue::from_bytes(&[0xff, 0xff, 0xff]),
        );
        let presented = PresentedToken::from_metadata(request.metadata(), AMRM_TOKEN_METADATA_KEY);
        assert!(
            matches!(&presented, PresentedToken::Malformed { reason } if reason.contains("TokenProto")),
            "{presented:?}"
        );
    }

    #[test]
    fn only_the_not_registered_refusal_says_so() {
        assert!(is_not_registered(&not_registered(
            "attempt 1 is not registered"
        )));
        assert!(!is_not_registered(&Status::failed_precondition("other")));
    }

    #[test]
    fn a_refusal_of_reported_containers_names_them() {
        let status = remote_containers_refused("refused", &[7, 1 << 40]);
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(refused_remote_containers(&status), Some(vec![7, 1 << 40]));
        assert_eq!(
            refused_remote_containers(&remote_containers_refused("refused", &[])),
            Some(vec![])
        );
        assert_eq!(
            refused_remote_containers(&Status::invalid_argument("other")),
            None
        );
    }
}
