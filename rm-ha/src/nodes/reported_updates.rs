//! [`containers_to_update`]: the container updates a NodeManager is told of by heartbeat, and
//! [`awaiting_increases`]: the increases it has not applied.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb::{self, ContainerStateProto};

use super::AwaitingIncrease;
use crate::applications::TokenIssuer;
use crate::applications::allocate_response::container_proto;
use crate::state_machine::{ContainerKey, ContainerRecord, ExecutionType, RmState};

/// When a NodeManager hears of an update by heartbeat rather than from the application
/// master.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoUpdate {
    /// Decreases and demotions only, as YARN does by default: they need nothing of the AM,
    /// whereas the AM starts using an increase or a promotion when it tells the node.
    Shrinking,
    /// Every update (`yarn.resourcemanager.auto-update.containers` = true).
    All,
}

/// The containers among `statuses`, reported live by `node`, whose size or execution type the
/// node holds differently from the state, with the state's version and a container token of
/// it (valid from `now_ms` until `expiry_ms`), for the heartbeat response's
/// `containers_to_update`.
///
/// The comparison is the whole memory: a node that holds a container larger than the state
/// records, or GUARANTEED where the state records OPPORTUNISTIC, missed a decrease or a
/// demotion, and gets it again on every heartbeat until it reports the change, so neither a
/// lost response nor a failover loses one. A node that holds one smaller, or OPPORTUNISTIC
/// where the state says GUARANTEED, is waiting for the AM to bring an increase or a
/// promotion, and hears of it here only under [`AutoUpdate::All`]. Containers of other nodes,
/// completed ones, ones never updated, and statuses that do not parse are left out.
pub fn containers_to_update(
    state: &RmState,
    node: &NodeId,
    statuses: &[pb::ContainerStatusProto],
    auto_update: AutoUpdate,
    now_ms: i64,
    expiry_ms: i64,
) -> Vec<pb::ContainerProto> {
    let mut updates = Vec::new();
    let mut issuer = None;
    for (key, record, version, status) in updated_containers(state, node, statuses) {
        if !differs(record, status, auto_update) {
            continue;
        }
        let Some(user) = state
            .applications
            .get(&key.application_seq)
            .map(|application| application.user.as_str())
        else {
            continue;
        };
        let issuer = match &issuer {
            Some(issuer) => issuer,
            None => match TokenIssuer::from_state(state) {
                Some(made) => issuer.insert(made),
                None => return Vec::new(),
            },
        };
        let attempt = ApplicationAttemptId::new(
            ApplicationId::new(state.cluster_timestamp_ms, key.application_seq),
            record.attempt_id,
        );
        let Ok(container_id) = ContainerId::from_raw(attempt, key.container_id) else {
            continue;
        };
        let token = issuer.container_token(container_id, record, version, user, now_ms, expiry_ms);
        updates.push(container_proto(container_id, record, version, token));
    }
    updates
}

/// The GUARANTEED containers among `statuses`, reported live by `node`, that the node runs
/// smaller than the state records, in no resource larger: increases their AM has not brought
/// to the node
/// (see [`UnconfirmedIncreases`](super::UnconfirmedIncreases)).
pub fn awaiting_increases(
    state: &RmState,
    node: &NodeId,
    statuses: &[pb::ContainerStatusProto],
) -> Vec<AwaitingIncrease> {
    updated_containers(state, node, statuses)
        .filter(|(_, record, _, _)| record.execution_type == ExecutionType::Guaranteed)
        .filter_map(|(key, record, version, status)| {
            let (memory, vcores) = reported_size(status)?;
            let smaller = memory <= record.memory_mb
                && vcores <= record.vcores
                && (memory, vcores) != (record.memory_mb, record.vcores);
            smaller.then_some(AwaitingIncrease {
                key,
                attempt_id: record.attempt_id,
                version,
                reported_memory_mb: memory,
                reported_vcores: vcores,
            })
        })
        .collect()
}

/// The live containers among `statuses` of `node` that were updated at least once (version
/// above 0), each with its record, version and status. A container never updated runs as its
/// start token said: any difference is no update (an AMRMProxy's report, say, of what it
/// placed).
fn updated_containers<'a>(
    state: &'a RmState,
    node: &NodeId,
    statuses: &'a [pb::ContainerStatusProto],
) -> impl Iterator<
    Item = (
        ContainerKey,
        &'a ContainerRecord,
        i32,
        &'a pb::ContainerStatusProto,
    ),
> {
    let node = node.to_string();
    statuses
        .iter()
        .filter(|status| status.state() != ContainerStateProto::CComplete)
        .filter_map(move |status| {
            let id = ContainerId::try_from(status.container_id?).ok()?;
            let key = ContainerKey {
                application_seq: id.application_attempt_id().application_id.id,
                container_id: id.container_id(),
            };
            let version = state.containers.version(&key);
            let record = state
                .containers
                .get(&key)
                .filter(|record| record.is_live() && record.node == node && version > 0)?;
            Some((key, record, version, status))
        })
}

/// The memory and virtual cores the node reports the container with; `None` when it reports
/// no size, which cannot be compared.
fn reported_size(status: &pb::ContainerStatusProto) -> Option<(u64, u32)> {
    let reported = status.capability.as_ref()?;
    Some((
        u64::try_from(reported.memory).unwrap_or(0),
        u32::try_from(reported.virtual_cores).unwrap_or(0),
    ))
}

/// Whether the node's `status` of `record` misses an update it is to hear of by heartbeat.
fn differs(record: &ContainerRecord, status: &pb::ContainerStatusProto, auto: AutoUpdate) -> bool {
    let Some((memory, vcores)) = reported_size(status) else {
        return false;
    };
    let reported_guaranteed = status.execution_type() != pb::ExecutionTypeProto::Opportunistic;
    let guaranteed = record.execution_type == ExecutionType::Guaranteed;
    let shrunk = memory > record.memory_mb || vcores > record.vcores;
    let demoted = reported_guaranteed && !guaranteed;
    match auto {
        AutoUpdate::Shrinking => shrunk || demoted,
        AutoUpdate::All => {
            memory != record.memory_mb
                || vcores != record.vcores
                || reported_guaranteed != guaranteed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::{
        TIMESTAMP, container, initialize_master_keys, key, running_application,
    };
    use crate::state_machine::{CommandV1, ContainerResize, ContainerUpdate, RmCommand};

    /// Containers 1 to 4 on nm1 (1 GiB, GUARANTEED), 5 on nm2; container 1 shrunk to 512 MB,
    /// container 2 grown to 2 GiB, container 3 demoted.
    fn state() -> RmState {
        let nm1 = "nm1:8041";
        let mut state = running_application(
            &[(1, nm1), (2, nm1), (3, nm1), (4, nm1), (5, "nm2:8041")],
            &[],
        );
        initialize_master_keys(&mut state);
        let resize = |sequence, memory_mb| ContainerResize {
            key: key(sequence),
            attempt_id: 1,
            version: 0,
            memory_mb,
            vcores: 1,
        };
        state.apply(&RmCommand::V1(CommandV1::ResizeContainers {
            resizes: vec![resize(1, 512), resize(2, 2048)],
        }));
        state.apply(&RmCommand::V1(CommandV1::UpdateContainers {
            updates: vec![ContainerUpdate {
                key: key(3),
                attempt_id: 1,
                version: 0,
                execution_type: ExecutionType::Opportunistic,
            }],
        }));
        state
    }

    /// Container `sequence` as the node reports it, at 1 GiB and GUARANTEED.
    fn reported(sequence: i64, state: ContainerStateProto) -> pb::ContainerStatusProto {
        pb::ContainerStatusProto {
            container_id: Some(container(sequence).into()),
            state: state.into(),
            capability: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                ..Default::default()
            }),
            execution_type: pb::ExecutionTypeProto::Guaranteed.into(),
            ..Default::default()
        }
    }

    fn sent(statuses: &[pb::ContainerStatusProto], auto: AutoUpdate) -> Vec<(i64, i32, i64)> {
        let node: NodeId = "nm1:8041".parse().unwrap();
        containers_to_update(&state(), &node, statuses, auto, TIMESTAMP, TIMESTAMP + 1)
            .into_iter()
            .map(|proto| {
                let id = ContainerId::try_from(proto.id.unwrap()).unwrap();
                let memory = proto.resource.map_or(0, |r| r.memory);
                (id.sequence(), proto.version, memory)
            })
            .collect()
    }

    #[test]
    fn a_node_hears_of_decreases_and_demotions_it_missed_and_of_the_rest_only_on_auto_update() {
        let running = ContainerStateProto::CRunning;
        let statuses: Vec<_> = (1..=5)
            .map(|sequence| reported(sequence, running))
            .collect();
        assert_eq!(
            sent(&statuses, AutoUpdate::Shrinking),
            vec![(1, 1, 512), (3, 1, 1024)],
            "the decrease and the demotion; the increase waits for the AM, nm2's is not nm1's"
        );
        assert_eq!(
            sent(&statuses, AutoUpdate::All),
            vec![(1, 1, 512), (2, 1, 2048), (3, 1, 1024)]
        );
        let applied = pb::ContainerStatusProto {
            capability: Some(pb::ResourceProto {
                memory: 512,
                virtual_cores: 1,
                ..Default::default()
            }),
            ..reported(1, running)
        };
        let completed = reported(3, ContainerStateProto::CComplete);
        let without_size = pb::ContainerStatusProto {
            capability: None,
            ..reported(1, running)
        };
        let never_updated = pb::ContainerStatusProto {
            capability: Some(pb::ResourceProto {
                memory: 2048,
                virtual_cores: 1,
                ..Default::default()
            }),
            ..reported(4, running)
        };
        assert!(
            sent(
                &[applied, completed, without_size, never_updated],
                AutoUpdate::All
            )
            .is_empty(),
            "nothing once the node reports the change, for a completed container, an unsized \
             one, or one never updated"
        );
    }

    #[test]
    fn a_container_the_node_runs_smaller_than_recorded_awaits_its_increase() {
        let node: NodeId = "nm1:8041".parse().unwrap();
        let running = ContainerStateProto::CRunning;
        let mut statuses: Vec<_> = (1..=5)
            .map(|sequence| reported(sequence, running))
            .collect();
        // The demoted container run smaller is no increase to wait for: it holds no share.
        statuses[2].capability = Some(pb::ResourceProto {
            memory: 512,
            virtual_cores: 1,
            ..Default::default()
        });
        let awaiting = awaiting_increases(&state(), &node, &statuses);
        assert_eq!(
            awaiting,
            vec![AwaitingIncrease {
                key: key(2),
                attempt_id: 1,
                version: 1,
                reported_memory_mb: 1024,
                reported_vcores: 1,
            }],
            "only the grown container; the shrunk one, the demoted one and nm2's are not"
        );
    }

    #[test]
    fn the_token_sent_carries_the_new_size_and_version() {
        let node: NodeId = "nm1:8041".parse().unwrap();
        let statuses = [reported(1, ContainerStateProto::CRunning)];
        let update = containers_to_update(
            &state(),
            &node,
            &statuses,
            AutoUpdate::Shrinking,
            TIMESTAMP,
            TIMESTAMP + 1,
        );
        let token = update[0].container_token.as_ref().expect("a token");
        let identifier = <pb::ContainerTokenIdentifierProto as prost::Message>::decode(
            token.identifier.as_slice(),
        )
        .unwrap();
        assert_eq!(identifier.version, 1);
        assert_eq!(identifier.resource.map(|r| r.memory), Some(512));
        assert_eq!(identifier.container_id, Some(container(1).into()));
    }
}
