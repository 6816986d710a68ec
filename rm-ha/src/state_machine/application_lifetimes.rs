//! The replicated half of application lifetimes (YARN's LIFETIME timeout): when each
//! application's lifetime ends, and the kill once it has.
//!
//! The leader resolves a lifetime against the queue when the application is submitted and
//! commits its end with the submission, in one entry; the lifetime monitor commits the kill.
//! Both read only the deadline stored here, so a new leader kills at the same moment the old
//! one would have, and an update committed after the monitor's verdict was reached wins over
//! that verdict.

use super::{ApplicationRecord, RmResponse, RmState};

/// What the lifetime monitor's ResourceManager says when it kills an application, as Hadoop's
/// `RMAppLifetimeMonitor` does.
pub const LIFETIME_EXCEEDED: &str =
    "Application is killed by ResourceManager as it has exceeded the lifetime period.";

impl RmState {
    /// Records a submission as [`CommandV1::SubmitApplication`](super::CommandV1) does and, if
    /// the application is new, that its lifetime ends at `deadline_ms`.
    pub(super) fn submit_application_with_lifetime(
        &mut self,
        cluster_timestamp_ms: i64,
        application: &ApplicationRecord,
        deadline_ms: i64,
    ) -> RmResponse {
        let response = self.submit_application(cluster_timestamp_ms, application);
        if response == RmResponse::ApplicationSubmitted {
            self.lifetime_deadlines
                .insert(application.sequence, deadline_ms);
        }
        response
    }

    /// Sets the end of a live application's lifetime to `deadline_ms`.
    pub(super) fn update_application_lifetime(
        &mut self,
        application_seq: i32,
        deadline_ms: i64,
    ) -> RmResponse {
        if let Err(response) = self.live_application(application_seq) {
            return response;
        }
        self.lifetime_deadlines.insert(application_seq, deadline_ms);
        RmResponse::ApplicationLifetimeUpdated
    }

    /// Kills a live application whose lifetime still ends at `deadline_ms`, with
    /// [`LIFETIME_EXCEEDED`]; an application whose lifetime was changed in between keeps
    /// running.
    pub(super) fn expire_application_lifetime(
        &mut self,
        application_seq: i32,
        deadline_ms: i64,
        now_ms: i64,
    ) -> RmResponse {
        let in_force = self.lifetime_deadlines.get(&application_seq).copied();
        if in_force != Some(deadline_ms) {
            return RmResponse::ApplicationLifetimeChanged {
                deadline_ms: in_force,
            };
        }
        self.kill_application(application_seq, LIFETIME_EXCEEDED, now_ms)
    }

    /// When the lifetime of the application `application_seq` ends, in milliseconds since the
    /// Unix epoch, while it is live; `None` when it has no lifetime or has ended.
    pub fn lifetime_deadline(&self, application_seq: i32) -> Option<i64> {
        let application = self.applications.get(&application_seq)?;
        if application.state.is_final() {
            return None;
        }
        self.lifetime_deadlines.get(&application_seq).copied()
    }

    /// The live applications whose lifetime ended at or before `now_ms`, each with its deadline,
    /// earliest first.
    pub fn expired_lifetimes(&self, now_ms: i64) -> Vec<(i32, i64)> {
        let mut expired: Vec<(i32, i64)> = self
            .lifetime_deadlines
            .iter()
            .filter(|&(&sequence, &deadline)| {
                deadline <= now_ms && self.lifetime_deadline(sequence).is_some()
            })
            .map(|(&sequence, &deadline)| (sequence, deadline))
            .collect();
        expired.sort_by_key(|&(sequence, deadline)| (deadline, sequence));
        expired
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::running_application;
    use crate::state_machine::{ApplicationState, CommandV1, RmCommand};

    fn apply(state: &mut RmState, command: CommandV1) -> RmResponse {
        state.apply(&RmCommand::V1(command))
    }

    fn with_deadline(deadline_ms: i64) -> RmState {
        let mut state = running_application(&[(2, "n1:1")], &[]);
        let sequence = *state.applications.keys().next().unwrap();
        assert_eq!(
            apply(
                &mut state,
                CommandV1::UpdateApplicationLifetime {
                    application_seq: sequence,
                    deadline_ms,
                }
            ),
            RmResponse::ApplicationLifetimeUpdated
        );
        state
    }

    #[test]
    fn an_expired_lifetime_kills_the_application_once() {
        let mut state = with_deadline(5_000);
        let sequence = *state.applications.keys().next().unwrap();
        assert!(state.expired_lifetimes(4_999).is_empty());
        assert_eq!(state.expired_lifetimes(5_000), vec![(sequence, 5_000)]);
        let expire = CommandV1::ExpireApplicationLifetime {
            application_seq: sequence,
            deadline_ms: 5_000,
            now_ms: 5_100,
        };
        assert_eq!(
            apply(&mut state, expire.clone()),
            RmResponse::ApplicationKilled
        );
        let application = &state.applications[&sequence];
        assert_eq!(application.state, ApplicationState::Killed);
        assert_eq!(application.diagnostics, LIFETIME_EXCEEDED);
        assert_eq!(application.finish_time_ms, 5_100);
        assert!(state.expired_lifetimes(9_000).is_empty());
        assert_eq!(state.lifetime_deadline(sequence), None);
        assert!(matches!(
            apply(&mut state, expire),
            RmResponse::ApplicationAlreadyFinal { .. }
        ));
    }

    #[test]
    fn a_resubmission_keeps_the_first_deadline() {
        let mut state = RmState::default();
        apply(
            &mut state,
            CommandV1::BeginEpoch {
                leader_rm_id: "rm1".to_owned(),
                now_ms: 1_000,
            },
        );
        apply(&mut state, CommandV1::AllocateApplicationIds { count: 1 });
        let submit = |deadline_ms| CommandV1::SubmitApplicationWithLifetime {
            cluster_timestamp_ms: 1_000,
            application: ApplicationRecord {
                sequence: 1,
                ..ApplicationRecord::default()
            },
            deadline_ms,
        };
        assert_eq!(
            apply(&mut state, submit(61_000)),
            RmResponse::ApplicationSubmitted
        );
        assert_eq!(
            apply(&mut state, submit(99_000)),
            RmResponse::ApplicationAlreadySubmitted
        );
        assert_eq!(state.lifetime_deadline(1), Some(61_000));
    }

    #[test]
    fn an_update_committed_after_the_verdict_wins() {
        let mut state = with_deadline(5_000);
        let sequence = *state.applications.keys().next().unwrap();
        apply(
            &mut state,
            CommandV1::UpdateApplicationLifetime {
                application_seq: sequence,
                deadline_ms: 60_000,
            },
        );
        assert_eq!(
            apply(
                &mut state,
                CommandV1::ExpireApplicationLifetime {
                    application_seq: sequence,
                    deadline_ms: 5_000,
                    now_ms: 5_100,
                }
            ),
            RmResponse::ApplicationLifetimeChanged {
                deadline_ms: Some(60_000)
            }
        );
        assert!(!state.applications[&sequence].state.is_final());
        assert_eq!(state.lifetime_deadline(sequence), Some(60_000));
    }

    #[test]
    fn only_a_live_application_gets_a_new_lifetime() {
        let mut state = with_deadline(5_000);
        let sequence = *state.applications.keys().next().unwrap();
        apply(
            &mut state,
            CommandV1::KillApplication {
                application_seq: sequence,
                diagnostics: "by hand".to_owned(),
                now_ms: 1,
            },
        );
        assert!(matches!(
            apply(
                &mut state,
                CommandV1::UpdateApplicationLifetime {
                    application_seq: sequence,
                    deadline_ms: 9_000,
                }
            ),
            RmResponse::ApplicationAlreadyFinal { .. }
        ));
        assert!(matches!(
            apply(
                &mut state,
                CommandV1::UpdateApplicationLifetime {
                    application_seq: 999,
                    deadline_ms: 9_000,
                }
            ),
            RmResponse::UnknownApplication { sequence: 999 }
        ));
    }
}
