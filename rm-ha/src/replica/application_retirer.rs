//! The leader's retirement of finished applications (YARN's `RMAppManager` keeping at most
//! `max-completed-applications` of them).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::periodic::Periodic;
use super::raft_proposer::RaftProposer;
use crate::state_machine::{CommandV1, RmCommand, StateView};

/// How often the leader looks for finished applications beyond the limit: often enough that
/// the state holds about a second's worth of finishes more than the limit, besides those
/// waiting for a live container.
const CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// Every second, retires the oldest finished applications beyond `keep` from the replicated
/// state, with their containers ([`CommandV1::RetireCompletedApplications`]), so that state,
/// memory and snapshots stop growing with every application ever run.
///
/// Guarantees: an application is retired only once it is final and none of its containers is
/// live in the state (a NodeManager that still runs one is told to kill it, see
/// [`cleanup`](crate::nodes::cleanup)), the choice is made again by every replica as it
/// applies the command, so replicas agree on what they forget, and what it counted as stays
/// counted. Nothing is proposed while nothing is retirable, so an idle
/// cluster writes nothing. A retirement that does not commit is tried again at the next check.
pub(crate) struct ApplicationRetirer {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    /// How many finished applications stay.
    pub(crate) keep: u32,
}

impl ApplicationRetirer {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let mut every = Periodic::new(CHECK_INTERVAL);
        while every.tick(&token).await {
            let retirable = self.state.read(|s| s.retirable_applications(self.keep));
            if retirable.is_empty() {
                continue;
            }
            tracing::info!(
                applications = retirable.len(),
                keep = self.keep,
                "retiring the oldest finished applications"
            );
            let command = RmCommand::V1(CommandV1::RetireCompletedApplications { keep: self.keep });
            if let Err(err) = self.proposer.propose(command).await {
                tracing::debug!(%err, "retirement not committed; tried again at the next check");
            }
        }
    }
}
