//! The payload encoding shared by both ends of the Raft transport.

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The version of the payload encoding this binary writes and reads: postcard-encoded openraft
/// 0.9 values. A peer sending any other version is refused rather than misread.
pub const PAYLOAD_FORMAT_VERSION: u32 = 1;

/// The largest gRPC message either end accepts or sends. It must hold a whole snapshot chunk
/// (openraft's `snapshot_max_chunk_size`, 3 MiB by default) or a batch of entries plus
/// encoding overhead; tonic's own 4 MiB default would be too tight.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The RPCs of `RaftService`, named in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rpc {
    AppendEntries,
    Vote,
    InstallSnapshot,
    TimeoutNow,
    PreVote,
    HoldElection,
}

impl fmt::Display for Rpc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rpc::AppendEntries => "AppendEntries",
            Rpc::Vote => "Vote",
            Rpc::InstallSnapshot => "InstallSnapshot",
            Rpc::TimeoutNow => "TimeoutNow",
            Rpc::PreVote => "PreVote",
            Rpc::HoldElection => "HoldElection",
        })
    }
}

/// A replica's refusal to start the election a `TimeoutNow` asked for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ElectionRefused {
    /// Why, as the refusing replica put it.
    pub message: String,
}

/// Which half of an exchange a payload belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Request,
    Response,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Request => "request",
            Part::Response => "response",
        })
    }
}

/// A payload that could not be written or read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WireError {
    /// postcard could not encode the value.
    #[error("cannot encode the {rpc} {part} payload: {source}")]
    Encode {
        rpc: Rpc,
        part: Part,
        source: postcard::Error,
    },
    /// The bytes are not a value of the expected type.
    #[error("cannot decode the {rpc} {part} payload: {source}")]
    Decode {
        rpc: Rpc,
        part: Part,
        source: postcard::Error,
    },
    /// The peer uses an encoding version this binary does not read.
    #[error(
        "{rpc} {part} has payload format version {found}; this replica reads only version \
         {PAYLOAD_FORMAT_VERSION}"
    )]
    UnknownFormatVersion { rpc: Rpc, part: Part, found: u32 },
}

pub(crate) fn encode<T: Serialize>(rpc: Rpc, part: Part, value: &T) -> Result<Vec<u8>, WireError> {
    postcard::to_stdvec(value).map_err(|source| WireError::Encode { rpc, part, source })
}

/// Decodes `payload` after checking that `format_version` is the one this binary reads.
pub(crate) fn decode<T: DeserializeOwned>(
    rpc: Rpc,
    part: Part,
    format_version: u32,
    payload: &[u8],
) -> Result<T, WireError> {
    if format_version != PAYLOAD_FORMAT_VERSION {
        return Err(WireError::UnknownFormatVersion {
            rpc,
            part,
            found: format_version,
        });
    }
    postcard::from_bytes(payload).map_err(|source| WireError::Decode { rpc, part, source })
}

#[cfg(test)]
mod tests {
    use openraft::raft::{AppendEntriesRequest, InstallSnapshotRequest, VoteRequest};
    use proptest::prelude::*;

    use super::*;
    use crate::raft_network::{HoldElection, PreVoteRequest};
    use crate::raft_types::{RmNodeId, RmTypeConfig};

    /// Decodes `bytes` as every request a peer may send; each must be a value or an error.
    fn decode_every_request(bytes: &[u8]) {
        let v = PAYLOAD_FORMAT_VERSION;
        let _ = decode::<AppendEntriesRequest<RmTypeConfig>>(
            Rpc::AppendEntries,
            Part::Request,
            v,
            bytes,
        );
        let _ = decode::<VoteRequest<RmNodeId>>(Rpc::Vote, Part::Request, v, bytes);
        let _ = decode::<InstallSnapshotRequest<RmTypeConfig>>(
            Rpc::InstallSnapshot,
            Part::Request,
            v,
            bytes,
        );
        let _ = decode::<PreVoteRequest>(Rpc::PreVote, Part::Request, v, bytes);
        let _ = decode::<HoldElection>(Rpc::HoldElection, Part::Request, v, bytes);
        let _ = decode::<()>(Rpc::TimeoutNow, Part::Request, v, bytes);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// No payload, however malformed, panics a decoder: a peer's garbage is an error.
        #[test]
        fn arbitrary_bytes_decode_to_a_value_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
            decode_every_request(&bytes);
        }

        /// The same for garbage behind a valid prefix, which reaches deeper into the decoders.
        #[test]
        fn a_valid_request_with_a_corrupted_tail_decodes_or_errs(
            term in any::<u64>(),
            cut in 0_usize..64,
            tail in proptest::collection::vec(any::<u8>(), 0..256),
        ) {
            let request: VoteRequest<RmNodeId> = VoteRequest::new(openraft::Vote::new(term, 7), None);
            let mut bytes = encode(Rpc::Vote, Part::Request, &request).unwrap();
            bytes.truncate(cut.min(bytes.len()));
            bytes.extend(tail);
            decode_every_request(&bytes);
        }
    }

    #[test]
    fn an_unknown_format_version_is_refused_before_decoding() {
        let error = decode::<()>(Rpc::TimeoutNow, Part::Request, 2, &[]).unwrap_err();
        assert!(matches!(
            error,
            WireError::UnknownFormatVersion { found: 2, .. }
        ));
    }
}
