//! Properties of every conversion: no bytes make `from_hadoop` panic, and yarn-ha records with
//! the fields that need care come back unchanged from Hadoop's encoding.

use proptest::prelude::*;
use yarn_hadoop_records::{HadoopRecord, attempt_report_request, container_report_request};
use yarn_proto::pb;

macro_rules! never_panic {
    ($($record:ident),* $(,)?) => {
        fn read_all(bytes: &[u8]) {
            $(let _ = pb::$record::from_hadoop(bytes);)*
            let _ = attempt_report_request(bytes);
            let _ = container_report_request(bytes);
        }
    };
}

never_panic!(
    GetNewReservationRequestProto,
    GetNewReservationResponseProto,
    ReservationSubmissionRequestProto,
    ReservationSubmissionResponseProto,
    ReservationUpdateRequestProto,
    ReservationUpdateResponseProto,
    ReservationDeleteRequestProto,
    ReservationDeleteResponseProto,
    ReservationListRequestProto,
    ReservationListResponseProto,
    GetNewApplicationRequestProto,
    GetNewApplicationResponseProto,
    SubmitApplicationRequestProto,
    SubmitApplicationResponseProto,
    GetApplicationReportRequestProto,
    GetApplicationReportResponseProto,
    GetApplicationsRequestProto,
    GetApplicationsResponseProto,
    KillApplicationRequestProto,
    KillApplicationResponseProto,
    GetClusterMetricsRequestProto,
    GetClusterMetricsResponseProto,
    GetClusterNodesRequestProto,
    GetClusterNodesResponseProto,
    GetClusterNodeLabelsRequestProto,
    GetClusterNodeLabelsResponseProto,
    GetNodesToLabelsRequestProto,
    GetNodesToLabelsResponseProto,
    GetLabelsToNodesRequestProto,
    GetLabelsToNodesResponseProto,
    GetQueueInfoRequestProto,
    GetQueueInfoResponseProto,
    GetQueueUserAclsInfoRequestProto,
    GetQueueUserAclsInfoResponseProto,
    MoveApplicationAcrossQueuesRequestProto,
    MoveApplicationAcrossQueuesResponseProto,
    GetApplicationAttemptsRequestProto,
    GetApplicationAttemptsResponseProto,
    GetContainersRequestProto,
    GetContainersResponseProto,
    FailApplicationAttemptRequestProto,
    FailApplicationAttemptResponseProto,
    UpdateApplicationPriorityRequestProto,
    UpdateApplicationPriorityResponseProto,
    UpdateApplicationTimeoutsRequestProto,
    UpdateApplicationTimeoutsResponseProto,
    RegisterApplicationMasterRequestProto,
    RegisterApplicationMasterResponseProto,
    AllocateRequestProto,
    AllocateResponseProto,
    FinishApplicationMasterRequestProto,
    FinishApplicationMasterResponseProto,
    StartContainersRequestProto,
    StartContainersResponseProto,
    StopContainersRequestProto,
    StopContainersResponseProto,
    GetContainerStatusesRequestProto,
    GetContainerStatusesResponseProto,
    ContainerUpdateRequestProto,
    ContainerUpdateResponseProto,
);

fn round_trip<R: HadoopRecord + PartialEq + std::fmt::Debug>(record: &R) {
    let back = R::from_hadoop(&record.to_hadoop()).expect("our own encoding reads back");
    assert_eq!(&back, record);
}

/// URL strings in the forms Hadoop clients send: with a host (and maybe user and port), or a
/// scheme and an absolute path.
fn location() -> impl Strategy<Value = String> {
    let scheme = "[a-z][a-z0-9+.-]{0,5}";
    let path = "(/[A-Za-z0-9._-]{1,8}){0,3}";
    prop_oneof![
        (
            scheme,
            "[a-z0-9.-]{1,10}",
            proptest::option::of(1u16..),
            path
        )
            .prop_map(|(s, host, port, file)| match port {
                Some(port) => format!("{s}://{host}:{port}{file}"),
                None => format!("{s}://{host}{file}"),
            }),
        (scheme, "[a-z]{1,5}", "[a-z0-9.-]{1,10}", path)
            .prop_map(|(s, user, host, file)| format!("{s}://{user}@{host}{file}")),
        (scheme, path).prop_map(|(s, file)| format!("{s}:{file}")),
        Just(String::new()),
    ]
}

fn ask() -> impl Strategy<Value = pb::ResourceRequestProto> {
    (
        proptest::option::of(any::<bool>()),
        any::<i64>(),
        0..4i32,
        0..3i32,
        any::<i32>(),
    )
        .prop_map(
            |(relax_locality, id, num, execution, priority)| pb::ResourceRequestProto {
                priority: Some(pb::PriorityProto { priority }),
                resource_name: "*".into(),
                capability: Some(pb::ResourceProto {
                    memory: 1024,
                    virtual_cores: 1,
                    resource_value_map: [("yarn.io/gpu".to_owned(), i64::from(num))]
                        .into_iter()
                        .collect(),
                }),
                num_containers: num,
                relax_locality,
                execution_type_request: Some(pb::ExecutionTypeRequestProto {
                    execution_type: execution,
                    enforce_execution_type: execution == 2,
                }),
                allocation_request_id: id,
                ..Default::default()
            },
        )
}

proptest! {
    #[test]
    fn no_bytes_make_from_hadoop_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        read_all(&bytes);
    }

    #[test]
    fn submissions_with_local_resources_come_back(
        locations in proptest::collection::vec(location(), 0..4),
        kind in 0..4i32,
        visibility in 0..4i32,
        asks in proptest::collection::vec(ask(), 0..3),
    ) {
        let local_resources = locations
            .into_iter()
            .enumerate()
            .map(|(i, resource)| {
                (format!("r{i}"), pb::LocalResourceProto {
                    resource,
                    size: 1,
                    timestamp: 2,
                    r#type: kind,
                    visibility,
                    pattern: String::new(),
                })
            })
            .collect();
        let request = pb::SubmitApplicationRequestProto {
            application_submission_context: Some(pb::ApplicationSubmissionContextProto {
                am_container_spec: Some(pb::ContainerLaunchContextProto {
                    local_resources,
                    commands: vec!["run".into()],
                    ..Default::default()
                }),
                am_container_resource_request: asks,
                ..Default::default()
            }),
        };
        round_trip(&request);
    }

    #[test]
    fn asks_come_back(asks in proptest::collection::vec(ask(), 0..4), response_id in any::<i32>()) {
        round_trip(&pb::AllocateRequestProto { ask: asks, response_id, ..Default::default() });
    }

    #[test]
    fn reports_with_any_enum_values_come_back(
        state in 0..9i32,
        status in 0..5i32,
        container_state in prop_oneof![0..4i32],
        execution in 0..3i32,
    ) {
        round_trip(&pb::GetApplicationReportResponseProto {
            application_report: Some(pb::ApplicationReportProto {
                yarn_application_state: state,
                final_application_status: status,
                ..Default::default()
            }),
        });
        round_trip(&pb::GetContainersResponseProto {
            containers: vec![pb::ContainerReportProto {
                container_state,
                execution_type: execution,
                ..Default::default()
            }],
        });
    }
}
