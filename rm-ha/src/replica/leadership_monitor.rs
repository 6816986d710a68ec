//! Follows Raft's view of leadership and turns it into this replica's serving role.

use std::sync::Arc;
use std::time::Duration;

use openraft::{Raft, RaftMetrics, ServerState};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::leader_gate::Serving;
use super::leader_services::LeaderServices;
use super::leadership::Leadership;
use super::raft_proposer::RaftProposer;
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig};
use crate::state_machine::{APPLY_RULES, CommandV1, RmCommand, RmResponse};
use yarn_security::now_ms;

/// How long a leadership that ended waits for its services to stop at their next await point
/// before aborting them.
const SERVICES_STOP: Duration = Duration::from_secs(2);

/// One leadership of this replica: its term and its services.
struct ActiveLeadership {
    term: u64,
    token: CancellationToken,
    services: JoinSet<()>,
}

impl ActiveLeadership {
    /// Cancels the services and waits for them, aborting those still running after
    /// [`SERVICES_STOP`] (a scheduling pass on its blocking thread ends on its own).
    async fn end(mut self) {
        self.token.cancel();
        let stopped = tokio::time::timeout(SERVICES_STOP, async {
            while self.services.join_next().await.is_some() {}
        })
        .await;
        if stopped.is_err() {
            tracing::warn!(
                term = self.term,
                remaining = self.services.len(),
                "leader services still running {SERVICES_STOP:?} after stepping down; aborting"
            );
            self.services.shutdown().await;
        }
    }
}

/// Watches Raft's metrics and publishes [`Serving`].
///
/// Guarantees:
/// - [`Serving::Leader`] is published only after this replica, as leader of the current term,
///   has committed and applied its `BeginEpoch` entry (and its `AdoptApplyRules`, when the
///   state's apply rules were older than this binary's); since a leader's entry commits only
///   after everything before it, the applied state then holds every entry committed by any
///   earlier leader, and commands this leader proposes apply by its binary's rules.
/// - Leader-only services run under one cancellation token per leadership, in a task set the
///   leadership owns, and are cancelled, and the role set back to [`Serving::NotLeader`], as
///   soon as the metrics show another state or another term; they are awaited (at most
///   [`SERVICES_STOP`], then aborted) before another leadership can start theirs.
pub struct LeadershipMonitor {
    pub(crate) raft: Raft<RmTypeConfig>,
    /// Proposes this leadership's `BeginEpoch` and `AdoptApplyRules`.
    pub(crate) proposer: RaftProposer,
    pub(crate) rm_id: String,
    pub(crate) node_id: RmNodeId,
    pub(crate) serving: watch::Sender<Serving>,
    pub(crate) services: LeaderServices,
    /// How long to wait before retrying a `BeginEpoch` that failed while still leading.
    pub(crate) retry_interval: Duration,
    pub(crate) shutdown: CancellationToken,
}

impl LeadershipMonitor {
    /// Runs until `shutdown` is cancelled or Raft stops.
    pub async fn run(self) {
        let mut metrics = self.raft.metrics();
        let mut leadership: Option<ActiveLeadership> = None;
        let mut seen_leader = None;
        loop {
            let snapshot = metrics.borrow_and_update().clone();
            if let Some(leader) = new_leader(seen_leader, &snapshot) {
                seen_leader = Some(leader);
                self.services.metrics.record_leader_change();
            }
            let leading_term = self.leading_term(&snapshot);
            if let Some(active) = leadership.take_if(|active| leading_term != Some(active.term)) {
                tracing::info!(
                    rm_id = %self.rm_id,
                    term = active.term,
                    "stepped down; stopping leader services"
                );
                let leader = leader_rm_id(&snapshot);
                self.serving.send_replace(Serving::NotLeader { leader });
                active.end().await;
            }
            let mut retry = false;
            if leadership.is_none()
                && let Some(term) = leading_term
            {
                match self.begin_epoch(term).await {
                    Some(epoch) => {
                        let token = self.shutdown.child_token();
                        let current = Arc::new(Leadership::new(
                            term,
                            epoch,
                            self.services.node_tracker(),
                            self.services.config.activities,
                        ));
                        let services = self.services.start(&current, token.clone());
                        self.serving.send_replace(Serving::Leader(current));
                        tracing::info!(rm_id = %self.rm_id, term, epoch, "serving as leader");
                        leadership = Some(ActiveLeadership {
                            term,
                            token,
                            services,
                        });
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
        self.serving
            .send_replace(Serving::NotLeader { leader: None });
        if let Some(active) = leadership {
            active.end().await;
        }
    }

    fn leading_term(&self, metrics: &RaftMetrics<RmNodeId, RmNode>) -> Option<u64> {
        let leads =
            metrics.state == ServerState::Leader && metrics.current_leader == Some(self.node_id);
        leads.then_some(metrics.current_term)
    }

    /// Proposes this leadership's `BeginEpoch`, then `AdoptApplyRules` when the state's apply
    /// rules are older than this binary's, and returns the new epoch once both are applied and
    /// this replica still leads `term`; `None` when either failed (logged) or leadership moved
    /// on. Serving only after the rules are raised keeps every command this leader proposes
    /// under the rules its own services expect.
    async fn begin_epoch(&self, term: u64) -> Option<u64> {
        let command = RmCommand::V1(CommandV1::BeginEpoch {
            leader_rm_id: self.rm_id.clone(),
            now_ms: now_ms(),
        });
        let (epoch, apply_rules) = match self.proposer.propose(command).await {
            Ok(RmResponse::EpochBegun { epoch, apply_rules }) => (epoch, apply_rules),
            Ok(other) => {
                tracing::error!(?other, "BeginEpoch applied with an unexpected result");
                return None;
            }
            Err(err) => {
                tracing::warn!(rm_id = %self.rm_id, term, %err, "cannot begin an epoch");
                return None;
            }
        };
        if apply_rules < APPLY_RULES && !self.adopt_apply_rules(term).await {
            return None;
        }
        let still_leading = self.leading_term(&self.raft.metrics().borrow()) == Some(term);
        still_leading.then_some(epoch)
    }

    /// Proposes `AdoptApplyRules` with this binary's rules; false when it failed (logged). The
    /// caller then begins another epoch, which costs an epoch number and nothing else: the
    /// adoption is idempotent, and nothing is served until it is applied.
    async fn adopt_apply_rules(&self, term: u64) -> bool {
        let command = RmCommand::V1(CommandV1::AdoptApplyRules { rules: APPLY_RULES });
        match self.proposer.propose(command).await {
            Ok(RmResponse::ApplyRulesAdopted { .. }) => true,
            Ok(other) => {
                tracing::error!(?other, "AdoptApplyRules applied with an unexpected result");
                false
            }
            Err(err) => {
                tracing::warn!(rm_id = %self.rm_id, term, %err, "cannot adopt apply rules");
                false
            }
        }
    }
}

/// The term and node of the leader `metrics` names, when it is not `seen`, the last one seen;
/// `None` when it names none or the one seen. A leader elected again in a later term is a new
/// leadership, and a moment without a leader (an election under way) is none.
fn new_leader(
    seen: Option<(u64, RmNodeId)>,
    metrics: &RaftMetrics<RmNodeId, RmNode>,
) -> Option<(u64, RmNodeId)> {
    let leader = (metrics.current_term, metrics.current_leader?);
    (seen != Some(leader)).then_some(leader)
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    /// Each leadership counts once: a leader named again in its term is not new, one elected
    /// again in a later term is, and an election under way names none.
    #[test]
    fn a_new_leader_is_one_not_seen_in_its_term() {
        let mut metrics = RaftMetrics::<RmNodeId, RmNode>::new_initial(1);
        assert_eq!(new_leader(None, &metrics), None, "no leader yet");
        metrics.current_term = 2;
        metrics.current_leader = Some(3);
        assert_eq!(new_leader(None, &metrics), Some((2, 3)));
        assert_eq!(new_leader(Some((2, 3)), &metrics), None);
        metrics.current_term = 3;
        metrics.current_leader = None;
        assert_eq!(new_leader(Some((2, 3)), &metrics), None, "an election");
        metrics.current_leader = Some(3);
        assert_eq!(new_leader(Some((2, 3)), &metrics), Some((3, 3)));
    }

    /// Ending a leadership cancels its services and waits for them; one that ignores the
    /// cancellation is aborted after the bound, so no service outlives its leadership.
    #[tokio::test(start_paused = true)]
    async fn ending_a_leadership_stops_every_service_or_aborts_it() {
        let token = CancellationToken::new();
        let mut services = JoinSet::new();
        let polite_stopped = Arc::new(AtomicBool::new(false));
        let (polite_token, stopped) = (token.clone(), Arc::clone(&polite_stopped));
        services.spawn(async move {
            polite_token.cancelled().await;
            stopped.store(true, Ordering::SeqCst);
        });
        let stubborn_ran_to_end = Arc::new(AtomicBool::new(false));
        let finished = Arc::clone(&stubborn_ran_to_end);
        services.spawn(async move {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            finished.store(true, Ordering::SeqCst);
        });
        let leadership = ActiveLeadership {
            term: 7,
            token,
            services,
        };
        let started = tokio::time::Instant::now();
        leadership.end().await;
        assert!(polite_stopped.load(Ordering::SeqCst));
        assert!(
            !stubborn_ran_to_end.load(Ordering::SeqCst),
            "aborted, not waited for"
        );
        assert_eq!(started.elapsed(), SERVICES_STOP);
    }
}
