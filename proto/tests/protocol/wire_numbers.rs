//! The generated messages keep YARN's enum values and field numbers, which other crates and
//! Hadoop-trained operators rely on.

use prost::Message;
use prost::encoding::decode_key;
use yarn_proto::pb;

/// The field number of the first (here: only) field of an encoded message.
fn only_field_number(message: &impl Message) -> u32 {
    let bytes = message.encode_to_vec();
    let mut buf = bytes.as_slice();
    match decode_key(&mut buf) {
        Ok((tag, _wire_type)) => tag,
        Err(e) => panic!("encoded message has no readable key: {e}"),
    }
}

#[test]
fn container_exit_statuses_match_hadoop() {
    use pb::ContainerExitStatusProto as S;
    let expected = [
        (S::Success, 0),
        (S::Invalid, -1000),
        (S::Aborted, -100),
        (S::DisksFailed, -101),
        (S::Preempted, -102),
        (S::KilledExceededVmem, -103),
        (S::KilledExceededPmem, -104),
        (S::KilledByAppmaster, -105),
        (S::KilledByResourcemanager, -106),
        (S::KilledAfterAppCompletion, -107),
        (S::KilledByContainerScheduler, -108),
        (S::KilledForExcessLogs, -109),
    ];
    for (status, code) in expected {
        assert_eq!(status as i32, code, "{status:?}");
        assert_eq!(S::try_from(code), Ok(status));
    }
}

#[test]
fn enums_keep_yarn_numbering() {
    assert_eq!(pb::ExecutionTypeProto::Opportunistic as i32, 2);
    assert_eq!(pb::YarnApplicationStateProto::Killed as i32, 8);
    assert_eq!(pb::FinalApplicationStatusProto::AppUndefined as i32, 0);
    assert_eq!(pb::FinalApplicationStatusProto::AppEnded as i32, 4);
    assert_eq!(pb::NodeStateProto::NsShutdown as i32, 8);
    assert_eq!(pb::NodeActionProto::Normal as i32, 0);
    assert_eq!(pb::NodeActionProto::Resync as i32, 1);
    assert_eq!(pb::NodeActionProto::Shutdown as i32, 2);
    assert_eq!(pb::ContainerUpdateTypeProto::IncreaseResource as i32, 0);
    assert_eq!(pb::ContainerUpdateTypeProto::DemoteExecutionType as i32, 3);
    assert_eq!(pb::ContainerStateProto::CScheduled as i32, 4);
    assert_eq!(pb::QueueStateProto::QDraining as i32, 3);
    assert_eq!(pb::AmCommandProto::AmShutdown as i32, 2);
}

#[test]
fn heartbeat_and_allocate_fields_keep_yarn_numbers() {
    let heartbeat = pb::NodeHeartbeatResponseProto {
        container_queuing_limit: Some(pb::ContainerQueuingLimitProto::default()),
        ..Default::default()
    };
    assert_eq!(only_field_number(&heartbeat), 15);
    let heartbeat = pb::NodeHeartbeatResponseProto {
        containers_to_update: vec![pb::ContainerProto::default()],
        ..Default::default()
    };
    assert_eq!(only_field_number(&heartbeat), 17);
    let heartbeat = pb::NodeHeartbeatResponseProto {
        nodes_for_scheduling: vec![pb::RemoteNodeProto::default()],
        ..Default::default()
    };
    assert_eq!(only_field_number(&heartbeat), 100);

    let status = pb::NodeStatusProto {
        opportunistic_containers_status: Some(pb::OpportunisticContainersStatusProto::default()),
        ..Default::default()
    };
    assert_eq!(only_field_number(&status), 9);
    let load = pb::OpportunisticContainersStatusProto {
        opport_queue_capacity: 10,
        ..Default::default()
    };
    assert_eq!(only_field_number(&load), 7);

    let request = pb::AllocateRequestProto {
        update_requests: vec![pb::UpdateContainerRequestProto::default()],
        ..Default::default()
    };
    assert_eq!(only_field_number(&request), 7);
    let response = pb::AllocateResponseProto {
        updated_containers: vec![pb::UpdatedContainerProto::default()],
        ..Default::default()
    };
    assert_eq!(only_field_number(&response), 16);
    let response = pb::AllocateResponseProto {
        update_errors: vec![pb::UpdateContainerErrorProto::default()],
        ..Default::default()
    };
    assert_eq!(only_field_number(&response), 15);
}

#[test]
fn optional_fields_tell_absent_from_zero() {
    let running = pb::ContainerStatusProto::default();
    let decoded = pb::ContainerStatusProto::decode(running.encode_to_vec().as_slice());
    assert_eq!(decoded.map(|s| s.exit_status), Ok(None));

    let succeeded = pb::ContainerStatusProto {
        exit_status: Some(pb::ContainerExitStatusProto::Success as i32),
        ..Default::default()
    };
    let decoded = pb::ContainerStatusProto::decode(succeeded.encode_to_vec().as_slice());
    assert_eq!(decoded.map(|s| s.exit_status), Ok(Some(0)));

    let killed = pb::ContainerStatusProto {
        exit_status: Some(pb::ContainerExitStatusProto::KilledByContainerScheduler as i32),
        ..Default::default()
    };
    let decoded = pb::ContainerStatusProto::decode(killed.encode_to_vec().as_slice());
    assert_eq!(decoded.map(|s| s.exit_status), Ok(Some(-108)));
}

#[test]
fn resource_carries_extra_resource_types() {
    let resource = pb::ResourceProto {
        memory: 4096,
        virtual_cores: 4,
        resource_value_map: [("yarn.io/gpu".to_owned(), 2)].into_iter().collect(),
    };
    let decoded = pb::ResourceProto::decode(resource.encode_to_vec().as_slice());
    assert_eq!(decoded, Ok(resource));
}
