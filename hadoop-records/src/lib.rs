//! YARN's records as Hadoop's own clients put them on the wire, and their conversion to and
//! from yarn-ha's records.
//!
//! A [`HadoopRecord`] is one request or response of the protocols yarn-ha serves to Hadoop
//! clients over Hadoop IPC (ApplicationClientProtocol, ApplicationMasterProtocol,
//! ContainerManagementProtocol). Its conversions go through Hadoop's own definitions
//! ([`hadoop`], proto2, from `proto/`): [`HadoopRecord::from_hadoop`] decodes Hadoop's message
//! (which checks the bytes) and converts it to yarn-ha's record; [`HadoopRecord::to_hadoop`]
//! converts yarn-ha's record to Hadoop's message and encodes that, so every `required` field
//! is present and yarn-ha's additions are left out.
//!
//! yarn-ha's records (`yarn_proto::pb`) keep Hadoop's field numbers wherever they model Hadoop's
//! field, so most of a record converts by re-encoding. [`HAND_CONVERTED`] lists the fields that
//! do not; each has its own module. The getApplicationAttemptReport and getContainerReport
//! methods, which yarn-ha has no rpc for, have helpers ([`attempt_report_request`] and the
//! like) that work on Hadoop's request and response directly.
//!
//! # Hadoop fields yarn-ha drops
//!
//! Fields Hadoop 3.5.0 defines and yarn-ha does not model (found by the walk in
//! `tests/records/wire_compat.rs`, which keeps this list honest). A Hadoop client's value is
//! dropped; a Hadoop client reading a response finds them absent.
//!
//! - AllocateRequestProto.scheduling_requests (placement-constraint asks: not served),
//!   AllocateRequestProto.tracking_url
//! - AllocateResponseProto.collector_info, AllocateResponseProto.containers_from_previous_attempts,
//!   AllocateResponseProto.enhanced_headroom, AllocateResponseProto.rejected_scheduling_requests
//! - ApplicationReportProto.amNodeLabelExpression, ApplicationReportProto.appNodeLabelExpression,
//!   ApplicationReportProto.launchTime,
//!   ApplicationReportProto.log_aggregation_status, ApplicationReportProto.rmClusterId,
//!   ApplicationReportProto.submitTime
//! - ApplicationResourceUsageReportProto.application_preempted_resource_usage_map,
//!   ApplicationResourceUsageReportProto.application_resource_usage_map
//! - ApplicationSubmissionContextProto.application_scheduling_properties,
//!   ApplicationSubmissionContextProto.log_aggregation_context
//! - ContainerLaunchContextProto.container_retry_context, ContainerLaunchContextProto.tokens_conf
//! - ContainerProto.allocation_tags, ContainerProto.exposed_ports,
//!   ContainerReportProto.exposed_ports
//! - GetApplicationsRequestProto.name, GetQueueInfoRequestProto.subClusterId
//! - LocalResourceProto.should_be_uploaded_to_shared_cache
//! - NodeReportProto.containers_utilization, NodeReportProto.decommissioning_timeout,
//!   NodeReportProto.node_attributes, NodeReportProto.node_update_type,
//!   NodeReportProto.node_utilization
//! - QueueInfoProto.maxResourceMemory, QueueInfoProto.maxResourceVCore,
//!   QueueInfoProto.maxRunningApp, QueueInfoProto.reservedResourceMemory,
//!   QueueInfoProto.reservedResourceVCore, QueueInfoProto.steadyFairShareMemory,
//!   QueueInfoProto.steadyFairShareVCore, QueueInfoProto.subClusterId (and, converted by hand
//!   to nothing, weight, schedulerType, minResourceVCore, minResourceMemory)
//! - RegisterApplicationMasterRequestProto.placement_constraints,
//!   RegisterApplicationMasterResponseProto.resource_profiles,
//!   RegisterApplicationMasterResponseProto.resource_types
//! - ResourceInformationProto.attributes, ResourceInformationProto.tags,
//!   ResourceInformationProto.type, ResourceInformationProto.units
//!
//! yarn-ha's own additions (NodeReportProto 100 to 103, YarnClusterMetricsProto 100 to 103,
//! QueueStatisticsProto's preemption figures 101 to 106, ApplicationResourceUsageReportProto's
//! 101 to 104, and QueueInfoProto's ACLs, default priority and absolute used capacity) are not
//! sent; QueueInfoProto's 101 goes out as Hadoop's `intraQueuePreemptionDisabled`.
//!
//! # What re-encoding does not fix
//!
//! Token identifiers are opaque bytes under a MAC and pass unchanged: Hadoop's identifiers have
//! `keyId [default = -1]`, so a yarn-ha identifier with key id 0 reads as -1 if Java ever
//! decodes one. Empty strings are omitted by proto3, and Java's records read many absent
//! strings as null rather than empty.

mod application_report;
mod call_request;
mod container_state;
mod convert;
#[allow(clippy::all, missing_docs)]
pub mod hadoop;
mod launch_context;
mod local_resource;
mod preemption;
mod queue_info;
mod record_error;
mod records;
mod reports;
mod resource;
mod resource_request;
mod transcode;
mod updated_container;
mod url;

use bytes::Bytes;
use prost::Message;
use yarn_proto::pb;

use crate::convert::Convert;
pub use call_request::{malformed, request_of};
pub use record_error::RecordError;
pub use reports::{
    attempt_report_request, attempt_report_response, container_report_request,
    container_report_response,
};

/// The fields converted by hand, as `Message.field` in Hadoop's names: every field where
/// Hadoop's definition and yarn-ha's differ in wire type or meaning, less those where yarn-ha's
/// zero value means Hadoop's default, plus the fields whose difference the definitions do not
/// show. `tests/records/wire_compat.rs` derives the list from both sets of definitions and
/// fails when it no longer matches.
pub const HAND_CONVERTED: &[&str] = &[
    // APP_UNDEFINED is 0: always written, or Java reads null.
    "ApplicationReportProto.final_application_status",
    // C_SCHEDULED (4) is not Hadoop's: written as C_RUNNING (with sub-state CSS_SCHEDULED).
    "ContainerReportProto.container_state",
    "ContainerStatusProto.state",
    // A URLProto in Hadoop, a URL string in yarn-ha.
    "LocalResourceProto.resource",
    // Hadoop wraps each container id and resource request in a message of its own.
    "PreemptionContractProto.container",
    "PreemptionContractProto.resource",
    "StrictPreemptionContractProto.container",
    // yarn-ha's own fields 12 to 19 collide with Hadoop's; see the queue_info module.
    "QueueInfoProto.intraQueuePreemptionDisabled",
    "QueueInfoProto.maxParallelApps",
    "QueueInfoProto.minResourceMemory",
    "QueueInfoProto.minResourceVCore",
    "QueueInfoProto.queueConfigurationsMap",
    "QueueInfoProto.queuePath",
    "QueueInfoProto.schedulerType",
    "QueueInfoProto.weight",
    // Absent means -1 in Hadoop, 0 in yarn-ha.
    "ResourceRequestProto.allocation_request_id",
    // Hadoop's clients list memory-mb and vcores in the map too.
    "ResourceProto.resource_value_map",
    // Required in Hadoop, optional in yarn-ha.
    "UpdatedContainerProto.container",
    "UpdatedContainerProto.update_type",
];

/// A yarn-ha record that Hadoop clients send or receive.
pub trait HadoopRecord: Message + Default + Sized {
    /// Reads the message a Hadoop client encoded, through Hadoop's own definition of it.
    ///
    /// # Errors
    ///
    /// [`RecordError`] when the bytes are not that message, or a field holds a value yarn-ha's
    /// record cannot carry. Never panics, whatever the bytes.
    fn from_hadoop(bytes: &[u8]) -> Result<Self, RecordError>;

    /// Encodes the record as the Hadoop message a Hadoop client reads: through Hadoop's own
    /// definition, so every `required` field is present.
    fn to_hadoop(&self) -> Bytes;
}

macro_rules! records {
    ($($record:ident),* $(,)?) => {
        $(impl HadoopRecord for pb::$record {
            fn from_hadoop(bytes: &[u8]) -> Result<Self, RecordError> {
                let hadoop = <Self as Convert>::Hadoop::decode(bytes).map_err(|source| {
                    RecordError::Malformed {
                        message: stringify!($record),
                        source,
                    }
                })?;
                <Self as Convert>::from_hadoop(hadoop)
            }

            fn to_hadoop(&self) -> Bytes {
                Bytes::from(<Self as Convert>::to_hadoop(self).encode_to_vec())
            }
        })*
    };
}

records!(
    // ApplicationClientProtocol
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
    // ApplicationMasterProtocol
    RegisterApplicationMasterRequestProto,
    RegisterApplicationMasterResponseProto,
    AllocateRequestProto,
    AllocateResponseProto,
    FinishApplicationMasterRequestProto,
    FinishApplicationMasterResponseProto,
    // ContainerManagementProtocol
    StartContainersRequestProto,
    StartContainersResponseProto,
    StopContainersRequestProto,
    StopContainersResponseProto,
    GetContainerStatusesRequestProto,
    GetContainerStatusesResponseProto,
    ContainerUpdateRequestProto,
    ContainerUpdateResponseProto,
);
