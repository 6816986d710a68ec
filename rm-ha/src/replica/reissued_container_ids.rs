//! PLANTED BUG, for the chaos harness to catch: [`ReissuedContainerIds`].
//!
//! Compiled only with the `failpoints` feature and armed only by the failpoint
//! `plant.reissue-container-id`. Never correct: it exists so a test can prove that the
//! `unique-container-ids` invariant notices a leader that issues an id twice.

use std::collections::BTreeSet;

use crate::state_machine::{ContainerRecord, epoch_start};

/// Gives the first task container one leadership allocates to each application an earlier
/// leader had issued containers to the id that application's container sequence started with
/// (sequence 1 in the epoch of its last issued id: its AM container's id, when that leader
/// allocated it), as a new leader whose sequence restarted would. Later containers keep the
/// scheduler's ids, AM containers and applications new to this leadership are left alone, and
/// the first leadership (epoch 1) has no predecessor: the reissue is the only harm.
#[derive(Debug, Default)]
pub(crate) struct ReissuedContainerIds {
    /// Applications that got their reissued id in this leadership.
    reissued: BTreeSet<i32>,
}

impl ReissuedContainerIds {
    /// Rewrites the ids of `allocations`, made by the leader of `epoch`; `last_issued` gives
    /// the highest raw id the state records as issued to an application.
    pub(crate) fn renumber(
        &mut self,
        epoch: u64,
        mut allocations: Vec<ContainerRecord>,
        last_issued: impl Fn(i32) -> Option<i64>,
    ) -> Vec<ContainerRecord> {
        for record in &mut allocations {
            let application = record.key.application_seq;
            let Some(last) = last_issued(application) else {
                continue;
            };
            if record.is_am || last >= epoch_start(epoch) || self.reissued.contains(&application) {
                continue;
            }
            let last_epoch = last >> yarn_proto::ids::ContainerId::EPOCH_SHIFT;
            record.key.container_id = (last_epoch << yarn_proto::ids::ContainerId::EPOCH_SHIFT) + 1;
            self.reissued.insert(application);
        }
        allocations
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::{am_container, key, running_application};
    use crate::state_machine::{CommandV1, ContainerKey, RmCommand, RmResponse};

    fn record(application_seq: i32, container_id: i64) -> ContainerRecord {
        let mut record = am_container(1, "h1:1");
        record.is_am = false;
        record.key = ContainerKey {
            application_seq,
            container_id,
        };
        record
    }

    #[test]
    fn a_new_leader_reissues_the_first_id_to_the_first_task_of_a_recovered_application() {
        let mut planted = ReissuedContainerIds::default();
        // Application 1 got ids from epoch 1; application 2 only from epoch 2.
        let last_issued = |application| match application {
            1 => Some(epoch_start(1) + 6),
            2 => Some(epoch_start(2) + 1),
            _ => None,
        };
        let mut am = record(1, epoch_start(2) + 7);
        am.is_am = true;
        let renumbered = planted.renumber(
            2,
            vec![
                am.clone(),
                record(2, epoch_start(2) + 2),
                record(1, epoch_start(2) + 8),
                record(1, epoch_start(2) + 9),
                record(3, epoch_start(2) + 1),
            ],
            last_issued,
        );
        let ids: Vec<(i32, i64)> = renumbered
            .iter()
            .map(|r| (r.key.application_seq, r.key.container_id))
            .collect();
        assert_eq!(
            ids,
            [
                (1, am.key.container_id),
                (2, epoch_start(2) + 2),
                (1, epoch_start(1) + 1),
                (1, epoch_start(2) + 9),
                (3, epoch_start(2) + 1)
            ]
        );
        let later = vec![record(1, epoch_start(2) + 10)];
        assert_eq!(planted.renumber(2, later.clone(), last_issued), later);
    }

    #[test]
    fn the_planted_apply_records_a_reissued_id_that_apply_refuses() {
        let mut state = running_application(&[(1, "h1:1"), (2, "h1:1")], &[]);
        state.apply(&RmCommand::V1(CommandV1::BeginEpoch {
            leader_rm_id: "rm2".to_owned(),
            now_ms: 9,
        }));
        let mut reissued = record(1, key(2).container_id);
        reissued.node = "h2:1".to_owned();
        let command = RmCommand::V1(CommandV1::AllocateContainers {
            allocations: vec![reissued.clone()],
        });
        let mut checked = state.clone();
        assert!(matches!(
            checked.apply(&command),
            RmResponse::ContainersAllocated { recorded: 0, .. }
        ));
        assert_eq!(checked.containers.get(&key(2)).unwrap().node, "h1:1");
        assert!(matches!(
            state.apply_without_id_validation(&command),
            RmResponse::ContainersAllocated { recorded: 1, .. }
        ));
        assert_eq!(state.containers.get(&key(2)), Some(&reissued));
    }
}
