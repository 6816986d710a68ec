//! The leader's preemption monitor (Hadoop's `SchedulingMonitor` running the
//! `ProportionalCapacityPreemptionPolicy`).

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use yarn_scheduler::preemption::PreemptionDecision;
use yarn_security::now_ms;

use super::async_scheduler::PassThreads;
use super::leadership::Leadership;
use super::raft_proposer::RaftProposer;
use super::recovered_ticker::RecoveredTicker;
use crate::nodes::SchedulableNodes;
use crate::scheduling::{PreemptionConfig, QueueConfigSource};
use crate::state_machine::{CommandV1, ContainerKey, RmCommand, RmResponse, StateView};

/// Runs one preemption round every `monitoring_interval` and commits it: the containers it
/// chose start waiting, and those still chosen `max_wait_before_kill` after they were first
/// are killed (see [`CommandV1::PreemptionRound`]).
///
/// Guarantees:
/// - every decision goes through Raft, so a deposed leader kills nothing, and a new leader
///   carries on the waits of the old one's rounds;
/// - a new leader runs no round before its work-preserving recovery wait is over (the nodes
///   holding live containers re-registered, or
///   `yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms` passed): until then it
///   sees only part of the queues' usage, and would take from queues that owe nothing;
/// - a round is committed only when it changes the replicated waits (announces, kills, forgets
///   or stops choosing a container), so a stable cluster adds nothing to the log;
/// - the scheduler lock is held only to take the round's snapshot; the policy runs with the
///   lock released, on a blocking thread (inline under the simulation), so allocation goes on;
/// - under `observe_only` rounds are logged and nothing is committed.
///
/// Waits are measured on the leaders' wall clocks (the times rounds carry), so replicas'
/// clocks must agree, as NTP keeps them, for a failover not to shorten or lengthen a wait.
pub(crate) struct PreemptionMonitor {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    /// The leadership whose scheduler the rounds read.
    pub(crate) leadership: Arc<Leadership>,
    /// The queue configuration the scheduler is built from.
    pub(crate) source: QueueConfigSource,
    pub(crate) config: PreemptionConfig,
    /// `yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms`.
    pub(crate) scheduling_wait: Duration,
    /// Where the policy runs, as the scheduling passes do.
    pub(crate) passes: PassThreads,
}

impl PreemptionMonitor {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let mut ticks = RecoveredTicker::new(
            &self.state,
            Arc::clone(&self.leadership),
            self.config.monitoring_interval,
            self.scheduling_wait,
        );
        while let Some(nodes) = ticks.next(&token).await {
            let Some(decision) = self.decide(&nodes).await else {
                continue;
            };
            let now_ms = now_ms();
            let command = round_command(&decision, self.config.max_wait_before_kill, now_ms);
            // The same preview as applying the command makes, on the committed state.
            let changes = self.state.read(|state| match &command {
                CommandV1::PreemptionRound {
                    chosen,
                    max_wait_before_kill_ms,
                    ..
                } => {
                    let (waits, _) =
                        state.preview_preemption_round(chosen, *max_wait_before_kill_ms, now_ms);
                    waits != state.preemption_waits
                }
                _ => false,
            });
            if !changes {
                continue;
            }
            if self.config.observe_only {
                tracing::info!(?command, "preemption round observed, not committed");
                continue;
            }
            match self.proposer.propose(RmCommand::V1(command)).await {
                Ok(RmResponse::PreemptionRoundApplied { announced, killed }) => {
                    tracing::info!(
                        ?announced,
                        ?killed,
                        for_queues = ?decision.for_queues,
                        "preemption round committed"
                    );
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
    async fn decide(&self, nodes: &SchedulableNodes) -> Option<PreemptionDecision> {
        let snapshot = self
            .leadership
            .scheduler()
            .with_reconciled(&self.state, &self.source, nodes, |leader| {
                leader.scheduler().preemption_snapshot()
            })
            .await
            .ok()?;
        let settings = self.config.settings;
        self.passes.run(move || snapshot.decide(&settings)).await
    }
}

/// The command committing `decision` at `now_ms`.
fn round_command(
    decision: &PreemptionDecision,
    max_wait_before_kill: Duration,
    now_ms: i64,
) -> CommandV1 {
    let chosen = decision
        .chosen
        .values()
        .flatten()
        .map(|id| ContainerKey {
            application_seq: id.application_attempt_id().application_id.id,
            container_id: id.container_id(),
        })
        .collect();
    CommandV1::PreemptionRound {
        chosen,
        for_queues: decision.for_queues.clone(),
        max_wait_before_kill_ms: i64::try_from(max_wait_before_kill.as_millis())
            .unwrap_or(i64::MAX),
        now_ms,
    }
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
    fn a_round_commits_the_chosen_containers_by_their_table_keys() {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(7, 3), 2);
        let id = ContainerId::new(attempt, 4, 9).unwrap();
        let wait = Duration::from_secs(15);
        assert_eq!(
            round_command(&decision(&[("root.a", id)]), wait, 1_000),
            CommandV1::PreemptionRound {
                chosen: vec![ContainerKey {
                    application_seq: 3,
                    container_id: id.container_id(),
                }],
                for_queues: vec!["root.b".to_owned()],
                max_wait_before_kill_ms: 15_000,
                now_ms: 1_000,
            }
        );
    }
}
