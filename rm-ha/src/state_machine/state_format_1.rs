//! [`RmStateFormat1`]: the replicated state as snapshots of state format 1 hold it, kept so that
//! a replica of this binary still restores such a snapshot.
//!
//! Format 2 appended the containers' completion times to the container table. Postcard encodes
//! fields by position and cannot tell a missing field from a present one, so no
//! `#[serde(default)]` reads the shorter format; this frozen layout does. It names the types
//! format 2 left unchanged rather than copying them.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use yarn_scheduler::NodeLabels;

use super::{
    ApplicationRecord, ContainerKey, ContainerRecord, ContainerTable, ContainerWaits, MasterKeys,
    QueueConfigHistory, ReservationTable, RetiredApplications, RmState,
};

/// [`RmState`] in state format 1: the same fields, with a container table that has no
/// completion times.
#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
pub(crate) struct RmStateFormat1 {
    epoch: u64,
    next_application_seq: i32,
    cluster_timestamp_ms: i64,
    queue_config_version: u64,
    queue_config: BTreeMap<String, String>,
    decommissioned_nodes: BTreeSet<String>,
    master_keys: MasterKeys,
    applications: BTreeMap<i32, ApplicationRecord>,
    containers: ContainerTableFormat1,
}

/// [`ContainerTable`] in state format 1.
#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
struct ContainerTableFormat1 {
    containers: BTreeMap<ContainerKey, ContainerRecord>,
    last_issued: BTreeMap<i32, i64>,
    remotely_allocated: BTreeSet<ContainerKey>,
    versions: BTreeMap<ContainerKey, i32>,
}

impl From<RmStateFormat1> for RmState {
    /// The same state; its completed containers have no completion time.
    fn from(state: RmStateFormat1) -> Self {
        let table = state.containers;
        Self {
            epoch: state.epoch,
            next_application_seq: state.next_application_seq,
            cluster_timestamp_ms: state.cluster_timestamp_ms,
            queue_config_version: state.queue_config_version,
            queue_config: state.queue_config,
            decommissioned_nodes: state.decommissioned_nodes,
            master_keys: state.master_keys,
            applications: state.applications,
            containers: ContainerTable::from_format_1(
                table.containers,
                table.last_issued,
                table.remotely_allocated,
                table.versions,
            ),
            node_incarnations: BTreeMap::new(),
            apply_rules: 0,
            uncounted_attempt_failures: BTreeMap::new(),
            preemption_waits: ContainerWaits::default(),
            reservations: ReservationTable::default(),
            lifetime_deadlines: BTreeMap::new(),
            retired: RetiredApplications::default(),
            node_labels: NodeLabels::default(),
            queue_config_history: QueueConfigHistory::default(),
            dynamic_queues: yarn_scheduler::CreatedQueues::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::{initialize_master_keys, key, running_application};

    #[test]
    fn a_format_1_state_reads_back_with_no_completion_times() {
        let mut state = running_application(&[(2, "n1:1"), (3, "n2:1")], &[3]);
        initialize_master_keys(&mut state);
        state.decommissioned_nodes.insert("n3:1".to_owned());
        let format_1 = RmStateFormat1 {
            epoch: state.epoch,
            next_application_seq: state.next_application_seq,
            cluster_timestamp_ms: state.cluster_timestamp_ms,
            queue_config_version: state.queue_config_version,
            queue_config: state.queue_config.clone(),
            decommissioned_nodes: state.decommissioned_nodes.clone(),
            master_keys: state.master_keys.clone(),
            applications: state.applications.clone(),
            containers: ContainerTableFormat1 {
                containers: state
                    .containers
                    .iter()
                    .map(|r| (r.key, r.clone()))
                    .collect(),
                last_issued: BTreeMap::from([(1, key(3).container_id)]),
                remotely_allocated: BTreeSet::new(),
                versions: BTreeMap::new(),
            },
        };
        let bytes = postcard::to_allocvec(&format_1).unwrap();
        let restored = RmState::from(postcard::from_bytes::<RmStateFormat1>(&bytes).unwrap());
        assert!(state.containers.completed_at_ms(&key(3)).is_some());
        assert_eq!(restored.containers.completed_at_ms(&key(3)), None);

        // Format 2 is format 1 with the completion times appended, which is what format 1
        // leaves out: so the frozen layout is the one format 1 was written in. Format 3 then
        // appends the (here empty) NodeManager incarnations, format 4 apply rules 0 and no
        // uncounted attempt failure, format 5 no preemption wait, format 6 no reservation (its
        // next sequence number 1, zigzag-encoded as 2), format 7 no reservation queue, format
        // 8 no lifetime, format 9 none retired, format 10 no node label, format 11 no kept
        // queue configuration and format 12 no auto-created queue.
        let format_12 = postcard::to_allocvec(&restored).unwrap();
        assert_eq!(
            format_12,
            [
                bytes.as_slice(),
                &[0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            ]
            .concat(),
            "an empty map or set and rules 0 are one byte each"
        );
        assert_eq!(
            restored.containers.get(&key(3)),
            state.containers.get(&key(3))
        );
        assert_eq!(restored.applications, state.applications);
        assert_eq!(restored.master_keys, state.master_keys);
    }
}
