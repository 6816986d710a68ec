//! The leader's plan follower (Hadoop's `CapacitySchedulerPlanFollower`): at every time step it
//! brings the reservation queues in line with the plan.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use yarn_security::now_ms;

use super::leadership::Leadership;
use super::raft_proposer::RaftProposer;
use super::recovered_ticker::RecoveredTicker;
use crate::nodes::SchedulableNodes;
use crate::scheduling::{PlanQueue, PlanStep, QueueConfigSource, plan_step};
use crate::state_machine::{CommandV1, RmCommand, RmResponse, RmState, StateView};

/// Every `time_step` (`yarn.resourcemanager.reservation-system.planfollower.time-step`), sizes
/// the queue of each active reservation from what the plan holds for it now, moves the
/// applications of reservations that ended to their plan's default reservation queue or kills
/// them (`reservation-move-on-expiry`), deletes the reservations accepted last when the plan no
/// longer has the resources it promised within `reservation-enforcement-window` (Hadoop's
/// `SimpleCapacityReplanner`), and archives reservations that ended a whole
/// `reservation-window` ago.
///
/// Guarantees:
/// - every decision goes through Raft (see [`CommandV1::SizeReservationQueues`]), so every
///   replica's scheduler holds the same reservation queues and a new leader carries on from
///   them; a deposed leader changes nothing;
/// - sizes are committed only when they change, so a plan between two steps of its
///   allocations adds nothing to the log;
/// - a new leader takes no step before its work-preserving recovery wait is over, nor while no
///   NodeManager runs: until then it knows only part of the cluster and would shrink every
///   reservation; and it drops no reservation for want of resources before every NodeManager
///   it knows of has registered again, or the NodeManager expiry interval has passed (a node
///   missing then is lost), so a failover never costs a reservation;
/// - a reservation queue stays in every replica's scheduler while it holds applications
///   (retained, taking no new one), so an application of an ended reservation runs on until
///   its move or kill is committed; one found in a plan queue itself (placed there before the
///   queue was reservable) is moved to the plan's default queue;
/// - a move or kill applies only if the application is still in the queue it was decided for
///   ([`CommandV1::ExpireReservationApplication`]), and a reservation is dropped only if it was
///   not updated since ([`CommandV1::DropReservation`]), so a client's change in between wins.
///
/// Windows are measured on the leaders' wall clocks, so replicas' clocks must agree, as NTP
/// keeps them, for a new leader not to open or close a reservation's queue early. A step
/// decided just before a client deletes a reservation may size its queue once more; the next
/// step removes it.
pub(crate) struct PlanFollower {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    /// The leadership whose scheduler holds the queues.
    pub(crate) leadership: Arc<Leadership>,
    /// The queue configuration the scheduler is built from.
    pub(crate) source: QueueConfigSource,
    pub(crate) time_step: Duration,
    /// `yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms`.
    pub(crate) scheduling_wait: Duration,
    /// `yarn.nm.liveness-monitor.expiry-interval-ms`: after it, a NodeManager that has not
    /// registered with this leader counts as lost.
    pub(crate) nm_expiry: Duration,
}

impl PlanFollower {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let started = Instant::now();
        let mut ticks = RecoveredTicker::new(
            &self.state,
            Arc::clone(&self.leadership),
            self.time_step,
            self.scheduling_wait,
        );
        while let Some(nodes) = ticks.next(&token).await {
            // With no NodeManager running the plan's resources are unknown, not zero.
            if nodes.nodes.is_empty() {
                continue;
            }
            let replan = started.elapsed() >= self.nm_expiry
                || self
                    .state
                    .read(|state| every_known_node_runs(state, &nodes));
            if let Some(step) = self.decide(&nodes, replan).await {
                self.commit(step).await;
            }
        }
    }

    /// The step at the leader's clock, from the plan queues as its scheduler holds them; `None`
    /// when the scheduler cannot be built (logged where it is built).
    async fn decide(&self, nodes: &SchedulableNodes, replan: bool) -> Option<PlanStep> {
        let state = &self.state;
        self.leadership
            .scheduler()
            .with_reconciled(state, &self.source, nodes, |leader| {
                let scheduler = leader.scheduler();
                let conf = scheduler.configuration();
                let plans: Vec<PlanQueue> = conf
                    .queues()
                    .filter_map(|queue| {
                        let reservation = queue.reservation?;
                        Some(PlanQueue {
                            path: queue.path.clone(),
                            name: queue.name.clone(),
                            resources: scheduler.queue_info(&queue.path).ok()?.guaranteed_resource,
                            conf: reservation,
                        })
                    })
                    .collect();
                state.read(|state| {
                    plan_step(
                        state,
                        &plans,
                        scheduler.cluster_resource(),
                        conf.resource_calculator(),
                        now_ms(),
                        replan,
                    )
                })
            })
            .await
            .ok()
    }

    /// Commits what `step` changes, sizes first: an expired reservation's queue stays (empty)
    /// until its applications' moves and kills are committed.
    async fn commit(&self, step: PlanStep) {
        let resized = self
            .state
            .read(|state| state.reservations.queues() != &step.queues);
        let mut commands = Vec::new();
        if resized {
            commands.push(CommandV1::SizeReservationQueues {
                queues: step.queues,
            });
        }
        let now_ms = now_ms();
        commands.extend(step.expired.into_iter().map(|expired| {
            CommandV1::ExpireReservationApplication {
                application_seq: expired.application_seq,
                queue: expired.queue,
                move_to: expired.move_to,
                diagnostics: expired.diagnostics,
                now_ms,
            }
        }));
        commands.extend(step.replanned.into_iter().chain(step.archive).map(
            |(sequence, acceptance_ms)| CommandV1::DropReservation {
                sequence,
                acceptance_ms,
            },
        ));
        for command in commands {
            tracing::info!(?command, "plan follower");
            match self.proposer.propose(RmCommand::V1(command)).await {
                Ok(
                    RmResponse::ReservationQueuesSized
                    | RmResponse::ApplicationMoved
                    | RmResponse::ApplicationKilled
                    | RmResponse::PlanVersionSet { .. },
                ) => {}
                // The next step decides again from what is then committed.
                Ok(other) => tracing::debug!(?other, "plan follower change not applied"),
                Err(err) => {
                    tracing::debug!(%err, "plan follower change not committed");
                    return;
                }
            }
        }
    }
}

/// Whether every NodeManager `state` knows of (registered once and not decommissioned) runs
/// among `nodes`.
fn every_known_node_runs(state: &RmState, nodes: &SchedulableNodes) -> bool {
    let running: BTreeSet<String> = nodes.nodes.iter().map(|node| node.id.to_string()).collect();
    state
        .node_incarnations
        .keys()
        .filter(|node| !state.decommissioned_nodes.contains(*node))
        .all(|node| running.contains(node))
}
