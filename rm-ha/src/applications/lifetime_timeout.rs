//! [`LifetimeTimeout`]: an application's LIFETIME timeout as reports show it.

use yarn_proto::expiry_time::{UNLIMITED, format_expiry_time};
use yarn_proto::pb;

use crate::state_machine::{ApplicationRecord, RmState};

/// An application's LIFETIME timeout as Hadoop reports it: its expiry time and the whole
/// seconds left, or `UNLIMITED` and -1 without one. An application that has ended has 0
/// seconds left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LifetimeTimeout {
    /// Hadoop's ISO 8601 form, or `UNLIMITED`.
    pub expiry_time: String,
    /// Seconds left, at least 0; -1 without a lifetime.
    pub remaining_secs: i64,
}

impl LifetimeTimeout {
    /// The timeout of `app` in `state` at `now_ms`.
    pub fn of(state: &RmState, app: &ApplicationRecord, now_ms: i64) -> Self {
        match state.lifetime_deadlines.get(&app.sequence) {
            None => Self {
                expiry_time: UNLIMITED.to_owned(),
                remaining_secs: -1,
            },
            Some(&deadline) => Self {
                expiry_time: format_expiry_time(deadline),
                remaining_secs: if app.state.is_final() {
                    0
                } else {
                    (deadline.saturating_sub(now_ms) / 1000).max(0)
                },
            },
        }
    }

    /// As `ApplicationReportProto.app_timeouts` holds it.
    pub fn to_proto(&self) -> pb::AppTimeoutsMapProto {
        let kind = pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime;
        pb::AppTimeoutsMapProto {
            application_timeout_type: kind.into(),
            application_timeout: Some(pb::ApplicationTimeoutProto {
                application_timeout_type: kind.into(),
                expire_time: self.expiry_time.clone(),
                remaining_time: self.remaining_secs,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::ApplicationState;

    #[test]
    fn the_timeout_counts_down_whole_seconds_and_stops_when_the_application_ends() {
        let mut state = RmState::default();
        let mut app = ApplicationRecord {
            sequence: 1,
            state: ApplicationState::Running,
            ..ApplicationRecord::default()
        };
        assert_eq!(
            LifetimeTimeout::of(&state, &app, 0),
            LifetimeTimeout {
                expiry_time: "UNLIMITED".to_owned(),
                remaining_secs: -1,
            }
        );
        state.lifetime_deadlines.insert(1, 60_000);
        let timeout = LifetimeTimeout::of(&state, &app, 500);
        assert_eq!(timeout.expiry_time, "1970-01-01T00:01:00.000+0000");
        assert_eq!(timeout.remaining_secs, 59);
        assert_eq!(LifetimeTimeout::of(&state, &app, 90_000).remaining_secs, 0);
        app.state = ApplicationState::Killed;
        assert_eq!(LifetimeTimeout::of(&state, &app, 500).remaining_secs, 0);
        let proto = timeout.to_proto();
        assert_eq!(proto.application_timeout.unwrap().remaining_time, 59);
    }
}
