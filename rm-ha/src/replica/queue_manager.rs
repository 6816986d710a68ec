//! The leader's management of the leaves of managed parents (Hadoop's
//! `QueueManagementDynamicEditPolicy`, run by the scheduling monitor).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::raft_proposer::RaftProposer;
use crate::scheduling::queue_management_round;
use crate::state_machine::{CommandV1, RmCommand, RmResponse, StateView};

/// Every `interval`
/// (`yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval`), runs a round
/// of [`queue_management_round`] over the replicated state and commits its changes
/// ([`CommandV1::ManageAutoCreatedLeafQueues`]), which the scheduler then applies to the
/// leaves' capacities.
///
/// Guarantees: those of [`queue_management_round`]; a round that does not commit is decided
/// again from the state at the next one. Nothing is proposed while nothing changes, so an idle
/// cluster writes nothing.
pub(crate) struct QueueManager {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    pub(crate) interval: Duration,
}

impl QueueManager {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        loop {
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(self.interval) => {}
            }
            let changes = self.state.read(queue_management_round);
            if changes.is_empty() {
                continue;
            }
            let command = RmCommand::V1(CommandV1::ManageAutoCreatedLeafQueues {
                deactivated: changes.deactivated,
                activated: changes.activated,
            });
            match self.proposer.propose(command).await {
                Ok(RmResponse::AutoCreatedLeafQueuesManaged { changed }) if !changed.is_empty() => {
                    tracing::info!(
                        queues = %changed.join(", "),
                        "changed the capacity of auto-created leaf queues"
                    );
                }
                Ok(_) => {}
                Err(err) => tracing::debug!(%err, "queue management not committed; decided again"),
            }
        }
    }
}
