//! The leader's AM liveness monitor (YARN's `AMLivenessMonitor`).

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

use super::clock::now_ms;
use super::raft_proposer::RaftProposer;
use crate::applications::AmSessions;
use crate::state_machine::{ABORTED, ApplicationState, CommandV1, RmCommand, RmState, StateView};

/// Fails the attempts whose registered AM has not called allocate for
/// `yarn.am.liveness-monitor.expiry-interval-ms`.
///
/// Guarantee: an AM that heartbeats is never expired. A new leader counts every registered
/// attempt as heard at the start of its leadership, so AMs get a whole interval to find it and
/// re-register; one that never does (it died with the old leader) fails like any silent AM,
/// through Raft, and its application retries or fails.
pub(crate) struct AmLivenessMonitor {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    pub(crate) sessions: AmSessions,
    pub(crate) epoch: u64,
    pub(crate) expiry: Duration,
    pub(crate) check_interval: Duration,
}

impl AmLivenessMonitor {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let leadership_start = Instant::now();
        let mut ticker = tokio::time::interval(self.check_interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = token.cancelled() => return,
                _ = ticker.tick() => {}
            }
            let registered = self.state.read(registered_attempts);
            let now = Instant::now();
            let expired: Vec<ApplicationAttemptId> = self.sessions.with(self.epoch, |sessions| {
                registered
                    .into_iter()
                    .filter(|attempt| {
                        let last = sessions
                            .get(attempt)
                            .map_or(leadership_start, |session| session.last_heard());
                        now.saturating_duration_since(last) > self.expiry
                    })
                    .collect()
            });
            for attempt in expired {
                self.expire(attempt).await;
            }
        }
    }

    async fn expire(&self, attempt: ApplicationAttemptId) {
        tracing::warn!(%attempt, expiry = ?self.expiry, "application master expired");
        let command = RmCommand::V1(CommandV1::FailApplicationAttempt {
            application_seq: attempt.application_id.id,
            attempt_id: attempt.attempt_id,
            exit_status: ABORTED,
            diagnostics: format!(
                "ApplicationMaster for attempt {attempt} timed out: no allocate for {} ms",
                self.expiry.as_millis()
            ),
            now_ms: now_ms(),
        });
        let committed = self.proposer.propose(command).await.is_ok();
        if committed {
            self.sessions
                .with(self.epoch, |sessions| sessions.remove(&attempt));
        }
    }
}

/// The current attempts whose AM has registered: those of `Running` applications.
fn registered_attempts(state: &RmState) -> Vec<ApplicationAttemptId> {
    state
        .applications
        .values()
        .filter(|app| app.state == ApplicationState::Running)
        .map(|app| {
            ApplicationAttemptId::new(
                ApplicationId::new(state.cluster_timestamp_ms, app.sequence),
                app.current_attempt,
            )
        })
        .collect()
}
