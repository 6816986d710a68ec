//! The ReservationSystem's records as the client protocol carries them: definitions read from
//! `ReservationDefinitionProto`, and accepted reservations written as
//! `ReservationAllocationStateProto`.

use yarn_proto::Resource;
use yarn_proto::ids::ReservationId;
use yarn_proto::pb;
use yarn_scheduler::reservation::{RequestInterpreter, ReservationDefinition, ReservationStage};

use super::am_operations::resource_proto;
use crate::state_machine::ReservationRecord;

/// Reads a definition as Hadoop does: absent container counts and gang sizes are 1, an absent
/// duration is -1 and an absent interpreter `R_ALL`. Checking the values is left to
/// [`ReservationDefinition::check`].
///
/// # Errors
///
/// The field and why, for what cannot be read at all: no `reservation_requests`, an
/// interpreter number Hadoop does not define, or a recurrence (periodic reservations are not
/// supported).
pub(crate) fn definition_from_proto(
    proto: &pb::ReservationDefinitionProto,
) -> Result<ReservationDefinition, (&'static str, String)> {
    let requests = proto.reservation_requests.as_ref().ok_or((
        "reservation_requests",
        "No resources have been specified to reserve. Please try again by specifying the \
         resources to reserve."
            .to_owned(),
    ))?;
    let interpreter = match requests.interpreter {
        None => RequestInterpreter::All,
        Some(number) => pb::ReservationRequestInterpreterProto::try_from(number)
            .map(interpreter_from_proto)
            .map_err(|_| {
                (
                    "reservation_requests.interpreter",
                    format!("{number} is not one of R_ANY (0), R_ALL (1), R_ORDER (2), R_ORDER_NO_GAP (3)"),
                )
            })?,
    };
    let recurrence = proto.recurrence_expression.as_deref().unwrap_or("0").trim();
    if !recurrence.is_empty() && recurrence != "0" {
        return Err((
            "recurrence_expression",
            format!("{recurrence:?}: periodic reservations are not supported; only \"0\" is"),
        ));
    }
    Ok(ReservationDefinition {
        arrival_ms: proto.arrival,
        deadline_ms: proto.deadline,
        stages: requests
            .reservation_resources
            .iter()
            .map(|request| ReservationStage {
                capability: request
                    .capability
                    .as_ref()
                    .map_or(Resource::ZERO, Resource::from),
                num_containers: request.num_containers.unwrap_or(1),
                concurrency: request.concurrency.unwrap_or(1),
                duration_ms: request.duration.unwrap_or(-1),
            })
            .collect(),
        interpreter,
        name: proto.reservation_name.clone(),
        priority: proto.priority.map_or(0, |priority| priority.priority),
    })
}

fn interpreter_from_proto(proto: pb::ReservationRequestInterpreterProto) -> RequestInterpreter {
    match proto {
        pb::ReservationRequestInterpreterProto::RAny => RequestInterpreter::Any,
        pb::ReservationRequestInterpreterProto::RAll => RequestInterpreter::All,
        pb::ReservationRequestInterpreterProto::ROrder => RequestInterpreter::Order,
        pb::ReservationRequestInterpreterProto::ROrderNoGap => RequestInterpreter::OrderNoGap,
    }
}

fn interpreter_to_proto(interpreter: RequestInterpreter) -> pb::ReservationRequestInterpreterProto {
    match interpreter {
        RequestInterpreter::Any => pb::ReservationRequestInterpreterProto::RAny,
        RequestInterpreter::All => pb::ReservationRequestInterpreterProto::RAll,
        RequestInterpreter::Order => pb::ReservationRequestInterpreterProto::ROrder,
        RequestInterpreter::OrderNoGap => pb::ReservationRequestInterpreterProto::ROrderNoGap,
    }
}

/// The definition as the protocol carries it, every field written out.
pub(crate) fn definition_to_proto(
    definition: &ReservationDefinition,
) -> pb::ReservationDefinitionProto {
    pb::ReservationDefinitionProto {
        reservation_requests: Some(pb::ReservationRequestsProto {
            reservation_resources: definition
                .stages
                .iter()
                .map(|stage| pb::ReservationRequestProto {
                    capability: Some(resource_proto(stage.capability)),
                    num_containers: Some(stage.num_containers),
                    concurrency: Some(stage.concurrency),
                    duration: Some(stage.duration_ms),
                })
                .collect(),
            interpreter: Some(interpreter_to_proto(definition.interpreter).into()),
        }),
        arrival: definition.arrival_ms,
        deadline: definition.deadline_ms,
        reservation_name: definition.name.clone(),
        recurrence_expression: Some("0".to_owned()),
        priority: Some(pb::PriorityProto {
            priority: definition.priority,
        }),
    }
}

/// An accepted reservation as `listReservations` reports it: its contract's arrival and
/// deadline as start and end (as Hadoop's planner keeps them), and, when asked for, what the
/// plan gives it over time.
pub(crate) fn allocation_state_proto(
    id: ReservationId,
    record: &ReservationRecord,
    include_allocations: bool,
) -> pb::ReservationAllocationStateProto {
    let allocation_requests = if include_allocations {
        record
            .allocation
            .pieces()
            .map(
                |(start, end, resource)| pb::ResourceAllocationRequestProto {
                    start_time: start,
                    end_time: end,
                    resource: Some(resource_proto(resource)),
                },
            )
            .collect()
    } else {
        Vec::new()
    };
    pb::ReservationAllocationStateProto {
        reservation_definition: Some(definition_to_proto(&record.definition)),
        allocation_requests,
        start_time: record.definition.arrival_ms,
        end_time: record.definition.deadline_ms,
        user: record.user.clone(),
        contains_gangs: record
            .definition
            .stages
            .iter()
            .any(|stage| stage.concurrency > 1),
        acceptance_time: record.acceptance_ms,
        reservation_id: Some(id.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hadoops_defaults_fill_absent_fields_and_a_definition_round_trips() {
        let sparse = pb::ReservationDefinitionProto {
            reservation_requests: Some(pb::ReservationRequestsProto {
                reservation_resources: vec![pb::ReservationRequestProto {
                    capability: Some(resource_proto(Resource::new(1024, 1))),
                    ..Default::default()
                }],
                interpreter: None,
            }),
            arrival: 1,
            deadline: 2,
            ..Default::default()
        };
        let definition = definition_from_proto(&sparse).unwrap();
        assert_eq!(definition.interpreter, RequestInterpreter::All);
        let stage = definition.stages[0];
        assert_eq!(
            (stage.num_containers, stage.concurrency, stage.duration_ms),
            (1, 1, -1)
        );
        assert_eq!(
            definition_from_proto(&definition_to_proto(&definition)).unwrap(),
            definition
        );
    }

    #[test]
    fn what_cannot_be_read_names_its_field() {
        let mut proto = pb::ReservationDefinitionProto::default();
        assert_eq!(
            definition_from_proto(&proto).unwrap_err().0,
            "reservation_requests"
        );
        proto.reservation_requests = Some(pb::ReservationRequestsProto {
            reservation_resources: vec![],
            interpreter: Some(9),
        });
        assert_eq!(
            definition_from_proto(&proto).unwrap_err().0,
            "reservation_requests.interpreter"
        );
        proto.reservation_requests.as_mut().unwrap().interpreter = None;
        proto.recurrence_expression = Some("86400000".to_owned());
        assert_eq!(
            definition_from_proto(&proto).unwrap_err().0,
            "recurrence_expression"
        );
    }
}
