//! [`OpportunisticContainersStatus`]: the queue load an NM reports in every heartbeat.

use yarn_proto::pb;

/// The node's opportunistic load as the RM uses it to rank nodes for opportunistic placement.
///
/// No queue wait-time estimate is included: YARN's NM does not compute one either, so the RM
/// ranks such nodes by queue length.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpportunisticContainersStatus {
    /// Opportunistic containers running, those being killed included.
    pub running_opportunistic_containers: u32,
    /// Memory in MB held by running opportunistic containers.
    pub opportunistic_memory_used_mb: u64,
    /// Vcores held by running opportunistic containers.
    pub opportunistic_vcores_used: u32,
    /// Opportunistic containers waiting in the queue.
    pub queued_opportunistic_containers: u32,
    /// Every queued container, guaranteed ones waiting for room included.
    pub wait_queue_length: u32,
    /// `yarn.nodemanager.opportunistic-containers-max-queue-length`.
    pub queue_capacity: u32,
}

/// Counts beyond the protobuf fields' range are clamped to their maximum rather than wrapped.
impl From<OpportunisticContainersStatus> for pb::OpportunisticContainersStatusProto {
    fn from(status: OpportunisticContainersStatus) -> Self {
        let clamp = |count: u32| i32::try_from(count).unwrap_or(i32::MAX);
        Self {
            running_opport_containers: clamp(status.running_opportunistic_containers),
            opport_memory_used: i64::try_from(status.opportunistic_memory_used_mb)
                .unwrap_or(i64::MAX),
            opport_cores_used: clamp(status.opportunistic_vcores_used),
            queued_opport_containers: clamp(status.queued_opportunistic_containers),
            wait_queue_length: clamp(status.wait_queue_length),
            estimated_queue_wait_time: None,
            opport_queue_capacity: clamp(status.queue_capacity),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_field_by_field_without_a_wait_time_estimate() {
        let status = OpportunisticContainersStatus {
            running_opportunistic_containers: 2,
            opportunistic_memory_used_mb: 3072,
            opportunistic_vcores_used: 3,
            queued_opportunistic_containers: 4,
            wait_queue_length: 5,
            queue_capacity: 10,
        };
        assert_eq!(
            pb::OpportunisticContainersStatusProto::from(status),
            pb::OpportunisticContainersStatusProto {
                running_opport_containers: 2,
                opport_memory_used: 3072,
                opport_cores_used: 3,
                queued_opport_containers: 4,
                wait_queue_length: 5,
                estimated_queue_wait_time: None,
                opport_queue_capacity: 10,
            }
        );
    }

    #[test]
    fn oversized_counts_are_clamped() {
        let status = OpportunisticContainersStatus {
            running_opportunistic_containers: u32::MAX,
            opportunistic_memory_used_mb: u64::MAX,
            ..OpportunisticContainersStatus::default()
        };
        let proto = pb::OpportunisticContainersStatusProto::from(status);
        assert_eq!(proto.running_opport_containers, i32::MAX);
        assert_eq!(proto.opport_memory_used, i64::MAX);
    }
}
