//! The leader's asynchronous scheduling loop.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::leadership::Leadership;
use super::raft_proposer::RaftProposer;
use crate::scheduling::{LeaderScheduler, PassOutcome, QueueConfigSource, RecoveryWait};
use crate::state_machine::{CommandV1, ExecutionType, RmCommand, RmResponse, StateView};
use crate::telemetry::RmMetrics;
use yarn_security::now_ms;

/// The most allocations one Raft entry carries, about 600 KB encoded. A pass that fills an
/// empty cluster of thousands of nodes can place hundreds of thousands of containers; as one
/// entry it would take a follower longer to receive, fsync and acknowledge than the Raft RPC
/// timeout allows, and an entry that never replicates stalls the log for good.
pub(crate) const MAX_ALLOCATIONS_PER_ENTRY: usize = 10_000;

/// Drives the leader's CapacityScheduler: every `interval` it reconciles the scheduler with the
/// replicated state and the registered nodes, commits the verdicts on submitted applications,
/// runs one pass over all nodes (promotions of OPPORTUNISTIC containers and increases of
/// GUARANTEED ones that fit, GUARANTEED asks through the CapacityScheduler, OPPORTUNISTIC ones on
/// the least-loaded nodes) and commits the pass's allocations as one Raft entry (several for a
/// pass of more than [`MAX_ALLOCATIONS_PER_ENTRY`]), so container ids of both kinds are
/// committed in the order they were issued, then its promotions as one more and its increases
/// as one more.
///
/// Guarantees:
/// - nothing reaches an AM or a NodeManager before it is committed: AMs and the AM launcher
///   read allocations from the replicated state, never from the scheduler;
/// - a pass whose commit fails or cannot be confirmed loses nothing: the next reconcile frees
///   what the state did not record and charges what it did;
/// - container ids carry this leadership's epoch and the state refuses any id not above every
///   id already issued to the application, so an id is never issued twice, even by a deposed
///   leader;
/// - a new leader allocates nothing until every node holding live containers in the state has
///   registered again, or `scheduling_wait` has passed since the leadership began
///   (`yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms`), so it does not
///   place containers on resources that running containers still hold.
pub(crate) struct AsyncScheduler {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    pub(crate) source: QueueConfigSource,
    /// The leadership whose soft state the service works on.
    pub(crate) leadership: Arc<Leadership>,
    pub(crate) interval: Duration,
    pub(crate) scheduling_wait: Duration,
    /// `yarn.resourcemanager.opportunistic-container-allocation.nodes-used`.
    pub(crate) nodes_used: usize,
    /// Where each pass's length and allocations are recorded.
    pub(crate) metrics: Arc<RmMetrics>,
    /// Where the passes run.
    pub(crate) passes: PassThreads,
    /// The replica's failpoints, for the planted `plant.reissue-container-id` bug.
    #[cfg(feature = "failpoints")]
    pub(crate) failpoints: crate::storage::Failpoints,
}

/// Where a leader's scheduling passes run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PassThreads {
    /// On tokio's blocking threads: a pass over thousands of nodes takes hundreds of
    /// milliseconds of CPU, which must not starve Raft's heartbeats and the RPCs on the async
    /// workers. What a replica does.
    #[default]
    Blocking,
    /// On the scheduling loop's own task: what the deterministic simulation does, since a
    /// blocking thread runs on the host's clock and scheduler, outside the simulation's order.
    Inline,
}

impl PassThreads {
    /// Runs `work` where `self` says; `None` when its blocking thread panicked.
    pub(crate) async fn run<T, F>(self, work: F) -> Option<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        match self {
            Self::Blocking => tokio::task::spawn_blocking(work)
                .await
                .inspect_err(|err| tracing::error!(%err, "a leader's blocking work failed"))
                .ok(),
            Self::Inline => Some(work()),
        }
    }
}

impl AsyncScheduler {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        tokio::select! {
            () = token.cancelled() => {}
            () = self.schedule_until_deposed() => {}
        }
    }

    async fn schedule_until_deposed(&self) {
        let mut recovery = self
            .state
            .read(|state| RecoveryWait::new(state, Instant::now(), self.scheduling_wait));
        let mut reported_config_error = None;
        #[cfg(feature = "failpoints")]
        let mut reissued = super::reissued_container_ids::ReissuedContainerIds::default();
        let mut nodes = Arc::new(self.leadership.nodes(|tracker| tracker.schedulable()));
        loop {
            tokio::time::sleep(self.interval).await;
            // Listed again only when the registry changed: thousands of nodes every few
            // milliseconds would otherwise be copied for nothing.
            let changed = self.leadership.nodes(|tracker| {
                (tracker.revision() != nodes.revision).then(|| tracker.schedulable())
            });
            if let Some(changed) = changed {
                nodes = Arc::new(changed);
            }
            let ready = recovery.is_over(Instant::now(), nodes.nodes.iter().map(|node| &node.id));
            let (least_loaded, heartbeats) = self.leadership.nodes(|tracker| {
                let least_loaded = tracker.least_loaded_nodes(Instant::now(), self.nodes_used);
                (least_loaded, tracker.take_heartbeats())
            });
            // Read before the pass, on this task: a blocking thread sees only the host's clock.
            let (leadership, state, source, nodes) = (
                Arc::clone(&self.leadership),
                self.state.clone(),
                self.source.clone(),
                Arc::clone(&nodes),
            );
            // Real time, not tokio's: the figure is how long the CPU work took.
            let pass_started = std::time::Instant::now();
            let now = now_ms();
            let recorded = Arc::clone(&self.leadership);
            let schedule = move |leader: &mut LeaderScheduler| {
                if !ready {
                    return PassOutcome::default();
                }
                // Activities are recorded only while someone asked for them.
                let recorder = recorded.activities(|activities| activities.recorder(now));
                leader.scheduler_mut().record_activities(recorder);
                let outcome = leader.schedule(now, &least_loaded, &heartbeats);
                if let Some(recorder) = leader.scheduler_mut().take_activities() {
                    recorded.activities(|activities| activities.finish_pass(recorder, now));
                }
                outcome
            };
            // A pass that panicked is an `Err` either way, and the scheduler is rebuilt.
            let pass = match self.passes {
                PassThreads::Blocking => tokio::task::spawn_blocking(move || {
                    let cell = leadership.scheduler();
                    cell.blocking_with_reconciled(&state, &source, &nodes, schedule)
                })
                .await
                .map_err(drop),
                PassThreads::Inline => AssertUnwindSafe(
                    leadership
                        .scheduler()
                        .inline_with_reconciled(&state, &source, &nodes, schedule),
                )
                .catch_unwind()
                .await
                .map_err(drop),
            };
            let Ok(reconciled) = pass else {
                tracing::error!(
                    "a scheduling pass panicked; the scheduler is rebuilt from the state"
                );
                self.leadership.scheduler().clear().await;
                continue;
            };
            let (pass, admissions) = match reconciled {
                Ok(outcome) => outcome,
                Err(err) => {
                    let version = self.state.read(|state| state.queue_config_version);
                    if reported_config_error != Some(version) {
                        tracing::error!(
                            version,
                            %err,
                            "the committed queue configuration does not apply on this leader; \
                             it cannot schedule until a refresh commits one that does"
                        );
                        reported_config_error = Some(version);
                    }
                    continue;
                }
            };
            let PassOutcome {
                allocations,
                placements,
                promotions,
                increases,
            } = pass;
            if ready {
                self.metrics
                    .record_pass(pass_started.elapsed(), allocations.len());
            }
            // PLANTED BUG (failpoints builds, `plant.reissue-container-id` only).
            #[cfg(feature = "failpoints")]
            let allocations = if self.failpoints.reissues_container_ids() {
                self.state.read(|state| {
                    reissued.renumber(self.leadership.epoch(), allocations, |application| {
                        state.containers.last_issued(application)
                    })
                })
            } else {
                allocations
            };
            if !placements.is_empty() {
                // Counted as queued on their nodes until the nodes report again, so the next
                // pass does not pile onto the same queues.
                self.leadership
                    .nodes(|tracker| tracker.record_placements(&placements));
            }
            let mut settled = true;
            if !admissions.is_empty() {
                settled &= self
                    .commit(CommandV1::AdmitApplications {
                        admissions,
                        now_ms: now_ms(),
                    })
                    .await
                    .is_some();
            }
            for batch in allocations.chunks(MAX_ALLOCATIONS_PER_ENTRY) {
                let allocations = batch.to_vec();
                let opportunistic = allocations
                    .iter()
                    .filter(|record| record.execution_type == ExecutionType::Opportunistic)
                    .map(|record| record.key)
                    .collect::<Vec<_>>();
                match self
                    .commit(CommandV1::AllocateContainers { allocations })
                    .await
                {
                    Some(RmResponse::ContainersAllocated { rejected, .. }) => {
                        let refused = opportunistic
                            .iter()
                            .filter(|key| rejected.iter().any(|r| r.key() == **key))
                            .count();
                        let recorded = (opportunistic.len() - refused) as u64;
                        self.leadership.count(|counts| {
                            counts.allocated_centrally += recorded;
                        });
                    }
                    Some(_) => {}
                    None => {
                        settled = false;
                        break;
                    }
                }
            }
            if settled && !promotions.is_empty() {
                settled &= self
                    .commit(CommandV1::UpdateContainers {
                        updates: promotions,
                    })
                    .await
                    .is_some();
            }
            if settled && !increases.is_empty() {
                settled &= self
                    .commit(CommandV1::ResizeContainers { resizes: increases })
                    .await
                    .is_some();
            }
            if !settled {
                self.leadership.scheduler().invalidate().await;
            }
        }
    }

    /// Proposes `command`, logs what came of it and returns it; `None` when it may not have
    /// committed. Reconciling settles either outcome, so failures are only reported.
    async fn commit(&self, command: CommandV1) -> Option<RmResponse> {
        match self.proposer.propose(RmCommand::V1(command)).await {
            Ok(response) => {
                match &response {
                    RmResponse::ContainersAllocated { recorded, rejected } => {
                        tracing::debug!(recorded, "scheduling pass committed");
                        if !rejected.is_empty() {
                            tracing::info!(?rejected, "allocations refused by the state");
                        }
                    }
                    RmResponse::ApplicationsAdmitted { decided, ignored } => {
                        tracing::debug!(decided, ignored, "admissions committed");
                    }
                    RmResponse::ContainersUpdated { updated, rejected } => {
                        tracing::debug!(?updated, "promotions or increases committed");
                        if !rejected.is_empty() {
                            // One re-proposed after an unconfirmed commit that did apply.
                            tracing::info!(
                                ?rejected,
                                "promotions or increases refused by the state"
                            );
                        }
                    }
                    other => tracing::warn!(response = ?other, "unexpected scheduling response"),
                }
                Some(response)
            }
            Err(err) => {
                tracing::warn!(%err, "a scheduling commit failed");
                None
            }
        }
    }
}
