//! The leader's removal of unused auto-created queues (Hadoop's
//! `AutoCreatedQueueDeletionPolicy`, run by the scheduling monitor).

use tokio_util::sync::CancellationToken;
use yarn_scheduler::queue_expiration;

use super::raft_proposer::RaftProposer;
use crate::scheduling::AutoQueueDeletion;
use crate::state_machine::{CommandV1, RmCommand, RmResponse, StateView};

/// Every expiry time (`yarn.scheduler.capacity.auto-queue-creation-v2.queue-expiration-time`
/// of the committed configuration, read again after each round), runs a round of
/// [`AutoQueueDeletion`] and commits the removal of the queues it chose
/// ([`CommandV1::RemoveAutoCreatedQueues`]), which the scheduler then drops from its queues.
///
/// Guarantees: those of [`AutoQueueDeletion`]; a removal that does not commit is decided
/// again. Nothing is proposed while no queue is due, so an idle cluster writes nothing.
pub(crate) struct AutoQueueDeleter {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
}

impl AutoQueueDeleter {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let mut policy = AutoQueueDeletion::default();
        loop {
            // A value that does not parse was refused when committed: the default then.
            let expiry = self
                .state
                .read(|state| queue_expiration(&state.queue_config))
                .unwrap_or_else(|_| queue_expiration(&Default::default()).unwrap_or_default());
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(expiry) => {}
            }
            let due = self.state.read(|state| policy.round(state));
            if due.is_empty() {
                continue;
            }
            let command = RmCommand::V1(CommandV1::RemoveAutoCreatedQueues { queues: due });
            match self.proposer.propose(command).await {
                Ok(RmResponse::AutoCreatedQueuesRemoved { removed }) if !removed.is_empty() => {
                    tracing::info!(
                        queues = %removed.join(", "),
                        "removed auto-created queues unused for their expiry time"
                    );
                }
                Ok(_) => {}
                Err(err) => tracing::debug!(%err, "queue removal not committed; decided again"),
            }
        }
    }
}
