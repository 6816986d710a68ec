//! Handing leadership to a chosen voter (`rmadmin -transitionToActive <id> --forcemanual`).

use std::time::Duration;

use openraft::network::RPCOption;
use openraft::{Raft, RaftNetworkFactory};
use tokio::time::Instant;

use crate::RaftGrpcNetworkFactory;
use crate::config::RaftSettings;
use crate::operations::RmError;
use crate::raft_network::{ElectionHold, HoldElection};
use crate::raft_types::{RmNodeId, RmTypeConfig};

/// How many `TimeoutNow` rounds a transfer tries before giving up: as many as the hold it asks
/// voters for covers.
const ATTEMPTS: u32 = HoldElection::TRANSFER_ATTEMPTS;

/// Raft's leadership transfer, built from openraft 0.9's pieces (it has no transfer API):
///
/// 1. the target must be a voter whose log matches the leader's last entry, so it can win;
/// 2. every other voter, this one included, holds elections ([`HoldElection`]) for as long
///    as the transfer may take, so none of them runs against the target when heartbeats stop
///    (chaos seed 202 saw the third replica win that race, and a deposed leader run against
///    its own target);
/// 3. the leader stops heartbeating and waits out the leader lease, during which followers
///    refuse to vote for anyone;
/// 4. once the target again holds every entry (the leader kept committing meanwhile), it
///    sends the target `TimeoutNow`; the target starts an election at once and, being up to
///    date and the only replica running, wins it;
/// 5. heartbeats are re-enabled and the holds released whatever happened, so a failed transfer
///    leaves a group that elects as usual.
///
/// Guarantee: no committed entry is at risk, since the election is an ordinary one; the cost
/// of a failed attempt is a term bump. Proposals made during the transfer either commit under
/// the old leader or are refused as not-leader.
pub(crate) struct LeadershipTransfer {
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) network: RaftGrpcNetworkFactory,
    pub(crate) node_id: RmNodeId,
    pub(crate) settings: RaftSettings,
    /// This replica's own hold, which its election timer obeys.
    pub(crate) hold: ElectionHold,
}

impl LeadershipTransfer {
    /// Transfers leadership from this replica, the leader, to `target`.
    ///
    /// # Errors
    ///
    /// A failed precondition when the target is not a voter or does not catch up in time;
    /// [`RmError::Unavailable`] when it did not become leader after every attempt.
    pub(crate) async fn transfer_to(
        &self,
        target: RmNodeId,
        target_name: &str,
    ) -> Result<(), RmError> {
        let metrics = self.raft.metrics().borrow().clone();
        let membership = metrics.membership_config.membership().clone();
        let Some(node) = membership.get_node(&target).cloned() else {
            return Err(RmError::precondition(format!(
                "{target_name} is not a member of the Raft group"
            )));
        };
        if !membership.voter_ids().any(|id| id == target) {
            return Err(RmError::precondition(format!(
                "{target_name} is a learner; only a voter can become leader"
            )));
        }
        self.wait_caught_up(target, target_name, self.settings.election_timeout_max * 10)
            .await?;
        let term = metrics.current_term;
        // This replica holds too: should a target's election fail and depose it, it must not
        // run against its own target in the next attempt.
        let hold = HoldElection {
            term,
            duration: self.transfer_bound(),
        };
        self.hold.hold(&hold, Instant::now());
        self.hold_others(&membership, target, &hold).await;

        self.raft.runtime_config().heartbeat(false);
        let result = self.elect_target(target, &node, target_name).await;
        self.raft.runtime_config().heartbeat(true);

        // Over either way: let every voter elect as usual again, at once rather than at the
        // end of the bound, so a failed transfer does not leave the group unable to replace a
        // leader that then fails.
        let release = HoldElection {
            term,
            duration: Duration::ZERO,
        };
        self.hold.hold(&release, Instant::now());
        self.hold_others(&membership, target, &release).await;
        result
    }

    /// Sends `request` to every voter but this one and `target`. A voter that cannot be reached
    /// cannot run against the target either, and a hold ends by itself, so failures are only
    /// logged.
    async fn hold_others(
        &self,
        membership: &openraft::Membership<RmNodeId, crate::RmNode>,
        target: RmNodeId,
        request: &HoldElection,
    ) {
        let option = RPCOption::new(self.settings.election_timeout_max);
        let mut network = self.network.clone();
        for id in membership.voter_ids() {
            if id == target || id == self.node_id {
                continue;
            }
            let Some(node) = membership.get_node(&id) else {
                continue;
            };
            let client = network.new_client(id, node).await;
            let deadline = self.settings.election_timeout_max;
            match tokio::time::timeout(deadline, client.hold_election(request, option.clone()))
                .await
            {
                Ok(Ok(())) => {}
                Ok(Err(err)) => tracing::warn!(peer = %node.rm_id, %err, "HoldElection failed"),
                Err(_) => tracing::warn!(peer = %node.rm_id, ?deadline, "HoldElection unanswered"),
            }
        }
    }

    /// The longest [`elect_target`](Self::elect_target) can take.
    fn transfer_bound(&self) -> Duration {
        HoldElection::max_duration(
            self.settings.election_timeout_max,
            self.settings.heartbeat_interval,
        )
    }

    /// How long the leader waits, heartbeats off, before `TimeoutNow`: the lease followers
    /// grant their leader, plus one heartbeat that may still have been in flight.
    fn lease(&self) -> Duration {
        self.settings.election_timeout_max + self.settings.heartbeat_interval
    }

    /// How long one attempt waits for the target to win.
    fn round(&self) -> Duration {
        self.settings.election_timeout_max * 2
    }

    /// Waits up to `deadline` until `target` has every entry of this leader's log.
    async fn wait_caught_up(
        &self,
        target: RmNodeId,
        target_name: &str,
        deadline: Duration,
    ) -> Result<(), RmError> {
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
                RmError::precondition(format!(
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
    ) -> Result<(), RmError> {
        let lease = self.lease();
        let round = self.round();
        let mut network = self.network.clone();
        let client = network.new_client(target, node).await;
        for attempt in 1..=ATTEMPTS {
            // Waiting out the lease is the protocol, not a guess: until it lapses every follower
            // refuses votes, so an earlier election could not succeed.
            tokio::time::sleep(lease).await;
            // The leader keeps committing during the lease, and a target a single entry behind
            // loses the election to the voters' log check (chaos seed 303, on a loaded machine
            // where replication lagged): it must have everything before it is asked to run.
            if let Err(err) = self.wait_caught_up(target, target_name, round).await {
                tracing::warn!(%target_name, attempt, %err, "target behind before TimeoutNow");
                continue;
            }
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
        Err(RmError::unavailable(format!(
            "{target_name} did not become leader after {ATTEMPTS} attempts; this replica \
             still leads"
        )))
    }
}
