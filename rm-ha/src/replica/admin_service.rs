//! ResourceManagerAdministrationProtocol: what `yarn-ha rmadmin` talks to.

use std::collections::BTreeSet;
use std::str::FromStr;
use std::time::Duration;

use openraft::error::{ClientWriteError, RaftError};
use openraft::{ChangeMembers, Raft, RaftMetrics, ServerState};
use tonic::{Request, Response, Status};
use yarn_conf::HostPort;
use yarn_proto::pb::resource_manager_administration_protocol_server::ResourceManagerAdministrationProtocol;
use yarn_proto::pb::{
    AddRaftMemberRequestProto, AddRaftMemberResponseProto, GetClusterMembershipRequestProto,
    GetClusterMembershipResponseProto, GetStateDigestRequestProto, GetStateDigestResponseProto,
    HaServiceStateProto, HaServiceStatusRequestProto, HaServiceStatusResponseProto,
    MonitorHealthRequestProto, MonitorHealthResponseProto, RaftMemberProto,
    RefreshAdminAclsRequestProto, RefreshAdminAclsResponseProto, RefreshNodesRequestProto,
    RefreshNodesResponseProto, RefreshQueuesRequestProto, RefreshQueuesResponseProto,
    RemoveRaftMemberRequestProto, RemoveRaftMemberResponseProto, TransferLeadershipRequestProto,
    TransferLeadershipResponseProto,
};
use yarn_security::{Authorizer, Caller, Role};

use super::leader_gate::{LeaderGate, Serving};
use super::leadership_monitor::leader_rm_id;
use super::leadership_transfer::LeadershipTransfer;
use super::proposer::Proposer;
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig, node_id_of};
use crate::scheduling::{QueueConfigSource, QueueRefresh};
use crate::state_machine::{RmCommand, RmResponse, StateView};

/// The protocol name quoted in role refusals.
const ENDPOINT: &str = "admin";

/// The work item that brings node refreshes, named in their refusals.
const SCHEDULER_WORK_ITEM: &str = "NodeManager decommissioning (include/exclude lists)";

/// The admin service of one replica.
///
/// Authorization: every call needs a `user` certificate whose name `yarn.admin.acl` allows
/// (`PERMISSION_DENIED` naming the user and the ACL otherwise). Status, health, membership and
/// the state digest are answered by any replica from its own view; membership changes and
/// leadership transfer are leader-only ([`LeaderGate`]).
pub(crate) struct AdminService {
    pub(crate) rm_id: String,
    pub(crate) node_id: RmNodeId,
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) gate: LeaderGate,
    pub(crate) authorizer: Authorizer,
    pub(crate) transfer: LeadershipTransfer,
    /// Bound on a learner catching up before it is made a voter.
    pub(crate) catch_up_timeout: Duration,
    /// Proposes queue refreshes.
    pub(crate) proposer: Proposer,
    /// The replicated state a refresh is checked against and the state digest is taken of.
    pub(crate) state: StateView,
    /// The leader's `capacity-scheduler.xml`.
    pub(crate) queues: QueueConfigSource,
}

impl AdminService {
    /// Checks `yarn.admin.acl` whatever `yarn.acl.enable` says, as YARN's admin service does;
    /// group entries match the groups `hadoop.security.group.mapping` finds for the caller.
    async fn authorize<T>(&self, request: &Request<T>) -> Result<(), Status> {
        let Caller::Peer(identity) = self
            .authorizer
            .authorize(request, &[Role::User], ENDPOINT)?
        else {
            return Ok(());
        };
        let acl = &self.queues.settings.admin_acl;
        if acl.is_allowed(&identity.name, &[]) {
            return Ok(());
        }
        let groups = self.queues.groups.clone();
        let user = identity.name.clone();
        // The host's name service may block; a lookup that panicked counts as no groups.
        let groups = tokio::task::spawn_blocking(move || groups.groups_of(&user))
            .await
            .unwrap_or_default();
        if acl.is_allowed(&identity.name, &groups) {
            return Ok(());
        }
        Err(Status::permission_denied(format!(
            "user {} (groups: {}) is not allowed to administer the ResourceManager \
             (yarn.admin.acl = {:?})",
            identity.name,
            if groups.is_empty() {
                "none".to_string()
            } else {
                groups.join(",")
            },
            acl.to_string()
        )))
    }

    fn metrics(&self) -> RaftMetrics<RmNodeId, RmNode> {
        self.raft.metrics().borrow().clone()
    }

    fn membership(&self) -> GetClusterMembershipResponseProto {
        let metrics = self.metrics();
        let membership = metrics.membership_config.membership();
        let voters: BTreeSet<RmNodeId> = membership.voter_ids().collect();
        let mut members: Vec<RaftMemberProto> = membership
            .nodes()
            .map(|(id, node)| RaftMemberProto {
                rm_id: node.rm_id.clone(),
                raft_address: node.raft_address.clone(),
                voter: voters.contains(id),
            })
            .collect();
        members.sort_by(|a, b| a.rm_id.cmp(&b.rm_id));
        GetClusterMembershipResponseProto {
            members,
            leader_rm_id: leader_rm_id(&metrics).unwrap_or_default(),
            current_term: metrics.current_term,
        }
    }

    /// Maps a failed membership change; a not-leader answer means nothing was appended.
    fn change_failed(
        &self,
        what: &str,
        err: RaftError<RmNodeId, ClientWriteError<RmNodeId, RmNode>>,
    ) -> Status {
        match err {
            RaftError::APIError(ClientWriteError::ForwardToLeader(forward)) => {
                let leader = forward.leader_node.map(|node| node.rm_id);
                self.gate.refusal(leader.as_deref())
            }
            RaftError::APIError(ClientWriteError::ChangeMembershipError(err)) => {
                Status::failed_precondition(format!("{what} refused: {err}"))
            }
            RaftError::Fatal(fatal) => Status::internal(format!(
                "{what} failed: Raft stopped on {}: {fatal}",
                self.rm_id
            )),
        }
    }
}

#[tonic::async_trait]
impl ResourceManagerAdministrationProtocol for AdminService {
    async fn get_service_status(
        &self,
        request: Request<HaServiceStatusRequestProto>,
    ) -> Result<Response<HaServiceStatusResponseProto>, Status> {
        self.authorize(&request).await?;
        let metrics = self.metrics();
        let state = match self.gate.serving() {
            Serving::Leader(_) => HaServiceStateProto::Active,
            Serving::NotLeader { .. } => HaServiceStateProto::Standby,
        };
        let voter = metrics
            .membership_config
            .membership()
            .voter_ids()
            .any(|id| id == self.node_id);
        let not_ready_reason = match (&metrics.running_state, voter) {
            (Err(fatal), _) => format!("Raft stopped: {fatal}"),
            (Ok(()), false) => "not a voter of the Raft group".to_owned(),
            (Ok(()), true) => String::new(),
        };
        Ok(Response::new(HaServiceStatusResponseProto {
            state: state.into(),
            ready_to_become_active: not_ready_reason.is_empty(),
            not_ready_reason,
            rm_id: self.rm_id.clone(),
            leader_rm_id: leader_rm_id(&metrics).unwrap_or_default(),
            current_term: metrics.current_term,
            last_applied_index: metrics.last_applied.map_or(0, |id| id.index),
        }))
    }

    /// This replica's state digest with the log position it reflects, read together (see
    /// [`StateView::digest`]); never waits for the leader, so a follower reports where it
    /// stands, behind or not.
    async fn get_state_digest(
        &self,
        request: Request<GetStateDigestRequestProto>,
    ) -> Result<Response<GetStateDigestResponseProto>, Status> {
        self.authorize(&request).await?;
        let digest = self.state.digest().map_err(|err| {
            Status::internal(format!("{} cannot digest its state: {err}", self.rm_id))
        })?;
        let (applied_index, applied_term) = digest
            .applied
            .map_or((0, 0), |position| (position.index, position.term));
        Ok(Response::new(GetStateDigestResponseProto {
            rm_id: self.rm_id.clone(),
            applied_index,
            applied_term,
            digest: digest.hex(),
        }))
    }

    async fn monitor_health(
        &self,
        request: Request<MonitorHealthRequestProto>,
    ) -> Result<Response<MonitorHealthResponseProto>, Status> {
        self.authorize(&request).await?;
        let metrics = self.metrics();
        if let Err(fatal) = &metrics.running_state {
            return Err(Status::failed_precondition(format!(
                "{} is unhealthy: its Raft node stopped: {fatal}",
                self.rm_id
            )));
        }
        if metrics.state == ServerState::Shutdown {
            return Err(Status::failed_precondition(format!(
                "{} is unhealthy: it is shutting down",
                self.rm_id
            )));
        }
        Ok(Response::new(MonitorHealthResponseProto {}))
    }

    async fn refresh_queues(
        &self,
        request: Request<RefreshQueuesRequestProto>,
    ) -> Result<Response<RefreshQueuesResponseProto>, Status> {
        self.authorize(&request).await?;
        // Validation runs against everything committed so far, so it sees every application
        // that could hold on to a queue being removed.
        self.proposer.read_barrier().await?;
        // Reading and parsing a file of up to 16 MiB is blocking work; off the async workers,
        // so that Raft heartbeats keep flowing meanwhile.
        let queues = self.queues.clone();
        let properties = tokio::task::spawn_blocking(move || queues.read_properties())
            .await
            .map_err(|err| Status::internal(format!("reading the queue configuration: {err}")))?
            .map_err(|err| Status::failed_precondition(err.to_string()))?;
        let plan = self
            .state
            .read(|state| QueueRefresh::plan(state, &self.queues, properties))
            .map_err(|err| Status::invalid_argument(err.to_string()))?;
        let applied = |queue_config_version, committed| {
            Response::new(RefreshQueuesResponseProto {
                queue_config_version,
                rm_id: self.rm_id.clone(),
                file: self.queues.describe(),
                committed,
            })
        };
        let Some(refresh) = plan else {
            let version = self.state.read(|state| state.queue_config_version);
            return Ok(applied(version, false));
        };
        match self
            .proposer
            .propose(RmCommand::V1(refresh.command()))
            .await?
        {
            RmResponse::QueueConfigVersionSet { version } => {
                tracing::info!(version, file = %self.queues.describe(), "queues refreshed");
                Ok(applied(version, true))
            }
            RmResponse::QueueConfigVersionRejected { expected, actual } => {
                Err(Status::aborted(format!(
                    "another queue refresh committed first (version {actual}, this one was \
                     based on {expected}); run -refreshQueues again"
                )))
            }
            other => Err(Status::internal(format!(
                "a queue refresh was answered with {other:?}"
            ))),
        }
    }

    async fn refresh_nodes(
        &self,
        request: Request<RefreshNodesRequestProto>,
    ) -> Result<Response<RefreshNodesResponseProto>, Status> {
        self.authorize(&request).await?;
        self.gate.require_leader()?;
        Err(Status::unimplemented(format!(
            "refreshNodes arrives with the work item \"{SCHEDULER_WORK_ITEM}\""
        )))
    }

    async fn refresh_admin_acls(
        &self,
        request: Request<RefreshAdminAclsRequestProto>,
    ) -> Result<Response<RefreshAdminAclsResponseProto>, Status> {
        self.authorize(&request).await?;
        self.gate.require_leader()?;
        Err(Status::unimplemented(
            "refreshAdminAcls is not supported: yarn.admin.acl is read when a replica starts; \
             restart the replicas one at a time to change it",
        ))
    }

    async fn get_cluster_membership(
        &self,
        request: Request<GetClusterMembershipRequestProto>,
    ) -> Result<Response<GetClusterMembershipResponseProto>, Status> {
        self.authorize(&request).await?;
        Ok(Response::new(self.membership()))
    }

    async fn add_raft_member(
        &self,
        request: Request<AddRaftMemberRequestProto>,
    ) -> Result<Response<AddRaftMemberResponseProto>, Status> {
        self.authorize(&request).await?;
        self.gate.require_leader()?;
        let member = request.into_inner().member.ok_or_else(|| {
            Status::invalid_argument("AddRaftMember: the member field is required")
        })?;
        let rm_id = valid_rm_id(&member.rm_id)?;
        HostPort::from_str(&member.raft_address).map_err(|err| {
            Status::invalid_argument(format!(
                "AddRaftMember: raft_address {:?} of {rm_id}: {err}",
                member.raft_address
            ))
        })?;
        let node_id = node_id_of(rm_id);
        let node = RmNode {
            rm_id: rm_id.to_owned(),
            raft_address: member.raft_address.clone(),
        };
        let metrics = self.metrics();
        let membership = metrics.membership_config.membership();
        if let Some(existing) = membership.get_node(&node_id) {
            if existing.raft_address != node.raft_address {
                return Err(Status::failed_precondition(format!(
                    "{rm_id} is already a member at {}; remove it before adding it at {}",
                    existing.raft_address, node.raft_address
                )));
            }
            if membership.voter_ids().any(|id| id == node_id) {
                return Ok(Response::new(AddRaftMemberResponseProto {
                    membership: Some(self.membership()),
                }));
            }
        }
        tracing::info!(%rm_id, address = %node.raft_address, "adding a learner");
        let learner = tokio::time::timeout(
            self.catch_up_timeout,
            self.raft.add_learner(node_id, node, true),
        )
        .await
        .map_err(|_| {
            Status::deadline_exceeded(format!(
                "{rm_id} was added as a learner but did not catch up within {:?}; it stays a \
                 learner, retry -addToCluster once it runs",
                self.catch_up_timeout
            ))
        })?;
        learner.map_err(|err| self.change_failed("adding the learner", err))?;
        tracing::info!(%rm_id, "promoting the learner to voter");
        self.raft
            .change_membership(ChangeMembers::AddVoterIds(BTreeSet::from([node_id])), false)
            .await
            .map_err(|err| self.change_failed("promoting the learner", err))?;
        Ok(Response::new(AddRaftMemberResponseProto {
            membership: Some(self.membership()),
        }))
    }

    async fn remove_raft_member(
        &self,
        request: Request<RemoveRaftMemberRequestProto>,
    ) -> Result<Response<RemoveRaftMemberResponseProto>, Status> {
        self.authorize(&request).await?;
        self.gate.require_leader()?;
        let rm_id = request.into_inner().rm_id;
        let rm_id = valid_rm_id(&rm_id)?;
        let node_id = node_id_of(rm_id);
        let metrics = self.metrics();
        let membership = metrics.membership_config.membership();
        let voters: BTreeSet<RmNodeId> = membership.voter_ids().collect();
        let change = if voters.contains(&node_id) {
            if voters.len() == 1 {
                return Err(Status::failed_precondition(format!(
                    "{rm_id} is the only voter; the group cannot remove its last voter"
                )));
            }
            ChangeMembers::RemoveVoters(BTreeSet::from([node_id]))
        } else if membership.get_node(&node_id).is_some() {
            ChangeMembers::RemoveNodes(BTreeSet::from([node_id]))
        } else {
            return Ok(Response::new(RemoveRaftMemberResponseProto {
                membership: Some(self.membership()),
            }));
        };
        tracing::info!(%rm_id, "removing a member");
        self.raft
            .change_membership(change, false)
            .await
            .map_err(|err| self.change_failed("removing the member", err))?;
        Ok(Response::new(RemoveRaftMemberResponseProto {
            membership: Some(self.membership()),
        }))
    }

    async fn transfer_leadership(
        &self,
        request: Request<TransferLeadershipRequestProto>,
    ) -> Result<Response<TransferLeadershipResponseProto>, Status> {
        self.authorize(&request).await?;
        self.gate.require_leader()?;
        let target = request.into_inner().target_rm_id;
        let target = valid_rm_id(&target)?;
        if target != self.rm_id {
            tracing::info!(%target, "transferring leadership on an operator's request");
            self.transfer
                .transfer_to(node_id_of(target), target)
                .await?;
        }
        Ok(Response::new(TransferLeadershipResponseProto {
            leader_rm_id: leader_rm_id(&self.metrics()).unwrap_or_default(),
        }))
    }
}

/// Checks an rm-id from a request: non-empty letters, digits, `-` and `_`, as configuration
/// keys and certificate names need.
fn valid_rm_id(rm_id: &str) -> Result<&str, Status> {
    let ok = !rm_id.is_empty()
        && rm_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(rm_id)
    } else {
        Err(Status::invalid_argument(format!(
            "{rm_id:?} is not a valid rm-id: use letters, digits, '-' and '_'"
        )))
    }
}
