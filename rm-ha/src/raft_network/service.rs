//! The server side of the Raft transport.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use openraft::Raft;
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, VoteRequest,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tonic::{Request, Response, Status};
use yarn_proto::pb::raft_service_server::{RaftService, RaftServiceServer};
use yarn_proto::pb::{RaftRequestProto, RaftResponseProto};
use yarn_security::{Authorizer, Caller, Role};

use super::election_hold::ElectionHold;
use super::peer_check::{self, Claim, PeerRefusal, ReceiverView};
use super::pre_vote::{HoldElection, PreVoteRequest, PreVoteResponse};
use super::wire::{
    self, ElectionRefused, MAX_MESSAGE_BYTES, PAYLOAD_FORMAT_VERSION, Part, Rpc, WireError,
};
use super::{grant, voter_view};
use crate::raft_types::{RmNodeId, RmTypeConfig, node_id_of};

/// The protocol name quoted in role refusals.
const ENDPOINT: &str = "Raft";

/// `RaftService` over one replica's [`Raft`]: hands peers' messages to openraft and returns its
/// answers.
///
/// Every call is checked before openraft sees it:
/// - the caller must present a `resourcemanager` certificate (`PERMISSION_DENIED` otherwise,
///   `UNAUTHENTICATED` without one) whose name equals the request's `sender_rm_id`
///   (`PERMISSION_DENIED` naming the presented and the claimed id), so a replica cannot speak
///   for another; over plaintext (`yarn.tls.enabled=false`) there is no name to compare and
///   the claim is taken as is;
/// - `target_rm_id` must be this replica's rm-id (`FAILED_PRECONDITION` naming both), which
///   catches a sender with a stale address book;
/// - `format_version` must be [`PAYLOAD_FORMAT_VERSION`] (`FAILED_PRECONDITION` naming it, as
///   `raft_service.proto` specifies);
/// - the payload must decode as the RPC's openraft request (`INVALID_ARGUMENT` naming the RPC);
/// - the sender must be a voter or learner of the membership this replica knows (its log's
///   latest membership config) or a configured member (`yarn.resourcemanager.ha.rm-ids`, which
///   lets a replica whose log is behind a membership change hear a leader added since),
///   the leader or candidate vote inside the payload must be the sender's own, and TimeoutNow
///   and HoldElection must come from the leader this replica follows in its current term (a
///   TimeoutNow also from the leader it last heard, while it follows none)
///   (`PERMISSION_DENIED` naming who sent what; see `peer_check`). A HoldElection's duration
///   is capped at [`HoldElection::max_duration`] under this replica's timings.
///
/// A refused call changes nothing: openraft never sees it.
///
/// openraft's own result, success or `RaftError`, is returned in the response payload.
#[derive(Clone)]
pub struct RaftGrpcService {
    raft: Raft<RmTypeConfig>,
    rm_id: String,
    /// The configured rm-ids by node id, heard beside the log's membership.
    configured: BTreeMap<RmNodeId, String>,
    /// The leader whose AppendEntries this replica last admitted, for a transfer's TimeoutNow.
    last_heard_leader: Arc<Mutex<Option<RmNodeId>>>,
    authorizer: Authorizer,
    hold: ElectionHold,
}

impl std::fmt::Debug for RaftGrpcService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RaftGrpcService")
            .field("rm_id", &self.rm_id)
            .field("authorizer", &self.authorizer)
            .finish_non_exhaustive()
    }
}

impl RaftGrpcService {
    /// The service of the replica `rm_id`, refusing callers as `authorizer` says. It hears the
    /// members of its log's latest membership and `configured_rm_ids`
    /// (`yarn.resourcemanager.ha.rm-ids`), so that the group's leader can bring a replica with
    /// no Raft state, or one behind a membership change, up to date.
    pub fn new(
        raft: Raft<RmTypeConfig>,
        rm_id: impl Into<String>,
        configured_rm_ids: impl IntoIterator<Item = String>,
        authorizer: Authorizer,
    ) -> Self {
        Self {
            raft,
            rm_id: rm_id.into(),
            configured: configured_rm_ids
                .into_iter()
                .map(|id| (node_id_of(&id), id))
                .collect(),
            authorizer,
            last_heard_leader: Arc::default(),
            hold: ElectionHold::default(),
        }
    }

    /// The hold this service records leaders' [`HoldElection`] requests in, for the replica's
    /// election timer to share.
    pub fn election_hold(&self) -> ElectionHold {
        self.hold.clone()
    }

    /// The tonic service, with message limits raised to [`MAX_MESSAGE_BYTES`] so that snapshot
    /// chunks fit.
    pub fn into_server(self) -> RaftServiceServer<Self> {
        RaftServiceServer::new(self)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES)
    }

    /// What this replica knows about its group now, from its Raft metrics.
    fn receiver_view(&self) -> ReceiverView {
        let metrics = self.raft.metrics();
        let metrics = metrics.borrow();
        let (members, source) = peer_check::known_members(
            metrics
                .membership_config
                .membership()
                .nodes()
                .map(|(id, node)| (*id, node.rm_id.as_str())),
            &self.configured,
        );
        ReceiverView {
            members,
            source,
            term: metrics.current_term,
            leader: metrics
                .vote
                .is_committed()
                .then(|| metrics.vote.leader_id().voted_for())
                .flatten(),
            last_heard_leader: *self
                .last_heard_leader
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        }
    }

    /// Runs every check above: decodes the payload, then hears it only if `claim_of` the payload
    /// is one the sender may make.
    fn admit<T: DeserializeOwned>(
        &self,
        rpc: Rpc,
        request: &Request<RaftRequestProto>,
        claim_of: impl FnOnce(&T) -> Claim,
    ) -> Result<T, Status> {
        let payload: T = self.decode(rpc, request)?;
        let sender = &request.get_ref().sender_rm_id;
        peer_check::check(&self.receiver_view(), sender, claim_of(&payload)).map_err(
            |refusal| {
                tracing::warn!(%refusal, "refused a Raft message");
                Refusal::Peer(refusal)
            },
        )?;
        Ok(payload)
    }

    /// Authenticates the caller, checks the target and the format, and decodes the payload.
    fn decode<T: DeserializeOwned>(
        &self,
        rpc: Rpc,
        request: &Request<RaftRequestProto>,
    ) -> Result<T, Status> {
        let caller = self
            .authorizer
            .authorize(request, &[Role::ResourceManager], ENDPOINT)?;
        let message = request.get_ref();
        if let Caller::Peer(identity) = caller
            && identity.name != message.sender_rm_id
        {
            return Err(Refusal::ImpersonatedPeer {
                rpc,
                presented: identity.name,
                claimed: message.sender_rm_id.clone(),
            }
            .into());
        }
        if message.target_rm_id != self.rm_id {
            return Err(Refusal::WrongTarget {
                rpc,
                sender: message.sender_rm_id.clone(),
                target: message.target_rm_id.clone(),
                own: self.rm_id.clone(),
            }
            .into());
        }
        wire::decode(rpc, Part::Request, message.format_version, &message.payload)
            .map_err(|e| Refusal::Wire(e).into())
    }

    fn respond<T: Serialize>(
        &self,
        rpc: Rpc,
        result: &T,
    ) -> Result<Response<RaftResponseProto>, Status> {
        let payload = wire::encode(rpc, Part::Response, result).map_err(Refusal::Wire)?;
        Ok(Response::new(RaftResponseProto {
            sender_rm_id: self.rm_id.clone(),
            format_version: PAYLOAD_FORMAT_VERSION,
            payload,
        }))
    }
}

#[tonic::async_trait]
impl RaftService for RaftGrpcService {
    async fn append_entries(
        &self,
        request: Request<RaftRequestProto>,
    ) -> Result<Response<RaftResponseProto>, Status> {
        let rpc = Rpc::AppendEntries;
        let append = self.admit(rpc, &request, |a: &AppendEntriesRequest<RmTypeConfig>| {
            Claim::Leader {
                rpc,
                voted_for: a.vote.leader_id().voted_for(),
            }
        })?;
        let leader = append.vote.leader_id().voted_for();
        let result = self.raft.append_entries(append).await;
        if matches!(
            result,
            Ok(AppendEntriesResponse::Success | AppendEntriesResponse::PartialSuccess(_))
        ) {
            *self
                .last_heard_leader
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = leader;
        }
        self.respond(rpc, &result)
    }

    async fn vote(
        &self,
        request: Request<RaftRequestProto>,
    ) -> Result<Response<RaftResponseProto>, Status> {
        let rpc = Rpc::Vote;
        let vote = self.admit(rpc, &request, |v: &VoteRequest<RmNodeId>| {
            Claim::Candidate {
                voted_for: v.vote.leader_id().voted_for(),
            }
        })?;
        let result = self.raft.vote(vote).await;
        self.respond(rpc, &result)
    }

    async fn install_snapshot(
        &self,
        request: Request<RaftRequestProto>,
    ) -> Result<Response<RaftResponseProto>, Status> {
        let rpc = Rpc::InstallSnapshot;
        let chunk = self.admit(rpc, &request, |c: &InstallSnapshotRequest<RmTypeConfig>| {
            Claim::Leader {
                rpc,
                voted_for: c.vote.leader_id().voted_for(),
            }
        })?;
        let result = self.raft.install_snapshot(chunk).await;
        self.respond(rpc, &result)
    }

    async fn timeout_now(
        &self,
        request: Request<RaftRequestProto>,
    ) -> Result<Response<RaftResponseProto>, Status> {
        let rpc = Rpc::TimeoutNow;
        let () = self.admit(rpc, &request, |()| Claim::TimeoutNow)?;
        tracing::info!(
            from = %request.get_ref().sender_rm_id,
            "TimeoutNow: starting an election for a leadership transfer"
        );
        let result = self
            .raft
            .trigger()
            .elect()
            .await
            .map_err(|fatal| ElectionRefused {
                message: format!("{} cannot start an election: {fatal}", self.rm_id),
            });
        self.respond(rpc, &result)
    }

    async fn pre_vote(
        &self,
        request: Request<RaftRequestProto>,
    ) -> Result<Response<RaftResponseProto>, Status> {
        let rpc = Rpc::PreVote;
        let asked: PreVoteRequest = self.admit(rpc, &request, |_| Claim::PreVote)?;
        let lease = std::time::Duration::from_millis(self.raft.config().election_timeout_max);
        let view = voter_view(&self.raft, &self.rm_id, &self.hold)
            .await
            .map_err(|fatal| Status::unavailable(format!("{}: {fatal}", self.rm_id)))?;
        let answer: PreVoteResponse = grant(&view, &asked, lease);
        tracing::debug!(
            from = %request.get_ref().sender_rm_id,
            term = asked.term,
            ?answer,
            "PreVote"
        );
        self.respond(rpc, &answer)
    }

    async fn hold_election(
        &self,
        request: Request<RaftRequestProto>,
    ) -> Result<Response<RaftResponseProto>, Status> {
        let rpc = Rpc::HoldElection;
        let hold = self.admit(rpc, &request, |h: &HoldElection| Claim::HoldElection {
            term: h.term,
        })?;
        let config = self.raft.config();
        let hold = hold.capped(HoldElection::max_duration(
            Duration::from_millis(config.election_timeout_max),
            Duration::from_millis(config.heartbeat_interval),
        ));
        tracing::info!(
            from = %request.get_ref().sender_rm_id,
            term = hold.term,
            duration = ?hold.duration,
            "holding elections for a leadership transfer"
        );
        self.hold.hold(&hold, tokio::time::Instant::now());
        self.respond(rpc, &Ok::<(), ElectionRefused>(()))
    }
}

/// Why the service refused a call before or after openraft handled it.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error(
        "{rpc} refused: the caller presented the certificate of resourcemanager {presented:?} \
         but claims to be {claimed:?}"
    )]
    ImpersonatedPeer {
        rpc: Rpc,
        presented: String,
        claimed: String,
    },
    #[error(
        "{rpc} from {sender:?} refused: it is addressed to {target:?} but this replica is \
         {own:?} (stale address of a peer?)"
    )]
    WrongTarget {
        rpc: Rpc,
        sender: String,
        target: String,
        own: String,
    },
    #[error(transparent)]
    Wire(WireError),
    #[error(transparent)]
    Peer(PeerRefusal),
}

impl From<Refusal> for Status {
    /// The one place the service turns its refusals into gRPC statuses.
    fn from(refusal: Refusal) -> Self {
        let message = refusal.to_string();
        match refusal {
            Refusal::ImpersonatedPeer { .. } | Refusal::Peer(_) => {
                Status::permission_denied(message)
            }
            Refusal::WrongTarget { .. } | Refusal::Wire(WireError::UnknownFormatVersion { .. }) => {
                Status::failed_precondition(message)
            }
            Refusal::Wire(WireError::Decode { .. }) => Status::invalid_argument(message),
            // openraft's own values failing to encode is a bug on this side, not the caller's.
            Refusal::Wire(WireError::Encode { .. }) => Status::internal(message),
        }
    }
}
