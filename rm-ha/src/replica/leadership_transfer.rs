//! Handing leadership to a chosen voter (`rmadmin -transitionToActive <id> --forcemanual`).

use openraft::network::RPCOption;
use openraft::{Raft, RaftNetworkFactory};
use tonic::Status;

use crate::RaftGrpcNetworkFactory;
use crate::config::RaftSettings;
use crate::raft_types::{RmNodeId, RmTypeConfig};

/// How many `TimeoutNow` rounds a transfer tries before giving up.
const ATTEMPTS: u32 = 3;

/// Raft's leadership transfer, built from openraft 0.9's pieces (it has no transfer API):
///
/// 1. the target must be a voter whose log matches the leader's last entry, so it can win;
/// 2. the leader stops heartbeating and waits out the leader lease, during which followers
///    refuse to vote for anyone;
/// 3. it sends the target `TimeoutNow`; the target starts an election at once and, being
///    up to date and earlier than any other follower's timeout, wins it;
/// 4. heartbeats are re-enabled whatever happened, so a failed transfer leaves a working
///    leader.
///
/// Guarantee: no committed entry is at risk, since the election is an ordinary one; the cost
/// of a failed attempt is a term bump. Proposals made during the transfer either commit under
/// the old leader or are refused as not-leader.
pub(crate) struct LeadershipTransfer {
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) network: RaftGrpcNetworkFactory,
    pub(crate) node_id: RmNodeId,
    pub(crate) settings: RaftSettings,
}

impl LeadershipTransfer {
    /// Transfers leadership from this replica, the leader, to `target`.
    ///
    /// # Errors
    ///
    /// `FAILED_PRECONDITION` when the target is not a voter or does not catch up in time;
    /// `UNAVAILABLE` when it did not become leader after every attempt.
    pub(crate) async fn transfer_to(
        &self,
        target: RmNodeId,
        target_name: &str,
    ) -> Result<(), Status> {
        let metrics = self.raft.metrics().borrow().clone();
        let membership = metrics.membership_config.membership().clone();
        let Some(node) = membership.get_node(&target).cloned() else {
            return Err(Status::failed_precondition(format!(
                "{target_name} is not a member of the Raft group"
            )));
        };
        if !membership.voter_ids().any(|id| id == target) {
            return Err(Status::failed_precondition(format!(
                "{target_name} is a learner; only a voter can become leader"
            )));
        }
        self.wait_caught_up(target, target_name).await?;

        self.raft.runtime_config().heartbeat(false);
        let result = self.elect_target(target, &node, target_name).await;
        self.raft.runtime_config().heartbeat(true);
        result
    }

    async fn wait_caught_up(&self, target: RmNodeId, target_name: &str) -> Result<(), Status> {
        let deadline = self.settings.election_timeout_max * 10;
        self.raft
            .wait(Some(deadline))
            .metrics(
                |m| {
                    let matched = m
                        .replication
                        .as_ref()
                        .and_then(|r| r.get(&target).cloned().flatten())
                        .map(|log_id| log_id.index);
                    matched.is_some() && matched >= m.last_log_index
                },
                format!("{target_name} to catch up"),
            )
            .await
            .map(|_| ())
            .map_err(|err| {
                Status::failed_precondition(format!(
                    "{target_name} has not caught up with the leader's log within {deadline:?} \
                     ({err}); leadership stays where it is"
                ))
            })
    }

    async fn elect_target(
        &self,
        target: RmNodeId,
        node: &crate::RmNode,
        target_name: &str,
    ) -> Result<(), Status> {
        let lease = self.settings.election_timeout_max + self.settings.heartbeat_interval;
        let round = self.settings.election_timeout_max * 2;
        let mut network = self.network.clone();
        let client = network.new_client(target, node).await;
        for attempt in 1..=ATTEMPTS {
            // Waiting out the lease is the protocol, not a guess: until it lapses every follower
            // refuses votes, so an earlier election could not succeed.
            tokio::time::sleep(lease).await;
            if let Err(err) = client.timeout_now(RPCOption::new(round)).await {
                tracing::warn!(%target_name, attempt, %err, "TimeoutNow failed");
                continue;
            }
            let moved = self
                .raft
                .wait(Some(round))
                .metrics(
                    |m| {
                        m.current_leader
                            .is_some_and(|leader| leader != self.node_id)
                    },
                    format!("leadership to leave for {target_name}"),
                )
                .await;
            if let Ok(metrics) = moved {
                tracing::info!(
                    %target_name,
                    new_leader = ?metrics.current_leader,
                    "leadership transferred"
                );
                return Ok(());
            }
        }
        Err(Status::unavailable(format!(
            "{target_name} did not become leader after {ATTEMPTS} attempts; this replica \
             still leads"
        )))
    }
}
