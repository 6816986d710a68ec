//! [`RecoveredTicker`]: the ticks of a leader service that weighs the whole cluster.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::leadership::Leadership;
use super::periodic::Periodic;
use crate::nodes::SchedulableNodes;
use crate::scheduling::RecoveryWait;
use crate::state_machine::StateView;

/// Ticks every `period`, skipping those before the leadership's work-preserving recovery wait
/// is over (the nodes holding live containers re-registered, or
/// `yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms` passed): until then a new
/// leader knows only part of the cluster's usage and resources. A late tick is delayed, never
/// bunched.
pub(crate) struct RecoveredTicker {
    every: Periodic,
    recovery: RecoveryWait,
    leadership: Arc<Leadership>,
}

impl RecoveredTicker {
    /// Starts ticking now, for `leadership`, whose recovery waits at most `scheduling_wait`.
    pub(crate) fn new(
        state: &StateView,
        leadership: Arc<Leadership>,
        period: Duration,
        scheduling_wait: Duration,
    ) -> Self {
        let recovery =
            state.read(|state| RecoveryWait::new(state, Instant::now(), scheduling_wait));
        Self {
            every: Periodic::new(period),
            recovery,
            leadership,
        }
    }

    /// Waits for the next tick after the recovery wait and returns the running nodes then;
    /// `None` once `token` is cancelled.
    pub(crate) async fn next(&mut self, token: &CancellationToken) -> Option<SchedulableNodes> {
        while self.every.tick(token).await {
            let nodes = self.leadership.nodes(|tracker| tracker.schedulable());
            let registered = nodes.nodes.iter().map(|node| &node.id);
            if self.recovery.is_over(Instant::now(), registered) {
                return Some(nodes);
            }
        }
        None
    }
}
