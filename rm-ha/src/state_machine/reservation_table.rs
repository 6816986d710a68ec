//! [`ReservationTable`]: the replicated plan of the ReservationSystem, every accepted
//! reservation with what it holds over time.
//!
//! The leader places a reservation (`yarn_scheduler::reservation::Plan::admit`) against the
//! table at some `plan_version` and commits the allocation with that version: applying it
//! succeeds only if no other reservation was accepted, changed or deleted since, so two
//! admissions racing on one leader, or an old leader's admission committed after a new
//! leader's, can never book the same capacity twice. A refused commit changes nothing and the
//! leader places the reservation again.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use yarn_scheduler::reservation::{ReservationDefinition, ResourceTimeline};

use super::RmResponse;

/// One accepted reservation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservationRecord {
    /// The reservable leaf queue whose plan holds it, by full path.
    pub queue: String,
    /// The user who submitted it.
    pub user: String,
    /// What the user asked for.
    pub definition: ReservationDefinition,
    /// What the plan gives it, over time.
    pub allocation: ResourceTimeline,
    /// When the leader accepted it (or its latest update), in ms since the Unix epoch.
    pub acceptance_ms: i64,
}

/// A reservation queue's size as the plan follower committed it: shares of its plan queue in
/// millionths, whole numbers so that replicas compare states exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservationQueueShare {
    /// The reservation's sequence number, which names its queue.
    pub sequence: i64,
    /// Its guaranteed share of the plan queue, in millionths.
    pub capacity_millionths: u32,
    /// Its hard limit as a share of the plan queue, in millionths.
    pub maximum_capacity_millionths: u32,
}

/// Every accepted reservation by sequence number (the id of `reservation_<ts>_<seq>`), the next
/// sequence number to hand out, the version of the plan, and the reservation queues the plan
/// follower sized.
///
/// Guarantees: a sequence number is handed out once; a reservation is stored only under a
/// handed-out number, and only by a commit based on the plan version in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservationTable {
    next_sequence: i64,
    plan_version: u64,
    reservations: BTreeMap<i64, ReservationRecord>,
    /// The active reservations' queues under each plan queue, by the plan queue's path. Last,
    /// so that state format 6 reads as format 7 with none.
    queues: BTreeMap<String, Vec<ReservationQueueShare>>,
}

impl Default for ReservationTable {
    fn default() -> Self {
        Self {
            next_sequence: 1,
            plan_version: 0,
            reservations: BTreeMap::new(),
            queues: BTreeMap::new(),
        }
    }
}

/// What a command changes in the table, when it may.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReservationChange {
    /// Stores a new reservation.
    Submit(ReservationRecord),
    /// Replaces the definition and allocation of a stored one (same queue and user).
    Update {
        /// The new definition.
        definition: ReservationDefinition,
        /// Its allocation.
        allocation: ResourceTimeline,
        /// When the leader accepted the update.
        acceptance_ms: i64,
    },
}

impl ReservationTable {
    /// The version of the plan: bumped by every accepted or updated reservation. A deletion
    /// only frees capacity, so a placement made before it is still sound and it leaves the
    /// version alone.
    pub fn plan_version(&self) -> u64 {
        self.plan_version
    }

    /// Whether `sequence` was handed out by [`AllocateReservationIds`](super::CommandV1).
    pub fn was_handed_out(&self, sequence: i64) -> bool {
        (1..self.next_sequence).contains(&sequence)
    }

    /// The reservation `sequence`.
    pub fn get(&self, sequence: i64) -> Option<&ReservationRecord> {
        self.reservations.get(&sequence)
    }

    /// Every reservation, by sequence number.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &ReservationRecord)> {
        self.reservations.iter().map(|(&seq, record)| (seq, record))
    }

    /// The reservations in the plan of `queue`.
    pub fn in_queue<'a>(
        &'a self,
        queue: &'a str,
    ) -> impl Iterator<Item = (i64, &'a ReservationRecord)> + 'a {
        self.iter().filter(move |(_, record)| record.queue == queue)
    }

    /// The active reservations' queues under each plan queue, as the plan follower last sized
    /// them.
    pub fn queues(&self) -> &BTreeMap<String, Vec<ReservationQueueShare>> {
        &self.queues
    }

    /// Replaces the reservation queues with `queues`, the plan follower's step.
    pub(super) fn size_queues(
        &mut self,
        queues: &BTreeMap<String, Vec<ReservationQueueShare>>,
    ) -> RmResponse {
        self.queues.clone_from(queues);
        RmResponse::ReservationQueuesSized
    }

    /// Hands out `count` sequence numbers from the first returned.
    pub(super) fn allocate_ids(&mut self, count: u32) -> RmResponse {
        let first = self.next_sequence;
        self.next_sequence = first.saturating_add(i64::from(count));
        RmResponse::ReservationIdsAllocated { first }
    }

    /// Applies `change` to reservation `sequence` if the plan is still at `expected_version`.
    pub(super) fn change(
        &mut self,
        sequence: i64,
        expected_version: u64,
        change: &ReservationChange,
    ) -> RmResponse {
        if !self.was_handed_out(sequence) {
            return RmResponse::UnknownReservation { sequence };
        }
        match (change, self.reservations.get(&sequence)) {
            (ReservationChange::Submit(record), Some(stored)) => {
                // A retried submission of the same definition is acknowledged as is.
                return RmResponse::ReservationExists {
                    same_definition: stored.definition == record.definition
                        && stored.queue == record.queue,
                };
            }
            (ReservationChange::Update { .. }, None) => {
                return RmResponse::UnknownReservation { sequence };
            }
            _ => {}
        }
        if expected_version != self.plan_version {
            return RmResponse::PlanChanged {
                expected: expected_version,
                actual: self.plan_version,
            };
        }
        match change {
            ReservationChange::Submit(record) => {
                self.reservations.insert(sequence, record.clone());
            }
            ReservationChange::Update {
                definition,
                allocation,
                acceptance_ms,
            } => {
                let stored = self.reservations.get_mut(&sequence).expect("checked above");
                stored.definition = definition.clone();
                stored.allocation = allocation.clone();
                stored.acceptance_ms = *acceptance_ms;
            }
        }
        self.plan_version += 1;
        RmResponse::PlanVersionSet {
            version: self.plan_version,
        }
    }

    /// Forgets reservation `sequence` if it was accepted (or last updated) at `acceptance_ms`.
    pub(super) fn drop_if_unchanged(&mut self, sequence: i64, acceptance_ms: i64) -> RmResponse {
        match self.reservations.get(&sequence) {
            Some(stored) if stored.acceptance_ms != acceptance_ms => {
                RmResponse::ReservationChanged {
                    acceptance_ms: stored.acceptance_ms,
                }
            }
            _ => self.delete(sequence),
        }
    }

    /// Forgets reservation `sequence`; deleting frees capacity, so it needs no plan version.
    pub(super) fn delete(&mut self, sequence: i64) -> RmResponse {
        if self.reservations.remove(&sequence).is_none() {
            return RmResponse::UnknownReservation { sequence };
        }
        RmResponse::PlanVersionSet {
            version: self.plan_version,
        }
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::Resource;
    use yarn_scheduler::reservation::{RequestInterpreter, ReservationStage};

    use super::*;

    fn record(queue: &str, containers: i32) -> ReservationRecord {
        ReservationRecord {
            queue: queue.to_owned(),
            user: "alice".to_owned(),
            definition: ReservationDefinition {
                arrival_ms: 0,
                deadline_ms: 10_000,
                stages: vec![ReservationStage {
                    capability: Resource::new(1024, 1),
                    num_containers: containers,
                    concurrency: 1,
                    duration_ms: 1_000,
                }],
                interpreter: RequestInterpreter::All,
                name: String::new(),
                priority: 0,
            },
            allocation: ResourceTimeline::of(0, 1_000, Resource::new(1024, 1)),
            acceptance_ms: 5,
        }
    }

    #[test]
    fn a_drop_decided_before_an_update_leaves_the_update() {
        let mut table = ReservationTable::default();
        table.allocate_ids(1);
        table.change(1, 0, &ReservationChange::Submit(record("root.a", 1)));
        let stored = table.get(1).unwrap().clone();
        table.change(
            1,
            1,
            &ReservationChange::Update {
                definition: stored.definition,
                allocation: stored.allocation,
                acceptance_ms: 9,
            },
        );
        assert_eq!(
            table.drop_if_unchanged(1, 5),
            RmResponse::ReservationChanged { acceptance_ms: 9 }
        );
        assert!(table.get(1).is_some());
        assert!(matches!(
            table.drop_if_unchanged(1, 9),
            RmResponse::PlanVersionSet { .. }
        ));
        assert!(table.get(1).is_none());
    }

    #[test]
    fn only_a_commit_based_on_the_plan_in_force_books_capacity() {
        let mut table = ReservationTable::default();
        assert_eq!(
            table.allocate_ids(2),
            RmResponse::ReservationIdsAllocated { first: 1 }
        );
        let first = ReservationChange::Submit(record("root.a", 1));
        assert_eq!(
            table.change(1, 0, &first),
            RmResponse::PlanVersionSet { version: 1 }
        );
        // Placed against version 0, before the first was booked: refused, nothing stored.
        let second = ReservationChange::Submit(record("root.a", 2));
        assert_eq!(
            table.change(2, 0, &second),
            RmResponse::PlanChanged {
                expected: 0,
                actual: 1
            }
        );
        assert_eq!(table.get(2), None);
        assert_eq!(
            table.change(2, 1, &second),
            RmResponse::PlanVersionSet { version: 2 }
        );
    }

    #[test]
    fn ids_never_handed_out_and_retries_are_told_apart() {
        let mut table = ReservationTable::default();
        let submit = ReservationChange::Submit(record("root.a", 1));
        assert_eq!(
            table.change(1, 0, &submit),
            RmResponse::UnknownReservation { sequence: 1 }
        );
        table.allocate_ids(1);
        table.change(1, 0, &submit);
        assert_eq!(
            table.change(1, 1, &submit),
            RmResponse::ReservationExists {
                same_definition: true
            }
        );
        assert_eq!(
            table.change(1, 1, &ReservationChange::Submit(record("root.a", 3))),
            RmResponse::ReservationExists {
                same_definition: false
            }
        );
        assert_eq!(table.plan_version(), 1, "a retry changes nothing");
    }

    #[test]
    fn updates_and_deletes_need_a_stored_reservation() {
        let mut table = ReservationTable::default();
        table.allocate_ids(1);
        let update = ReservationChange::Update {
            definition: record("root.a", 4).definition,
            allocation: ResourceTimeline::of(0, 1_000, Resource::new(4096, 4)),
            acceptance_ms: 9,
        };
        assert_eq!(
            table.change(1, 0, &update),
            RmResponse::UnknownReservation { sequence: 1 }
        );
        assert_eq!(
            table.delete(1),
            RmResponse::UnknownReservation { sequence: 1 }
        );
        table.change(1, 0, &ReservationChange::Submit(record("root.a", 1)));
        assert_eq!(
            table.change(1, 1, &update),
            RmResponse::PlanVersionSet { version: 2 }
        );
        let stored = table.get(1).unwrap();
        assert_eq!((stored.acceptance_ms, stored.queue.as_str()), (9, "root.a"));
        assert_eq!(
            table.delete(1),
            RmResponse::PlanVersionSet { version: 2 },
            "a deletion leaves placements made before it sound"
        );
        assert_eq!(table.in_queue("root.a").count(), 0);
    }
}
