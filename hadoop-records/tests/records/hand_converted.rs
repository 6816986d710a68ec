//! One test per hand-converted field, each failing without its conversion: Hadoop's bytes are
//! built with Hadoop's own types, as a Java client would send or read them.

use prost::Message;
use yarn_hadoop_records::hadoop::{common, yarn as hadoop};
use yarn_hadoop_records::{HadoopRecord, container_report_response};
use yarn_proto::pb;

fn hadoop_bytes(message: &impl Message) -> Vec<u8> {
    message.encode_to_vec()
}

fn read<M: Message + Default>(bytes: &[u8]) -> M {
    M::decode(bytes).expect("Hadoop's definition reads what the conversion wrote")
}

fn launch_context_with(location: hadoop::UrlProto) -> hadoop::StartContainersRequestProto {
    hadoop::StartContainersRequestProto {
        start_container_request: vec![hadoop::StartContainerRequestProto {
            container_launch_context: Some(hadoop::ContainerLaunchContextProto {
                local_resources: vec![hadoop::StringLocalResourceMapProto {
                    key: Some("__app__.jar".into()),
                    value: Some(hadoop::LocalResourceProto {
                        resource: Some(location),
                        size: Some(10),
                        r#type: Some(hadoop::LocalResourceTypeProto::File as i32),
                        ..Default::default()
                    }),
                }],
                ..Default::default()
            }),
            container_token: None,
        }],
    }
}

#[test]
fn a_local_resource_url_reads_as_its_string() {
    let spark = hadoop::UrlProto {
        scheme: Some("file".into()),
        port: Some(-1),
        file: Some("/home/x/.sparkStaging/app_1/__app__.jar".into()),
        ..Default::default()
    };
    let request =
        pb::StartContainersRequestProto::from_hadoop(&hadoop_bytes(&launch_context_with(spark)))
            .unwrap();
    let context = request.start_container_requests[0]
        .container_launch_context
        .as_ref()
        .unwrap();
    let resource = &context.local_resources["__app__.jar"];
    assert_eq!(
        resource.resource,
        "file:/home/x/.sparkStaging/app_1/__app__.jar"
    );
    assert_eq!(resource.size, 10);

    let back: hadoop::StartContainersRequestProto = read(&request.to_hadoop());
    let entry = &back.start_container_request[0]
        .container_launch_context
        .as_ref()
        .unwrap()
        .local_resources[0];
    let url = entry.value.as_ref().unwrap().resource.as_ref().unwrap();
    assert_eq!(url.scheme(), "file");
    assert_eq!(url.host, None);
    assert_eq!(url.file(), "/home/x/.sparkStaging/app_1/__app__.jar");
}

#[test]
fn a_url_yarn_ha_cannot_carry_is_an_error_naming_the_field() {
    let odd = hadoop::UrlProto {
        scheme: Some("hdfs".into()),
        host: Some("nn".into()),
        port: Some(8020),
        file: Some("no-leading-slash".into()),
        ..Default::default()
    };
    let error =
        pb::StartContainersRequestProto::from_hadoop(&hadoop_bytes(&launch_context_with(odd)))
            .unwrap_err();
    assert!(
        error.to_string().starts_with("LocalResourceProto.resource"),
        "{error}"
    );
}

#[test]
fn an_absent_allocation_request_id_is_hadoops_minus_one_and_zero_is_written() {
    let ask = hadoop::ResourceRequestProto {
        num_containers: Some(1),
        ..Default::default()
    };
    let request = hadoop::AllocateRequestProto {
        ask: vec![ask],
        ..Default::default()
    };
    let read_back = pb::AllocateRequestProto::from_hadoop(&hadoop_bytes(&request)).unwrap();
    assert_eq!(read_back.ask[0].allocation_request_id, -1);

    let zero = pb::AllocateRequestProto {
        ask: vec![pb::ResourceRequestProto::default()],
        ..Default::default()
    };
    let hadoop: hadoop::AllocateRequestProto = read(&zero.to_hadoop());
    assert_eq!(hadoop.ask[0].allocation_request_id, Some(0));
}

#[test]
fn relax_locality_false_survives_and_absent_stays_hadoops_true() {
    let mut ask = pb::ResourceRequestProto {
        relax_locality: Some(false),
        ..Default::default()
    };
    let request = pb::AllocateRequestProto {
        ask: vec![ask.clone()],
        ..Default::default()
    };
    let hadoop: hadoop::AllocateRequestProto = read(&request.to_hadoop());
    assert!(!hadoop.ask[0].relax_locality());
    ask.relax_locality = None;
    let request = pb::AllocateRequestProto {
        ask: vec![ask],
        ..Default::default()
    };
    let hadoop: hadoop::AllocateRequestProto = read(&request.to_hadoop());
    assert!(hadoop.ask[0].relax_locality());
}

#[test]
fn memory_and_vcores_listed_in_the_map_are_not_extra_resource_types() {
    let info = |key: &str, value: i64, units: &str| hadoop::ResourceInformationProto {
        key: key.into(),
        value: Some(value),
        units: Some(units.into()),
        ..Default::default()
    };
    let resource = hadoop::ResourceProto {
        memory: Some(2048),
        virtual_cores: Some(2),
        resource_value_map: vec![
            info("memory-mb", 2048, "Mi"),
            info("vcores", 2, ""),
            info("yarn.io/gpu", 1, ""),
        ],
    };
    let request = hadoop::AllocateRequestProto {
        ask: vec![hadoop::ResourceRequestProto {
            capability: Some(resource),
            ..Default::default()
        }],
        ..Default::default()
    };
    let read_back = pb::AllocateRequestProto::from_hadoop(&hadoop_bytes(&request)).unwrap();
    let capability = read_back.ask[0].capability.as_ref().unwrap();
    assert_eq!((capability.memory, capability.virtual_cores), (2048, 2));
    assert_eq!(
        capability.resource_value_map,
        [("yarn.io/gpu".to_owned(), 1)].into_iter().collect()
    );
}

#[test]
fn app_undefined_is_written_so_java_does_not_read_null() {
    let response = pb::GetApplicationReportResponseProto {
        application_report: Some(pb::ApplicationReportProto {
            final_application_status: pb::FinalApplicationStatusProto::AppUndefined as i32,
            ..Default::default()
        }),
    };
    let hadoop: hadoop::GetApplicationReportResponseProto = read(&response.to_hadoop());
    assert_eq!(
        hadoop.application_report.unwrap().final_application_status,
        Some(hadoop::FinalApplicationStatusProto::AppUndefined as i32)
    );
}

#[test]
fn a_scheduled_container_reads_as_running_with_sub_state_scheduled() {
    let response = pb::GetContainerStatusesResponseProto {
        statuses: vec![pb::ContainerStatusProto {
            state: pb::ContainerStateProto::CScheduled as i32,
            ..Default::default()
        }],
        ..Default::default()
    };
    let hadoop: hadoop::GetContainerStatusesResponseProto = read(&response.to_hadoop());
    assert_eq!(
        hadoop.status[0].state,
        Some(hadoop::ContainerStateProto::CRunning as i32)
    );
    assert_eq!(
        hadoop.status[0].container_sub_state,
        Some(hadoop::ContainerSubStateProto::CssScheduled as i32)
    );

    let report = pb::ContainerReportProto {
        container_state: pb::ContainerStateProto::CScheduled as i32,
        ..Default::default()
    };
    let hadoop: hadoop::GetContainerReportResponseProto = read(&container_report_response(&report));
    assert_eq!(
        hadoop.container_report.unwrap().container_state,
        Some(hadoop::ContainerStateProto::CRunning as i32)
    );
}

#[test]
fn preemption_wraps_each_container_and_request() {
    let id = pb::ContainerIdProto {
        id: 7,
        ..Default::default()
    };
    let response = pb::AllocateResponseProto {
        preempt: Some(pb::PreemptionMessageProto {
            strict_contract: Some(pb::StrictPreemptionContractProto {
                containers: vec![id],
            }),
            contract: Some(pb::PreemptionContractProto {
                resources: vec![pb::ResourceRequestProto {
                    num_containers: 2,
                    ..Default::default()
                }],
                containers: vec![id],
            }),
        }),
        ..Default::default()
    };
    let bytes = response.to_hadoop();
    let hadoop: hadoop::AllocateResponseProto = read(&bytes);
    let preempt = hadoop.preempt.unwrap();
    assert_eq!(
        preempt.strict_contract.unwrap().container[0]
            .id
            .as_ref()
            .unwrap()
            .id,
        Some(7)
    );
    let contract = preempt.contract.unwrap();
    assert_eq!(
        contract.resource[0]
            .resource
            .as_ref()
            .unwrap()
            .num_containers,
        Some(2)
    );
    assert_eq!(contract.container[0].id.as_ref().unwrap().id, Some(7));
    assert_eq!(
        pb::AllocateResponseProto::from_hadoop(&bytes).unwrap(),
        response
    );
}

#[test]
fn queue_fields_yarn_ha_numbered_12_and_up_go_where_hadoop_reads_them() {
    let response = pb::GetQueueInfoResponseProto {
        queue_info: Some(pb::QueueInfoProto {
            queue_name: "a".into(),
            capacity: 0.5,
            maximum_capacity: 1.0,
            queue_path: "root.a".into(),
            absolute_capacity: 0.25,
            absolute_maximum_capacity: 0.75,
            absolute_used_capacity: 0.1,
            acl_submit_applications: "alice".into(),
            acl_administer_queue: "bob".into(),
            max_parallel_apps: Some(3),
            default_application_priority: 9,
            intra_queue_preemption_disabled: true,
            effective_min_resource: Some(pb::ResourceProto {
                memory: 4096,
                virtual_cores: 4,
                ..Default::default()
            }),
            ..Default::default()
        }),
    };
    let hadoop: hadoop::GetQueueInfoResponseProto = read(&response.to_hadoop());
    let queue = hadoop.queue_info.unwrap();
    assert_eq!(queue.queue_path(), "root.a");
    assert_eq!(queue.max_parallel_apps, Some(3));
    assert_eq!(queue.scheduler_type, None, "not yarn-ha's administer ACL");
    assert_eq!(
        queue.weight,
        Some(-1.0),
        "Hadoop's \"not a weight\", not yarn-ha's absolute maximum capacity"
    );
    assert_eq!(queue.min_resource_v_core, None);
    assert_eq!(queue.min_resource_memory, None);
    assert_eq!(queue.intra_queue_preemption_disabled, Some(true));
    let configured = queue.queue_configurations_map[0]
        .queue_configurations
        .clone()
        .unwrap();
    assert_eq!(queue.queue_configurations_map[0].partition_name, "");
    assert_eq!(configured.absolute_capacity, Some(0.25));
    assert_eq!(configured.absolute_max_capacity, Some(0.75));
    let effective = configured.effective_min_capacity.unwrap();
    assert_eq!(
        (effective.memory, effective.virtual_cores),
        (Some(4096), Some(4))
    );
    assert_eq!(
        pb::GetQueueInfoResponseProto::from_hadoop(&response.to_hadoop())
            .unwrap()
            .queue_info
            .unwrap()
            .effective_min_resource,
        response.queue_info.as_ref().unwrap().effective_min_resource
    );
}

#[test]
fn updated_containers_always_carry_hadoops_required_fields() {
    let response = pb::AllocateResponseProto {
        updated_containers: vec![pb::UpdatedContainerProto {
            update_type: None,
            container: None,
        }],
        ..Default::default()
    };
    let bytes = response.to_hadoop();
    // Both required fields are on the wire: field 1 (varint) and field 2 (an empty message).
    let hadoop: hadoop::AllocateResponseProto = read(&bytes);
    let updated = hadoop.updated_containers[0].encode_to_vec();
    assert_eq!(updated, [0x08, 0x00, 0x12, 0x00]);
}

#[test]
fn a_token_always_carries_its_four_required_fields() {
    let response = pb::AllocateResponseProto {
        am_rm_token: Some(pb::TokenProto::default()),
        ..Default::default()
    };
    let hadoop: hadoop::AllocateResponseProto = read(&response.to_hadoop());
    let token: common::TokenProto = hadoop.am_rm_token.unwrap();
    assert_eq!(token.encode_to_vec(), [0x0a, 0, 0x12, 0, 0x1a, 0, 0x22, 0]);
}
