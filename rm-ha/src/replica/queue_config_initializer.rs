//! The first leader's commit of the queue configuration.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::raft_proposer::RaftProposer;
use crate::scheduling::{QueueConfigSource, QueueRefresh};
use crate::state_machine::{RmCommand, StateView};

/// Commits the leader's `capacity-scheduler.xml` when the replicated state has no queue
/// configuration yet (version 0), so that from then on every replica schedules with the same
/// queues and only `-refreshQueues` changes them. Retries every `retry_interval` until the
/// configuration is committed by this leader or another, or `token` is cancelled.
pub(crate) struct QueueConfigInitializer {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    pub(crate) source: QueueConfigSource,
    pub(crate) retry_interval: Duration,
}

impl QueueConfigInitializer {
    /// Runs until the configuration is in the state or `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        while self.state.read(|state| state.queue_config_version == 0) {
            match self.commit_once().await {
                Ok(()) => continue,
                Err(reason) => tracing::warn!(
                    file = %self.source.describe(),
                    %reason,
                    "could not commit the initial queue configuration; will retry"
                ),
            }
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(self.retry_interval) => {}
            }
        }
    }

    async fn commit_once(&self) -> Result<(), String> {
        let file = self.source.read().map_err(|e| e.to_string())?;
        let plan = self
            .state
            .read(|state| QueueRefresh::plan(state, &self.source, &file))
            .map_err(|e| e.to_string())?;
        for warning in &plan.warnings {
            tracing::warn!(file = %self.source.describe(), "{warning}");
        }
        let Some(refresh) = plan.refresh else {
            return Ok(());
        };
        let command = RmCommand::V1(refresh.command());
        match self.proposer.propose(command).await {
            Ok(response) => {
                tracing::info!(?response, "initial queue configuration committed");
                Ok(())
            }
            Err(err) => Err(err.to_string()),
        }
    }
}
