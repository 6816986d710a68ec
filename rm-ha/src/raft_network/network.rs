//! The client side of the Raft transport: openraft's view of one peer.

use openraft::error::{
    InstallSnapshotError, NetworkError, RPCError, RaftError, RemoteError, Unreachable,
};
use openraft::network::RPCOption;
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse,
    VoteRequest, VoteResponse,
};
use openraft::{AnyError, RaftNetwork};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};
use yarn_proto::pb::RaftRequestProto;
use yarn_proto::pb::raft_service_client::RaftServiceClient;

use super::append_batch::{BoundedAppend, MAX_APPEND_BYTES};
use super::pre_vote::{HoldElection, PreVoteRefusal, PreVoteRequest};
use super::wire::{self, ElectionRefused, MAX_MESSAGE_BYTES, PAYLOAD_FORMAT_VERSION, Part, Rpc};
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig};

/// What openraft gets back from one peer call.
type RpcResult<T, E> = Result<T, RPCError<RmNodeId, RmNode, E>>;

/// One peer as openraft sees it, made by
/// [`RaftGrpcNetworkFactory`](super::RaftGrpcNetworkFactory) over the peer's shared channel.
///
/// An AppendEntries carries at most [`MAX_APPEND_BYTES`] of entries (or one larger entry); a
/// success for the part sent is reported to openraft as a partial success, and it sends the rest
/// next.
///
/// Every call carries a deadline of openraft's soft TTL for it (`RPCOption::soft_ttl`), so it
/// ends, with `Unreachable`, before openraft's hard TTL gives up on it. Results:
/// - the peer's answer, decoded from the response payload;
/// - `RemoteError` when the peer's openraft returned an error (it travels typed);
/// - `Unreachable` when the peer cannot be reached (refused or broken connection, `UNAVAILABLE`)
///   or its address is unusable, so openraft backs off;
/// - `NetworkError` for any other status (a deadline passed on a live peer, a refusal by the
///   peer's service, e.g. a certificate name that does not match) and for a reply that does not
///   decode, so openraft retries at its next tick without backing off.
#[derive(Debug)]
pub struct RaftGrpcNetwork {
    sender_rm_id: String,
    target: RmNodeId,
    target_node: RmNode,
    /// The channel, or why none could be built for the peer's address.
    channel: Result<Channel, AnyError>,
}

impl RaftGrpcNetwork {
    pub(super) fn new(
        sender_rm_id: String,
        target: RmNodeId,
        target_node: RmNode,
        channel: Result<Channel, yarn_security::Error>,
    ) -> Self {
        Self {
            sender_rm_id,
            target,
            target_node,
            channel: channel.map_err(|e| AnyError::new(&e)),
        }
    }

    async fn call<Req, T, E>(&self, rpc: Rpc, request: &Req, option: &RPCOption) -> RpcResult<T, E>
    where
        Req: Serialize,
        T: DeserializeOwned,
        E: std::error::Error + DeserializeOwned,
    {
        let channel = self
            .channel
            .clone()
            .map_err(|e| RPCError::Unreachable(Unreachable::from(e)))?;
        let payload = wire::encode(rpc, Part::Request, request)
            .map_err(|e| RPCError::Network(NetworkError::new(&e)))?;
        let mut request = Request::new(RaftRequestProto {
            sender_rm_id: self.sender_rm_id.clone(),
            target_rm_id: self.target_node.rm_id.clone(),
            format_version: PAYLOAD_FORMAT_VERSION,
            payload,
        });
        request.set_timeout(option.soft_ttl());
        let mut client = RaftServiceClient::new(channel)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        let reply = match rpc {
            Rpc::AppendEntries => client.append_entries(request).await,
            Rpc::Vote => client.vote(request).await,
            Rpc::InstallSnapshot => client.install_snapshot(request).await,
            Rpc::TimeoutNow => client.timeout_now(request).await,
            Rpc::PreVote => client.pre_vote(request).await,
            Rpc::HoldElection => client.hold_election(request).await,
        }
        .map_err(|status| self.status_error(rpc, status))?
        .into_inner();
        let result: Result<T, E> =
            wire::decode(rpc, Part::Response, reply.format_version, &reply.payload)
                .map_err(|e| RPCError::Network(NetworkError::new(&e)))?;
        result.map_err(|e| {
            RPCError::RemoteError(RemoteError::new_with_node(
                self.target,
                self.target_node.clone(),
                e,
            ))
        })
    }

    /// Sorts a failed call into what openraft should do about it.
    fn status_error<E: std::error::Error>(
        &self,
        rpc: Rpc,
        status: Status,
    ) -> RPCError<RmNodeId, RmNode, E> {
        let code = status.code();
        let error = PeerCallFailed {
            rpc,
            peer: self.target_node.rm_id.clone(),
            address: self.target_node.raft_address.clone(),
            status,
        };
        match code {
            // tonic reports a connection failure as UNAVAILABLE: the peer is down, back off.
            Code::Unavailable => RPCError::Unreachable(Unreachable::new(&error)),
            // A deadline (tonic's own is CANCELLED, the peer's DEADLINE_EXCEEDED) means a live
            // peer answered slowly, for instance while flushing a large append. openraft 0.9
            // bounds AppendEntries by the heartbeat interval and backs off for 500 ms after an
            // Unreachable; backing off here would withhold heartbeats from a healthy follower
            // until it started an election. A plain network error is retried at the next tick.
            _ => RPCError::Network(NetworkError::new(&error)),
        }
    }
}

/// A call that ended in a gRPC status, with the peer it was for.
#[derive(Debug, thiserror::Error)]
#[error("Raft {rpc} to {peer} at {address} failed: {status}")]
struct PeerCallFailed {
    rpc: Rpc,
    peer: String,
    address: String,
    status: Status,
}

impl RaftGrpcNetwork {
    /// Sends Raft's `TimeoutNow`: the peer starts an election at once. Used only by a leader
    /// transferring its leadership to this peer.
    ///
    /// # Errors
    ///
    /// As for openraft's calls; `RemoteError` when the peer could not start an election.
    pub async fn timeout_now(&self, option: RPCOption) -> RpcResult<(), ElectionRefused> {
        self.call(Rpc::TimeoutNow, &(), &option).await
    }

    /// Asks the peer for a pre-vote (see [`PreVoteRequest`]).
    ///
    /// # Errors
    ///
    /// As for openraft's calls; `RemoteError` with the peer's refusal when it would not vote.
    pub async fn pre_vote(
        &self,
        request: &PreVoteRequest,
        option: RPCOption,
    ) -> RpcResult<(), PreVoteRefusal> {
        self.call(Rpc::PreVote, request, &option).await
    }

    /// Asks the peer to hold elections during a leadership transfer (see [`HoldElection`]).
    ///
    /// # Errors
    ///
    /// As for openraft's calls; the peer itself never refuses a hold.
    pub async fn hold_election(
        &self,
        request: &HoldElection,
        option: RPCOption,
    ) -> RpcResult<(), ElectionRefused> {
        self.call(Rpc::HoldElection, request, &option).await
    }
}

impl RaftNetwork<RmTypeConfig> for RaftGrpcNetwork {
    async fn append_entries(
        &mut self,
        rpc: AppendEntriesRequest<RmTypeConfig>,
        option: RPCOption,
    ) -> RpcResult<AppendEntriesResponse<RmNodeId>, RaftError<RmNodeId>> {
        let bounded = BoundedAppend::new(rpc, MAX_APPEND_BYTES);
        let response = self
            .call(Rpc::AppendEntries, &bounded.request, &option)
            .await?;
        Ok(bounded.answer(response))
    }

    async fn install_snapshot(
        &mut self,
        rpc: InstallSnapshotRequest<RmTypeConfig>,
        option: RPCOption,
    ) -> RpcResult<InstallSnapshotResponse<RmNodeId>, RaftError<RmNodeId, InstallSnapshotError>>
    {
        self.call(Rpc::InstallSnapshot, &rpc, &option).await
    }

    async fn vote(
        &mut self,
        rpc: VoteRequest<RmNodeId>,
        option: RPCOption,
    ) -> RpcResult<VoteResponse<RmNodeId>, RaftError<RmNodeId>> {
        self.call(Rpc::Vote, &rpc, &option).await
    }
}

#[cfg(test)]
mod tests {
    use openraft::Vote;
    use yarn_security::{ChannelOptions, connect_lazy};

    use super::*;

    fn network_to(address: &str) -> RaftGrpcNetwork {
        let node = RmNode {
            rm_id: "rm2".to_owned(),
            raft_address: address.to_owned(),
        };
        let channel = connect_lazy(address, None, &ChannelOptions::default());
        RaftGrpcNetwork::new("rm1".to_owned(), 2, node, channel)
    }

    async fn vote(
        network: &mut RaftGrpcNetwork,
    ) -> RpcResult<VoteResponse<RmNodeId>, RaftError<RmNodeId>> {
        let option = RPCOption::new(std::time::Duration::from_secs(5));
        network
            .vote(VoteRequest::new(Vote::new(1, 1), None), option)
            .await
    }

    // A tokio test only because building a channel needs a runtime.
    #[tokio::test]
    async fn only_connection_failures_are_unreachable() {
        let network = network_to("127.0.0.1:8035");
        let error: RPCError<_, _, RaftError<RmNodeId>> =
            network.status_error(Rpc::Vote, Status::unavailable("gone"));
        assert!(matches!(error, RPCError::Unreachable(_)), "{error:?}");
        // A slow but live peer must not be backed off from: that would starve it of heartbeats.
        for code in [Code::DeadlineExceeded, Code::Cancelled] {
            let error: RPCError<_, _, RaftError<RmNodeId>> =
                network.status_error(Rpc::AppendEntries, Status::new(code, "slow"));
            assert!(matches!(error, RPCError::Network(_)), "{code:?}: {error:?}");
        }
        let error: RPCError<_, _, RaftError<RmNodeId>> =
            network.status_error(Rpc::AppendEntries, Status::permission_denied("not you"));
        let RPCError::Network(error) = error else {
            panic!("a refusal must be a network error: {error:?}");
        };
        let message = error.to_string();
        assert!(
            message.contains("AppendEntries")
                && message.contains("rm2")
                && message.contains("127.0.0.1:8035"),
            "{message}"
        );
    }

    #[tokio::test]
    async fn a_peer_refusing_connections_is_unreachable() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        drop(listener);
        let result = vote(&mut network_to(&address)).await;
        assert!(
            matches!(result, Err(RPCError::Unreachable(_))),
            "{result:?}"
        );
    }

    #[tokio::test]
    async fn an_unusable_address_is_unreachable() {
        let result = vote(&mut network_to("no-port-here")).await;
        let Err(RPCError::Unreachable(error)) = result else {
            panic!("expected Unreachable: {result:?}");
        };
        assert!(error.to_string().contains("no-port-here"), "{error}");
    }
}
