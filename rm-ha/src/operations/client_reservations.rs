//! The ReservationSystem's client operations (YARN's `getNewReservation`,
//! `submitReservation`, `updateReservation`, `deleteReservation` and `listReservations`).
//!
//! Admission runs on the leader, one at a time: the definition is placed in the queue's plan
//! as the replicated table holds it after a read barrier, and the allocation is committed with
//! the plan version it was placed against, so nothing committed in between is double-booked.

use tokio::sync::Mutex;
use yarn_proto::Resource;
use yarn_proto::ids::ReservationId;
use yarn_proto::pb;
use yarn_scheduler::ResourceCalculator;
use yarn_scheduler::reservation::{
    Booking, Plan, ReservationDefinition, ReservationQueueConf, ResourceTimeline,
};
use yarn_security::{Caller, now_ms};

use super::RmError;
use super::client_operations::{ClientOperations, user_name};
use super::reservation_records::{allocation_state_proto, definition_from_proto};
use crate::scheduling::ReservationConfig;
use crate::state_machine::{
    CommandV1, ReservationChange, ReservationRecord, RmCommand, RmResponse,
};

/// How many times an admission is placed again when the plan changed under it (only another
/// leader's commit can do that, as this one admits one at a time).
const ADMISSION_ATTEMPTS: usize = 3;

/// The ReservationSystem's settings, and the lock that has this replica admit one reservation
/// at a time.
pub(crate) struct ReservationDesk {
    config: ReservationConfig,
    admission: Mutex<()>,
}

impl ReservationDesk {
    pub(crate) fn new(config: ReservationConfig) -> Self {
        Self {
            config,
            admission: Mutex::new(()),
        }
    }
}

/// What admission needs to know of a reservable queue, from the leader's scheduler.
struct QueuePlan {
    path: String,
    conf: ReservationQueueConf,
    capacity: Resource,
    calculator: ResourceCalculator,
    maximum_allocation: Resource,
}

impl ClientOperations {
    fn reservation_desk(&self) -> Result<&ReservationDesk, RmError> {
        if self.reservations.config.enabled {
            return Ok(&self.reservations);
        }
        Err(RmError::precondition(
            "Reservation is not enabled. Please enable & try again \
             (yarn.resourcemanager.reservation-system.enable)",
        ))
    }

    /// Hands out a new reservation id, a Raft write so that no id is handed out twice.
    pub(crate) async fn get_new_reservation(
        &self,
    ) -> Result<pb::GetNewReservationResponseProto, RmError> {
        self.reservation_desk()?;
        let command = RmCommand::V1(CommandV1::AllocateReservationIds { count: 1 });
        match self.proposer.propose(command).await? {
            RmResponse::ReservationIdsAllocated { first } => {
                let cluster_timestamp = self.state.read(|s| s.cluster_timestamp_ms);
                Ok(pb::GetNewReservationResponseProto {
                    reservation_id: Some(ReservationId::new(cluster_timestamp, first).into()),
                })
            }
            other => Err(RmError::internal(format!(
                "allocating a reservation id produced {other:?}"
            ))),
        }
    }

    /// Places and books a reservation in a reservable queue's plan; the same definition
    /// submitted again under its id is acknowledged as is.
    pub(crate) async fn submit_reservation(
        &self,
        caller: &Caller,
        request: pb::ReservationSubmissionRequestProto,
    ) -> Result<pb::ReservationSubmissionResponseProto, RmError> {
        let desk = self.reservation_desk()?;
        let id = self.reservation_id(request.reservation_id, "reservation_id")?;
        if request.queue.trim().is_empty() {
            return Err(RmError::invalid(
                "queue",
                "The queue is not specified. Please try again with a valid reservable queue.",
            ));
        }
        let definition = read_definition(request.reservation_definition.as_ref())?;
        let _one_at_a_time = desk.admission.lock().await;
        for _ in 0..ADMISSION_ATTEMPTS {
            self.proposer.read_barrier().await?;
            let plan = self.queue_plan(request.queue.trim()).await?;
            check_definition(&definition, &plan, id)?;
            let (version, handed_out, stored) = self.state.read(|state| {
                let table = &state.reservations;
                let handed_out = table.was_handed_out(id.id);
                (table.plan_version(), handed_out, table.get(id.id).cloned())
            });
            if !handed_out {
                return Err(unknown_reservation(id));
            }
            if let Some(stored) = stored {
                return already_stored(id, &stored, &plan.path, &definition);
            }
            let user = user_name(caller);
            let allocation = self.admit(&plan, &user, &definition, None, id)?;
            let change = ReservationChange::Submit(ReservationRecord {
                queue: plan.path.clone(),
                user,
                definition: definition.clone(),
                allocation,
                acceptance_ms: now_ms(),
            });
            if self.commit(id, version, change).await? {
                return Ok(pb::ReservationSubmissionResponseProto {});
            }
        }
        Err(plan_kept_changing(id))
    }

    /// Places a reservation's new definition in its queue's plan in place of the old one.
    pub(crate) async fn update_reservation(
        &self,
        _caller: &Caller,
        request: pb::ReservationUpdateRequestProto,
    ) -> Result<pb::ReservationUpdateResponseProto, RmError> {
        let desk = self.reservation_desk()?;
        let id = self.reservation_id(request.reservation_id, "reservation_id")?;
        let definition = read_definition(request.reservation_definition.as_ref())?;
        let _one_at_a_time = desk.admission.lock().await;
        for _ in 0..ADMISSION_ATTEMPTS {
            self.proposer.read_barrier().await?;
            let (version, stored) = self.state.read(|state| {
                let table = &state.reservations;
                (table.plan_version(), table.get(id.id).cloned())
            });
            let stored = stored.ok_or_else(|| unknown_reservation(id))?;
            let plan = self.queue_plan(&stored.queue).await?;
            check_definition(&definition, &plan, id)?;
            let allocation = self.admit(&plan, &stored.user, &definition, Some(id.id), id)?;
            let change = ReservationChange::Update {
                definition: definition.clone(),
                allocation,
                acceptance_ms: now_ms(),
            };
            if self.commit(id, version, change).await? {
                return Ok(pb::ReservationUpdateResponseProto {});
            }
        }
        Err(plan_kept_changing(id))
    }

    /// Deletes a reservation, freeing what it held.
    pub(crate) async fn delete_reservation(
        &self,
        _caller: &Caller,
        request: pb::ReservationDeleteRequestProto,
    ) -> Result<pb::ReservationDeleteResponseProto, RmError> {
        self.reservation_desk()?;
        let id = self.reservation_id(request.reservation_id, "reservation_id")?;
        let command = RmCommand::V1(CommandV1::DeleteReservation { sequence: id.id });
        match self.proposer.propose(command).await? {
            RmResponse::PlanVersionSet { .. } => Ok(pb::ReservationDeleteResponseProto {}),
            RmResponse::UnknownReservation { .. } => Err(unknown_reservation(id)),
            other => Err(RmError::internal(format!(
                "deleting {id} produced {other:?}"
            ))),
        }
    }

    /// The reservations of a reservable queue: the one named, or those whose arrival to
    /// deadline overlaps `[start_time, end_time)`.
    pub(crate) async fn list_reservations(
        &self,
        _caller: &Caller,
        request: pb::ReservationListRequestProto,
    ) -> Result<pb::ReservationListResponseProto, RmError> {
        self.reservation_desk()?;
        if request.queue.trim().is_empty() {
            return Err(RmError::invalid(
                "queue",
                "The queue is not specified. Please try again with a valid reservable queue.",
            ));
        }
        let start = request.start_time.max(0);
        let end = match request.end_time {
            Some(end) if end >= 0 => end,
            _ => i64::MAX,
        };
        if end < start {
            return Err(RmError::invalid(
                "end_time",
                "The specified end time must be greater than the specified start time.",
            ));
        }
        let named = match request.reservation_id.trim() {
            "" => None,
            text => Some(text.parse::<ReservationId>().map_err(|err| {
                RmError::invalid("reservation_id", format!("ListReservations: {err}"))
            })?),
        };
        self.proposer.read_barrier().await?;
        let plan = self.queue_plan(request.queue.trim()).await?;
        let include = request.include_resource_allocations;
        let reservations = self.state.read(|state| {
            let cluster_timestamp = state.cluster_timestamp_ms;
            state
                .reservations
                .in_queue(&plan.path)
                .filter(|(sequence, record)| match named {
                    Some(id) => id == ReservationId::new(cluster_timestamp, *sequence),
                    None => {
                        record.definition.arrival_ms <= end && record.definition.deadline_ms > start
                    }
                })
                .map(|(sequence, record)| {
                    let id = ReservationId::new(cluster_timestamp, sequence);
                    allocation_state_proto(id, record, include)
                })
                .collect()
        });
        Ok(pb::ReservationListResponseProto { reservations })
    }

    /// The id a request names, which must be this cluster's.
    fn reservation_id(
        &self,
        proto: Option<pb::ReservationIdProto>,
        field: &'static str,
    ) -> Result<ReservationId, RmError> {
        let proto = proto.ok_or_else(|| {
            RmError::invalid(
                field,
                "Missing reservation id. Please try again by specifying a reservation id.",
            )
        })?;
        let id = ReservationId::try_from(proto)
            .map_err(|err| RmError::invalid(field, err.to_string()))?;
        if id.cluster_timestamp != self.state.read(|s| s.cluster_timestamp_ms) {
            return Err(unknown_reservation(id));
        }
        Ok(id)
    }

    /// The plan facts of the reservable queue named `queue` (a name or a full path).
    async fn queue_plan(&self, queue: &str) -> Result<QueuePlan, RmError> {
        let leadership = self.proposer.gate.require_leader()?;
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        let found = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                let scheduler = leader.scheduler();
                let conf = scheduler.configuration();
                let queue_conf = conf.resolve(queue).ok()?;
                Some(QueuePlan {
                    path: queue_conf.path.clone(),
                    conf: queue_conf.reservation?,
                    // What the plan queue is guaranteed for the cluster as it is, as the plan
                    // follower sizes it.
                    capacity: scheduler
                        .queue_info(&queue_conf.path)
                        .ok()?
                        .guaranteed_resource,
                    calculator: conf.resource_calculator(),
                    maximum_allocation: queue_conf.maximum_allocation,
                })
            })
            .await
            .map_err(|err| RmError::unavailable(err.to_string()))?;
        found.ok_or_else(|| {
            RmError::invalid(
                "queue",
                format!(
                    "The specified queue: {queue} is not managed by reservation system. Please \
                     try again with a valid reservable queue."
                ),
            )
        })
    }

    /// Places `definition` for `user` in `plan`, without the reservation it replaces.
    fn admit(
        &self,
        plan: &QueuePlan,
        user: &str,
        definition: &ReservationDefinition,
        replacing: Option<i64>,
        id: ReservationId,
    ) -> Result<ResourceTimeline, RmError> {
        if plan.capacity.is_zero() {
            // A new leader before any NodeManager registered with it: refusing for want of
            // room would be wrong a few heartbeats later.
            return Err(RmError::unavailable(format!(
                "the plan of queue {} has no capacity: no NodeManager has registered with this \
                 leader yet; try again",
                plan.path
            )));
        }
        let config = self.reservations.config;
        // Copied out, so that placing does not hold the state that Raft applies to.
        let bookings: Vec<(String, ResourceTimeline)> = self.state.read(|state| {
            state
                .reservations
                .in_queue(&plan.path)
                .filter(|(sequence, _)| Some(*sequence) != replacing)
                .map(|(_, record)| (record.user.clone(), record.allocation.clone()))
                .collect()
        });
        Plan {
            capacity: plan.capacity,
            policy: plan.conf.sharing_policy(),
            calculator: plan.calculator,
            step_ms: i64::try_from(config.time_step.as_millis()).unwrap_or(i64::MAX),
            favor_early: config.favor_early,
            bookings: bookings
                .iter()
                .map(|(user, allocation)| Booking { user, allocation })
                .collect(),
        }
        .admit(user, definition)
        .map_err(|refusal| {
            RmError::precondition(format!(
                "The request cannot be satisfied: {id} does not fit the plan of queue {}: \
                     {refusal}",
                plan.path
            ))
        })
    }

    /// Commits `change` to reservation `id` against plan `version`: `false` when the plan
    /// changed meanwhile and the reservation must be placed again.
    async fn commit(
        &self,
        id: ReservationId,
        version: u64,
        change: ReservationChange,
    ) -> Result<bool, RmError> {
        let command = RmCommand::V1(CommandV1::ChangeReservation {
            sequence: id.id,
            expected_plan_version: version,
            change,
        });
        match self.proposer.propose(command).await? {
            RmResponse::PlanVersionSet { .. } => Ok(true),
            RmResponse::PlanChanged { .. } => Ok(false),
            RmResponse::ReservationExists {
                same_definition: true,
            } => Ok(true),
            RmResponse::ReservationExists {
                same_definition: false,
            } => Err(different_definition(id)),
            RmResponse::UnknownReservation { .. } => Err(unknown_reservation(id)),
            other => Err(RmError::internal(format!(
                "booking {id} produced {other:?}"
            ))),
        }
    }
}

fn read_definition(
    proto: Option<&pb::ReservationDefinitionProto>,
) -> Result<ReservationDefinition, RmError> {
    let proto = proto.ok_or_else(|| {
        RmError::invalid(
            "reservation_definition",
            "Missing reservation definition. Please try again by specifying a reservation \
             definition.",
        )
    })?;
    definition_from_proto(proto).map_err(|(field, message)| {
        RmError::invalid(
            "reservation_definition",
            format!("reservation_definition.{field}: {message}"),
        )
    })
}

/// Checks the definition against the clock and the queue's largest container.
fn check_definition(
    definition: &ReservationDefinition,
    plan: &QueuePlan,
    id: ReservationId,
) -> Result<(), RmError> {
    definition
        .check(now_ms(), plan.maximum_allocation)
        .map_err(|refusal| {
            RmError::invalid(
                "reservation_definition",
                format!("reservation {id}: reservation_definition.{refusal}"),
            )
        })
}

/// The answer to a submission under an id already stored.
fn already_stored(
    id: ReservationId,
    stored: &ReservationRecord,
    queue: &str,
    definition: &ReservationDefinition,
) -> Result<pb::ReservationSubmissionResponseProto, RmError> {
    if stored.definition == *definition && stored.queue == queue {
        return Ok(pb::ReservationSubmissionResponseProto {});
    }
    Err(different_definition(id))
}

fn different_definition(id: ReservationId) -> RmError {
    RmError::Conflict {
        message: format!(
            "Reservation allocation already exists with the reservation id {id}, but a \
             different reservation definition was provided. Please try again with a new \
             reservation id, or consider updating the reservation instead."
        ),
    }
}

/// Hadoop's refusal of an id it holds no reservation for: a bad request (400 over REST, as
/// Hadoop answers), not a missing resource.
fn unknown_reservation(id: ReservationId) -> RmError {
    RmError::invalid(
        "reservation_id",
        format!(
            "The specified reservation with ID: {id} is unknown. Please try again with a valid \
             reservation."
        ),
    )
}

fn plan_kept_changing(id: ReservationId) -> RmError {
    RmError::unavailable(format!(
        "the plan changed while {id} was being placed, {ADMISSION_ATTEMPTS} times; try again"
    ))
}
