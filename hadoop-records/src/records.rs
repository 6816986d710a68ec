//! [`Convert`](crate::convert::Convert) for every record with no hand conversion of its own:
//! re-encoded whole, or re-encoded around the records it holds that are converted by hand.

use crate::convert::{nested, transcoded};

transcoded!(
    // The ReservationSystem's records without resources.
    GetNewReservationRequestProto,
    GetNewReservationResponseProto,
    ReservationSubmissionResponseProto,
    ReservationUpdateResponseProto,
    ReservationDeleteRequestProto,
    ReservationDeleteResponseProto,
    ReservationListRequestProto,
    // Identifiers, reached on their own by the report helpers and the preemption message.
    ApplicationAttemptIdProto,
    ContainerIdProto,
    ApplicationAttemptReportProto,
    // ApplicationClientProtocol
    GetNewApplicationRequestProto,
    SubmitApplicationResponseProto,
    GetApplicationReportRequestProto,
    GetApplicationsRequestProto,
    KillApplicationRequestProto,
    KillApplicationResponseProto,
    GetClusterMetricsRequestProto,
    GetClusterMetricsResponseProto,
    GetClusterNodesRequestProto,
    GetClusterNodeLabelsRequestProto,
    GetClusterNodeLabelsResponseProto,
    GetNodesToLabelsRequestProto,
    GetNodesToLabelsResponseProto,
    GetLabelsToNodesRequestProto,
    GetLabelsToNodesResponseProto,
    GetQueueInfoRequestProto,
    GetQueueUserAclsInfoRequestProto,
    GetQueueUserAclsInfoResponseProto,
    MoveApplicationAcrossQueuesRequestProto,
    MoveApplicationAcrossQueuesResponseProto,
    GetApplicationAttemptsRequestProto,
    GetApplicationAttemptsResponseProto,
    GetContainersRequestProto,
    FailApplicationAttemptRequestProto,
    FailApplicationAttemptResponseProto,
    UpdateApplicationPriorityRequestProto,
    UpdateApplicationPriorityResponseProto,
    UpdateApplicationTimeoutsRequestProto,
    UpdateApplicationTimeoutsResponseProto,
    // ApplicationMasterProtocol
    RegisterApplicationMasterRequestProto,
    FinishApplicationMasterRequestProto,
    FinishApplicationMasterResponseProto,
    // ContainerManagementProtocol
    StartContainersResponseProto,
    StopContainersRequestProto,
    StopContainersResponseProto,
    GetContainerStatusesRequestProto,
    ContainerUpdateRequestProto,
    ContainerUpdateResponseProto,
);

nested! {
    // Records inside the messages.
    ApplicationSubmissionContextProto {
        am_container_spec => am_container_spec,
        resource => resource,
        am_container_resource_request => am_container_resource_request,
    }
    ApplicationResourceUsageReportProto {
        used_resources => used_resources,
        reserved_resources => reserved_resources,
        needed_resources => needed_resources,
    }
    ContainerProto { resource => resource }
    NodeReportProto { used => used, capability => capability }
    UpdateContainerRequestProto { capability => capability }
    UpdateContainerErrorProto { update_request => update_request }
    StartContainerRequestProto { container_launch_context => container_launch_context }
    // The ReservationSystem's records, which hold resources.
    ReservationRequestProto { capability => capability }
    ReservationRequestsProto { reservation_resources => reservation_resources }
    ReservationDefinitionProto { reservation_requests => reservation_requests }
    ResourceAllocationRequestProto { resource => resource }
    ReservationAllocationStateProto {
        reservation_definition => reservation_definition,
        allocation_requests => allocation_requests,
    }
    // ApplicationClientProtocol
    GetNewApplicationResponseProto { maximum_capability => maximum_capability }
    SubmitApplicationRequestProto {
        application_submission_context => application_submission_context,
    }
    GetApplicationReportResponseProto { application_report => application_report }
    GetApplicationsResponseProto { applications => applications }
    GetClusterNodesResponseProto { node_reports => node_reports }
    GetQueueInfoResponseProto { queue_info => queue_info }
    GetContainersResponseProto { containers => containers }
    ReservationSubmissionRequestProto { reservation_definition => reservation_definition }
    ReservationUpdateRequestProto { reservation_definition => reservation_definition }
    ReservationListResponseProto { reservations => reservations }
    // ApplicationMasterProtocol
    RegisterApplicationMasterResponseProto {
        maximum_capability => maximum_capability,
        containers_from_previous_attempts => containers_from_previous_attempts,
    }
    AllocateRequestProto { ask => ask, update_requests => update_requests }
    AllocateResponseProto {
        allocated_containers => allocated_containers,
        completed_container_statuses => completed_container_statuses,
        limit => limit,
        updated_nodes => updated_nodes,
        preempt => preempt,
        update_errors => update_errors,
        updated_containers => updated_containers,
    }
    // ContainerManagementProtocol
    StartContainersRequestProto { start_container_request => start_container_requests }
    GetContainerStatusesResponseProto { status => statuses }
}
