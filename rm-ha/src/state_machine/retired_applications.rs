//! [`RetiredApplications`]: what the replicated state remembers of the applications it
//! retired (see [`CommandV1::RetireCompletedApplications`](super::CommandV1)).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use yarn_proto::ids::ReservationId;

use super::{ApplicationRecord, ApplicationState};

/// The retired applications' sequence numbers and what they counted as, by the leaf queue
/// they were admitted to (a reservation's queue counting as its plan queue) and user.
///
/// Guarantees: a retired sequence number is remembered for good, so a late resubmission of a
/// retired application is taken as the duplicate it is and no container id of it is issued
/// again; the counts only grow, so the application figures that include them never go back
/// (but a reservation queue's own: see `counting_queue`).
/// The numbers are kept as ranges: applications finish roughly in submission order, so a
/// cluster that ran millions holds a handful of ranges, not millions of numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetiredApplications {
    /// Disjoint, non-adjacent inclusive ranges of sequence numbers, by first number.
    ranges: BTreeMap<i32, i32>,
    /// By the leaf queue an application was admitted to (empty for one never admitted), then
    /// its user.
    counts: BTreeMap<(String, String), RetiredCounts>,
}

/// Retired applications by final state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetiredCounts {
    /// FINISHED.
    pub completed: u64,
    /// FAILED.
    pub failed: u64,
    /// KILLED.
    pub killed: u64,
}

impl RetiredApplications {
    /// Whether the application `sequence` was retired.
    pub fn contains(&self, sequence: i32) -> bool {
        self.ranges
            .range(..=sequence)
            .next_back()
            .is_some_and(|(_, &last)| sequence <= last)
    }

    /// The counts of every retired application, by admitted leaf queue (empty for none) and
    /// user.
    pub fn counts(&self) -> impl Iterator<Item = (&str, &str, RetiredCounts)> {
        self.counts
            .iter()
            .map(|((queue, user), counts)| (queue.as_str(), user.as_str(), *counts))
    }

    /// Remembers `application`, final, as retired.
    pub(super) fn record(&mut self, application: &ApplicationRecord) {
        self.insert(application.sequence);
        // An application gets its first attempt when the scheduler admits it into its leaf.
        let queue = if application.current_attempt > 0 {
            counting_queue(&application.queue)
        } else {
            String::new()
        };
        let counts = self
            .counts
            .entry((queue, application.user.clone()))
            .or_default();
        match application.state {
            ApplicationState::Finished => counts.completed += 1,
            ApplicationState::Failed => counts.failed += 1,
            ApplicationState::Killed => counts.killed += 1,
            ApplicationState::Submitted
            | ApplicationState::Accepted
            | ApplicationState::Running => {}
        }
    }

    fn insert(&mut self, sequence: i32) {
        if self.contains(sequence) {
            return;
        }
        let mut first = sequence;
        let mut last = sequence;
        if let Some((&before, &end)) = self.ranges.range(..sequence).next_back()
            && end.checked_add(1) == Some(sequence)
        {
            first = before;
        }
        if let Some(next) = sequence.checked_add(1)
            && let Some(end) = self.ranges.remove(&next)
        {
            last = end;
        }
        self.ranges.insert(first, last);
    }
}

/// Where a retired application of the leaf `queue` is counted: its plan queue for a
/// reservation's queue (`<plan>.reservation_<ts>_<n>`), one per reservation, which would
/// otherwise leave a key behind for every reservation ever made; the leaf itself otherwise.
/// A plan queue's figures sum what lies below it, so they are unchanged; the reservation
/// queue's own figures lose the retired applications (the one exception to figures never
/// going back), and it is gone once its reservation ends anyway.
fn counting_queue(queue: &str) -> String {
    match queue.rsplit_once('.') {
        Some((plan, leaf)) if leaf.parse::<ReservationId>().is_ok() => plan.to_owned(),
        _ => queue.to_owned(),
    }
}

impl RetiredCounts {
    /// How many applications these are.
    pub fn total(&self) -> u64 {
        self.completed + self.failed + self.killed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retired(state: ApplicationState, sequence: i32, attempt: i32) -> ApplicationRecord {
        ApplicationRecord {
            sequence,
            state,
            queue: "root.a".to_owned(),
            user: "alice".to_owned(),
            current_attempt: attempt,
            ..ApplicationRecord::default()
        }
    }

    #[test]
    fn sequence_numbers_merge_into_ranges() {
        let mut retired_apps = RetiredApplications::default();
        for sequence in [5, 3, 4, 9, 1] {
            retired_apps.record(&retired(ApplicationState::Finished, sequence, 1));
        }
        assert_eq!(
            retired_apps.ranges,
            BTreeMap::from([(1, 1), (3, 5), (9, 9)])
        );
        retired_apps.record(&retired(ApplicationState::Killed, 2, 0));
        let mut reserved = retired(ApplicationState::Failed, 7, 1);
        reserved.queue = "root.a.reservation_1700000000000_0001".to_owned();
        retired_apps.record(&reserved);
        assert_eq!(
            retired_apps.ranges,
            BTreeMap::from([(1, 5), (7, 7), (9, 9)])
        );
        assert!((1..=5).all(|s| retired_apps.contains(s)) && retired_apps.contains(9));
        assert!(
            !retired_apps.contains(6) && !retired_apps.contains(0) && !retired_apps.contains(10)
        );
        let counts: Vec<_> = retired_apps.counts().collect();
        assert_eq!(
            counts,
            vec![
                (
                    "",
                    "alice",
                    RetiredCounts {
                        killed: 1,
                        ..RetiredCounts::default()
                    }
                ),
                (
                    "root.a",
                    "alice",
                    RetiredCounts {
                        completed: 5,
                        failed: 1,
                        ..RetiredCounts::default()
                    }
                ),
            ],
            "a never-admitted application counts under no queue, a reservation's under its plan"
        );
    }
}
