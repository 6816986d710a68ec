//! [`ApplicationCounts`]: applications by how they stand, the application figures of Hadoop's
//! `ClusterMetrics` and `QueueMetrics`.

use crate::state_machine::{ApplicationState, RetiredCounts};

/// How many applications were submitted, and how many of them are pending, running or ended
/// in each final state. Every application counted is submitted and in exactly one of the
/// other five.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApplicationCounts {
    /// Every application counted.
    pub submitted: u64,
    /// SUBMITTED or ACCEPTED.
    pub pending: u64,
    /// RUNNING.
    pub running: u64,
    /// FINISHED.
    pub completed: u64,
    /// FAILED.
    pub failed: u64,
    /// KILLED.
    pub killed: u64,
}

impl ApplicationCounts {
    /// Counts one more application, in `state`.
    pub fn count(&mut self, state: ApplicationState) {
        self.submitted += 1;
        let count = match state {
            ApplicationState::Submitted | ApplicationState::Accepted => &mut self.pending,
            ApplicationState::Running => &mut self.running,
            ApplicationState::Finished => &mut self.completed,
            ApplicationState::Failed => &mut self.failed,
            ApplicationState::Killed => &mut self.killed,
        };
        *count += 1;
    }

    /// Counts `retired` applications too, each in its final state.
    pub fn count_retired(&mut self, retired: RetiredCounts) {
        self.submitted += retired.total();
        self.completed += retired.completed;
        self.failed += retired.failed;
        self.killed += retired.killed;
    }
}

/// Both counts together.
impl std::ops::Add for ApplicationCounts {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            submitted: self.submitted + other.submitted,
            pending: self.pending + other.pending,
            running: self.running + other.running,
            completed: self.completed + other.completed,
            failed: self.failed + other.failed,
            killed: self.killed + other.killed,
        }
    }
}
