//! The first leader's commit of the queue configuration.

use std::time::Duration;

use openraft::Raft;
use tokio_util::sync::CancellationToken;

use crate::raft_types::RmTypeConfig;
use crate::scheduling::{QueueConfigSource, QueueRefresh};
use crate::state_machine::{RmCommand, StateView};

/// Commits the leader's `capacity-scheduler.xml` when the replicated state has no queue
/// configuration yet (version 0), so that from then on every replica schedules with the same
/// queues and only `-refreshQueues` changes them. Retries every `retry_interval` until the
/// configuration is committed by this leader or another, or `token` is cancelled.
pub(crate) struct QueueConfigInitializer {
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) state: StateView,
    pub(crate) source: QueueConfigSource,
    pub(crate) retry_interval: Duration,
    pub(crate) proposal_timeout: Duration,
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
        let properties = self.source.read_properties().map_err(|e| e.to_string())?;
        let plan = self
            .state
            .read(|state| QueueRefresh::plan(state, &self.source, properties))
            .map_err(|e| e.to_string())?;
        let Some(refresh) = plan else {
            return Ok(());
        };
        let command = RmCommand::V1(refresh.command());
        match tokio::time::timeout(self.proposal_timeout, self.raft.client_write(command)).await {
            Ok(Ok(reply)) => {
                tracing::info!(response = ?reply.data, "initial queue configuration committed");
                Ok(())
            }
            Ok(Err(err)) => Err(err.to_string()),
            Err(_) => Err(format!("no commit within {:?}", self.proposal_timeout)),
        }
    }
}
