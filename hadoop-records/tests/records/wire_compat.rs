//! Hadoop's messages against yarn-ha's, field by field: a yarn-ha proto change that breaks what
//! Hadoop clients read fails here.

use std::collections::BTreeSet;

use yarn_hadoop_records::HAND_CONVERTED;

use crate::comparison::{Comparison, compare};
use crate::descriptors;

/// Fields that differ where yarn-ha's zero value means Hadoop's default, so proto3's omission
/// of it is faithful and no conversion is needed.
const AGREED: &[(&str, &str)] = &[
    (
        "ApplicationAttemptReportProto.diagnostics",
        "empty and \"N/A\" both mean none",
    ),
    (
        "ApplicationReportProto.diagnostics",
        "empty and \"N/A\" both mean none",
    ),
    (
        "ContainerReportProto.diagnostics_info",
        "empty and \"N/A\" both mean none",
    ),
    (
        "ContainerStatusProto.diagnostics",
        "empty and \"N/A\" both mean none",
    ),
    (
        "ContainerProto.execution_type",
        "UNSPECIFIED means GUARANTEED",
    ),
    (
        "ContainerReportProto.executionType",
        "UNSPECIFIED means GUARANTEED",
    ),
    (
        "ContainerStatusProto.executionType",
        "UNSPECIFIED means GUARANTEED",
    ),
    (
        "ExecutionTypeRequestProto.execution_type",
        "UNSPECIFIED means GUARANTEED",
    ),
    (
        "FinishApplicationMasterRequestProto.final_application_status",
        "a request: Hadoop's absent and APP_UNDEFINED both read as yarn-ha's 0",
    ),
];

/// Hand-converted fields whose difference the definitions do not show.
const NOT_IN_THE_DEFINITIONS: &[(&str, &str)] = &[
    (
        "ResourceProto.resource_value_map",
        "Hadoop lists memory-mb and vcores there too",
    ),
    (
        "UpdatedContainerProto.container",
        "required: Java refuses the response without it",
    ),
    (
        "UpdatedContainerProto.update_type",
        "required: Java refuses the response without it",
    ),
];

/// Hadoop fields yarn-ha does not model: dropped from what Hadoop clients send, never sent to
/// them. The same list is in the crate documentation.
const DROPPED: &[&str] = &[
    "AllocateRequestProto.scheduling_requests",
    "AllocateRequestProto.tracking_url",
    "AllocateResponseProto.collector_info",
    "AllocateResponseProto.containers_from_previous_attempts",
    "AllocateResponseProto.enhanced_headroom",
    "AllocateResponseProto.rejected_scheduling_requests",
    "ApplicationReportProto.amNodeLabelExpression",
    "ApplicationReportProto.appNodeLabelExpression",
    "ApplicationReportProto.launchTime",
    "ApplicationReportProto.log_aggregation_status",
    "ApplicationReportProto.rmClusterId",
    "ApplicationReportProto.submitTime",
    "ApplicationResourceUsageReportProto.application_preempted_resource_usage_map",
    "ApplicationResourceUsageReportProto.application_resource_usage_map",
    "ApplicationSubmissionContextProto.application_scheduling_properties",
    "ApplicationSubmissionContextProto.log_aggregation_context",
    "ContainerLaunchContextProto.container_retry_context",
    "ContainerLaunchContextProto.tokens_conf",
    "ContainerProto.allocation_tags",
    "ContainerProto.exposed_ports",
    "ContainerReportProto.exposed_ports",
    "GetApplicationsRequestProto.name",
    "GetQueueInfoRequestProto.subClusterId",
    "LocalResourceProto.should_be_uploaded_to_shared_cache",
    "NodeReportProto.containers_utilization",
    "NodeReportProto.decommissioning_timeout",
    "NodeReportProto.node_attributes",
    "NodeReportProto.node_update_type",
    "NodeReportProto.node_utilization",
    "QueueInfoProto.maxResourceMemory",
    "QueueInfoProto.maxResourceVCore",
    "QueueInfoProto.maxRunningApp",
    "QueueInfoProto.reservedResourceMemory",
    "QueueInfoProto.reservedResourceVCore",
    "QueueInfoProto.steadyFairShareMemory",
    "QueueInfoProto.steadyFairShareVCore",
    "QueueInfoProto.subClusterId",
    "RegisterApplicationMasterRequestProto.placement_constraints",
    "RegisterApplicationMasterResponseProto.resource_profiles",
    "RegisterApplicationMasterResponseProto.resource_types",
    "ResourceInformationProto.attributes",
    "ResourceInformationProto.tags",
    "ResourceInformationProto.type",
    "ResourceInformationProto.units",
];

/// yarn-ha fields Hadoop does not define, which Hadoop clients never see. (yarn-ha's
/// QueueInfoProto fields 12 to 19 are not here: their numbers are Hadoop's too, and the
/// queue_info conversion says which go out.)
const YARN_ONLY: &[&str] = &[
    "ApplicationResourceUsageReportProto.num_am_containers_preempted",
    "ApplicationResourceUsageReportProto.num_non_am_containers_preempted",
    "ApplicationResourceUsageReportProto.preempted_memory_mb",
    "ApplicationResourceUsageReportProto.preempted_vcores",
    "NodeReportProto.num_queued_opportunistic_containers",
    "NodeReportProto.num_running_opportunistic_containers",
    "NodeReportProto.opportunistic_memory_used",
    "NodeReportProto.opportunistic_vcores_used",
    "QueueInfoProto.intra_queue_preemption_disabled",
    "QueueInfoProto.configured_capacity",
    "QueueInfoProto.configured_maximum_capacity",
    "QueueInfoProto.effective_max_resource",
    "QueueInfoProto.effective_min_resource",
    "QueueInfoProto.weight",
    "QueueStatisticsProto.preempted_containers",
    "QueueStatisticsProto.preempted_memory_mb",
    "QueueStatisticsProto.preempted_vcores",
    "QueueStatisticsProto.to_preempt_containers",
    "QueueStatisticsProto.to_preempt_memory_mb",
    "QueueStatisticsProto.to_preempt_vcores",
    "YarnClusterMetricsProto.num_opportunistic_containers_allocated_centrally",
    "YarnClusterMetricsProto.num_opportunistic_containers_allocated_distributed",
    "YarnClusterMetricsProto.num_opportunistic_containers_requested_centrally",
    "YarnClusterMetricsProto.rm_started_on_ms",
];

fn comparison() -> Comparison {
    compare(&descriptors::hadoop(), &descriptors::yarn_ha())
}

fn set<'a>(items: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    items.into_iter().map(str::to_owned).collect()
}

#[test]
fn every_disagreement_is_converted_by_hand_or_agrees_by_default() {
    let found = comparison();
    let agreed = set(AGREED.iter().map(|(field, _)| *field));
    let mut expected: BTreeSet<String> = found
        .disagreements
        .keys()
        .filter(|field| !agreed.contains(*field))
        .cloned()
        .collect();
    expected.extend(set(NOT_IN_THE_DEFINITIONS.iter().map(|(field, _)| *field)));
    let unexplained: Vec<String> = found
        .disagreements
        .iter()
        .filter(|(field, _)| !HAND_CONVERTED.contains(&field.as_str()) && !agreed.contains(*field))
        .map(|(field, why)| format!("{field}: {why}"))
        .collect();
    assert!(
        unexplained.is_empty(),
        "not converted by hand: {unexplained:#?}"
    );
    assert_eq!(set(HAND_CONVERTED.iter().copied()), expected);
    for field in &agreed {
        assert!(
            found.disagreements.contains_key(field),
            "{field} agrees now"
        );
    }
}

#[test]
fn the_dropped_hadoop_fields_are_the_documented_ones() {
    assert_eq!(comparison().dropped, set(DROPPED.iter().copied()));
    let docs = include_str!("../../src/lib.rs");
    for field in DROPPED {
        assert!(
            docs.contains(field),
            "{field} missing from the crate documentation"
        );
    }
}

#[test]
fn the_yarn_ha_only_fields_are_the_known_additions() {
    assert_eq!(comparison().yarn_only, set(YARN_ONLY.iter().copied()));
}

#[test]
fn the_required_fields_reached_are_the_ones_prost_always_writes() {
    // prost encodes a `required` field always, so each of these is on the wire. Where yarn-ha's
    // field is optional, its absence goes out as the zero value: UpdatedContainerProto's are
    // filled by hand, TokenProto's, ResourceInformationProto's and ApplicationTimeoutProto's
    // (always LIFETIME) are always set by yarn-ha, and the rest are in requests, which only
    // Hadoop clients write.
    let expected = set([
        "ApplicationTimeoutProto.application_timeout_type",
        "MoveApplicationAcrossQueuesRequestProto.application_id",
        "MoveApplicationAcrossQueuesRequestProto.target_queue",
        "ResourceInformationProto.key",
        "TokenProto.identifier",
        "TokenProto.kind",
        "TokenProto.password",
        "TokenProto.service",
        "UpdateApplicationPriorityRequestProto.applicationId",
        "UpdateApplicationPriorityRequestProto.applicationPriority",
        "UpdateApplicationTimeoutsRequestProto.applicationId",
        "UpdateContainerRequestProto.container_id",
        "UpdateContainerRequestProto.container_version",
        "UpdateContainerRequestProto.update_type",
        "UpdatedContainerProto.container",
        "UpdatedContainerProto.update_type",
    ]);
    assert_eq!(comparison().required, expected);
}
