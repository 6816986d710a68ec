//! [`decide_updates`]: an allocate's container update requests (promotion and demotion of the
//! execution type) checked against the replicated state, refused with YARN's reasons.

use std::collections::BTreeSet;

use yarn_proto::ids::{ApplicationAttemptId, ContainerId};
use yarn_proto::pb;

use crate::state_machine::{
    ContainerKey, ContainerRecord, ContainerUpdate, ContainerUpdateRejection, ExecutionType,
    RmState,
};

/// YARN's reason for an update of a container that is not a live container of the attempt (or
/// names no container at all).
pub const INVALID_CONTAINER_ID: &str = "INVALID_CONTAINER_ID";
/// YARN's reason for an update naming another version than the container's; the error carries
/// the current version.
pub const INCORRECT_CONTAINER_VERSION_ERROR: &str = "INCORRECT_CONTAINER_VERSION_ERROR";
/// YARN's reason for a second update of one container in one request, or one while an earlier
/// update of it is still pending.
pub const UPDATE_OUTSTANDING_ERROR: &str = "UPDATE_OUTSTANDING_ERROR";
/// yarn-ha's reason for promoting a container that is GUARANTEED already.
pub const CONTAINER_ALREADY_GUARANTEED: &str = "CONTAINER_ALREADY_GUARANTEED";
/// yarn-ha's reason for demoting a container that is OPPORTUNISTIC already.
pub const CONTAINER_ALREADY_OPPORTUNISTIC: &str = "CONTAINER_ALREADY_OPPORTUNISTIC";
/// yarn-ha's reason for updating an ApplicationMaster container, which stays GUARANTEED.
pub const AM_CONTAINER_UPDATE_ERROR: &str = "AM_CONTAINER_UPDATE_ERROR";
/// yarn-ha's reason for an update type it does not serve (resizing: INCREASE_RESOURCE,
/// DECREASE_RESOURCE) or a request without one.
pub const UNSUPPORTED_UPDATE_TYPE: &str = "UNSUPPORTED_UPDATE_TYPE";

/// What to do with an allocate's update requests.
#[derive(Debug, Default)]
pub struct UpdateDecisions {
    /// Promotions for the scheduler to grant, each with the container as the state holds it.
    pub promotions: Vec<(ContainerUpdate, ContainerRecord)>,
    /// Demotions to commit at once: they need no room.
    pub demotions: Vec<ContainerUpdate>,
    /// Containers whose update the request asked for again although it already applied (an AM
    /// re-sending across a failover): the response reports the update again.
    pub resent: Vec<ContainerKey>,
    /// The refused requests, for the response's `update_errors`.
    pub errors: Vec<pb::UpdateContainerErrorProto>,
}

/// Checks `requests` of `attempt` against `state`. Only PROMOTE_EXECUTION_TYPE and
/// DEMOTE_EXECUTION_TYPE are served; the target type follows from the update type. A request
/// is refused when it names no live task container of `attempt` ([`INVALID_CONTAINER_ID`]),
/// repeats a container of the same request or one `outstanding` says has an update pending
/// ([`UPDATE_OUTSTANDING_ERROR`]), names another version than the container's
/// ([`INCORRECT_CONTAINER_VERSION_ERROR`], with the current version), or asks for the type the
/// container has. A request naming the version just before the container's, whose type it
/// already has, is a resend of an applied update and is answered with the update again.
pub fn decide_updates(
    state: &RmState,
    attempt: ApplicationAttemptId,
    requests: &[pb::UpdateContainerRequestProto],
    outstanding: impl Fn(&ContainerKey) -> bool,
) -> UpdateDecisions {
    let mut decisions = UpdateDecisions::default();
    let mut seen = BTreeSet::new();
    for request in requests {
        match decide(state, attempt, request, &mut seen, &outstanding) {
            Ok(Decision::Promote(update, record)) => {
                decisions.promotions.push((update, record.clone()));
            }
            Ok(Decision::Demote(update)) => decisions.demotions.push(update),
            Ok(Decision::Resent(key)) => decisions.resent.push(key),
            Err((reason, current_container_version)) => {
                decisions
                    .errors
                    .push(update_error(request, reason, current_container_version));
            }
        }
    }
    decisions
}

/// The error of `request` refused for `reason`.
pub fn update_error(
    request: &pb::UpdateContainerRequestProto,
    reason: &str,
    current_container_version: Option<i32>,
) -> pb::UpdateContainerErrorProto {
    pb::UpdateContainerErrorProto {
        reason: reason.to_owned(),
        update_request: Some(request.clone()),
        current_container_version,
    }
}

/// The error answering the request among `requests` whose update the state refused with
/// `rejection` (a race with a completion or another update since the request was checked);
/// `None` when no request names the container.
pub fn rejection_error(
    rejection: &ContainerUpdateRejection,
    requests: &[pb::UpdateContainerRequestProto],
) -> Option<pb::UpdateContainerErrorProto> {
    let (key, reason, current) = match rejection {
        ContainerUpdateRejection::UnknownContainer { key }
        | ContainerUpdateRejection::ContainerCompleted { key }
        | ContainerUpdateRejection::OtherAttempt { key, .. } => (key, INVALID_CONTAINER_ID, None),
        ContainerUpdateRejection::ApplicationMasterContainer { key } => {
            (key, AM_CONTAINER_UPDATE_ERROR, None)
        }
        ContainerUpdateRejection::VersionMismatch { key, current, .. } => {
            (key, INCORRECT_CONTAINER_VERSION_ERROR, Some(*current))
        }
        ContainerUpdateRejection::AlreadyOfType {
            key,
            execution_type,
        } => {
            let reason = match execution_type {
                ExecutionType::Guaranteed => CONTAINER_ALREADY_GUARANTEED,
                ExecutionType::Opportunistic => CONTAINER_ALREADY_OPPORTUNISTIC,
            };
            (key, reason, None)
        }
    };
    let request = requests.iter().find(|request| {
        request
            .container_id
            .is_some_and(|id| id.id == key.container_id)
    })?;
    Some(update_error(request, reason, current))
}

enum Decision<'a> {
    Promote(ContainerUpdate, &'a ContainerRecord),
    Demote(ContainerUpdate),
    Resent(ContainerKey),
}

/// One request's decision, or its refusal: the reason and, for a version mismatch, the
/// container's version.
fn decide<'a>(
    state: &'a RmState,
    attempt: ApplicationAttemptId,
    request: &pb::UpdateContainerRequestProto,
    seen: &mut BTreeSet<ContainerKey>,
    outstanding: &impl Fn(&ContainerKey) -> bool,
) -> Result<Decision<'a>, (&'static str, Option<i32>)> {
    let invalid = (INVALID_CONTAINER_ID, None);
    let id = request
        .container_id
        .and_then(|proto| ContainerId::try_from(proto).ok())
        .filter(|id| id.application_attempt_id() == attempt)
        .ok_or(invalid)?;
    let key = ContainerKey {
        application_seq: attempt.application_id.id,
        container_id: id.container_id(),
    };
    if !seen.insert(key) {
        return Err((UPDATE_OUTSTANDING_ERROR, None));
    }
    let record = state
        .containers
        .get(&key)
        .filter(|record| record.is_live() && record.attempt_id == attempt.attempt_id)
        .ok_or(invalid)?;
    let target = match request
        .update_type
        .map(pb::ContainerUpdateTypeProto::try_from)
    {
        Some(Ok(pb::ContainerUpdateTypeProto::PromoteExecutionType)) => ExecutionType::Guaranteed,
        Some(Ok(pb::ContainerUpdateTypeProto::DemoteExecutionType)) => ExecutionType::Opportunistic,
        _ => return Err((UNSUPPORTED_UPDATE_TYPE, None)),
    };
    if record.is_am {
        return Err((AM_CONTAINER_UPDATE_ERROR, None));
    }
    let current = state.containers.version(&key);
    let requested = request.container_version;
    if current > 0 && requested == Some(current - 1) && record.execution_type == target {
        return Ok(Decision::Resent(key));
    }
    if requested != Some(current) {
        return Err((INCORRECT_CONTAINER_VERSION_ERROR, Some(current)));
    }
    if outstanding(&key) {
        return Err((UPDATE_OUTSTANDING_ERROR, None));
    }
    if record.execution_type == target {
        let reason = match target {
            ExecutionType::Guaranteed => CONTAINER_ALREADY_GUARANTEED,
            ExecutionType::Opportunistic => CONTAINER_ALREADY_OPPORTUNISTIC,
        };
        return Err((reason, None));
    }
    let update = ContainerUpdate {
        key,
        attempt_id: attempt.attempt_id,
        version: current,
        execution_type: target,
    };
    Ok(match target {
        ExecutionType::Guaranteed => Decision::Promote(update, record),
        ExecutionType::Opportunistic => Decision::Demote(update),
    })
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;

    use super::*;
    use crate::state_machine::test_fixtures::{TIMESTAMP, am_container, container, key};
    use crate::state_machine::{CommandV1, ContainerState, RmCommand};

    fn attempt() -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, 1), 1)
    }

    /// The fixtures' application with AM container 1, OPPORTUNISTIC task 2, GUARANTEED task 3
    /// and completed OPPORTUNISTIC task 4.
    fn state() -> RmState {
        let mut state = crate::state_machine::test_fixtures::running_application(&[], &[]);
        let task = |sequence, execution_type| ContainerRecord {
            is_am: false,
            priority: 1,
            execution_type,
            ..am_container(sequence, "n1:8041")
        };
        state.apply(&RmCommand::V1(CommandV1::AllocateContainers {
            allocations: vec![
                am_container(1, "n1:8041"),
                task(2, ExecutionType::Opportunistic),
                task(3, ExecutionType::Guaranteed),
                task(4, ExecutionType::Opportunistic),
            ],
        }));
        state.apply(&RmCommand::V1(CommandV1::CompleteContainers {
            completions: vec![crate::state_machine::ContainerCompletion {
                key: key(4),
                exit_status: 0,
                diagnostics: String::new(),
            }],
            now_ms: TIMESTAMP,
        }));
        state
    }

    fn request(
        id: Option<ContainerId>,
        version: i32,
        update_type: pb::ContainerUpdateTypeProto,
    ) -> pb::UpdateContainerRequestProto {
        pb::UpdateContainerRequestProto {
            container_version: Some(version),
            container_id: id.map(Into::into),
            update_type: Some(update_type.into()),
            ..Default::default()
        }
    }

    fn promote(sequence: i64, version: i32) -> pb::UpdateContainerRequestProto {
        request(
            Some(container(sequence)),
            version,
            pb::ContainerUpdateTypeProto::PromoteExecutionType,
        )
    }

    fn reasons(decisions: &UpdateDecisions) -> Vec<(&str, Option<i32>)> {
        decisions
            .errors
            .iter()
            .map(|e| (e.reason.as_str(), e.current_container_version))
            .collect()
    }

    #[test]
    fn a_valid_promotion_and_demotion_are_taken_and_bad_requests_get_yarns_reasons() {
        let state = state();
        let other_attempt =
            ContainerId::new(ApplicationAttemptId::new(attempt().application_id, 2), 1, 2).unwrap();
        let requests = [
            promote(2, 0),
            promote(2, 0),
            request(
                Some(container(3)),
                0,
                pb::ContainerUpdateTypeProto::DemoteExecutionType,
            ),
            promote(3, 0),
            promote(1, 0),
            promote(4, 0),
            promote(9, 0),
            request(None, 0, pb::ContainerUpdateTypeProto::PromoteExecutionType),
            request(
                Some(other_attempt),
                0,
                pb::ContainerUpdateTypeProto::PromoteExecutionType,
            ),
        ];
        let decisions = decide_updates(&state, attempt(), &requests, |_| false);
        assert_eq!(decisions.promotions.len(), 1);
        let (update, record) = &decisions.promotions[0];
        assert_eq!(
            (update.key, update.version, update.execution_type),
            (key(2), 0, ExecutionType::Guaranteed)
        );
        assert_eq!(record.state, ContainerState::Allocated);
        assert_eq!(
            decisions.demotions,
            vec![ContainerUpdate {
                key: key(3),
                attempt_id: 1,
                version: 0,
                execution_type: ExecutionType::Opportunistic,
            }]
        );
        assert_eq!(
            reasons(&decisions),
            vec![
                (UPDATE_OUTSTANDING_ERROR, None),
                (UPDATE_OUTSTANDING_ERROR, None),
                (AM_CONTAINER_UPDATE_ERROR, None),
                (INVALID_CONTAINER_ID, None),
                (INVALID_CONTAINER_ID, None),
                (INVALID_CONTAINER_ID, None),
                (INVALID_CONTAINER_ID, None),
            ]
        );
        assert_eq!(
            decisions.errors[0].update_request.as_ref(),
            Some(&requests[1]),
            "each error carries its request"
        );
    }

    #[test]
    fn versions_are_checked_and_a_resent_applied_update_is_reported_again() {
        let mut state = state();
        let wrong = decide_updates(&state, attempt(), &[promote(2, 3)], |_| false);
        assert_eq!(
            reasons(&wrong),
            vec![(INCORRECT_CONTAINER_VERSION_ERROR, Some(0))]
        );
        let pending = decide_updates(&state, attempt(), &[promote(2, 0)], |k| *k == key(2));
        assert_eq!(reasons(&pending), vec![(UPDATE_OUTSTANDING_ERROR, None)]);
        let already = decide_updates(&state, attempt(), &[promote(3, 0)], |_| false);
        assert_eq!(
            reasons(&already),
            vec![(CONTAINER_ALREADY_GUARANTEED, None)]
        );
        let resize = request(
            Some(container(3)),
            0,
            pb::ContainerUpdateTypeProto::IncreaseResource,
        );
        let resize = decide_updates(&state, attempt(), &[resize], |_| false);
        assert_eq!(reasons(&resize), vec![(UNSUPPORTED_UPDATE_TYPE, None)]);

        state.apply(&RmCommand::V1(CommandV1::UpdateContainers {
            updates: vec![ContainerUpdate {
                key: key(2),
                attempt_id: 1,
                version: 0,
                execution_type: ExecutionType::Guaranteed,
            }],
        }));
        let resent = decide_updates(&state, attempt(), &[promote(2, 0)], |_| false);
        assert!(resent.errors.is_empty() && resent.promotions.is_empty());
        assert_eq!(resent.resent, vec![key(2)]);
        let stale = request(
            Some(container(2)),
            0,
            pb::ContainerUpdateTypeProto::DemoteExecutionType,
        );
        let stale = decide_updates(&state, attempt(), &[stale], |_| false);
        assert_eq!(
            reasons(&stale),
            vec![(INCORRECT_CONTAINER_VERSION_ERROR, Some(1))]
        );
    }
}
