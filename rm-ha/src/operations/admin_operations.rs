//! [`AdminOperations`]: what `yarn-ha rmadmin` does through
//! ResourceManagerAdministrationProtocol.

use std::collections::BTreeSet;
use std::str::FromStr;

use openraft::{Raft, RaftMetrics, ServerState};
use yarn_conf::HostPort;
use yarn_proto::pb::{
    AddRaftMemberRequestProto, AddRaftMemberResponseProto, GetClusterMembershipResponseProto,
    GetStateDigestResponseProto, HaServiceStateProto, HaServiceStatusResponseProto,
    MonitorHealthResponseProto, RaftMemberProto, RefreshAdminAclsResponseProto,
    RefreshNodesResponseProto, RefreshQueuesResponseProto, RemoveRaftMemberRequestProto,
    RemoveRaftMemberResponseProto, TransferLeadershipRequestProto, TransferLeadershipResponseProto,
};
use yarn_security::Caller;

use super::RmError;
use super::admin_acl::check_admin;
use super::admin_scheduler_conf::REFRESH_REFUSED;
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig, node_id_of};
use crate::replica::{
    LeaderGate, LeadershipTransfer, MemberChangeError, MemberChanges, Proposer, Serving,
    leader_rm_id,
};
use crate::scheduling::{QueueConfigSource, QueueRefresh, RefreshPlan};
use crate::state_machine::{RmCommand, RmResponse, StateView};

/// The work item that brings node refreshes, named in their refusals.
const SCHEDULER_WORK_ITEM: &str = "NodeManager decommissioning (include/exclude lists)";

/// The admin operations of one replica.
///
/// Authorization: every operation first checks [`authorize`](Self::authorize): the caller's
/// user must be allowed by `yarn.admin.acl` (an access refusal naming the user and the ACL
/// otherwise). Status, health, membership and
/// the state digest are answered by any replica from its own view; membership changes and
/// leadership transfer are leader-only ([`LeaderGate`]).
pub(crate) struct AdminOperations {
    pub(crate) rm_id: String,
    pub(crate) node_id: RmNodeId,
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) gate: LeaderGate,
    pub(crate) transfer: LeadershipTransfer,
    pub(crate) members: MemberChanges,
    /// Proposes queue refreshes.
    pub(crate) proposer: Proposer,
    /// The replicated state a refresh is checked against and the state digest is taken of.
    pub(crate) state: StateView,
    /// The leader's `capacity-scheduler.xml`.
    pub(crate) queues: QueueConfigSource,
}

impl AdminOperations {
    /// Checks `yarn.admin.acl` whatever `yarn.acl.enable` says, as YARN's admin service does;
    /// group entries match the groups `hadoop.security.group.mapping` finds for the caller. The
    /// anonymous caller of a plaintext cluster is let through.
    pub(super) async fn authorize(&self, caller: &Caller) -> Result<(), RmError> {
        match caller {
            Caller::Peer(identity) => check_admin(&self.queues, identity).await,
            Caller::Anonymous => Ok(()),
        }
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

    /// The refusal of a membership change, as this front door's callers see it; a not-leader
    /// answer means nothing was appended.
    fn change_refusal(&self, err: MemberChangeError) -> RmError {
        match err {
            MemberChangeError::NotLeader { leader } => self.gate.refusal(leader.as_deref()).into(),
            MemberChangeError::Refused(reason) => RmError::precondition(reason),
            MemberChangeError::TimedOut(message) => RmError::TimedOut { message },
            MemberChangeError::Stopped(reason) => RmError::internal(reason),
        }
    }
}

impl AdminOperations {
    /// This replica's HA state (active when it serves as leader), readiness and Raft position.
    pub(crate) async fn get_service_status(
        &self,
        caller: &Caller,
    ) -> Result<HaServiceStatusResponseProto, RmError> {
        self.authorize(caller).await?;
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
        Ok(HaServiceStatusResponseProto {
            state: state.into(),
            ready_to_become_active: not_ready_reason.is_empty(),
            not_ready_reason,
            rm_id: self.rm_id.clone(),
            leader_rm_id: leader_rm_id(&metrics).unwrap_or_default(),
            current_term: metrics.current_term,
            last_applied_index: metrics.last_applied.map_or(0, |id| id.index),
        })
    }

    /// This replica's state digest with the log position it reflects, read together (see
    /// [`StateView::digest`]); never waits for the leader, so a follower reports where it
    /// stands, behind or not.
    pub(crate) async fn get_state_digest(
        &self,
        caller: &Caller,
    ) -> Result<GetStateDigestResponseProto, RmError> {
        self.authorize(caller).await?;
        let digest = self.state.digest().map_err(|err| {
            RmError::internal(format!("{} cannot digest its state: {err}", self.rm_id))
        })?;
        let (applied_index, applied_term) = digest
            .applied
            .map_or((0, 0), |position| (position.index, position.term));
        Ok(GetStateDigestResponseProto {
            rm_id: self.rm_id.clone(),
            applied_index,
            applied_term,
            digest: digest.hex(),
        })
    }

    /// Succeeds while this replica's Raft node runs.
    pub(crate) async fn monitor_health(
        &self,
        caller: &Caller,
    ) -> Result<MonitorHealthResponseProto, RmError> {
        self.authorize(caller).await?;
        let metrics = self.metrics();
        if let Err(fatal) = &metrics.running_state {
            return Err(RmError::precondition(format!(
                "{} is unhealthy: its Raft node stopped: {fatal}",
                self.rm_id
            )));
        }
        if metrics.state == ServerState::Shutdown {
            return Err(RmError::precondition(format!(
                "{} is unhealthy: it is shutting down",
                self.rm_id
            )));
        }
        Ok(MonitorHealthResponseProto {})
    }

    /// Re-reads `capacity-scheduler.xml` on the leader, checks it against everything committed
    /// and commits it if it changed (`-refreshQueues`). Refused while the configuration is a
    /// mutable store, whose source is the replicated state, as Hadoop refuses it.
    pub(crate) async fn refresh_queues(
        &self,
        caller: &Caller,
    ) -> Result<RefreshQueuesResponseProto, RmError> {
        self.authorize(caller).await?;
        if self.mutable_configuration() {
            return Err(RmError::precondition(REFRESH_REFUSED));
        }
        self.commit_queue_file().await
    }

    /// Reads the leader's `capacity-scheduler.xml` and commits it if it changed, checked
    /// against everything committed.
    pub(super) async fn commit_queue_file(&self) -> Result<RefreshQueuesResponseProto, RmError> {
        // Validation runs against everything committed so far, so it sees every application
        // that could hold on to a queue being removed.
        self.proposer.read_barrier().await?;
        // Reading and parsing a file of up to 16 MiB is blocking work; off the async workers,
        // so that Raft heartbeats keep flowing meanwhile.
        let queues = self.queues.clone();
        let file = tokio::task::spawn_blocking(move || queues.read())
            .await
            .map_err(|err| RmError::internal(format!("reading the queue configuration: {err}")))?
            .map_err(|err| RmError::precondition(err.to_string()))?;
        let plan = self
            .state
            .read(|state| QueueRefresh::plan(state, &self.queues, &file))
            .map_err(|err| RmError::invalid("capacity-scheduler.xml", err.to_string()))?;
        self.commit_plan(plan, self.queues.describe()).await
    }

    /// Commits `plan`'s change of the queue configuration, if it has one, naming `source` as
    /// where it came from.
    pub(super) async fn commit_plan(
        &self,
        plan: RefreshPlan,
        source: String,
    ) -> Result<RefreshQueuesResponseProto, RmError> {
        for warning in &plan.warnings {
            tracing::warn!(file = %source, "{warning}");
        }
        let applied = |queue_config_version, committed| RefreshQueuesResponseProto {
            queue_config_version,
            rm_id: self.rm_id.clone(),
            file: source.clone(),
            committed,
            warnings: reported_warnings(&plan.warnings),
        };
        let Some(refresh) = plan.refresh.clone() else {
            let version = self.state.read(|state| state.queue_config_version);
            return Ok(applied(version, false));
        };
        match self
            .proposer
            .propose(RmCommand::V1(refresh.command()))
            .await?
        {
            RmResponse::QueueConfigVersionSet { version } => {
                tracing::info!(version, file = %source, "queue configuration changed");
                Ok(applied(version, true))
            }
            RmResponse::QueueConfigVersionRejected { expected, actual } => Err(RmError::Conflict {
                message: format!(
                    "another change of the queue configuration committed first (version \
                     {actual}, this one was based on {expected}); try again"
                ),
            }),
            other => Err(RmError::internal(format!(
                "a queue configuration change was answered with {other:?}"
            ))),
        }
    }

    /// `-refreshNodes`: not yet supported.
    pub(crate) async fn refresh_nodes(
        &self,
        caller: &Caller,
    ) -> Result<RefreshNodesResponseProto, RmError> {
        self.authorize(caller).await?;
        self.gate.require_leader()?;
        Err(RmError::Unsupported {
            message: format!("refreshNodes arrives with the work item \"{SCHEDULER_WORK_ITEM}\""),
        })
    }

    /// `-refreshAdminAcls`: not supported.
    pub(crate) async fn refresh_admin_acls(
        &self,
        caller: &Caller,
    ) -> Result<RefreshAdminAclsResponseProto, RmError> {
        self.authorize(caller).await?;
        self.gate.require_leader()?;
        Err(RmError::Unsupported {
            message: "refreshAdminAcls is not supported: yarn.admin.acl is read when a replica \
                      starts; restart the replicas one at a time to change it"
                .to_owned(),
        })
    }

    /// The Raft group's members as this replica knows them.
    pub(crate) async fn get_cluster_membership(
        &self,
        caller: &Caller,
    ) -> Result<GetClusterMembershipResponseProto, RmError> {
        self.authorize(caller).await?;
        Ok(self.membership())
    }

    /// Adds a replica as a learner, waits for it to catch up and makes it a voter
    /// (`-addToCluster`); adding a voter again at the same address succeeds.
    pub(crate) async fn add_raft_member(
        &self,
        caller: &Caller,
        request: AddRaftMemberRequestProto,
    ) -> Result<AddRaftMemberResponseProto, RmError> {
        self.authorize(caller).await?;
        self.gate.require_leader()?;
        let member = request.member.ok_or_else(|| {
            RmError::invalid("member", "AddRaftMember: the member field is required")
        })?;
        let rm_id = valid_rm_id("member.rm_id", &member.rm_id)?;
        HostPort::from_str(&member.raft_address).map_err(|err| {
            RmError::invalid(
                "member.raft_address",
                format!(
                    "AddRaftMember: raft_address {:?} of {rm_id}: {err}",
                    member.raft_address
                ),
            )
        })?;
        let node = RmNode {
            rm_id: rm_id.to_owned(),
            raft_address: member.raft_address.clone(),
        };
        self.members
            .add(node)
            .await
            .map_err(|err| self.change_refusal(err))?;
        Ok(AddRaftMemberResponseProto {
            membership: Some(self.membership()),
        })
    }

    /// Removes a replica from the Raft group (`-removeFromCluster`); removing a non-member
    /// succeeds, removing the last voter is refused.
    pub(crate) async fn remove_raft_member(
        &self,
        caller: &Caller,
        request: RemoveRaftMemberRequestProto,
    ) -> Result<RemoveRaftMemberResponseProto, RmError> {
        self.authorize(caller).await?;
        self.gate.require_leader()?;
        let rm_id = valid_rm_id("rm_id", &request.rm_id)?;
        self.members
            .remove(rm_id)
            .await
            .map_err(|err| self.change_refusal(err))?;
        Ok(RemoveRaftMemberResponseProto {
            membership: Some(self.membership()),
        })
    }

    /// Moves leadership to another voter (`-transferLeadership`).
    pub(crate) async fn transfer_leadership(
        &self,
        caller: &Caller,
        request: TransferLeadershipRequestProto,
    ) -> Result<TransferLeadershipResponseProto, RmError> {
        self.authorize(caller).await?;
        self.gate.require_leader()?;
        let target = valid_rm_id("target_rm_id", &request.target_rm_id)?;
        if target != self.rm_id {
            tracing::info!(%target, "transferring leadership on an operator's request");
            self.transfer
                .transfer_to(node_id_of(target), target)
                .await?;
        }
        Ok(TransferLeadershipResponseProto {
            leader_rm_id: leader_rm_id(&self.metrics()).unwrap_or_default(),
        })
    }
}

/// Checks an rm-id from a request: non-empty letters, digits, `-` and `_`, as configuration
/// keys and certificate names need.
fn valid_rm_id<'a>(field: &'static str, rm_id: &'a str) -> Result<&'a str, RmError> {
    let ok = !rm_id.is_empty()
        && rm_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(rm_id)
    } else {
        Err(RmError::invalid(
            field,
            format!("{rm_id:?} is not a valid rm-id: use letters, digits, '-' and '_'"),
        ))
    }
}

/// At most this many warnings travel back to `rmadmin`, so that a file full of ignored keys
/// cannot make the reply too large to read; every one is logged.
const MAX_REPORTED_WARNINGS: usize = 100;

/// The warnings `rmadmin -refreshQueues` prints: the first [`MAX_REPORTED_WARNINGS`], and a
/// count of the rest.
fn reported_warnings(warnings: &[String]) -> Vec<String> {
    let mut reported: Vec<String> = warnings
        .iter()
        .take(MAX_REPORTED_WARNINGS)
        .cloned()
        .collect();
    if warnings.len() > MAX_REPORTED_WARNINGS {
        reported.push(format!(
            "{} more keys are ignored; the leader's log names each",
            warnings.len() - MAX_REPORTED_WARNINGS
        ));
    }
    reported
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refresh_reports_at_most_a_hundred_warnings_and_counts_the_rest() {
        let few: Vec<String> = (0..3).map(|i| format!("key{i}")).collect();
        assert_eq!(reported_warnings(&few), few);
        let many: Vec<String> = (0..250).map(|i| format!("key{i}")).collect();
        let reported = reported_warnings(&many);
        assert_eq!(reported.len(), MAX_REPORTED_WARNINGS + 1);
        assert_eq!(reported[99], "key99");
        assert_eq!(
            reported[100],
            "150 more keys are ignored; the leader's log names each"
        );
    }
}
