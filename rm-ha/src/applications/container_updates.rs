//! [`decide_updates`]: an allocate's container update requests (promotion and demotion of the
//! execution type, increase and decrease of the size) checked against the replicated state,
//! refused with YARN's reasons.

use std::collections::BTreeSet;

use yarn_proto::Resource;
use yarn_proto::ids::{ApplicationAttemptId, ContainerId};
use yarn_proto::pb;

use crate::state_machine::{
    ContainerKey, ContainerRecord, ContainerResize, ContainerUpdate, ContainerUpdateRejection,
    ExecutionType, RmState,
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
/// YARN's reason for a resize without a capability, with a negative figure, or beyond the
/// queue's maximum allocation.
pub const RESOURCE_OUTSIDE_ALLOWED_RANGE: &str = "RESOURCE_OUTSIDE_ALLOWED_RANGE";
/// yarn-ha's reason for an increase whose target, normalized, is not at least the container's
/// size in every resource and larger in one, or a decrease whose target is not at most it in
/// every resource and smaller in one. (Hadoop's client library refuses these before sending;
/// Hadoop's RM leaves such an increase waiting forever.)
pub const INVALID_RESIZE_TARGET: &str = "INVALID_RESIZE_TARGET";
/// yarn-ha's reason for resizing an OPPORTUNISTIC container: it holds nothing of its queue to
/// resize; promote it first.
pub const CONTAINER_NOT_GUARANTEED: &str = "CONTAINER_NOT_GUARANTEED";
/// yarn-ha's reason for promoting a container that is GUARANTEED already.
pub const CONTAINER_ALREADY_GUARANTEED: &str = "CONTAINER_ALREADY_GUARANTEED";
/// yarn-ha's reason for demoting a container that is OPPORTUNISTIC already.
pub const CONTAINER_ALREADY_OPPORTUNISTIC: &str = "CONTAINER_ALREADY_OPPORTUNISTIC";
/// yarn-ha's reason for updating an ApplicationMaster container, which keeps its execution
/// type and size.
pub const AM_CONTAINER_UPDATE_ERROR: &str = "AM_CONTAINER_UPDATE_ERROR";
/// yarn-ha's reason for a request without an update type, or with one it does not know.
pub const UNSUPPORTED_UPDATE_TYPE: &str = "UNSUPPORTED_UPDATE_TYPE";

/// The update types, as the AM names them.
pub type UpdateType = pb::ContainerUpdateTypeProto;

/// What to do with an allocate's update requests.
#[derive(Debug, Default)]
pub struct UpdateDecisions {
    /// Promotions for the scheduler to grant, each with the container as the state holds it.
    pub promotions: Vec<(ContainerUpdate, ContainerRecord)>,
    /// Demotions to commit at once: they need no room.
    pub demotions: Vec<ContainerUpdate>,
    /// Increases for the scheduler to grant on the containers' nodes.
    pub increases: Vec<ContainerResize>,
    /// Decreases to commit at once: they need no room.
    pub decreases: Vec<ContainerResize>,
    /// Containers whose update the request asked for again although it already applied (an AM
    /// re-sending across a failover): the response reports the update again.
    pub resent: Vec<(ContainerKey, UpdateType)>,
    /// The refused requests, for the response's `update_errors`.
    pub errors: Vec<pb::UpdateContainerErrorProto>,
}

impl UpdateDecisions {
    /// Every accepted update, as the container it changes, the version it changes it from and
    /// its type.
    pub fn accepted(&self) -> impl Iterator<Item = (ContainerKey, i32, UpdateType)> + '_ {
        let promotions = self
            .promotions
            .iter()
            .map(|(update, _)| (update.key, update.version, UpdateType::PromoteExecutionType));
        let demotions = self
            .demotions
            .iter()
            .map(|update| (update.key, update.version, UpdateType::DemoteExecutionType));
        let increases = self
            .increases
            .iter()
            .map(|resize| (resize.key, resize.version, UpdateType::IncreaseResource));
        let decreases = self
            .decreases
            .iter()
            .map(|resize| (resize.key, resize.version, UpdateType::DecreaseResource));
        promotions
            .chain(demotions)
            .chain(increases)
            .chain(decreases)
    }
}

/// Checks `requests` of `attempt` against `state`; `normalize` sizes a resize's target as the
/// attempt's queue sizes asks of the container's priority (rounded up to the minimum
/// allocation's steps), refusing one beyond the maximum allocation. A request is refused when
/// it names no live task container of `attempt` ([`INVALID_CONTAINER_ID`]), repeats a
/// container of the same request or one `outstanding` says has an update pending
/// ([`UPDATE_OUTSTANDING_ERROR`]), names another version than the container's
/// ([`INCORRECT_CONTAINER_VERSION_ERROR`], with the current version), asks for the type the
/// container has, resizes an OPPORTUNISTIC container ([`CONTAINER_NOT_GUARANTEED`]) or to a
/// size out of range ([`RESOURCE_OUTSIDE_ALLOWED_RANGE`]) or not in the update's direction
/// ([`INVALID_RESIZE_TARGET`]). A request naming the version just before the container's,
/// whose change the container already shows, is a resend of an applied update and is answered
/// with the update again.
pub fn decide_updates(
    state: &RmState,
    attempt: ApplicationAttemptId,
    requests: &[pb::UpdateContainerRequestProto],
    outstanding: impl Fn(&ContainerKey) -> bool,
    normalize: impl Fn(Resource, i32) -> Option<Resource>,
) -> UpdateDecisions {
    let mut decisions = UpdateDecisions::default();
    let mut seen = BTreeSet::new();
    let checks = Checks {
        state,
        attempt,
        outstanding,
        normalize,
    };
    for request in requests {
        match checks.decide(request, &mut seen) {
            Ok(Decision::Promote(update, record)) => {
                decisions.promotions.push((update, record.clone()));
            }
            Ok(Decision::Demote(update)) => decisions.demotions.push(update),
            Ok(Decision::Increase(resize)) => decisions.increases.push(resize),
            Ok(Decision::Decrease(resize)) => decisions.decreases.push(resize),
            Ok(Decision::Resent(key, update_type)) => decisions.resent.push((key, update_type)),
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
    let key = match rejection {
        ContainerUpdateRejection::UnknownContainer { key }
        | ContainerUpdateRejection::ContainerCompleted { key }
        | ContainerUpdateRejection::OtherAttempt { key, .. }
        | ContainerUpdateRejection::ApplicationMasterContainer { key }
        | ContainerUpdateRejection::VersionMismatch { key, .. }
        | ContainerUpdateRejection::AlreadyOfType { key, .. } => key,
    };
    let request = requests.iter().find(|request| {
        request
            .container_id
            .is_some_and(|id| id.id == key.container_id)
    })?;
    let (reason, current) = match rejection {
        ContainerUpdateRejection::UnknownContainer { .. }
        | ContainerUpdateRejection::ContainerCompleted { .. }
        | ContainerUpdateRejection::OtherAttempt { .. } => (INVALID_CONTAINER_ID, None),
        ContainerUpdateRejection::ApplicationMasterContainer { .. } => {
            (AM_CONTAINER_UPDATE_ERROR, None)
        }
        ContainerUpdateRejection::VersionMismatch { current, .. } => {
            (INCORRECT_CONTAINER_VERSION_ERROR, Some(*current))
        }
        // A resize of a container that is not (or no longer) GUARANTEED.
        ContainerUpdateRejection::AlreadyOfType { .. } if is_resize(request) => {
            (CONTAINER_NOT_GUARANTEED, None)
        }
        ContainerUpdateRejection::AlreadyOfType { execution_type, .. } => {
            (already_of_type(*execution_type), None)
        }
    };
    Some(update_error(request, reason, current))
}

enum Decision<'a> {
    Promote(ContainerUpdate, &'a ContainerRecord),
    Demote(ContainerUpdate),
    Increase(ContainerResize),
    Decrease(ContainerResize),
    Resent(ContainerKey, UpdateType),
}

/// A refusal: the reason and, for a version mismatch, the container's version.
type Refusal = (&'static str, Option<i32>);

/// What the requests of one allocate are checked against.
struct Checks<'a, O, N> {
    state: &'a RmState,
    attempt: ApplicationAttemptId,
    outstanding: O,
    normalize: N,
}

impl<'a, O, N> Checks<'a, O, N>
where
    O: Fn(&ContainerKey) -> bool,
    N: Fn(Resource, i32) -> Option<Resource>,
{
    /// One request's decision, or its refusal.
    fn decide(
        &self,
        request: &pb::UpdateContainerRequestProto,
        seen: &mut BTreeSet<ContainerKey>,
    ) -> Result<Decision<'a>, Refusal> {
        let invalid = (INVALID_CONTAINER_ID, None);
        let attempt = self.attempt;
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
        let record = self
            .state
            .containers
            .get(&key)
            .filter(|record| record.is_live() && record.attempt_id == attempt.attempt_id)
            .ok_or(invalid)?;
        let update_type = request
            .update_type
            .and_then(|raw| UpdateType::try_from(raw).ok())
            .ok_or((UNSUPPORTED_UPDATE_TYPE, None))?;
        if record.is_am {
            return Err((AM_CONTAINER_UPDATE_ERROR, None));
        }
        let change = self.change(update_type, request, record)?;
        let current = self.state.containers.version(&key);
        let requested = request.container_version;
        if current > 0 && requested == Some(current - 1) && change.is_shown_by(record) {
            return Ok(Decision::Resent(key, update_type));
        }
        if requested != Some(current) {
            return Err((INCORRECT_CONTAINER_VERSION_ERROR, Some(current)));
        }
        if (self.outstanding)(&key) {
            return Err((UPDATE_OUTSTANDING_ERROR, None));
        }
        if change.is_shown_by(record) {
            return Err((change.refusal_when_shown(), None));
        }
        let attempt_id = attempt.attempt_id;
        let resize = |size: Resource| ContainerResize {
            key,
            attempt_id,
            version: current,
            memory_mb: size.memory_mb,
            vcores: size.vcores,
        };
        Ok(match change {
            Change::ExecutionType(execution_type) => {
                let update = ContainerUpdate {
                    key,
                    attempt_id,
                    version: current,
                    execution_type,
                };
                match execution_type {
                    ExecutionType::Guaranteed => Decision::Promote(update, record),
                    ExecutionType::Opportunistic => Decision::Demote(update),
                }
            }
            Change::Increase(size) => Decision::Increase(resize(size)),
            Change::Decrease(size) => Decision::Decrease(resize(size)),
        })
    }

    /// What `request`, of `update_type`, asks to change in `record`.
    fn change(
        &self,
        update_type: UpdateType,
        request: &pb::UpdateContainerRequestProto,
        record: &ContainerRecord,
    ) -> Result<Change, Refusal> {
        let resize = match update_type {
            UpdateType::PromoteExecutionType => {
                return Ok(Change::ExecutionType(ExecutionType::Guaranteed));
            }
            UpdateType::DemoteExecutionType => {
                return Ok(Change::ExecutionType(ExecutionType::Opportunistic));
            }
            UpdateType::IncreaseResource => Change::Increase,
            UpdateType::DecreaseResource => Change::Decrease,
        };
        if record.execution_type != ExecutionType::Guaranteed {
            return Err((CONTAINER_NOT_GUARANTEED, None));
        }
        let out_of_range = (RESOURCE_OUTSIDE_ALLOWED_RANGE, None);
        let capability = request.capability.as_ref().ok_or(out_of_range)?;
        let target = Resource::new(
            u64::try_from(capability.memory).map_err(|_| out_of_range)?,
            u32::try_from(capability.virtual_cores).map_err(|_| out_of_range)?,
        );
        let target = (self.normalize)(target, record.priority).ok_or(out_of_range)?;
        let size = Resource::new(record.memory_mb, record.vcores);
        let (low, high) = match update_type {
            UpdateType::IncreaseResource => (size, target),
            _ => (target, size),
        };
        // The same size is checked by the caller: a resend of an applied resize names it.
        if low.memory_mb > high.memory_mb || low.vcores > high.vcores {
            return Err((INVALID_RESIZE_TARGET, None));
        }
        Ok(resize(target))
    }
}

/// What one request changes.
#[derive(Debug, Clone, Copy)]
enum Change {
    ExecutionType(ExecutionType),
    Increase(Resource),
    Decrease(Resource),
}

impl Change {
    /// Whether `record` already shows the change.
    fn is_shown_by(self, record: &ContainerRecord) -> bool {
        match self {
            Self::ExecutionType(execution_type) => record.execution_type == execution_type,
            Self::Increase(size) | Self::Decrease(size) => {
                Resource::new(record.memory_mb, record.vcores) == size
            }
        }
    }

    /// The reason a change the container already shows is refused.
    fn refusal_when_shown(self) -> &'static str {
        match self {
            Self::ExecutionType(execution_type) => already_of_type(execution_type),
            Self::Increase(_) | Self::Decrease(_) => INVALID_RESIZE_TARGET,
        }
    }
}

fn already_of_type(execution_type: ExecutionType) -> &'static str {
    match execution_type {
        ExecutionType::Guaranteed => CONTAINER_ALREADY_GUARANTEED,
        ExecutionType::Opportunistic => CONTAINER_ALREADY_OPPORTUNISTIC,
    }
}

fn is_resize(request: &pb::UpdateContainerRequestProto) -> bool {
    matches!(
        request
            .update_type
            .and_then(|raw| UpdateType::try_from(raw).ok()),
        Some(UpdateType::IncreaseResource | UpdateType::DecreaseResource)
    )
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

    /// As the leader decides, with a minimum allocation of 512 MB and 1 vcore and a maximum
    /// of 4096 MB and 4 vcores.
    fn decide(
        state: &RmState,
        requests: &[pb::UpdateContainerRequestProto],
        outstanding: impl Fn(&ContainerKey) -> bool,
    ) -> UpdateDecisions {
        decide_updates(state, attempt(), requests, outstanding, |size, _| {
            let memory_mb = size.memory_mb.max(1).div_ceil(512) * 512;
            let normalized = Resource::new(memory_mb, size.vcores.max(1));
            (normalized.memory_mb <= 4096 && normalized.vcores <= 4).then_some(normalized)
        })
    }

    fn resize(
        sequence: i64,
        version: i32,
        update_type: UpdateType,
        memory: i64,
        vcores: i32,
    ) -> pb::UpdateContainerRequestProto {
        pb::UpdateContainerRequestProto {
            capability: Some(pb::ResourceProto {
                memory,
                virtual_cores: vcores,
                ..Default::default()
            }),
            ..request(Some(container(sequence)), version, update_type)
        }
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
        let decisions = decide(&state, &requests, |_| false);
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
        let wrong = decide(&state, &[promote(2, 3)], |_| false);
        assert_eq!(
            reasons(&wrong),
            vec![(INCORRECT_CONTAINER_VERSION_ERROR, Some(0))]
        );
        let pending = decide(&state, &[promote(2, 0)], |k| *k == key(2));
        assert_eq!(reasons(&pending), vec![(UPDATE_OUTSTANDING_ERROR, None)]);
        let already = decide(&state, &[promote(3, 0)], |_| false);
        assert_eq!(
            reasons(&already),
            vec![(CONTAINER_ALREADY_GUARANTEED, None)]
        );
        let unknown_type = pb::UpdateContainerRequestProto {
            update_type: Some(9),
            ..promote(3, 0)
        };
        let unknown_type = decide(&state, &[unknown_type], |_| false);
        assert_eq!(
            reasons(&unknown_type),
            vec![(UNSUPPORTED_UPDATE_TYPE, None)]
        );

        state.apply(&RmCommand::V1(CommandV1::UpdateContainers {
            updates: vec![ContainerUpdate {
                key: key(2),
                attempt_id: 1,
                version: 0,
                execution_type: ExecutionType::Guaranteed,
            }],
        }));
        let resent = decide(&state, &[promote(2, 0)], |_| false);
        assert!(resent.errors.is_empty() && resent.promotions.is_empty());
        assert_eq!(
            resent.resent,
            vec![(key(2), UpdateType::PromoteExecutionType)]
        );
        let stale = request(
            Some(container(2)),
            0,
            pb::ContainerUpdateTypeProto::DemoteExecutionType,
        );
        let stale = decide(&state, &[stale], |_| false);
        assert_eq!(
            reasons(&stale),
            vec![(INCORRECT_CONTAINER_VERSION_ERROR, Some(1))]
        );
    }

    #[test]
    fn resizes_are_normalized_checked_for_direction_and_range_and_split_by_need_for_room() {
        let mut state = state();
        let requests = [
            resize(3, 0, UpdateType::IncreaseResource, 1500, 2),
            resize(2, 0, UpdateType::IncreaseResource, 2048, 1),
        ];
        let decisions = decide(&state, &requests, |_| false);
        assert_eq!(
            decisions.increases,
            vec![ContainerResize {
                key: key(3),
                attempt_id: 1,
                version: 0,
                memory_mb: 1536,
                vcores: 2,
            }],
            "the target is normalized like an ask"
        );
        assert_eq!(reasons(&decisions), vec![(CONTAINER_NOT_GUARANTEED, None)]);

        // The fixture's containers hold 1024 MB and 1 vcore.
        let refused = [
            resize(3, 0, UpdateType::IncreaseResource, 512, 2),
            resize(3, 0, UpdateType::DecreaseResource, 512, 2),
            resize(3, 0, UpdateType::IncreaseResource, 1024, 1),
            resize(3, 0, UpdateType::IncreaseResource, 8192, 1),
            resize(3, 0, UpdateType::DecreaseResource, -1, 1),
            pb::UpdateContainerRequestProto {
                capability: None,
                ..resize(3, 0, UpdateType::DecreaseResource, 0, 0)
            },
        ];
        for (request, reason) in refused.iter().zip([
            INVALID_RESIZE_TARGET,
            INVALID_RESIZE_TARGET,
            INVALID_RESIZE_TARGET,
            RESOURCE_OUTSIDE_ALLOWED_RANGE,
            RESOURCE_OUTSIDE_ALLOWED_RANGE,
            RESOURCE_OUTSIDE_ALLOWED_RANGE,
        ]) {
            let decisions = decide(&state, std::slice::from_ref(request), |_| false);
            assert_eq!(reasons(&decisions), vec![(reason, None)], "{request:?}");
        }

        let shrink = resize(3, 0, UpdateType::DecreaseResource, 100, 1);
        let decisions = decide(&state, std::slice::from_ref(&shrink), |_| false);
        assert_eq!(
            (
                decisions.decreases[0].memory_mb,
                decisions.decreases[0].vcores
            ),
            (512, 1),
            "a decrease is raised to the minimum allocation"
        );
        assert_eq!(
            decisions.accepted().collect::<Vec<_>>(),
            vec![(key(3), 0, UpdateType::DecreaseResource)]
        );
        state.apply(&RmCommand::V1(CommandV1::ResizeContainers {
            resizes: decisions.decreases,
        }));
        let resent = decide(&state, &[shrink], |_| false);
        assert!(resent.errors.is_empty() && resent.decreases.is_empty());
        assert_eq!(resent.resent, vec![(key(3), UpdateType::DecreaseResource)]);
        let again = resize(3, 1, UpdateType::DecreaseResource, 512, 1);
        assert_eq!(
            reasons(&decide(&state, &[again], |_| false)),
            vec![(INVALID_RESIZE_TARGET, None)],
            "a resize to the size the container has"
        );
    }
}
