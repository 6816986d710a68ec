//! [`MemberChanges`]: adding replicas to the Raft group and removing them
//! (`rmadmin -addToCluster`, `-removeFromCluster`).

use std::collections::BTreeSet;
use std::time::Duration;

use openraft::error::{ClientWriteError, RaftError};
use openraft::{ChangeMembers, Raft, RaftMetrics, ServerState};

use super::leader_rm_id;
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig, node_id_of};

/// Why a membership change was not made.
#[derive(Debug, thiserror::Error)]
pub enum MemberChangeError {
    /// This replica does not lead; `leader` does, when known.
    #[error("this replica does not lead the Raft group")]
    NotLeader {
        /// The leader's rm-id, when known.
        leader: Option<String>,
    },
    /// The change breaks a rule of the group: the message says which.
    #[error("{0}")]
    Refused(String),
    /// The change did not finish in time; the message says what state it was left in.
    #[error("{0}")]
    TimedOut(String),
    /// Raft stopped.
    #[error("{0}")]
    Stopped(String),
}

/// The leader's membership changes, each one Raft's joint consensus through openraft.
///
/// Guarantees: a replica becomes a voter only after it caught up as a learner, so adding it
/// never stalls commits; the last voter is never removed; and the leader never removes itself
/// (a leader outside its own group leads on in openraft 0.9 until a successor is elected, and
/// refuses further changes in an inconsistent state the simulation found), so it must hand
/// leadership over first. Adding a voter again at its address and removing a non-member both
/// succeed and change nothing.
#[derive(Clone)]
pub struct MemberChanges {
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) rm_id: String,
    /// Bound on a learner catching up before it is made a voter.
    pub(crate) catch_up_timeout: Duration,
}

impl MemberChanges {
    fn metrics(&self) -> RaftMetrics<RmNodeId, RmNode> {
        self.raft.metrics().borrow().clone()
    }

    /// The metrics of this replica if it leads.
    fn leading(&self) -> Result<RaftMetrics<RmNodeId, RmNode>, MemberChangeError> {
        let metrics = self.metrics();
        if metrics.state == ServerState::Leader {
            Ok(metrics)
        } else {
            Err(MemberChangeError::NotLeader {
                leader: leader_rm_id(&metrics),
            })
        }
    }

    /// Adds `node` as a learner, waits for it to catch up and makes it a voter.
    ///
    /// # Errors
    ///
    /// [`MemberChangeError::NotLeader`]; [`MemberChangeError::Refused`] when the replica is a
    /// member at another address; [`MemberChangeError::TimedOut`] when it did not catch up (it
    /// stays a learner); openraft's refusals and failures.
    pub async fn add(&self, node: RmNode) -> Result<(), MemberChangeError> {
        let metrics = self.leading()?;
        let rm_id = node.rm_id.clone();
        let node_id = node_id_of(&rm_id);
        let membership = metrics.membership_config.membership();
        if let Some(existing) = membership.get_node(&node_id) {
            if existing.raft_address != node.raft_address {
                return Err(MemberChangeError::Refused(format!(
                    "{rm_id} is already a member at {}; remove it before adding it at {}",
                    existing.raft_address, node.raft_address
                )));
            }
            if membership.voter_ids().any(|id| id == node_id) {
                return Ok(());
            }
        }
        tracing::info!(%rm_id, address = %node.raft_address, "adding a learner");
        let learner = tokio::time::timeout(
            self.catch_up_timeout,
            self.raft.add_learner(node_id, node, true),
        )
        .await
        .map_err(|_| {
            MemberChangeError::TimedOut(format!(
                "{rm_id} was added as a learner but did not catch up within {:?}; it \
                         stays a learner, retry -addToCluster once it runs",
                self.catch_up_timeout
            ))
        })?;
        learner.map_err(|err| self.change_failed("adding the learner", err))?;
        tracing::info!(%rm_id, "promoting the learner to voter");
        self.raft
            .change_membership(ChangeMembers::AddVoterIds(BTreeSet::from([node_id])), false)
            .await
            .map_err(|err| self.change_failed("promoting the learner", err))?;
        Ok(())
    }

    /// Removes `rm_id` from the group.
    ///
    /// # Errors
    ///
    /// [`MemberChangeError::NotLeader`]; [`MemberChangeError::Refused`] for the last voter
    /// and for this replica itself; openraft's refusals and failures.
    pub async fn remove(&self, rm_id: &str) -> Result<(), MemberChangeError> {
        let metrics = self.leading()?;
        let node_id = node_id_of(rm_id);
        let membership = metrics.membership_config.membership();
        let voters: BTreeSet<RmNodeId> = membership.voter_ids().collect();
        let change = if voters.contains(&node_id) {
            if voters.len() == 1 {
                return Err(MemberChangeError::Refused(format!(
                    "{rm_id} is the only voter; the group cannot remove its last voter"
                )));
            }
            if rm_id == self.rm_id {
                return Err(MemberChangeError::Refused(format!(
                    "{rm_id} leads the group; move leadership to another replica first \
                     (rmadmin -transitionToActive --forcemanual <rm-id>) and remove {rm_id} \
                     from the new leader"
                )));
            }
            ChangeMembers::RemoveVoters(BTreeSet::from([node_id]))
        } else if membership.get_node(&node_id).is_some() {
            ChangeMembers::RemoveNodes(BTreeSet::from([node_id]))
        } else {
            return Ok(());
        };
        tracing::info!(%rm_id, "removing a member");
        self.raft
            .change_membership(change, false)
            .await
            .map_err(|err| self.change_failed("removing the member", err))?;
        Ok(())
    }

    fn change_failed(
        &self,
        what: &str,
        err: RaftError<RmNodeId, ClientWriteError<RmNodeId, RmNode>>,
    ) -> MemberChangeError {
        match err {
            RaftError::APIError(ClientWriteError::ForwardToLeader(forward)) => {
                MemberChangeError::NotLeader {
                    leader: forward.leader_node.map(|node| node.rm_id),
                }
            }
            RaftError::APIError(ClientWriteError::ChangeMembershipError(err)) => {
                MemberChangeError::Refused(format!("{what} refused: {err}"))
            }
            RaftError::Fatal(fatal) => MemberChangeError::Stopped(format!(
                "{what} failed: Raft stopped on {}: {fatal}",
                self.rm_id
            )),
        }
    }
}
