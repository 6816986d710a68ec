//! [`PendingIncreases`]: the container increases a leader accepted from AMs, from the request
//! to the commit the state shows applied.

use std::collections::BTreeMap;

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use yarn_scheduler::{CapacityScheduler, Resource};

use crate::state_machine::{ContainerKey, ContainerResize, ExecutionType, RmState};

/// An increase the leader accepted and keeps until the state shows it applied.
#[derive(Debug, Clone)]
struct PendingIncrease {
    /// The resize to commit once granted.
    resize: ContainerResize,
    /// The container, as the scheduler knows it.
    container: ContainerId,
    /// Whether the scheduler granted it (and charges the container at its new size) and the
    /// commit is not yet seen.
    granted: bool,
}

/// The increases of one leadership, by container.
///
/// An increase needs room on the container's node, so it waits in the scheduler
/// ([`CapacityScheduler::request_increase`]) until a pass grants it; the leader then commits
/// it as a `ResizeContainers` entry, re-proposing it after a commit that may not have applied
/// (its version makes a second application a refusal). The replicated state stays the truth:
/// an increase whose container completed, moved on to another version or stopped being
/// GUARANTEED, or whose attempt is no longer current, is dropped.
#[derive(Debug, Default)]
pub struct PendingIncreases {
    increases: BTreeMap<ContainerKey, PendingIncrease>,
}

impl PendingIncreases {
    /// Takes `resize`, an increase of a live GUARANTEED container of the application with
    /// cluster timestamp `cluster_timestamp_ms`, and has `scheduler` wait for room for it; it
    /// replaces an increase of the same container still waiting. A
    /// container the scheduler does not hold yet (after a failover, until its node
    /// re-registers) is asked for again by [`reconcile`](Self::reconcile).
    pub fn request(
        &mut self,
        scheduler: &mut CapacityScheduler,
        cluster_timestamp_ms: i64,
        resize: ContainerResize,
    ) {
        let application = ApplicationId::new(cluster_timestamp_ms, resize.key.application_seq);
        let attempt = ApplicationAttemptId::new(application, resize.attempt_id);
        let Ok(container) = ContainerId::from_raw(attempt, resize.key.container_id) else {
            return;
        };
        if let Err(err) = scheduler.request_increase(container, target(&resize)) {
            tracing::debug!(%container, %err, "increase waits");
        }
        self.increases.insert(
            resize.key,
            PendingIncrease {
                resize,
                container,
                granted: false,
            },
        );
    }

    /// Whether an increase of `key` was granted and its commit is not yet seen: it can no
    /// longer be replaced or withdrawn. One still waiting for room can.
    pub fn is_granted(&self, key: &ContainerKey) -> bool {
        self.increases
            .get(key)
            .is_some_and(|increase| increase.granted)
    }

    /// Withdraws the increase of `key` (a decrease or a demotion of the container was
    /// accepted, as Hadoop cancels an outstanding increase then). Only one still waiting for
    /// room can be: while one is granted, every other update of the container is refused as
    /// outstanding ([`is_granted`](Self::is_granted)) before it gets here.
    pub fn cancel(&mut self, scheduler: &mut CapacityScheduler, key: &ContainerKey) {
        if let Some(increase) = self.increases.remove(key) {
            scheduler.cancel_increase(&increase.container);
        }
    }

    /// Lets `scheduler` grant the increases that fit now, and returns every granted one whose
    /// commit is not seen yet, to propose.
    pub fn schedule(&mut self, scheduler: &mut CapacityScheduler) -> Vec<ContainerResize> {
        for granted in scheduler.schedule_increases() {
            let key = ContainerKey {
                application_seq: granted.application_attempt_id.application_id.id,
                container_id: granted.container_id.container_id(),
            };
            if let Some(increase) = self.increases.get_mut(&key) {
                increase.granted = true;
            }
        }
        self.increases
            .values()
            .filter(|increase| increase.granted)
            .map(|increase| increase.resize.clone())
            .collect()
    }

    /// Whether the scheduler charges `key` at a granted size whose commit `state` does not
    /// show yet (the container is still at the version the increase names).
    pub fn awaiting_commit(&self, key: &ContainerKey, state: &RmState) -> bool {
        self.increases.get(key).is_some_and(|increase| {
            increase.granted && state.containers.version(key) == increase.resize.version
        })
    }

    /// Forgets the increases `state` shows applied or no longer wanted (see the type), and
    /// asks `scheduler` again for those it lost (it started afresh).
    pub fn reconcile(&mut self, state: &RmState, scheduler: &mut CapacityScheduler) {
        let waiting: std::collections::BTreeSet<ContainerId> = scheduler
            .pending_increases()
            .map(|(container, _)| *container)
            .collect();
        self.increases.retain(|key, increase| {
            let container = increase.container;
            let resize = &increase.resize;
            let still_wanted = state
                .updatable_container(key, resize.attempt_id, resize.version)
                .is_some_and(|record| record.execution_type == ExecutionType::Guaranteed);
            if !still_wanted {
                scheduler.cancel_increase(&container);
                return false;
            }
            let charged = scheduler
                .container(&container)
                .is_some_and(|allocation| allocation.resource == target(&increase.resize));
            if increase.granted && !charged {
                // The scheduler lost the charge (it started afresh): ask again.
                increase.granted = false;
            }
            if !increase.granted && !waiting.contains(&container) {
                if let Err(err) = scheduler.request_increase(container, target(&increase.resize)) {
                    tracing::debug!(%container, %err, "increase waits");
                }
            }
            true
        });
    }
}

/// The size `resize` grows its container to.
fn target(resize: &ContainerResize) -> Resource {
    Resource::new(resize.memory_mb, resize.vcores)
}
