//! Follows Raft's view of leadership and turns it into this replica's serving role.

use std::time::Duration;

use openraft::{Raft, RaftMetrics, ServerState};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::clock::now_ms;
use super::leader_gate::Serving;
use super::leader_services::LeaderServices;
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig};
use crate::state_machine::{CommandV1, RmCommand, RmResponse};

/// Watches Raft's metrics and publishes [`Serving`].
///
/// Guarantees:
/// - [`Serving::Leader`] is published only after this replica, as leader of the current term,
///   has committed and applied its `BeginEpoch` entry; since a leader's entry commits only after
///   everything before it, the applied state then holds every entry committed by any earlier
///   leader.
/// - Leader-only services run under one cancellation token per leadership and are cancelled,
///   and the role set back to [`Serving::NotLeader`], as soon as the metrics show another state
///   or another term.
pub(crate) struct LeadershipMonitor {
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) rm_id: String,
    pub(crate) node_id: RmNodeId,
    pub(crate) serving: watch::Sender<Serving>,
    pub(crate) services: LeaderServices,
    /// How long to wait before retrying a `BeginEpoch` that failed while still leading.
    pub(crate) retry_interval: Duration,
    /// The bound on one `BeginEpoch` proposal.
    pub(crate) propose_timeout: Duration,
    pub(crate) shutdown: CancellationToken,
}

impl LeadershipMonitor {
    /// Runs until `shutdown` is cancelled or Raft stops.
    pub(crate) async fn run(self) {
        let mut metrics = self.raft.metrics();
        let mut leadership: Option<(u64, CancellationToken)> = None;
        loop {
            let snapshot = metrics.borrow_and_update().clone();
            let leading_term = self.leading_term(&snapshot);
            if let Some((term, token)) = &leadership
                && leading_term != Some(*term)
            {
                tracing::info!(rm_id = %self.rm_id, term, "stepped down; stopping leader services");
                token.cancel();
                leadership = None;
            }
            let mut retry = false;
            if leadership.is_none()
                && let Some(term) = leading_term
            {
                match self.begin_epoch(term).await {
                    Some(epoch) => {
                        let token = self.shutdown.child_token();
                        self.services.start(epoch, token.clone());
                        self.serving.send_replace(Serving::Leader { term, epoch });
                        tracing::info!(rm_id = %self.rm_id, term, epoch, "serving as leader");
                        leadership = Some((term, token));
                    }
                    None => retry = true,
                }
            }
            if leadership.is_none() {
                let leader = leader_rm_id(&snapshot);
                self.serving.send_if_modified(|serving| {
                    let next = Serving::NotLeader { leader };
                    let changed = *serving != next;
                    *serving = next;
                    changed
                });
            }
            let pause = if retry {
                self.retry_interval
            } else {
                Duration::MAX
            };
            tokio::select! {
                () = self.shutdown.cancelled() => break,
                changed = metrics.changed() => if changed.is_err() { break },
                () = tokio::time::sleep(pause) => {}
            }
        }
        if let Some((_, token)) = leadership {
            token.cancel();
        }
        self.serving
            .send_replace(Serving::NotLeader { leader: None });
    }

    fn leading_term(&self, metrics: &RaftMetrics<RmNodeId, RmNode>) -> Option<u64> {
        let leads =
            metrics.state == ServerState::Leader && metrics.current_leader == Some(self.node_id);
        leads.then_some(metrics.current_term)
    }

    /// Proposes this leadership's `BeginEpoch` and returns the new epoch once it is applied and
    /// this replica still leads `term`; `None` when it failed (logged) or leadership moved on.
    async fn begin_epoch(&self, term: u64) -> Option<u64> {
        let command = RmCommand::V1(CommandV1::BeginEpoch {
            leader_rm_id: self.rm_id.clone(),
            now_ms: now_ms(),
        });
        let write = tokio::time::timeout(self.propose_timeout, self.raft.client_write(command));
        let epoch = match write.await {
            Ok(Ok(reply)) => match reply.data {
                RmResponse::EpochBegun { epoch } => epoch,
                other => {
                    tracing::error!(?other, "BeginEpoch applied with an unexpected result");
                    return None;
                }
            },
            Ok(Err(err)) => {
                tracing::warn!(rm_id = %self.rm_id, term, %err, "cannot begin an epoch");
                return None;
            }
            Err(_) => {
                tracing::warn!(
                    rm_id = %self.rm_id,
                    term,
                    timeout = ?self.propose_timeout,
                    "BeginEpoch did not commit in time"
                );
                return None;
            }
        };
        let still_leading = self.leading_term(&self.raft.metrics().borrow()) == Some(term);
        still_leading.then_some(epoch)
    }
}

/// The rm-id of the leader `metrics` names, looked up in the membership.
pub(crate) fn leader_rm_id(metrics: &RaftMetrics<RmNodeId, RmNode>) -> Option<String> {
    let leader = metrics.current_leader?;
    metrics
        .membership_config
        .membership()
        .get_node(&leader)
        .map(|node| node.rm_id.clone())
}
