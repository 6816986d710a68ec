//! The leader's AM liveness monitor (YARN's `AMLivenessMonitor`, and its AM finishing monitor).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

use super::leadership::Leadership;
use super::periodic::Periodic;
use super::raft_proposer::RaftProposer;
use crate::applications::AmSession;
use crate::state_machine::{
    ABORTED, ApplicationState, CommandV1, ContainerCompletion, ContainerKey, RmCommand, RmState,
    StateView,
};
use yarn_security::now_ms;

/// Fails the attempts whose registered AM has not called allocate for
/// `yarn.am.liveness-monitor.expiry-interval-ms`, and ends the AM containers of ended
/// applications whose NodeManager has not reported their exit within that interval.
///
/// Guarantees: an AM that heartbeats is never expired. A new leader counts every registered
/// attempt as heard at the start of its leadership, so AMs get a whole interval to find it and
/// re-register; one that never does (it died with the old leader) fails like any silent AM,
/// through Raft, and its application retries or fails. An AM container whose application ended
/// is RUNNING at most one interval (from its application's end, or from the start of this
/// leadership) before it completes, as YARN ends a FINISHING attempt: normally its NodeManager
/// reports its process's exit long before, and that report is what completes it.
pub(crate) struct AmLivenessMonitor {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    /// The leadership whose soft state the service works on.
    pub(crate) leadership: Arc<Leadership>,
    pub(crate) expiry: Duration,
    pub(crate) check_interval: Duration,
}

impl AmLivenessMonitor {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let leadership_start = Instant::now();
        let mut unreported = UnreportedAmContainers::default();
        let mut every = Periodic::new(self.check_interval);
        while every.tick(&token).await {
            let registered = self.state.read(registered_attempts);
            let now = Instant::now();
            let expired = self.leadership.sessions(|sessions| {
                expired_attempts(registered, sessions, leadership_start, now, self.expiry)
            });
            for attempt in expired {
                self.expire(attempt).await;
            }
            let ended = self.state.read(live_am_containers_of_ended_applications);
            let overdue = unreported.overdue(ended, Instant::now(), self.expiry);
            if !overdue.is_empty() {
                self.end_unreported(overdue).await;
            }
        }
    }

    /// Completes AM containers of ended applications that their NodeManager never reported
    /// (YARN's ABORTED, "Container of a completed application"). A proposal that does not
    /// commit is made again at the next check, the containers being still live.
    async fn end_unreported(&self, keys: Vec<ContainerKey>) {
        tracing::warn!(
            containers = ?keys,
            expiry = ?self.expiry,
            "no NodeManager reported the exit of these AM containers of ended applications"
        );
        let diagnostics = format!(
            "Container of a completed application: its NodeManager reported no exit {} ms \
             after the application ended",
            self.expiry.as_millis()
        );
        let completions = keys
            .into_iter()
            .map(|key| ContainerCompletion {
                key,
                exit_status: ABORTED,
                diagnostics: diagnostics.clone(),
            })
            .collect();
        let command = RmCommand::V1(CommandV1::CompleteContainers {
            completions,
            now_ms: now_ms(),
        });
        // Nothing to undo either way: once committed the containers are no longer live.
        let _ = self.proposer.propose(command).await;
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
            self.leadership
                .sessions(|sessions| sessions.remove(&attempt));
        }
    }
}

/// The `registered` attempts whose AM has been silent for longer than `expiry` at `now`: since
/// its last call to this leader (its session's last allocate or registration), or, for an
/// attempt with no session yet, since this leadership began at `leadership_start`. Pure: the
/// monitor feeds it the state, the sessions and the time.
fn expired_attempts(
    registered: Vec<ApplicationAttemptId>,
    sessions: &BTreeMap<ApplicationAttemptId, AmSession>,
    leadership_start: Instant,
    now: Instant,
    expiry: Duration,
) -> Vec<ApplicationAttemptId> {
    registered
        .into_iter()
        .filter(|attempt| {
            let last = sessions
                .get(attempt)
                .map_or(leadership_start, AmSession::last_heard);
            now.saturating_duration_since(last) > expiry
        })
        .collect()
}

/// The live AM containers of applications in a final state: their AMs unregistered (a
/// killed or failed application's containers complete with it) and their NodeManagers have yet
/// to report the processes' exits.
fn live_am_containers_of_ended_applications(state: &RmState) -> BTreeSet<ContainerKey> {
    state
        .applications
        .values()
        .filter(|app| app.state.is_final())
        .flat_map(|app| state.containers.of_application(app.sequence))
        .filter(|record| record.is_am && record.is_live())
        .map(|record| record.key)
        .collect()
}

/// When this leader first saw each AM container of an ended application still live. Pure: the
/// monitor feeds it what the state holds and the time.
#[derive(Debug, Default)]
struct UnreportedAmContainers {
    since: BTreeMap<ContainerKey, Instant>,
}

impl UnreportedAmContainers {
    /// Takes the containers still unreported at `now` and returns those unreported for longer
    /// than `expiry`. Containers no longer among them are forgotten.
    fn overdue(
        &mut self,
        unreported: BTreeSet<ContainerKey>,
        now: Instant,
        expiry: Duration,
    ) -> Vec<ContainerKey> {
        self.since.retain(|key, _| unreported.contains(key));
        for key in unreported {
            self.since.entry(key).or_insert(now);
        }
        self.since
            .iter()
            .filter(|(_, since)| now.saturating_duration_since(**since) > expiry)
            .map(|(key, _)| *key)
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::FinalStatus;
    use crate::state_machine::test_fixtures::{am_container, key, running_application};

    fn apply(state: &mut RmState, command: CommandV1) {
        state.apply(&RmCommand::V1(command));
    }

    #[test]
    fn only_the_live_am_containers_of_ended_applications_await_their_report() {
        let mut state = running_application(&[(2, "n2:1")], &[]);
        apply(
            &mut state,
            CommandV1::AllocateContainers {
                allocations: vec![am_container(3, "n1:1")],
            },
        );
        assert!(
            live_am_containers_of_ended_applications(&state).is_empty(),
            "the application runs"
        );
        apply(
            &mut state,
            CommandV1::FinishApplicationMaster {
                application_seq: 1,
                attempt_id: 1,
                final_status: FinalStatus::Succeeded,
                diagnostics: String::new(),
                tracking_url: String::new(),
                now_ms: 40,
            },
        );
        assert_eq!(
            live_am_containers_of_ended_applications(&state),
            BTreeSet::from([key(3)]),
            "the task container ended with the application; the AM's awaits its report"
        );
        apply(
            &mut state,
            CommandV1::CompleteContainers {
                completions: vec![ContainerCompletion {
                    key: key(3),
                    exit_status: 0,
                    diagnostics: String::new(),
                }],
                now_ms: 50,
            },
        );
        assert!(live_am_containers_of_ended_applications(&state).is_empty());
    }

    #[test]
    fn an_am_expires_an_expiry_after_its_last_call_or_after_the_leadership_began() {
        let expiry = Duration::from_secs(10);
        let start = Instant::now();
        let at = |millis| start + Duration::from_millis(millis);
        let attempt =
            |seq| ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, seq), 1);
        let (heard, unheard, silent) = (attempt(1), attempt(2), attempt(3));
        let mut sessions = BTreeMap::new();
        let mut session = AmSession::new(at(2_000));
        session.heard(at(5_000));
        sessions.insert(heard, session);
        // Registered with this leader 2 s in, never heard since.
        sessions.insert(silent, AmSession::new(at(2_000)));
        let expired =
            |now| expired_attempts(vec![heard, unheard, silent], &sessions, start, now, expiry);
        assert!(
            expired(at(10_000)).is_empty(),
            "silent for exactly the expiry"
        );
        assert_eq!(
            expired(at(10_001)),
            [unheard],
            "an AM registered with an earlier leader and silent since counts from the start \
             of this leadership"
        );
        assert_eq!(expired(at(12_000)), [unheard]);
        assert_eq!(expired(at(12_001)), [unheard, silent]);
        assert_eq!(expired(at(15_001)), [heard, unheard, silent]);
        assert!(
            expired_attempts(Vec::new(), &sessions, start, at(60_000), expiry).is_empty(),
            "only registered attempts expire"
        );
    }

    #[test]
    fn an_unreported_container_is_overdue_once_it_stayed_unreported_past_the_expiry() {
        let expiry = Duration::from_secs(10);
        let start = Instant::now();
        let at = |secs| start + Duration::from_secs(secs);
        let mut unreported = UnreportedAmContainers::default();
        assert!(
            unreported
                .overdue(BTreeSet::from([key(3)]), at(0), expiry)
                .is_empty()
        );
        assert!(
            unreported
                .overdue(BTreeSet::from([key(3), key(4)]), at(10), expiry)
                .is_empty(),
            "not past the expiry yet"
        );
        assert_eq!(
            unreported.overdue(BTreeSet::from([key(3), key(4)]), at(11), expiry),
            [key(3)]
        );
        // Container 3 completed; container 4, first seen 10 s later, is overdue 10 s later.
        assert!(
            unreported
                .overdue(BTreeSet::from([key(4)]), at(20), expiry)
                .is_empty()
        );
        assert_eq!(
            unreported.overdue(BTreeSet::from([key(4)]), at(21), expiry),
            [key(4)]
        );
        assert_eq!(unreported.since.len(), 1, "container 3 is forgotten");
    }
}
