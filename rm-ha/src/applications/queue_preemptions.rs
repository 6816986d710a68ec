//! [`QueuePreemptions`]: what preemption is taking and has taken from each leaf queue, counted
//! from the replicated state.

use std::collections::BTreeMap;

use yarn_scheduler::Resource;

use super::queue_applications::is_at_or_below;
use crate::state_machine::{ContainerRecord, ContainerState, RmState};

/// One queue's preemption figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PreemptionFigures {
    /// What the queue's live containers the latest preemption round chose hold: their
    /// ApplicationMasters are told, and they are killed unless given back or no longer owed.
    pub to_preempt: Resource,
    /// How many containers that is.
    pub to_preempt_containers: u64,
    /// What the queue's containers killed by preemption held, over every application the state
    /// keeps (Hadoop's `AggregateMemoryMBPreempted` and `AggregateVcoresPreempted`, but per
    /// container rather than per second).
    pub preempted: Resource,
    /// How many containers preemption killed (Hadoop's `AggregateContainersPreempted`).
    pub preempted_containers: u64,
}

impl PreemptionFigures {
    fn add(&mut self, other: Self) {
        self.to_preempt = self.to_preempt.saturating_add(other.to_preempt);
        self.to_preempt_containers += other.to_preempt_containers;
        self.preempted = self.preempted.saturating_add(other.preempted);
        self.preempted_containers += other.preempted_containers;
    }
}

/// The preemption figures of each leaf queue, under the queue its application is in now.
///
/// Counted from the replicated state, so every replica and every leader agrees on them and they
/// survive a failover; a container counts in the queue its application is in when counted (a
/// moved application takes its preempted containers with it, as its usage), so unlike Hadoop's
/// counters a queue's preempted figures can go down.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueuePreemptions {
    leaves: BTreeMap<String, PreemptionFigures>,
}

impl QueuePreemptions {
    /// The figures of `state`: one pass over its containers and the latest round's choices.
    /// Without `announcing` (the monitor is off, so no round will kill what an earlier one
    /// chose), nothing counts as to be preempted.
    pub fn of(state: &RmState, announcing: bool) -> Self {
        let mut leaves: BTreeMap<String, PreemptionFigures> = BTreeMap::new();
        let mut count = |record: &ContainerRecord, figures: PreemptionFigures| {
            if let Some(application) = state.applications.get(&record.key.application_seq) {
                leaves
                    .entry(application.queue.clone())
                    .or_default()
                    .add(figures);
            }
        };
        let held = |record: &ContainerRecord| Resource::new(record.memory_mb, record.vcores);
        for record in state.containers.iter() {
            if record.was_preempted() {
                count(
                    record,
                    PreemptionFigures {
                        preempted: held(record),
                        preempted_containers: 1,
                        ..PreemptionFigures::default()
                    },
                );
            }
        }
        for record in state
            .preemption_waits
            .announced()
            .filter(|_| announcing)
            .filter_map(|(key, _)| state.containers.get(&key))
            .filter(|record| record.state == ContainerState::Allocated)
        {
            count(
                record,
                PreemptionFigures {
                    to_preempt: held(record),
                    to_preempt_containers: 1,
                    ..PreemptionFigures::default()
                },
            );
        }
        Self { leaves }
    }

    /// The figures of the queue at `path` and of every queue below it.
    pub fn of_queue(&self, path: &str) -> PreemptionFigures {
        let mut sum = PreemptionFigures::default();
        for (_, figures) in self
            .leaves
            .iter()
            .filter(|(leaf, _)| is_at_or_below(leaf, path))
        {
            sum.add(*figures);
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::{key, running_application};
    use crate::state_machine::{CommandV1, ContainerCompletion, RmCommand};

    #[test]
    fn containers_waiting_and_killed_count_in_their_applications_queue_and_its_parents() {
        let mut state = running_application(&[(2, "n1:1"), (3, "n1:1"), (4, "n1:1")], &[]);
        state.applications.get_mut(&1).expect("app 1").queue = "root.a.a1".to_owned();
        let mut apply = |command| state.apply(&RmCommand::V1(command));
        let round = |now_ms| CommandV1::PreemptionRound {
            chosen: vec![key(2), key(3)],
            for_queues: vec!["root.b".to_owned()],
            max_wait_before_kill_ms: 10,
            now_ms,
        };
        apply(round(100));
        apply(CommandV1::CompleteContainers {
            completions: vec![ContainerCompletion {
                key: key(3),
                exit_status: 0,
                diagnostics: String::new(),
            }],
            now_ms: 105,
        });
        assert_eq!(
            QueuePreemptions::of(&state, false).of_queue("root.a.a1"),
            PreemptionFigures::default(),
            "no round will kill what waits while the monitor is off"
        );
        let waiting = QueuePreemptions::of(&state, true).of_queue("root.a.a1");
        assert_eq!(
            (waiting.to_preempt.memory_mb, waiting.to_preempt_containers),
            (1024, 1),
            "3 was given back"
        );
        assert_eq!(waiting.preempted_containers, 0);

        state.apply(&RmCommand::V1(round(110)));
        let figures = QueuePreemptions::of(&state, true);
        let a = figures.of_queue("root.a");
        assert_eq!(
            a,
            PreemptionFigures {
                preempted: Resource::new(1024, 1),
                preempted_containers: 1,
                ..PreemptionFigures::default()
            },
            "2 was killed, nothing waits"
        );
        assert_eq!(figures.of_queue("root"), a);
        assert_eq!(figures.of_queue("root.b"), PreemptionFigures::default());
    }
}
