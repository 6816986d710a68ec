//! [`expired_allocations`]: the containers a node should report by now and does not.

use std::collections::BTreeSet;
use std::time::Duration;

use yarn_proto::ids::{ContainerId, NodeId};
use yarn_proto::pb;

use crate::state_machine::{ABORTED, ContainerCompletion, ContainerKey, RmState};

/// Hadoop's diagnostics for a container its node never reported within the allocation expiry.
pub const EXPIRED_CONTAINER_DIAGNOSTIC: &str = "Container expired since it was unused";

/// Hadoop's `ContainerAllocationExpirer`, decided from one heartbeat of `node`: the containers
/// the state holds as live on `node` that its report (`statuses`, every container the node runs,
/// queues or has not yet seen acknowledged) does not list, allocated at least twice `expiry`
/// (`yarn.resourcemanager.rm.container-allocation.expiry-interval-ms`) before `now_ms`. Each
/// completes as `ABORTED` with Hadoop's diagnostics.
///
/// Such a container can never run there: its token stopped being accepted one interval after
/// the allocation, so it was never started, or it was started and lost when the node restarted
/// without it (its machine rebooted, or its NodeManager runs without recovery), perhaps while
/// another leader served. Without this, its attempt would wait for it forever. The second
/// interval is a margin for a report that was built before a start and arrives late, and for
/// the clocks of two leaders.
pub fn expired_allocations(
    state: &RmState,
    node: &NodeId,
    statuses: &[pb::ContainerStatusProto],
    now_ms: i64,
    expiry: Duration,
) -> Vec<ContainerCompletion> {
    let node = node.to_string();
    let reported: BTreeSet<ContainerKey> = statuses
        .iter()
        .filter_map(|status| ContainerId::try_from(status.container_id?).ok())
        .map(|id| ContainerKey {
            application_seq: id.application_attempt_id().application_id.id,
            container_id: id.container_id(),
        })
        .collect();
    let expiry_ms = i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX);
    let allocated_before = now_ms.saturating_sub(expiry_ms.saturating_mul(2));
    state
        .containers
        .live_on(&node)
        .filter(|record| record.allocated_at_ms <= allocated_before)
        .filter(|record| !reported.contains(&record.key))
        .map(|record| ContainerCompletion {
            key: record.key,
            exit_status: ABORTED,
            diagnostics: EXPIRED_CONTAINER_DIAGNOSTIC.to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use yarn_proto::pb::ContainerStateProto;

    use super::*;
    use crate::state_machine::test_fixtures::{TIMESTAMP, container, key, running_application};

    const EXPIRY: Duration = Duration::from_secs(600);

    fn running(sequence: i64) -> pb::ContainerStatusProto {
        pb::ContainerStatusProto {
            container_id: Some(container(sequence).into()),
            state: ContainerStateProto::CRunning.into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_live_container_its_node_does_not_report_expires_after_twice_the_interval() {
        // 1 and 2 live on nm1, 3 completed there, 4 live on nm2; all allocated at TIMESTAMP.
        let state = running_application(
            &[
                (1, "nm1:8041"),
                (2, "nm1:8041"),
                (3, "nm1:8041"),
                (4, "nm2:8041"),
            ],
            &[3],
        );
        let node: NodeId = "nm1:8041".parse().unwrap();
        let twice = 2 * 600_000;
        assert!(
            expired_allocations(&state, &node, &[], TIMESTAMP + twice - 1, EXPIRY).is_empty(),
            "an unreported container may still be started, or its report be on its way"
        );
        let expired = expired_allocations(&state, &node, &[running(2)], TIMESTAMP + twice, EXPIRY);
        assert_eq!(
            expired,
            [ContainerCompletion {
                key: key(1),
                exit_status: ABORTED,
                diagnostics: EXPIRED_CONTAINER_DIAGNOSTIC.to_owned(),
            }],
            "2 is reported, 3 completed, 4 another node's"
        );
    }
}
