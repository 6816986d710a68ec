//! The leader's application lifetime monitor (YARN's `RMAppLifetimeMonitor`).

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use yarn_security::now_ms;

use super::periodic::Periodic;
use super::raft_proposer::RaftProposer;
use crate::state_machine::{CommandV1, RmCommand, StateView};

/// Every `interval` (`yarn.resourcemanager.application-timeouts.monitor.interval-ms`), kills
/// each live application whose lifetime has ended, with Hadoop's diagnostics
/// ([`LIFETIME_EXCEEDED`](crate::state_machine::LIFETIME_EXCEEDED)).
///
/// Guarantees: the deadlines are replicated with the submissions and updates that set them,
/// so a new leader kills an application when the old one would have, within one interval of
/// its deadline on the leaders' wall clocks (which NTP must keep in agreement); a deadline that
/// passed during a failover is acted on at the new leader's first check. A kill applies only if
/// the deadline is still the one it was decided on ([`CommandV1::ExpireApplicationLifetime`]),
/// so an update committed in between wins. A kill that does not commit is decided again at the
/// next check.
pub(crate) struct LifetimeMonitor {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    pub(crate) interval: Duration,
}

impl LifetimeMonitor {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let mut every = Periodic::new(self.interval);
        while every.tick(&token).await {
            let now = now_ms();
            for (application_seq, deadline_ms) in self.state.read(|s| s.expired_lifetimes(now)) {
                tracing::info!(
                    application_seq,
                    deadline_ms,
                    "killing an application whose lifetime has ended"
                );
                let command = RmCommand::V1(CommandV1::ExpireApplicationLifetime {
                    application_seq,
                    deadline_ms,
                    now_ms: now_ms(),
                });
                // A kill that does not commit is decided again at the next check.
                if self.proposer.propose(command).await.is_err() {
                    break;
                }
            }
        }
    }
}
