//! The leader's NodeManager liveness monitor.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::clock::now_ms;
use super::leadership::Leadership;
use super::raft_proposer::RaftProposer;
use crate::state_machine::{CommandV1, RmCommand, RmResponse, StateView};

/// Declares LOST every node silent for longer than `yarn.nm.liveness-monitor.expiry-interval-ms`,
/// checking every `check_interval` until `token` is cancelled, and completes the lost node's
/// containers through Raft (YARN's ABORTED, "Container released on a *lost* node").
///
/// A new leader starts with no heartbeat state, so nodes that hold live containers in the
/// replicated table but never register with it would otherwise keep their containers forever:
/// such a node is awaited for one expiry interval from the start of the leadership and then
/// declared LOST like a silent one. A lost node gets RESYNC on its next heartbeat and must
/// register again.
pub(crate) struct NmLivenessMonitor {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    /// The leadership whose soft state the service works on.
    pub(crate) leadership: Arc<Leadership>,
    pub(crate) expiry: Duration,
    pub(crate) check_interval: Duration,
}

impl NmLivenessMonitor {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let started = Instant::now();
        let mut awaited: BTreeSet<String> = self.state.read(|state| {
            state
                .containers
                .iter()
                .filter(|record| record.is_live())
                .map(|record| record.node.clone())
                .collect()
        });
        // Lost nodes whose containers are not completed yet: retried until a proposal commits.
        let mut unrecorded: BTreeSet<String> = BTreeSet::new();
        loop {
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(self.check_interval) => {}
            }
            let now = Instant::now();
            let lost = self
                .leadership
                .nodes(|tracker| tracker.expire(now, self.expiry));
            for node in lost {
                tracing::warn!(
                    %node,
                    expiry = ?self.expiry,
                    "NodeManager LOST: no heartbeat within the expiry interval"
                );
                unrecorded.insert(node.to_string());
            }
            if !awaited.is_empty() && now.saturating_duration_since(started) > self.expiry {
                // Once per leadership: the names of the nodes that did register.
                let registered: BTreeSet<String> = self
                    .leadership
                    .nodes(|tracker| tracker.nodes().map(|(node, _)| node.to_string()).collect());
                for node in std::mem::take(&mut awaited) {
                    if !registered.contains(&node) {
                        tracing::warn!(
                            %node,
                            expiry = ?self.expiry,
                            "NodeManager LOST: holds containers but did not register with the \
                             new leader within the expiry interval"
                        );
                        unrecorded.insert(node);
                    }
                }
            }
            for node in std::mem::take(&mut unrecorded) {
                if !self.record_lost(&node).await {
                    unrecorded.insert(node);
                }
            }
        }
    }

    /// Commits the node's loss; false when the outcome is not known to be committed.
    async fn record_lost(&self, node: &str) -> bool {
        let command = RmCommand::V1(CommandV1::NodeLost {
            node: node.to_owned(),
            now_ms: now_ms(),
        });
        match self.proposer.propose(command).await {
            Ok(response) => {
                if let RmResponse::NodeLostRecorded { completed } = response {
                    if !completed.is_empty() {
                        tracing::warn!(
                            node,
                            containers = completed.len(),
                            "containers of a lost node completed as lost"
                        );
                    }
                }
                true
            }
            Err(err) => {
                tracing::warn!(node, %err, "could not record a lost node; will retry");
                false
            }
        }
    }
}
