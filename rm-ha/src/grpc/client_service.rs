//! ApplicationClientProtocol on the RM client address: a thin adapter onto
//! [`ClientOperations`].

use std::sync::Arc;

use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_server::ApplicationClientProtocol;
use yarn_security::{Authorizer, Caller, Role};

use crate::operations::ClientOperations;

/// The protocol name quoted in role refusals.
const ENDPOINT: &str = "application client";

/// Authenticates each call (a `user` certificate, or anyone on a plaintext cluster), runs the
/// operation and answers with its result or the status its error maps to.
pub(crate) struct ClientService {
    /// Shared with the REST API.
    pub(crate) operations: Arc<ClientOperations>,
    pub(crate) authorizer: Authorizer,
}

impl ClientService {
    fn caller<T>(&self, request: &Request<T>) -> Result<Caller, Status> {
        self.authorizer.authorize(request, &[Role::User], ENDPOINT)
    }
}

#[tonic::async_trait]
impl ApplicationClientProtocol for ClientService {
    async fn get_new_application(
        &self,
        request: Request<pb::GetNewApplicationRequestProto>,
    ) -> Result<Response<pb::GetNewApplicationResponseProto>, Status> {
        self.caller(&request)?;
        let response = self.operations.get_new_application().await?;
        Ok(Response::new(response))
    }

    async fn submit_application(
        &self,
        request: Request<pb::SubmitApplicationRequestProto>,
    ) -> Result<Response<pb::SubmitApplicationResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .submit_application(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn get_application_report(
        &self,
        request: Request<pb::GetApplicationReportRequestProto>,
    ) -> Result<Response<pb::GetApplicationReportResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .get_application_report(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn get_applications(
        &self,
        request: Request<pb::GetApplicationsRequestProto>,
    ) -> Result<Response<pb::GetApplicationsResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .get_applications(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn force_kill_application(
        &self,
        request: Request<pb::KillApplicationRequestProto>,
    ) -> Result<Response<pb::KillApplicationResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .force_kill_application(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn get_cluster_metrics(
        &self,
        request: Request<pb::GetClusterMetricsRequestProto>,
    ) -> Result<Response<pb::GetClusterMetricsResponseProto>, Status> {
        self.caller(&request)?;
        let response = self.operations.get_cluster_metrics().await?;
        Ok(Response::new(response))
    }

    async fn get_cluster_nodes(
        &self,
        request: Request<pb::GetClusterNodesRequestProto>,
    ) -> Result<Response<pb::GetClusterNodesResponseProto>, Status> {
        self.caller(&request)?;
        let response = self
            .operations
            .get_cluster_nodes(request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn get_cluster_node_labels(
        &self,
        request: Request<pb::GetClusterNodeLabelsRequestProto>,
    ) -> Result<Response<pb::GetClusterNodeLabelsResponseProto>, Status> {
        self.caller(&request)?;
        let response = self.operations.get_cluster_node_labels().await?;
        Ok(Response::new(response))
    }

    async fn get_node_to_labels(
        &self,
        request: Request<pb::GetNodesToLabelsRequestProto>,
    ) -> Result<Response<pb::GetNodesToLabelsResponseProto>, Status> {
        self.caller(&request)?;
        let response = self.operations.get_node_to_labels().await?;
        Ok(Response::new(response))
    }

    async fn get_labels_to_nodes(
        &self,
        request: Request<pb::GetLabelsToNodesRequestProto>,
    ) -> Result<Response<pb::GetLabelsToNodesResponseProto>, Status> {
        self.caller(&request)?;
        let response = self
            .operations
            .get_labels_to_nodes(request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn get_queue_info(
        &self,
        request: Request<pb::GetQueueInfoRequestProto>,
    ) -> Result<Response<pb::GetQueueInfoResponseProto>, Status> {
        self.caller(&request)?;
        let response = self.operations.get_queue_info(request.into_inner()).await?;
        Ok(Response::new(response))
    }

    async fn get_queue_user_acls(
        &self,
        request: Request<pb::GetQueueUserAclsInfoRequestProto>,
    ) -> Result<Response<pb::GetQueueUserAclsInfoResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self.operations.get_queue_user_acls(&caller).await?;
        Ok(Response::new(response))
    }

    async fn move_application_across_queues(
        &self,
        request: Request<pb::MoveApplicationAcrossQueuesRequestProto>,
    ) -> Result<Response<pb::MoveApplicationAcrossQueuesResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .move_application_across_queues(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn get_application_attempts(
        &self,
        request: Request<pb::GetApplicationAttemptsRequestProto>,
    ) -> Result<Response<pb::GetApplicationAttemptsResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .get_application_attempts(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn get_containers(
        &self,
        request: Request<pb::GetContainersRequestProto>,
    ) -> Result<Response<pb::GetContainersResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .get_containers(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn fail_application_attempt(
        &self,
        request: Request<pb::FailApplicationAttemptRequestProto>,
    ) -> Result<Response<pb::FailApplicationAttemptResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .fail_application_attempt(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn update_application_priority(
        &self,
        request: Request<pb::UpdateApplicationPriorityRequestProto>,
    ) -> Result<Response<pb::UpdateApplicationPriorityResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .update_application_priority(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn update_application_timeouts(
        &self,
        request: Request<pb::UpdateApplicationTimeoutsRequestProto>,
    ) -> Result<Response<pb::UpdateApplicationTimeoutsResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .update_application_timeouts(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn get_new_reservation(
        &self,
        request: Request<pb::GetNewReservationRequestProto>,
    ) -> Result<Response<pb::GetNewReservationResponseProto>, Status> {
        self.caller(&request)?;
        let response = self.operations.get_new_reservation().await?;
        Ok(Response::new(response))
    }

    async fn submit_reservation(
        &self,
        request: Request<pb::ReservationSubmissionRequestProto>,
    ) -> Result<Response<pb::ReservationSubmissionResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .submit_reservation(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn update_reservation(
        &self,
        request: Request<pb::ReservationUpdateRequestProto>,
    ) -> Result<Response<pb::ReservationUpdateResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .update_reservation(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn delete_reservation(
        &self,
        request: Request<pb::ReservationDeleteRequestProto>,
    ) -> Result<Response<pb::ReservationDeleteResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .delete_reservation(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn list_reservations(
        &self,
        request: Request<pb::ReservationListRequestProto>,
    ) -> Result<Response<pb::ReservationListResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .list_reservations(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }
}
