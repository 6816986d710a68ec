//! The services only the serving leader runs.

use std::sync::Arc;
use std::time::Duration;

use openraft::Raft;
use tokio_util::sync::CancellationToken;

use super::master_key_service::MasterKeyService;
use crate::RmConfig;
use crate::raft_types::RmTypeConfig;
use crate::state_machine::StateView;

/// Starts the leader-only services of one leadership, all under one cancellation token.
///
/// Today that is the token master-key roller; the scheduler, the liveness monitors and the
/// container-allocation expirer join it as they are built. Every service stops at its next
/// await point once the token is cancelled, and each only ever changes state through Raft
/// proposals, which a deposed leader cannot commit.
#[derive(Clone)]
pub(crate) struct LeaderServices {
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) state: StateView,
    pub(crate) config: Arc<RmConfig>,
    /// How often the master-key roller re-evaluates its schedule.
    pub(crate) key_check_interval: Duration,
}

impl LeaderServices {
    /// Spawns every leader-only service for the leadership that began `epoch`.
    pub(crate) fn start(&self, epoch: u64, token: CancellationToken) {
        let keys = MasterKeyService {
            raft: self.raft.clone(),
            state: self.state.clone(),
            config: self.config.clone(),
            check_interval: self.key_check_interval,
        };
        tokio::spawn(async move {
            tracing::debug!(epoch, "master-key roller started");
            keys.run(token).await;
            tracing::debug!(epoch, "master-key roller stopped");
        });
    }
}
