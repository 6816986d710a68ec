//! The replicated half of container preemption: which containers the leader's rounds have
//! chosen, since when, and the kills once their wait is over.
//!
//! The leader runs the policy (`yarn_scheduler::preemption`) on its scheduler and commits each
//! round's choice; applying it decides, from the replicated waits alone, which containers are
//! announced and which are killed. A new leader therefore finds every wait where the old one
//! left it: nothing is killed twice, and no wait starts again from zero.

use yarn_scheduler::preemption::{PreemptionWaits, WaitVerdicts};

use super::{ContainerCompletion, ContainerKey, ContainerState, PREEMPTED, RmResponse, RmState};

/// The chosen containers of the replicated state, each with when a round first chose it.
pub type ContainerWaits = PreemptionWaits<ContainerKey>;

impl RmState {
    /// What applying a [`PreemptionRound`](super::CommandV1::PreemptionRound) choosing `chosen`
    /// at `now_ms` would do, without doing it: the waits afterwards, and the round's verdicts.
    /// Waits of containers that ended are forgotten first, and chosen containers that are no
    /// longer live are ignored. The leader compares the waits with the committed ones to commit
    /// only rounds that change something.
    pub fn preview_preemption_round(
        &self,
        chosen: &[ContainerKey],
        max_wait_before_kill_ms: i64,
        now_ms: i64,
    ) -> (ContainerWaits, WaitVerdicts<ContainerKey>) {
        let mut waits = self.preemption_waits.clone();
        let ended: Vec<ContainerKey> = waits
            .waiting()
            .map(|(key, _)| key)
            .filter(|key| !self.is_live_container(key))
            .collect();
        for key in &ended {
            waits.forget(key);
        }
        let live = chosen
            .iter()
            .copied()
            .filter(|key| self.is_live_container(key));
        let verdicts = waits.round(live, now_ms, max_wait_before_kill_ms);
        (waits, verdicts)
    }

    /// Applies one preemption round at `now_ms` (see
    /// [`preview_preemption_round`](Self::preview_preemption_round)): containers chosen for the
    /// first time start waiting (their ApplicationMasters hear of them on their next allocate),
    /// and those chosen again `max_wait_before_kill_ms` after their first time complete as
    /// `PREEMPTED`, with a diagnostic naming the queues the round reclaims for.
    pub(super) fn preemption_round(
        &mut self,
        chosen: &[ContainerKey],
        for_queues: &[String],
        max_wait_before_kill_ms: i64,
        now_ms: i64,
    ) -> RmResponse {
        let (waits, verdicts) =
            self.preview_preemption_round(chosen, max_wait_before_kill_ms, now_ms);
        self.preemption_waits = waits;
        let completions: Vec<ContainerCompletion> = verdicts
            .to_kill
            .iter()
            .map(|&key| ContainerCompletion {
                key,
                exit_status: PREEMPTED,
                diagnostics: self.preempted_diagnostic(&key, for_queues),
            })
            .collect();
        self.complete_containers(&completions, now_ms);
        RmResponse::PreemptionRoundApplied {
            announced: verdicts.to_announce,
            killed: verdicts.to_kill,
        }
    }

    /// The live containers of the application `application_seq` that the latest preemption
    /// round chose, each with when it was first chosen: what its ApplicationMaster is told.
    pub fn preemption_announced_to(
        &self,
        application_seq: i32,
    ) -> impl Iterator<Item = (ContainerKey, i64)> + '_ {
        self.preemption_waits.announced().filter(move |(key, _)| {
            key.application_seq == application_seq && self.is_live_container(key)
        })
    }

    fn is_live_container(&self, key: &ContainerKey) -> bool {
        self.containers
            .get(key)
            .is_some_and(|record| record.state == ContainerState::Allocated)
    }

    /// Hadoop's "Container preempted by scheduler", with the queue the container ran in and
    /// the queues its resources go to.
    fn preempted_diagnostic(&self, key: &ContainerKey, for_queues: &[String]) -> String {
        let from = self
            .applications
            .get(&key.application_seq)
            .map_or("", |application| application.queue.as_str());
        if for_queues.is_empty() {
            format!("Container preempted by scheduler from queue {from}")
        } else {
            format!(
                "Container preempted by scheduler from queue {from} for queue {}",
                for_queues.join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixtures::{key, running_application};
    use super::super::{CommandV1, RmCommand};
    use super::*;

    const WAIT: i64 = 15_000;

    fn keys(sequences: &[i64]) -> Vec<ContainerKey> {
        sequences.iter().map(|&sequence| key(sequence)).collect()
    }

    /// Applies a round choosing `chosen` at `now_ms`; returns what it announced and killed.
    fn round(
        state: &mut RmState,
        chosen: &[i64],
        now_ms: i64,
    ) -> (Vec<ContainerKey>, Vec<ContainerKey>) {
        let command = RmCommand::V1(CommandV1::PreemptionRound {
            chosen: keys(chosen),
            for_queues: vec!["root.b".to_owned()],
            max_wait_before_kill_ms: WAIT,
            now_ms,
        });
        match state.apply(&command) {
            RmResponse::PreemptionRoundApplied { announced, killed } => (announced, killed),
            other => panic!("a round always applies, not {other:?}"),
        }
    }

    fn exit_of(state: &RmState, sequence: i64) -> Option<(i32, String)> {
        match &state.containers.get(&key(sequence))?.state {
            ContainerState::Completed {
                exit_status,
                diagnostics,
            } => Some((*exit_status, diagnostics.clone())),
            ContainerState::Allocated => None,
        }
    }

    #[test]
    fn chosen_containers_are_announced_then_killed_as_preempted_after_the_wait() {
        let mut state = running_application(&[(2, "n1:1"), (3, "n1:1"), (4, "n1:1")], &[4]);
        assert_eq!(
            round(&mut state, &[2, 3, 4], 1_000),
            (keys(&[2, 3]), vec![]),
            "4 has completed already"
        );
        assert_eq!(
            state.preemption_announced_to(1).collect::<Vec<_>>(),
            [(key(2), 1_000), (key(3), 1_000)]
        );
        assert_eq!(round(&mut state, &[2, 3], 10_000), (vec![], vec![]));
        assert_eq!(exit_of(&state, 2), None, "not due yet");
        // Only 2 is still chosen once due: the AM gave back other containers meanwhile, so the
        // queue owes less. A preview tells what the round will do, and changes nothing.
        let before = state.clone();
        let (waits, verdicts) = state.preview_preemption_round(&keys(&[2]), WAIT, 16_000);
        assert_eq!(state, before);
        assert_eq!(verdicts.to_kill, keys(&[2]));
        assert_eq!(round(&mut state, &[2], 16_000), (vec![], keys(&[2])));
        assert_eq!(state.preemption_waits, waits);
        assert_eq!(
            state.preemption_announced_to(1).count(),
            0,
            "2 is killed, and 3, no longer chosen, is no longer announced"
        );
        let (exit, diagnostics) = exit_of(&state, 2).expect("killed");
        assert_eq!(exit, PREEMPTED);
        assert_eq!(
            diagnostics,
            "Container preempted by scheduler from queue default for queue root.b"
        );
        assert_eq!(exit_of(&state, 3), None, "no longer chosen, not killed");
        assert_eq!(
            round(&mut state, &[2], 17_000),
            (vec![], vec![]),
            "a killed container is never killed twice"
        );
    }

    #[test]
    fn waits_of_containers_that_ended_are_forgotten_and_not_announced() {
        let mut state = running_application(&[(2, "n1:1"), (3, "n1:1")], &[]);
        round(&mut state, &[2, 3], 1_000);
        state.apply(&RmCommand::V1(CommandV1::CompleteContainers {
            completions: vec![ContainerCompletion {
                key: key(3),
                exit_status: 0,
                diagnostics: String::new(),
            }],
            now_ms: 2_000,
        }));
        assert_eq!(
            state.preemption_announced_to(1).collect::<Vec<_>>(),
            [(key(2), 1_000)],
            "the AM is not told of a container that ended"
        );
        round(&mut state, &[], 3_000);
        assert_eq!(
            state.preemption_waits.waiting().collect::<Vec<_>>(),
            [(key(2), 1_000)]
        );
    }

    #[test]
    fn a_copy_of_the_state_carries_the_waits_on() {
        // A new leader applies the next round to the state the old one left: the wait started
        // by the old leader is over, and nothing is announced again.
        let mut old = running_application(&[(2, "n1:1")], &[]);
        round(&mut old, &[2], 1_000);
        let bytes = postcard::to_allocvec(&old).unwrap();
        let mut new: RmState = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(round(&mut new, &[2], 16_000), (vec![], keys(&[2])));
    }
}
