//! The leader's NodeManager liveness monitor.

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::nodes::NodeRegistry;

/// Declares LOST every node silent for longer than `yarn.nm.liveness-monitor.expiry-interval-ms`,
/// checking every `check_interval` until `token` is cancelled. A lost node gets RESYNC on its
/// next heartbeat and must register again with the containers it still runs.
pub(crate) struct NmLivenessMonitor {
    pub(crate) nodes: NodeRegistry,
    pub(crate) epoch: u64,
    pub(crate) expiry: Duration,
    pub(crate) check_interval: Duration,
}

impl NmLivenessMonitor {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        loop {
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(self.check_interval) => {}
            }
            let lost = self.nodes.with(self.epoch, |tracker| {
                tracker.expire(Instant::now(), self.expiry)
            });
            for node in lost {
                tracing::warn!(
                    %node,
                    expiry = ?self.expiry,
                    "NodeManager LOST: no heartbeat within the expiry interval"
                );
            }
        }
    }
}
