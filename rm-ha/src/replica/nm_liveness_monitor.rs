//! The leader's NodeManager liveness monitor.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::leadership::Leadership;
use super::raft_proposer::RaftProposer;
use crate::state_machine::{CommandV1, RmCommand, RmResponse, StateView};
use yarn_security::now_ms;

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
        let nodes_with_containers: BTreeSet<String> = self.state.read(|state| {
            state
                .containers
                .iter()
                .filter(|record| record.is_live())
                .map(|record| record.node.clone())
                .collect()
        });
        let mut awaited = AwaitedNodes::new(nodes_with_containers, started, self.expiry);
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
            let never_registered = awaited.overdue(now, || {
                self.leadership
                    .nodes(|tracker| tracker.nodes().map(|(node, _)| node.to_string()).collect())
            });
            for node in never_registered {
                tracing::warn!(
                    %node,
                    expiry = ?self.expiry,
                    "NodeManager LOST: holds containers but did not register with the new \
                     leader within the expiry interval"
                );
                unrecorded.insert(node);
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

/// The nodes a new leader awaits: those holding live containers in the replicated table when
/// its leadership began. Pure: the monitor feeds it the time and, once, the registered nodes.
#[derive(Debug)]
struct AwaitedNodes {
    nodes: BTreeSet<String>,
    started: Instant,
    expiry: Duration,
}

impl AwaitedNodes {
    /// Awaits `nodes` for `expiry` from `started`, the start of the leadership.
    fn new(nodes: BTreeSet<String>, started: Instant, expiry: Duration) -> Self {
        Self {
            nodes,
            started,
            expiry,
        }
    }

    /// Once more than the expiry has passed at `now`: the awaited nodes that are not among
    /// `registered()` (asked for at most once per leadership), after which no node is awaited
    /// any more. Before that, and afterwards, nothing.
    fn overdue(
        &mut self,
        now: Instant,
        registered: impl FnOnce() -> BTreeSet<String>,
    ) -> Vec<String> {
        if self.nodes.is_empty() || now.saturating_duration_since(self.started) <= self.expiry {
            return Vec::new();
        }
        let registered = registered();
        std::mem::take(&mut self.nodes)
            .into_iter()
            .filter(|node| !registered.contains(node))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(nodes: &[&str]) -> BTreeSet<String> {
        nodes.iter().map(|node| (*node).to_owned()).collect()
    }

    #[test]
    fn nodes_with_containers_that_never_register_are_overdue_once_an_expiry_after_the_start() {
        let expiry = Duration::from_secs(10);
        let start = Instant::now();
        let at = |millis| start + Duration::from_millis(millis);
        let mut awaited = AwaitedNodes::new(names(&["n1:1", "n2:1", "n3:1"]), start, expiry);
        let never_asked = || -> BTreeSet<String> { panic!("registrations read before the expiry") };
        assert!(awaited.overdue(at(0), never_asked).is_empty());
        assert!(
            awaited.overdue(at(10_000), never_asked).is_empty(),
            "awaited for the whole expiry"
        );
        assert_eq!(
            awaited.overdue(at(10_001), || names(&["n2:1", "n9:1"])),
            ["n1:1", "n3:1"]
        );
        assert!(
            awaited
                .overdue(at(60_000), || -> BTreeSet<String> {
                    panic!("registrations read twice")
                })
                .is_empty(),
            "once per leadership"
        );
    }

    #[test]
    fn a_leader_with_no_containers_in_the_table_awaits_no_node() {
        let start = Instant::now();
        let mut awaited = AwaitedNodes::new(BTreeSet::new(), start, Duration::from_secs(10));
        let overdue = awaited.overdue(start + Duration::from_secs(60), || -> BTreeSet<String> {
            panic!("no registrations needed")
        });
        assert!(overdue.is_empty());
    }
}
