//! The ReservationSystem's records in the JSON of Hadoop's REST API
//! (`/ws/v1/cluster/reservation/...`), turned into and out of the client protocol's.

use serde::{Deserialize, Serialize};
use yarn_proto::ids::ReservationId;
use yarn_proto::pb;

use super::app_info::ResourceInfo;
use crate::operations::RmError;

/// `reservation-definition`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(super) struct ReservationDefinitionInfo {
    arrival: i64,
    deadline: i64,
    #[serde(default)]
    reservation_name: String,
    reservation_requests: Option<ReservationRequestsInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    priority: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    recurrence_expression: Option<String>,
}

/// `reservation-requests`: the interpreter by Hadoop's ordinal (0 `R_ANY`, 1 `R_ALL`, 2
/// `R_ORDER`, 3 `R_ORDER_NO_GAP`) and the stages, one of which may come unwrapped.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct ReservationRequestsInfo {
    /// Omitted, Hadoop's JSON reader gives 0 (`R_ANY`).
    #[serde(default)]
    reservation_request_interpreter: i32,
    #[serde(default)]
    reservation_request: OneOrMany<ReservationRequestInfo>,
}

/// `reservation-request`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
/// Numbers left out read as 0, as Hadoop's JSON reader gives them, and are then refused naming
/// the field.
struct ReservationRequestInfo {
    capability: ResourceInfo,
    #[serde(default)]
    num_containers: i32,
    #[serde(default)]
    min_concurrency: i32,
    #[serde(default)]
    duration: i64,
}

/// A list that JAXB's JSON writes as a bare value when it has one element.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
enum OneOrMany<T> {
    Many(Vec<T>),
    One(T),
}

/// Read by the JSON's shape, so that an element's own error (a field missing or unknown) is
/// the one reported.
impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::Array(items) => items
                .into_iter()
                .map(serde_json::from_value)
                .collect::<Result<Vec<T>, _>>()
                .map(Self::Many)
                .map_err(D::Error::custom),
            one => serde_json::from_value(one)
                .map(Self::One)
                .map_err(D::Error::custom),
        }
    }
}

impl<T> Default for OneOrMany<T> {
    fn default() -> Self {
        Self::Many(Vec::new())
    }
}

/// The body of `POST .../reservation/submit` (`reservation-submission-context`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(super) struct ReservationSubmissionInfo {
    queue: String,
    reservation_id: String,
    reservation_definition: Option<ReservationDefinitionInfo>,
}

/// The body of `POST .../reservation/update` (`reservation-update-context`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(super) struct ReservationUpdateInfo {
    reservation_id: String,
    reservation_definition: Option<ReservationDefinitionInfo>,
}

/// The body of `POST .../reservation/delete` (`reservation-delete-context`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(super) struct ReservationDeleteInfo {
    reservation_id: String,
}

/// The answer of `POST .../reservation/new-reservation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct NewReservation {
    #[serde(rename = "reservation-id")]
    reservation_id: String,
}

/// The answer of `GET .../reservation/list`.
#[derive(Debug, Clone, Serialize)]
pub(super) struct ReservationListInfo {
    reservations: Vec<ReservationInfo>,
}

/// One reservation of a list.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "kebab-case")]
struct ReservationInfo {
    acceptance_time: i64,
    user: String,
    resource_allocations: Vec<ResourceAllocationInfo>,
    reservation_id: String,
    reservation_definition: ReservationDefinitionInfo,
}

/// What a reservation holds during `[startTime, endTime)` (Hadoop's only camelCase names here).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceAllocationInfo {
    resource: ResourceInfo,
    start_time: i64,
    end_time: i64,
}

/// Parses a request body as `T`.
///
/// # Errors
///
/// [`RmError::InvalidRequest`] about `field`, saying what does not parse.
pub(super) fn parse<T: serde::de::DeserializeOwned>(
    body: &[u8],
    field: &'static str,
) -> Result<T, RmError> {
    serde_json::from_slice(body)
        .map_err(|err| RmError::invalid(field, format!("the body is not a valid {field}: {err}")))
}

/// A reservation id in its string form; one that does not parse is Hadoop's 404 ("The
/// specified reservation id is invalid").
fn reservation_id(text: &str) -> Result<pb::ReservationIdProto, RmError> {
    text.parse::<ReservationId>()
        .map(Into::into)
        .map_err(|err| RmError::NotFound {
            message: format!("The specified reservation id is invalid: {text} ({err})"),
        })
}

impl ReservationDefinitionInfo {
    fn into_proto(self) -> Result<pb::ReservationDefinitionProto, RmError> {
        let requests = self.reservation_requests.ok_or_else(|| {
            RmError::invalid(
                "reservation-requests",
                "The ReservationDefinition should contain at least one ReservationRequest",
            )
        })?;
        let stages = match requests.reservation_request {
            OneOrMany::Many(stages) => stages,
            OneOrMany::One(stage) => vec![stage],
        };
        Ok(pb::ReservationDefinitionProto {
            reservation_requests: Some(pb::ReservationRequestsProto {
                reservation_resources: stages
                    .into_iter()
                    .map(|stage| pb::ReservationRequestProto {
                        capability: Some(stage.capability.into()),
                        num_containers: Some(stage.num_containers),
                        concurrency: Some(stage.min_concurrency),
                        duration: Some(stage.duration),
                    })
                    .collect(),
                interpreter: Some(requests.reservation_request_interpreter),
            }),
            arrival: self.arrival,
            deadline: self.deadline,
            reservation_name: self.reservation_name,
            recurrence_expression: self.recurrence_expression,
            priority: self.priority.map(|priority| pb::PriorityProto { priority }),
        })
    }

    fn of(proto: &pb::ReservationDefinitionProto) -> Self {
        let requests = proto.reservation_requests.clone().unwrap_or_default();
        Self {
            arrival: proto.arrival,
            deadline: proto.deadline,
            reservation_name: proto.reservation_name.clone(),
            reservation_requests: Some(ReservationRequestsInfo {
                reservation_request_interpreter: requests
                    .interpreter
                    .unwrap_or(pb::ReservationRequestInterpreterProto::RAll as i32),
                reservation_request: OneOrMany::Many(
                    requests
                        .reservation_resources
                        .iter()
                        .map(|stage| ReservationRequestInfo {
                            capability: ResourceInfo::from(
                                &stage.capability.clone().unwrap_or_default(),
                            ),
                            num_containers: stage.num_containers.unwrap_or(1),
                            min_concurrency: stage.concurrency.unwrap_or(1),
                            duration: stage.duration.unwrap_or(-1),
                        })
                        .collect(),
                ),
            }),
            priority: proto.priority.map(|priority| priority.priority),
            recurrence_expression: proto.recurrence_expression.clone(),
        }
    }
}

fn definition(
    info: Option<ReservationDefinitionInfo>,
) -> Result<Option<pb::ReservationDefinitionProto>, RmError> {
    let info = info.ok_or_else(|| {
        RmError::invalid(
            "reservation-definition",
            "Input ReservationDefinition should not be null",
        )
    })?;
    info.into_proto().map(Some)
}

impl ReservationSubmissionInfo {
    /// The client protocol's request.
    pub(super) fn into_proto(self) -> Result<pb::ReservationSubmissionRequestProto, RmError> {
        Ok(pb::ReservationSubmissionRequestProto {
            queue: self.queue,
            reservation_id: Some(reservation_id(&self.reservation_id)?),
            reservation_definition: definition(self.reservation_definition)?,
        })
    }
}

impl ReservationUpdateInfo {
    /// The client protocol's request.
    pub(super) fn into_proto(self) -> Result<pb::ReservationUpdateRequestProto, RmError> {
        Ok(pb::ReservationUpdateRequestProto {
            reservation_id: Some(reservation_id(&self.reservation_id)?),
            reservation_definition: definition(self.reservation_definition)?,
        })
    }
}

impl ReservationDeleteInfo {
    /// The client protocol's request.
    pub(super) fn into_proto(self) -> Result<pb::ReservationDeleteRequestProto, RmError> {
        Ok(pb::ReservationDeleteRequestProto {
            reservation_id: Some(reservation_id(&self.reservation_id)?),
        })
    }
}

impl NewReservation {
    /// The answer for the client protocol's `response`.
    pub(super) fn of(response: &pb::GetNewReservationResponseProto) -> Self {
        Self {
            reservation_id: response
                .reservation_id
                .and_then(|id| ReservationId::try_from(id).ok())
                .map(|id| id.to_string())
                .unwrap_or_default(),
        }
    }
}

impl ReservationListInfo {
    /// The answer for the client protocol's `response`.
    pub(super) fn of(response: &pb::ReservationListResponseProto) -> Self {
        let reservations = response
            .reservations
            .iter()
            .map(|state| ReservationInfo {
                acceptance_time: state.acceptance_time,
                user: state.user.clone(),
                resource_allocations: state
                    .allocation_requests
                    .iter()
                    .map(|piece| ResourceAllocationInfo {
                        resource: ResourceInfo::from(&piece.resource.clone().unwrap_or_default()),
                        start_time: piece.start_time,
                        end_time: piece.end_time,
                    })
                    .collect(),
                reservation_id: state
                    .reservation_id
                    .and_then(|id| ReservationId::try_from(id).ok())
                    .map(|id| id.to_string())
                    .unwrap_or_default(),
                reservation_definition: ReservationDefinitionInfo::of(
                    &state.reservation_definition.clone().unwrap_or_default(),
                ),
            })
            .collect();
        Self { reservations }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hadoops_submission_json_reads_with_one_stage_unwrapped() {
        let body = br#"{
            "queue": "dedicated",
            "reservation-id": "reservation_1700000000000_0001",
            "reservation-definition": {
                "arrival": 1765541532000,
                "deadline": 1765542252000,
                "reservation-name": "res_1",
                "reservation-requests": {
                    "reservation-request-interpreter": 0,
                    "reservation-request": {
                        "duration": 60000,
                        "num-containers": 220,
                        "min-concurrency": 220,
                        "capability": {"memory": 1024, "vCores": 1}
                    }
                }
            }
        }"#;
        let request = parse::<ReservationSubmissionInfo>(body, "reservation-submission-context")
            .unwrap()
            .into_proto()
            .unwrap();
        assert_eq!(request.queue, "dedicated");
        assert_eq!(request.reservation_id.unwrap().id, 1);
        let definition = request.reservation_definition.unwrap();
        let requests = definition.reservation_requests.unwrap();
        assert_eq!(requests.interpreter, Some(0), "R_ANY by its ordinal");
        assert_eq!(requests.reservation_resources[0].num_containers, Some(220));
        assert_eq!(requests.reservation_resources[0].concurrency, Some(220));
    }

    #[test]
    fn bad_bodies_are_refused_naming_what_is_wrong() {
        let unknown = br#"{"reservation-id": "reservation_1_0001", "surprise": 1}"#;
        let err =
            parse::<ReservationDeleteInfo>(unknown, "reservation-delete-context").unwrap_err();
        assert!(err.to_string().contains("surprise"), "{err}");
        let bad_id = br#"{"reservation-id": "application_1_0001"}"#;
        let err = parse::<ReservationDeleteInfo>(bad_id, "reservation-delete-context")
            .unwrap()
            .into_proto()
            .unwrap_err();
        assert!(err.to_string().contains("reservation_"), "{err}");
        let no_definition = br#"{"queue": "a", "reservation-id": "reservation_1_0001"}"#;
        let err =
            parse::<ReservationSubmissionInfo>(no_definition, "reservation-submission-context")
                .unwrap()
                .into_proto()
                .unwrap_err();
        assert!(err.to_string().contains("ReservationDefinition"), "{err}");
        let stage_without_capability = br#"{"queue": "a", "reservation-id": "reservation_1_0001",
            "reservation-definition": {"arrival": 1, "deadline": 2, "reservation-requests": {
                "reservation-request": {"num-containers": 1}}}}"#;
        let err = parse::<ReservationSubmissionInfo>(
            stage_without_capability,
            "reservation-submission-context",
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("capability"),
            "the stage's own error: {err}"
        );
    }
}
