//! The leader's preemption monitor (Hadoop's `SchedulingMonitor` running the
//! `ProportionalCapacityPreemptionPolicy`).

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use yarn_scheduler::preemption::{PreemptionDecision, PreemptionSettings};
use yarn_security::now_ms;

use super::leadership::Leadership;
use super::raft_proposer::RaftProposer;
use crate::scheduling::{PreemptionConfig, QueueConfigSource};
use crate::state_machine::{CommandV1, ContainerKey, RmCommand, RmResponse, StateView};

/// Runs one preemption round every `monitoring_interval` and commits it: the containers it
/// chose start waiting, and those still chosen `max_wait_before_kill` after they were first
/// are killed (see [`CommandV1::PreemptionRound`]).
///
/// Guarantees: every decision that changes anything goes through Raft, so a deposed leader
/// kills nothing, and a new leader carries on the waits of the old one's rounds. The scheduler
/// lock is held only to take the round's snapshot; the policy itself runs on a blocking thread
/// with the lock released, so allocation goes on meanwhile. Under `observe_only` rounds are
/// logged and nothing is committed.
pub(crate) struct PreemptionMonitor {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    /// The leadership whose scheduler the rounds read.
    pub(crate) leadership: Arc<Leadership>,
    /// The queue configuration the scheduler is built from.
    pub(crate) source: QueueConfigSource,
    pub(crate) config: PreemptionConfig,
}

impl PreemptionMonitor {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let mut ticker = tokio::time::interval(self.config.monitoring_interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick completes at once; a new leader lets its scheduler settle one
        // interval before judging queues by it.
        ticker.tick().await;
        loop {
            tokio::select! {
                () = token.cancelled() => return,
                _ = ticker.tick() => {}
            }
            let Some(decision) = self.decide().await else {
                continue;
            };
            let waiting = self
                .state
                .read(|state| state.preemption_waits.waiting().next().is_some());
            let Some(command) = round_command(
                &decision,
                waiting,
                self.config.max_wait_before_kill,
                now_ms(),
            ) else {
                continue;
            };
            if self.config.observe_only {
                tracing::info!(?command, "preemption round observed, not committed");
                continue;
            }
            match self.proposer.propose(RmCommand::V1(command)).await {
                Ok(RmResponse::PreemptionRoundApplied { announced, killed }) => {
                    if !announced.is_empty() || !killed.is_empty() {
                        tracing::info!(
                            ?announced,
                            ?killed,
                            for_queues = ?decision.for_queues,
                            "preemption round committed"
                        );
                    }
                }
                // The next round chooses again from what is then committed.
                Ok(other) => tracing::warn!(?other, "unexpected preemption round response"),
                Err(err) => tracing::debug!(%err, "preemption round not committed"),
            }
        }
    }

    /// One round's decision: the snapshot under the scheduler lock, the policy off it. `None`
    /// when the scheduler cannot be built (a configuration that does not parse, logged where
    /// it is built) or the policy's thread failed.
    async fn decide(&self) -> Option<PreemptionDecision> {
        let nodes = self.leadership.nodes(|tracker| tracker.schedulable());
        let snapshot = self
            .leadership
            .scheduler()
            .with_reconciled(&self.state, &self.source, &nodes, |leader| {
                leader.scheduler().preemption_snapshot()
            })
            .await
            .ok()?;
        let settings: PreemptionSettings = self.config.settings;
        tokio::task::spawn_blocking(move || snapshot.decide(&settings))
            .await
            .inspect_err(|err| tracing::error!(%err, "preemption round failed"))
            .ok()
    }
}

/// The command committing `decision` at `now_ms`, or `None` when it would change nothing: no
/// container chosen and none `waiting` to be forgotten.
fn round_command(
    decision: &PreemptionDecision,
    waiting: bool,
    max_wait_before_kill: Duration,
    now_ms: i64,
) -> Option<CommandV1> {
    let chosen: Vec<ContainerKey> = decision
        .chosen
        .values()
        .flatten()
        .map(|id| ContainerKey {
            application_seq: id.application_attempt_id().application_id.id,
            container_id: id.container_id(),
        })
        .collect();
    if chosen.is_empty() && !waiting {
        return None;
    }
    Some(CommandV1::PreemptionRound {
        chosen,
        for_queues: decision.for_queues.clone(),
        max_wait_before_kill_ms: i64::try_from(max_wait_before_kill.as_millis())
            .unwrap_or(i64::MAX),
        now_ms,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

    use super::*;

    fn decision(chosen: &[(&str, ContainerId)]) -> PreemptionDecision {
        let mut by_leaf: BTreeMap<String, Vec<ContainerId>> = BTreeMap::new();
        for (leaf, id) in chosen {
            by_leaf.entry((*leaf).to_owned()).or_default().push(*id);
        }
        PreemptionDecision {
            chosen: by_leaf,
            for_queues: vec!["root.b".to_owned()],
            ..PreemptionDecision::default()
        }
    }

    #[test]
    fn a_round_that_chooses_nothing_is_committed_only_while_containers_wait() {
        let wait = Duration::from_secs(15);
        assert_eq!(round_command(&decision(&[]), false, wait, 1), None);
        let forget = round_command(&decision(&[]), true, wait, 1).expect("ages the waits");
        assert!(matches!(
            forget,
            CommandV1::PreemptionRound { ref chosen, .. } if chosen.is_empty()
        ));

        let attempt = ApplicationAttemptId::new(ApplicationId::new(7, 3), 2);
        let id = ContainerId::new(attempt, 4, 9).unwrap();
        assert_eq!(
            round_command(&decision(&[("root.a", id)]), false, wait, 1_000),
            Some(CommandV1::PreemptionRound {
                chosen: vec![ContainerKey {
                    application_seq: 3,
                    container_id: id.container_id(),
                }],
                for_queues: vec!["root.b".to_owned()],
                max_wait_before_kill_ms: 15_000,
                now_ms: 1_000,
            })
        );
    }
}
