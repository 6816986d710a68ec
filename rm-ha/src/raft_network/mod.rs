//! The Raft transport between ResourceManager replicas: openraft's messages over gRPC
//! (`RaftService` in `raft_service.proto`) with mutual TLS.
//!
//! ```text
//! openraft ─▶ RaftGrpcNetwork ─(one cached Channel per peer, deadline = RPCOption soft TTL)─▶
//!   peer's Incoming (TLS) ─▶ RaftGrpcService: authorize (resourcemanager/<sender_rm_id>),
//!   check format version and target, decode ─▶ Raft::append_entries / vote / install_snapshot
//!   ─▶ postcard-encoded Result back in the response payload
//! ```
//!
//! Failure reporting to openraft: connection failures (`UNAVAILABLE`: refused or broken
//! connection) are `Unreachable`, so openraft backs off; a Raft error raised by the peer travels
//! typed in the payload and becomes `RemoteError`; anything else (a deadline on a live peer, a
//! refusal by the peer, an undecodable reply) is a `NetworkError`, retried without backoff.

mod append_batch;
mod election_hold;
mod election_state;
mod factory;
mod network;
mod peer_check;
mod pre_vote;
mod service;
mod wire;

pub use append_batch::MAX_APPEND_BYTES;
pub use election_hold::ElectionHold;
pub(crate) use election_state::{ElectionState, voter_view};
pub use factory::RaftGrpcNetworkFactory;
pub use network::RaftGrpcNetwork;
pub(crate) use pre_vote::grant;
pub use pre_vote::{HoldElection, PreVoteRefusal, PreVoteRequest, PreVoteResponse};
pub use service::RaftGrpcService;
pub use wire::{ElectionRefused, MAX_MESSAGE_BYTES, PAYLOAD_FORMAT_VERSION};
