//! [`CompletedRetention`]: how long the state store keeps the records of ended containers.

use std::time::Duration;

use crate::state_store::ContainerRecordState;

/// Which container records to keep: every queued and running one, and completed ones for a
/// while after they ended.
///
/// A completed record exists so that a restarted NodeManager can still report the completion
/// to the RM; the NodeManager removes it once the RM has acknowledged the report. A report the
/// RM never acknowledges (it forgot the application, say) must not keep its record forever, so
/// records older than the retention are pruned, as YARN forgets stopped containers after
/// `yarn.nodemanager.duration-to-track-stopped-containers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompletedRetention {
    keep_for: Duration,
}

impl CompletedRetention {
    /// Keeps completed records for `keep_for` after they completed.
    pub const fn new(keep_for: Duration) -> Self {
        Self { keep_for }
    }

    /// How long completed records are kept.
    pub const fn keep_for(&self) -> Duration {
        self.keep_for
    }

    /// Whether a record in `state` is still kept at `now_ms` (milliseconds since the Unix
    /// epoch): always for queued and running containers, and for a completed one until
    /// `keep_for` has passed since its completion. A completion time in the future (a clock
    /// step backwards) keeps the record.
    pub fn keeps(&self, state: &ContainerRecordState, now_ms: i64) -> bool {
        match state {
            ContainerRecordState::Queued | ContainerRecordState::Running { .. } => true,
            ContainerRecordState::Completed {
                completed_at_ms, ..
            } => {
                let keep_for_ms = i64::try_from(self.keep_for.as_millis()).unwrap_or(i64::MAX);
                now_ms < completed_at_ms.saturating_add(keep_for_ms)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn completed_at(completed_at_ms: i64) -> ContainerRecordState {
        ContainerRecordState::Completed {
            exit_code: 0,
            diagnostics: String::new(),
            completed_at_ms,
        }
    }

    #[test]
    fn completed_records_are_kept_for_the_retention_and_no_longer() {
        let retention = CompletedRetention::new(Duration::from_secs(600));
        let state = completed_at(1_000);
        assert!(retention.keeps(&state, 1_000));
        assert!(retention.keeps(&state, 600_999));
        assert!(!retention.keeps(&state, 601_000));
        assert!(retention.keeps(&state, 0), "a clock step back keeps it");
    }

    #[test]
    fn live_containers_are_always_kept() {
        let retention = CompletedRetention::new(Duration::ZERO);
        assert!(retention.keeps(&ContainerRecordState::Queued, i64::MAX));
        let running = ContainerRecordState::Running {
            pid: 7,
            started_at_ms: 0,
        };
        assert!(retention.keeps(&running, i64::MAX));
        assert!(!retention.keeps(&completed_at(5), 5));
    }

    #[test]
    fn huge_retentions_do_not_overflow() {
        let retention = CompletedRetention::new(Duration::MAX);
        assert!(retention.keeps(&completed_at(0), i64::MAX - 1));
    }
}
