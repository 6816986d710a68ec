//! The pure parts of an allocate call: reading the AM's asks and releases, and building the
//! response from the replicated state and the attempt's session.

use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_scheduler::{Resource, ResourceRequest};

use super::token_issuer::{execution_type, resource};
use super::{AmSession, TokenIssuer};
use crate::state_machine::{ContainerRecord, ContainerState, RmState};

/// What an allocate response is built for.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    /// The calling attempt.
    pub attempt: ApplicationAttemptId,
    /// The AMRM key id of the caller's token; another id than the current one earns a new
    /// token.
    pub token_key_id: i32,
    /// The response's id: the request's plus one.
    pub response_id: i32,
    /// What the attempt may still get.
    pub headroom: Resource,
    /// How many nodes are registered.
    pub num_cluster_nodes: usize,
    /// The leader's clock.
    pub now_ms: i64,
    /// Until when new container tokens are valid.
    pub expiry_ms: i64,
    /// Whether leaders commit preemption rounds: without, no waits recorded earlier are
    /// announced, since no round will ever kill them.
    pub preemption_messages: bool,
}

/// The AM's asks in the scheduler's terms.
///
/// # Errors
///
/// A message naming the ask (by index) and what was wrong with it: a missing or negative
/// capability, a negative container count.
pub fn asks(asks: &[pb::ResourceRequestProto]) -> Result<Vec<ResourceRequest>, String> {
    // The scheduler keys asks by priority, allocation request id and resource name; two asks
    // of one request on the same key would silently replace each other.
    for (later, ask) in asks.iter().enumerate() {
        let same_key = asks[..later].iter().position(|earlier| {
            earlier.priority == ask.priority
                && earlier.allocation_request_id == ask.allocation_request_id
                && earlier.resource_name == ask.resource_name
        });
        if let Some(earlier) = same_key {
            return Err(format!(
                "ask[{earlier}] and ask[{later}] share priority, allocation request id and \
                 resource name \"{}\"; asks of different execution types or sizes need \
                 different priorities or allocation request ids",
                ask.resource_name
            ));
        }
    }
    asks.iter()
        .enumerate()
        .map(|(index, ask)| {
            let capability = ask
                .capability
                .as_ref()
                .ok_or_else(|| format!("ask[{index}] has no capability"))?;
            if capability.memory < 0 || capability.virtual_cores < 0 {
                return Err(format!(
                    "ask[{index}] asks for a negative capability (memory {} MB, {} vcores)",
                    capability.memory, capability.virtual_cores
                ));
            }
            let num_containers = u32::try_from(ask.num_containers).map_err(|_| {
                format!(
                    "ask[{index}] asks for {} containers; the count cannot be negative",
                    ask.num_containers
                )
            })?;
            let resource_name = if ask.resource_name.is_empty() {
                ResourceRequest::ANY.to_owned()
            } else {
                ask.resource_name.clone()
            };
            Ok(ResourceRequest {
                priority: ask.priority.map_or(0, |p| p.priority),
                allocation_request_id: ask.allocation_request_id,
                resource_name,
                capability: Resource::from(capability),
                num_containers,
                relax_locality: ask.relax_locality.unwrap_or(true),
                node_label_expression: ask.node_label_expression.clone(),
            })
        })
        .collect()
}

/// An allocate's asks by the allocator that serves them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SplitAsks {
    /// For the CapacityScheduler.
    pub guaranteed: Vec<ResourceRequest>,
    /// For the opportunistic allocator.
    pub opportunistic: Vec<ResourceRequest>,
}

/// The AM's asks as [`asks`] reads them, split by execution type: OPPORTUNISTIC ones go to
/// the opportunistic allocator when `opportunistic_enabled`, every other ask to the
/// CapacityScheduler.
///
/// When opportunistic allocation is off, an OPPORTUNISTIC ask that does not enforce its
/// execution type goes to the CapacityScheduler too and gets GUARANTEED containers, as in YARN,
/// where the scheduler then serves every ask. One that enforces it (`enforce_execution_type`,
/// YARN's promise that only containers of exactly the type asked for are returned) could never
/// be served, so it is refused; cancelling one (a count of 0) is always accepted.
///
/// # Errors
///
/// Those of [`asks`], and a message naming an enforced OPPORTUNISTIC ask (by index) and the
/// settings that would let it be served, when opportunistic allocation is off.
pub fn split_asks(
    protos: &[pb::ResourceRequestProto],
    opportunistic_enabled: bool,
) -> Result<SplitAsks, String> {
    let mut split = SplitAsks::default();
    for (index, (ask, proto)) in asks(protos)?.into_iter().zip(protos).enumerate() {
        let (opportunistic, enforced) =
            proto
                .execution_type_request
                .as_ref()
                .map_or((false, false), |request| {
                    (
                        request.execution_type() == pb::ExecutionTypeProto::Opportunistic,
                        request.enforce_execution_type,
                    )
                });
        if opportunistic && opportunistic_enabled {
            split.opportunistic.push(ask);
        } else if opportunistic && enforced && ask.num_containers > 0 {
            return Err(format!(
                "ask[{index}] enforces execution type OPPORTUNISTIC, but this ResourceManager \
                 allocates no OPPORTUNISTIC containers: set \
                 yarn.resourcemanager.opportunistic-container-allocation.enabled (or \
                 yarn.nodemanager.distributed-scheduling.enabled) to true in its yarn-site.xml, \
                 or ask without enforce_execution_type to get GUARANTEED containers"
            ));
        } else {
            split.guaranteed.push(ask);
        }
    }
    Ok(split)
}

/// The containers the AM releases, which must all be its application's.
///
/// # Errors
///
/// A message naming the release (by index) that is not a container id of `attempt`'s
/// application.
pub fn releases(
    attempt: ApplicationAttemptId,
    releases: &[pb::ContainerIdProto],
) -> Result<Vec<ContainerId>, String> {
    releases
        .iter()
        .enumerate()
        .map(|(index, proto)| {
            let id = ContainerId::try_from(*proto)
                .map_err(|err| format!("release[{index}] is not a container id: {err}"))?;
            if id.application_attempt_id().application_id != attempt.application_id {
                return Err(format!(
                    "release[{index}] names {id}, which belongs to another application"
                ));
            }
            Ok(id)
        })
        .collect()
}

/// Builds the response for a fresh allocate: the attempt's containers committed since the AM
/// last heard (with container tokens), NM tokens for their new nodes, completed containers,
/// containers updated since (with container tokens of their new version, execution type and
/// size),
/// headroom, and a new AMRMToken when the key rolled. `None` when the state holds no keys or no
/// such application.
pub fn build(
    state: &RmState,
    session: &mut AmSession,
    context: Context,
) -> Option<pb::AllocateResponseProto> {
    let attempt = context.attempt;
    let application = state.applications.get(&attempt.application_id.id)?;
    let issuer = TokenIssuer::from_state(state)?;
    let news = session.take_news(state, attempt.application_id.id, attempt.attempt_id);
    // A container as the AM sees it at `version`, with a container token of that version.
    let signed_container = |record: &ContainerRecord, version: i32| {
        let id = ContainerId::from_raw(attempt, record.key.container_id).ok()?;
        let token = issuer.container_token(
            id,
            record,
            version,
            &application.user,
            context.now_ms,
            context.expiry_ms,
        );
        Some(container_proto(id, record, version, token))
    };
    let allocated_containers = news
        .allocated
        .iter()
        .filter_map(|record| signed_container(record, state.containers.version(&record.key)))
        .collect();
    let updated_containers = news
        .updated
        .iter()
        .filter_map(|&(record, version, update_type)| {
            Some(pb::UpdatedContainerProto {
                update_type: Some(update_type.into()),
                container: Some(signed_container(record, version)?),
            })
        })
        .collect();
    let completed_container_statuses = news
        .completed
        .iter()
        .filter_map(|record| completed_status(attempt, record))
        .collect();
    let nm_tokens = news
        .new_nodes
        .iter()
        .filter_map(|node| node.parse::<NodeId>().ok())
        .map(|node| issuer.nm_token(attempt, &node, &application.user))
        .collect();
    let am_rm_token =
        (context.token_key_id != issuer.current_amrm_key_id()).then(|| issuer.amrm_token(attempt));
    Some(pb::AllocateResponseProto {
        response_id: context.response_id,
        allocated_containers,
        completed_container_statuses,
        limit: Some(pb::ResourceProto {
            memory: i64::try_from(context.headroom.memory_mb).unwrap_or(i64::MAX),
            virtual_cores: i32::try_from(context.headroom.vcores).unwrap_or(i32::MAX),
            ..Default::default()
        }),
        num_cluster_nodes: i32::try_from(context.num_cluster_nodes).unwrap_or(i32::MAX),
        nm_tokens,
        am_rm_token,
        application_priority: Some(pb::PriorityProto {
            priority: application.priority,
        }),
        updated_containers,
        preempt: context
            .preemption_messages
            .then(|| preemption_message(state, attempt))
            .flatten(),
        ..Default::default()
    })
}

/// What `attempt`'s AM is told of its containers the latest preemption round chose, `None`
/// when it chose none.
///
/// The strict contract lists them: each is killed once its wait is over if rounds still choose
/// it. The contract asks for what they hold together, as one request: the AM may instead give
/// back any containers adding up to that, and rounds then choose fewer or none of the listed
/// ones (releases count towards what the queue owes). The two describe the same amount, once:
/// an AM gives back the listed containers or others, not both.
fn preemption_message(
    state: &RmState,
    attempt: ApplicationAttemptId,
) -> Option<pb::PreemptionMessageProto> {
    let mut containers = Vec::new();
    let mut total = Resource::default();
    for (key, _) in state.preemption_announced_to(attempt.application_id.id) {
        let Some(record) = state.containers.get(&key) else {
            continue;
        };
        if record.attempt_id != attempt.attempt_id {
            continue;
        }
        let Ok(id) = ContainerId::from_raw(attempt, key.container_id) else {
            continue;
        };
        containers.push(pb::ContainerIdProto::from(id));
        total = total.saturating_add(Resource::new(record.memory_mb, record.vcores));
    }
    if containers.is_empty() {
        return None;
    }
    let give_back = pb::ResourceRequestProto {
        priority: Some(pb::PriorityProto { priority: -1 }),
        resource_name: yarn_proto::ANY.to_owned(),
        capability: Some(pb::ResourceProto {
            memory: i64::try_from(total.memory_mb).unwrap_or(i64::MAX),
            virtual_cores: i32::try_from(total.vcores).unwrap_or(i32::MAX),
            ..Default::default()
        }),
        num_containers: 1,
        ..Default::default()
    };
    Some(pb::PreemptionMessageProto {
        strict_contract: Some(pb::StrictPreemptionContractProto { containers }),
        contract: Some(pb::PreemptionContractProto {
            resources: vec![give_back],
            containers: Vec::new(),
        }),
    })
}

/// A committed container at `version` as the AM sees it.
pub fn container_proto(
    id: ContainerId,
    record: &ContainerRecord,
    version: i32,
    container_token: pb::TokenProto,
) -> pb::ContainerProto {
    pb::ContainerProto {
        id: Some(id.into()),
        node_id: record
            .node
            .parse::<NodeId>()
            .ok()
            .map(|node| (&node).into()),
        node_http_address: String::new(),
        resource: Some(resource(record)),
        priority: Some(pb::PriorityProto {
            priority: record.priority,
        }),
        container_token: Some(container_token),
        execution_type: execution_type(record.execution_type).into(),
        allocation_request_id: Some(record.allocation_request_id),
        version,
    }
}

fn completed_status(
    attempt: ApplicationAttemptId,
    record: &ContainerRecord,
) -> Option<pb::ContainerStatusProto> {
    let ContainerState::Completed {
        exit_status,
        diagnostics,
    } = &record.state
    else {
        return None;
    };
    let id = ContainerId::from_raw(attempt, record.key.container_id).ok()?;
    Some(pb::ContainerStatusProto {
        container_id: Some(id.into()),
        state: pb::ContainerStateProto::CComplete.into(),
        diagnostics: diagnostics.clone(),
        exit_status: Some(*exit_status),
        capability: Some(resource(record)),
        execution_type: execution_type(record.execution_type).into(),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(memory: i64, count: i32) -> pb::ResourceRequestProto {
        pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority: 1 }),
            resource_name: "*".to_owned(),
            capability: Some(pb::ResourceProto {
                memory,
                virtual_cores: 1,
                ..Default::default()
            }),
            num_containers: count,
            ..Default::default()
        }
    }

    #[test]
    fn asks_become_scheduler_requests_and_bad_ones_are_named() {
        let converted = asks(&[ask(512, 3)]).unwrap();
        assert_eq!(
            converted,
            vec![ResourceRequest {
                allocation_request_id: 0,
                ..ResourceRequest::any(1, Resource::new(512, 1), 3)
            }]
        );
        let negative = pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority: 2 }),
            ..ask(512, -2)
        };
        let err = asks(&[ask(512, 1), negative]).unwrap_err();
        assert!(err.contains("ask[1]") && err.contains("-2"), "{err}");
        let err = asks(&[ask(-1, 1)]).unwrap_err();
        assert!(err.contains("ask[0]") && err.contains("negative"), "{err}");
        let missing = pb::ResourceRequestProto::default();
        assert!(asks(&[missing]).unwrap_err().contains("no capability"));
        let clash = asks(&[ask(512, 1), ask(1024, 2)]).unwrap_err();
        assert!(clash.contains("ask[0] and ask[1]"), "{clash}");
    }

    #[test]
    fn without_opportunistic_allocation_only_unenforced_opportunistic_asks_become_guaranteed() {
        let typed = |priority, enforce, count| pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority }),
            execution_type_request: Some(pb::ExecutionTypeRequestProto {
                execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
                enforce_execution_type: enforce,
            }),
            ..ask(512, count)
        };
        let loose = typed(2, false, 2);
        let split = split_asks(&[ask(512, 1), loose.clone()], false).unwrap();
        assert_eq!(split.guaranteed.len(), 2, "{split:?}");
        assert!(split.opportunistic.is_empty());

        let err = split_asks(&[loose.clone(), typed(3, true, 1)], false).unwrap_err();
        assert!(
            err.contains("ask[1] enforces execution type OPPORTUNISTIC")
                && err.contains("yarn.resourcemanager.opportunistic-container-allocation.enabled"),
            "{err}"
        );
        // Cancelling an enforced ask is fine, and with opportunistic allocation on it is served
        // as asked.
        assert!(split_asks(&[typed(3, true, 0)], false).is_ok());
        let split = split_asks(&[loose, typed(3, true, 1)], true).unwrap();
        assert_eq!(split.opportunistic.len(), 2);
        assert!(split.guaranteed.is_empty());
    }

    #[test]
    fn another_applications_container_cannot_be_released() {
        use crate::state_machine::test_fixtures::{TIMESTAMP, container};
        use yarn_proto::ids::ApplicationId;
        let own = ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, 1), 1);
        let other = ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, 2), 1);
        let id = container(4);
        assert_eq!(releases(own, &[id.into()]), Ok(vec![id]));
        let err = releases(other, &[id.into()]).unwrap_err();
        assert!(err.contains("another application"), "{err}");
    }
}
