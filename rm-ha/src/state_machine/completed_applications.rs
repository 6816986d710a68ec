//! Retiring finished applications from the replicated state (YARN's
//! `max-completed-applications`), so that the state and its snapshots stop growing.

use super::{RmResponse, RmState};

impl RmState {
    /// The finished applications that retiring down to `keep` would forget: as many as there
    /// are finished applications beyond `keep`, the oldest to finish first (by finish time,
    /// then sequence number), passing over any with a live container (an AM container whose
    /// exit its NodeManager has not reported yet, say), which waits for a later retirement
    /// while a more recent one goes in its place. Lets the leader skip a command that would
    /// change nothing.
    pub fn retirable_applications(&self, keep: u32) -> Vec<i32> {
        let mut finished: Vec<(i64, i32)> = self
            .applications
            .values()
            .filter(|application| application.state.is_final())
            .map(|application| (application.finish_time_ms, application.sequence))
            .collect();
        let keep = usize::try_from(keep).unwrap_or(usize::MAX);
        let Some(excess) = finished.len().checked_sub(keep).filter(|&n| n > 0) else {
            return Vec::new();
        };
        finished.sort_unstable();
        finished
            .into_iter()
            .map(|(_, sequence)| sequence)
            .filter(|&sequence| {
                !self
                    .containers
                    .of_application(sequence)
                    .any(|record| record.is_live())
            })
            .take(excess)
            .collect()
    }

    pub(super) fn retire_completed_applications(&mut self, keep: u32) -> RmResponse {
        let retired = self.retirable_applications(keep);
        // Each is remembered (`RetiredApplications`): its number is never taken again, and
        // what it counted as stays counted.
        for &sequence in &retired {
            if let Some(application) = self.applications.remove(&sequence) {
                self.retired.record(&application);
            }
            self.uncounted_attempt_failures.remove(&sequence);
            self.lifetime_deadlines.remove(&sequence);
            for key in self.containers.forget_application(sequence) {
                self.preemption_waits.forget(&key);
            }
        }
        RmResponse::ApplicationsRetired { retired }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::{TIMESTAMP, key, running_application};
    use crate::state_machine::{
        ApplicationRecord, ApplicationState, CommandV1, ContainerCompletion, ContainerKey,
        ContainerRecord, RmCommand,
    };

    /// The fixtures' running application 1 with live container 2, and finished applications
    /// 2 to 5, which finished in the order 4, 2, 5, 3; application 5 has a completed
    /// container, application 3 a live one.
    fn state() -> RmState {
        let mut state = running_application(&[(2, "n1:8041")], &[]);
        let template = state.containers.get(&key(2)).unwrap().clone();
        for sequence in 2..=5 {
            state.applications.insert(
                sequence,
                ApplicationRecord {
                    sequence,
                    state: ApplicationState::Running,
                    current_attempt: 1,
                    ..ApplicationRecord::default()
                },
            );
        }
        let container = |sequence| ContainerRecord {
            key: ContainerKey {
                application_seq: sequence,
                ..key(7)
            },
            ..template.clone()
        };
        state.apply(&RmCommand::V1(CommandV1::AllocateContainers {
            allocations: vec![container(3), container(5)],
        }));
        state.apply(&RmCommand::V1(CommandV1::CompleteContainers {
            completions: vec![ContainerCompletion {
                key: container(5).key,
                exit_status: 0,
                diagnostics: String::new(),
            }],
            now_ms: TIMESTAMP,
        }));
        for (sequence, finished) in [(2, 20), (3, 40), (4, 10), (5, 30)] {
            let application = state.applications.get_mut(&sequence).unwrap();
            application.state = ApplicationState::Finished;
            application.finish_time_ms = TIMESTAMP + finished;
        }
        state.lifetime_deadlines.insert(4, TIMESTAMP);
        state
    }

    #[test]
    fn the_oldest_finished_applications_without_live_containers_go_first() {
        let mut state = state();
        assert_eq!(state.retirable_applications(4), Vec::<i32>::new());
        assert_eq!(state.retirable_applications(2), vec![4, 2]);
        assert_eq!(
            state.retirable_applications(0),
            vec![4, 2, 5],
            "application 3 still has a live container; the running one is no candidate"
        );
        let response = state.apply(&RmCommand::V1(CommandV1::RetireCompletedApplications {
            keep: 1,
        }));
        assert_eq!(
            response,
            RmResponse::ApplicationsRetired {
                retired: vec![4, 2, 5]
            }
        );
        assert_eq!(
            state.applications.keys().copied().collect::<Vec<_>>(),
            vec![1, 3]
        );
        assert!(state.containers.of_application(5).next().is_none());
        assert_eq!(state.containers.last_issued(5), None);
        assert!(state.lifetime_deadlines.is_empty());
        let again = state.apply(&RmCommand::V1(CommandV1::RetireCompletedApplications {
            keep: 1,
        }));
        assert_eq!(again, RmResponse::ApplicationsRetired { retired: vec![] });
    }

    #[test]
    fn a_retired_application_gets_no_container_again() {
        let mut state = state();
        let template = state.containers.get(&key(2)).unwrap().clone();
        state.apply(&RmCommand::V1(CommandV1::RetireCompletedApplications {
            keep: 0,
        }));
        let late = ContainerRecord {
            key: ContainerKey {
                application_seq: 4,
                container_id: key(9).container_id,
            },
            ..template
        };
        let response = state.apply(&RmCommand::V1(CommandV1::AllocateContainers {
            allocations: vec![late],
        }));
        assert!(
            matches!(
                &response,
                RmResponse::ContainersAllocated { recorded: 0, .. }
            ),
            "{response:?}"
        );
        assert!(!state.applications.contains_key(&4));
        // A late resubmission of it is the duplicate it is, not a new application.
        state.next_application_seq = state.next_application_seq.max(6);
        let resubmitted = state.apply(&RmCommand::V1(CommandV1::SubmitApplication {
            cluster_timestamp_ms: TIMESTAMP,
            application: ApplicationRecord {
                sequence: 4,
                ..ApplicationRecord::default()
            },
        }));
        assert_eq!(resubmitted, RmResponse::ApplicationAlreadySubmitted);
        assert!(!state.applications.contains_key(&4));
    }
}
