//! [`ContainerTable`]: every container allocated and not yet forgotten, replicated.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{ContainerCompletion, ContainerKey, ContainerRecord, ContainerState};

/// YARN's `ContainerExitStatus.ABORTED`: the container was released by the framework.
pub const ABORTED: i32 = -100;

/// YARN's diagnostic for a container whose node was declared LOST.
pub const LOST_NODE_DIAGNOSTIC: &str = "Container released on a *lost* node";

/// Why one allocation of a batch was not recorded. The rest of the batch is unaffected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AllocationRejection {
    /// The container id carries another epoch than the one in force: only the current leader
    /// allocates, so this is a deposed leader's proposal.
    StaleEpoch {
        /// The container.
        key: ContainerKey,
        /// The epoch in the id.
        epoch: i64,
        /// The epoch in force.
        current: u64,
    },
    /// The id is not above every id already issued to the application: issuing it could
    /// hand out one id twice.
    IdAlreadyIssued {
        /// The container.
        key: ContainerKey,
        /// The highest raw id issued to the application so far.
        last_issued: i64,
    },
    /// The application is unknown or already final.
    ApplicationNotLive {
        /// The container.
        key: ContainerKey,
    },
}

/// The replicated container table.
///
/// Guarantees, enforced when applying (so a buggy or deposed proposer cannot break them):
/// a container id is recorded at most once, ever, per application (ids only grow); only ids of
/// the epoch in force are recorded; completion is final and idempotent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerTable {
    containers: BTreeMap<ContainerKey, ContainerRecord>,
    /// The highest raw container id ever issued per application sequence number; it outlives
    /// the records so that an id is never issued again.
    last_issued: BTreeMap<i32, i64>,
}

impl ContainerTable {
    /// The container with this key, live or completed.
    pub fn get(&self, key: &ContainerKey) -> Option<&ContainerRecord> {
        self.containers.get(key)
    }

    /// Every container, ordered by application then id.
    pub fn iter(&self) -> impl Iterator<Item = &ContainerRecord> {
        self.containers.values()
    }

    /// Every container of one application, live or completed, in id order.
    pub fn of_application(&self, application_seq: i32) -> impl Iterator<Item = &ContainerRecord> {
        let first = ContainerKey {
            application_seq,
            container_id: i64::MIN,
        };
        let last = ContainerKey {
            application_seq,
            container_id: i64::MAX,
        };
        self.containers
            .range(first..=last)
            .map(|(_, record)| record)
    }

    /// The containers still holding resources on `node`.
    pub fn live_on<'a>(&'a self, node: &'a str) -> impl Iterator<Item = &'a ContainerRecord> {
        self.containers
            .values()
            .filter(move |record| record.node == node && record.is_live())
    }

    /// The highest raw container id issued to an application, if any.
    pub fn last_issued(&self, application_seq: i32) -> Option<i64> {
        self.last_issued.get(&application_seq).copied()
    }

    /// Records `record` if its id is of `epoch` and above every id the application was issued,
    /// `is_live_application` having said the application can still receive containers.
    pub(crate) fn allocate(
        &mut self,
        epoch: u64,
        is_live_application: bool,
        record: &ContainerRecord,
    ) -> Result<(), AllocationRejection> {
        let key = record.key;
        let id_epoch = key.container_id >> yarn_proto::ids::ContainerId::EPOCH_SHIFT;
        if u64::try_from(id_epoch).ok() != Some(epoch) {
            return Err(AllocationRejection::StaleEpoch {
                key,
                epoch: id_epoch,
                current: epoch,
            });
        }
        if !is_live_application {
            return Err(AllocationRejection::ApplicationNotLive { key });
        }
        if let Some(&last) = self.last_issued.get(&key.application_seq) {
            if key.container_id <= last {
                return Err(AllocationRejection::IdAlreadyIssued {
                    key,
                    last_issued: last,
                });
            }
        }
        self.last_issued
            .insert(key.application_seq, key.container_id);
        self.containers.insert(key, record.clone());
        Ok(())
    }

    /// Completes one container. Returns whether anything changed: completing an unknown or an
    /// already completed container changes nothing, so NodeManagers and AMs may repeat reports.
    pub(crate) fn complete(&mut self, completion: &ContainerCompletion) -> bool {
        match self.containers.get_mut(&completion.key) {
            Some(record) if record.is_live() => {
                record.state = ContainerState::Completed {
                    exit_status: completion.exit_status,
                    diagnostics: completion.diagnostics.clone(),
                };
                true
            }
            _ => false,
        }
    }

    /// Completes every live container on `node` as lost (YARN's ABORTED with its lost-node
    /// diagnostic) and returns their keys.
    pub(crate) fn complete_lost_node(&mut self, node: &str) -> Vec<ContainerKey> {
        let lost: Vec<ContainerKey> = self.live_on(node).map(|record| record.key).collect();
        for key in &lost {
            self.complete(&ContainerCompletion {
                key: *key,
                exit_status: ABORTED,
                diagnostics: LOST_NODE_DIAGNOSTIC.to_owned(),
            });
        }
        lost
    }

    /// Feeds the whole table into a state digest, deterministically.
    pub(crate) fn digest_into(&self, hasher: &mut Sha256) {
        // Postcard encoding of plain records into a Vec cannot fail; the empty fallback is
        // never taken.
        let bytes = postcard::to_allocvec(self).unwrap_or_default();
        hasher.update((bytes.len() as u64).to_be_bytes());
        hasher.update(&bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::ExecutionType;

    const EPOCH: u64 = 3;

    fn key(application_seq: i32, sequence: i64) -> ContainerKey {
        ContainerKey {
            application_seq,
            container_id: ((EPOCH as i64) << 40) | sequence,
        }
    }

    fn record(key: ContainerKey, node: &str) -> ContainerRecord {
        ContainerRecord {
            key,
            attempt_id: 1,
            node: node.to_owned(),
            memory_mb: 1024,
            vcores: 1,
            execution_type: ExecutionType::Guaranteed,
            is_am: false,
            priority: 1,
            allocation_request_id: 0,
            allocated_at_ms: 10,
            state: ContainerState::Allocated,
        }
    }

    #[test]
    fn an_id_is_recorded_once_even_after_it_completed() {
        let mut table = ContainerTable::default();
        let first = key(1, 1);
        table.allocate(EPOCH, true, &record(first, "n1:1")).unwrap();
        assert_eq!(
            table.allocate(EPOCH, true, &record(first, "n2:1")),
            Err(AllocationRejection::IdAlreadyIssued {
                key: first,
                last_issued: first.container_id
            })
        );
        assert!(table.complete(&ContainerCompletion {
            key: first,
            exit_status: 0,
            diagnostics: String::new(),
        }));
        // Completion does not make the id reusable, and lower ids stay refused too.
        assert!(table.allocate(EPOCH, true, &record(first, "n1:1")).is_err());
        assert!(
            table
                .allocate(EPOCH, true, &record(key(1, 0), "n1:1"))
                .is_err()
        );
        // Other applications have their own sequence.
        table
            .allocate(EPOCH, true, &record(key(2, 1), "n1:1"))
            .unwrap();
        assert_eq!(table.get(&first).map(|r| r.node.as_str()), Some("n1:1"));
    }

    #[test]
    fn ids_of_another_epoch_or_of_dead_applications_are_refused() {
        let mut table = ContainerTable::default();
        let stale = key(1, 1);
        assert_eq!(
            table.allocate(EPOCH + 1, true, &record(stale, "n1:1")),
            Err(AllocationRejection::StaleEpoch {
                key: stale,
                epoch: EPOCH as i64,
                current: EPOCH + 1
            })
        );
        assert_eq!(
            table.allocate(EPOCH, false, &record(stale, "n1:1")),
            Err(AllocationRejection::ApplicationNotLive { key: stale })
        );
        assert_eq!(table.iter().count(), 0);
        assert_eq!(table.last_issued(1), None);
    }

    #[test]
    fn a_lost_node_completes_only_its_live_containers_as_aborted() {
        let mut table = ContainerTable::default();
        for (sequence, node) in [(1, "n1:1"), (2, "n1:1"), (3, "n2:1")] {
            table
                .allocate(EPOCH, true, &record(key(1, sequence), node))
                .unwrap();
        }
        let done = ContainerCompletion {
            key: key(1, 2),
            exit_status: 0,
            diagnostics: "done".to_owned(),
        };
        assert!(table.complete(&done));
        assert!(!table.complete(&done), "a repeated report changes nothing");

        assert_eq!(table.complete_lost_node("n1:1"), vec![key(1, 1)]);
        let lost = table.get(&key(1, 1)).unwrap();
        assert_eq!(
            lost.state,
            ContainerState::Completed {
                exit_status: ABORTED,
                diagnostics: LOST_NODE_DIAGNOSTIC.to_owned()
            }
        );
        // The earlier completion keeps its own status; the other node is untouched.
        assert!(matches!(
            &table.get(&key(1, 2)).unwrap().state,
            ContainerState::Completed { exit_status: 0, .. }
        ));
        assert!(table.get(&key(1, 3)).unwrap().is_live());
        assert!(table.complete_lost_node("n1:1").is_empty());
    }
}
