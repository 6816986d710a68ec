//! [`rebuild`]: a CapacityScheduler holding exactly what the replicated state holds.

use prost::Message;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_scheduler::{Allocation, CapacityScheduler, Resource};

use super::QueueConfigSource;
use crate::Error;
use crate::state_machine::{ApplicationState, ExecutionType, RmState};

/// Builds a scheduler from `state` and the nodes the leader knows (`nodes`: id and capacity).
///
/// Applications not in a final state are recovered into their queues with the priority of
/// their submission context; live containers on known nodes are charged to their node, queue,
/// user and application. A container on a node that has not registered with this leader is
/// left out until the node comes back or is declared LOST; opportunistic containers never
/// count. Pure: the same state and nodes
/// always give the same scheduler.
///
/// # Errors
///
/// [`Error::InvalidQueueConfiguration`] when the committed configuration does not parse with
/// this replica's `yarn-site.xml` settings.
pub fn rebuild(
    state: &RmState,
    source: &QueueConfigSource,
    nodes: impl IntoIterator<Item = (NodeId, Resource)>,
) -> Result<CapacityScheduler, Error> {
    let config = if state.queue_config_version == 0 {
        source.load()?
    } else {
        source.parse(state.queue_config.clone())?
    };
    let mut scheduler = CapacityScheduler::new(config);
    // Epochs beyond the id range cannot be reached: a leader cannot begin one.
    let _ = scheduler.set_epoch(i64::try_from(state.epoch).unwrap_or(i64::MAX));
    for (node, capability) in nodes {
        // A node listed twice keeps its first capacity.
        let _ = scheduler.add_node(node, capability);
    }
    for application in state.applications.values() {
        if matches!(
            application.state,
            ApplicationState::Finished | ApplicationState::Failed | ApplicationState::Killed
        ) {
            continue;
        }
        let id = ApplicationId::new(state.cluster_timestamp_ms, application.sequence);
        let priority = pb::ApplicationSubmissionContextProto::decode(
            application.submission_context.as_slice(),
        )
        .ok()
        .and_then(|context| context.priority)
        .map_or(0, |priority| priority.priority);
        if let Err(err) =
            scheduler.recover_application(id, &application.queue, &application.user, priority)
        {
            tracing::warn!(application = %id, %err, "application left out of the scheduler");
        }
    }
    // Opportunistic containers do not count against queue capacity.
    let guaranteed = state
        .containers
        .iter()
        .filter(|record| record.is_live() && record.execution_type == ExecutionType::Guaranteed);
    for record in guaranteed {
        let application_id =
            ApplicationId::new(state.cluster_timestamp_ms, record.key.application_seq);
        let attempt = ApplicationAttemptId::new(application_id, record.attempt_id);
        let (Ok(container_id), Ok(node_id)) = (
            ContainerId::from_raw(attempt, record.key.container_id),
            record.node.parse::<NodeId>(),
        ) else {
            continue;
        };
        if scheduler.node(&node_id).is_none() {
            continue;
        }
        let allocation = Allocation {
            container_id,
            application_attempt_id: attempt,
            node_id,
            resource: Resource::new(record.memory_mb, record.vcores),
            priority: record.priority,
            allocation_request_id: record.allocation_request_id,
            is_am: record.is_am,
        };
        if let Err(err) = scheduler.recover_container(allocation) {
            tracing::warn!(container = %container_id, %err, "container left out of the scheduler");
        }
    }
    Ok(scheduler)
}
