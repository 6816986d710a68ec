//! The containers an AMRMProxy placed itself (distributed scheduling) and reports in
//! AllocateForDistributedScheduling: read into records, and the state's refusals put into
//! words.

use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};
use yarn_proto::pb;

use crate::state_machine::{
    ContainerKey, ContainerRecord, ContainerState, ExecutionType, RemoteAllocationRejection,
};

/// Reads `containers`, reported for `attempt` by its AMRMProxy, as records allocated at
/// `now_ms`. What the state decides (execution type, id range, liveness) is left to
/// [`RmState::check_remote_containers`](crate::state_machine::RmState::check_remote_containers);
/// this only checks that each container is the caller's and fully described.
///
/// # Errors
///
/// A message naming the container by index and what is wrong: no or an unreadable id, an id of
/// another attempt than `attempt`, no or an unreadable node, no or a negative resource.
pub fn remote_containers(
    attempt: ApplicationAttemptId,
    containers: &[pb::ContainerProto],
    now_ms: i64,
) -> Result<Vec<ContainerRecord>, String> {
    containers
        .iter()
        .enumerate()
        .map(|(index, container)| remote_container(attempt, index, container, now_ms))
        .collect()
}

fn remote_container(
    attempt: ApplicationAttemptId,
    index: usize,
    container: &pb::ContainerProto,
    now_ms: i64,
) -> Result<ContainerRecord, String> {
    let field = format!("allocated_containers[{index}]");
    let id = container
        .id
        .ok_or_else(|| format!("{field} has no id"))
        .and_then(|proto| {
            ContainerId::try_from(proto).map_err(|err| format!("{field}.id is unusable: {err}"))
        })?;
    if id.application_attempt_id() != attempt {
        return Err(format!(
            "{field} is {id}, which belongs to {} rather than to the caller's {attempt}",
            id.application_attempt_id()
        ));
    }
    let node = container
        .node_id
        .clone()
        .ok_or_else(|| format!("{field} ({id}) names no node"))
        .and_then(|proto| {
            NodeId::try_from(proto).map_err(|err| format!("{field} ({id}): node_id: {err}"))
        })?;
    let resource = container
        .resource
        .as_ref()
        .ok_or_else(|| format!("{field} ({id}) has no resource"))?;
    let (Ok(memory_mb), Ok(vcores)) = (
        u64::try_from(resource.memory),
        u32::try_from(resource.virtual_cores),
    ) else {
        return Err(format!(
            "{field} ({id}) has a negative resource (memory {} MB, {} vcores)",
            resource.memory, resource.virtual_cores
        ));
    };
    let execution_type = match container.execution_type() {
        pb::ExecutionTypeProto::Opportunistic => ExecutionType::Opportunistic,
        pb::ExecutionTypeProto::Guaranteed | pb::ExecutionTypeProto::ExecutionTypeUnspecified => {
            ExecutionType::Guaranteed
        }
    };
    Ok(ContainerRecord {
        key: ContainerKey {
            application_seq: attempt.application_id.id,
            container_id: id.container_id(),
        },
        attempt_id: attempt.attempt_id,
        node: node.to_string(),
        memory_mb,
        vcores,
        execution_type,
        is_am: false,
        priority: container.priority.map_or(0, |priority| priority.priority),
        allocation_request_id: container.allocation_request_id.unwrap_or(-1),
        allocated_at_ms: now_ms,
        state: ContainerState::Allocated,
    })
}

/// Why the state refused a container of `attempt`, in words naming the container.
pub fn describe(attempt: ApplicationAttemptId, rejection: &RemoteAllocationRejection) -> String {
    let key = rejection.key();
    let container = ContainerId::from_raw(attempt, key.container_id).map_or_else(
        |_| format!("container number {}", key.container_id),
        |id| id.to_string(),
    );
    match rejection {
        RemoteAllocationRejection::ApplicationNotLive { .. } => {
            format!("{container}: its application is unknown or already over")
        }
        RemoteAllocationRejection::AttemptNotCurrent {
            attempt_id,
            current,
            ..
        } => format!(
            "{container}: attempt {attempt_id} is not the application's current attempt \
             ({current} is)"
        ),
        RemoteAllocationRejection::NotOpportunisticTask { .. } => format!(
            "{container}: an AMRMProxy may only place OPPORTUNISTIC task containers; \
             GUARANTEED ones come from the ResourceManager's scheduler"
        ),
        RemoteAllocationRejection::IdNotBelowEpochStart { epoch_start, .. } => format!(
            "{container}: its number {} is not below the container_id_start {epoch_start} \
             of the ResourceManager epoch in force; register again for the current start",
            key.container_id
        ),
        RemoteAllocationRejection::IdTaken { .. } => {
            format!("{container}: another container already holds this id")
        }
        RemoteAllocationRejection::NodeDecommissioned { node, .. } => {
            format!("{container}: node {node} is decommissioned")
        }
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;

    use super::*;

    fn attempt() -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(7, 1), 1)
    }

    fn placed(raw: i64) -> pb::ContainerProto {
        pb::ContainerProto {
            id: Some(ContainerId::from_raw(attempt(), raw).unwrap().into()),
            node_id: Some(pb::NodeIdProto {
                host: "nm1".to_owned(),
                port: 8041,
            }),
            resource: Some(pb::ResourceProto {
                memory: 512,
                virtual_cores: 1,
                ..Default::default()
            }),
            priority: Some(pb::PriorityProto { priority: 3 }),
            execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
            ..Default::default()
        }
    }

    #[test]
    fn reported_containers_become_records_of_the_caller() {
        let records = remote_containers(attempt(), &[placed((1 << 40) - 1)], 99).unwrap();
        let record = &records[0];
        assert_eq!(record.key.container_id, (1 << 40) - 1);
        assert_eq!(record.node, "nm1:8041");
        assert_eq!(
            (record.memory_mb, record.vcores, record.priority),
            (512, 1, 3)
        );
        assert_eq!(record.execution_type, ExecutionType::Opportunistic);
        assert_eq!(record.allocation_request_id, -1);
        assert_eq!(record.allocated_at_ms, 99);
    }

    #[test]
    fn containers_of_other_attempts_or_incomplete_ones_are_named() {
        let mut other = placed(5);
        other.id = Some(
            ContainerId::from_raw(ApplicationAttemptId::new(attempt().application_id, 2), 5)
                .unwrap()
                .into(),
        );
        let err = remote_containers(attempt(), &[placed(4), other], 0).unwrap_err();
        assert!(
            err.contains("allocated_containers[1]") && err.contains("appattempt_7_0001_000002"),
            "{err}"
        );
        let mut nowhere = placed(5);
        nowhere.node_id = None;
        let err = remote_containers(attempt(), &[nowhere], 0).unwrap_err();
        assert!(err.contains("names no node"), "{err}");
        let mut negative = placed(5);
        negative.resource = Some(pb::ResourceProto {
            memory: -1,
            ..Default::default()
        });
        let err = remote_containers(attempt(), &[negative], 0).unwrap_err();
        assert!(err.contains("negative"), "{err}");
    }

    #[test]
    fn a_refusal_names_the_container_and_the_rule() {
        let key = ContainerKey {
            application_seq: 1,
            container_id: (2 << 40) + 3,
        };
        let text = describe(
            attempt(),
            &RemoteAllocationRejection::IdNotBelowEpochStart {
                key,
                epoch_start: 2 << 40,
            },
        );
        assert!(
            text.contains("container_e02_7_0001_01_000003") && text.contains("container_id_start"),
            "{text}"
        );
    }
}
