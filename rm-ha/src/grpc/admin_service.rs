//! ResourceManagerAdministrationProtocol on the RM admin address: a thin adapter onto
//! [`AdminOperations`].

use std::sync::Arc;
use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::resource_manager_administration_protocol_server::ResourceManagerAdministrationProtocol;
use yarn_security::{Authorizer, Caller, Role};

use crate::operations::AdminOperations;

/// The protocol name quoted in role refusals.
const ENDPOINT: &str = "admin";

/// Authenticates each call (a `user` certificate, or anyone on a plaintext cluster), runs the
/// operation (which checks `yarn.admin.acl`) and answers with its result or the status its
/// error maps to.
pub(crate) struct AdminService {
    pub(crate) operations: Arc<AdminOperations>,
    pub(crate) authorizer: Authorizer,
}

impl AdminService {
    fn caller<T>(&self, request: &Request<T>) -> Result<Caller, Status> {
        self.authorizer.authorize(request, &[Role::User], ENDPOINT)
    }
}

#[tonic::async_trait]
impl ResourceManagerAdministrationProtocol for AdminService {
    async fn get_service_status(
        &self,
        request: Request<pb::HaServiceStatusRequestProto>,
    ) -> Result<Response<pb::HaServiceStatusResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self.operations.get_service_status(&caller).await?;
        Ok(Response::new(response))
    }

    async fn get_state_digest(
        &self,
        request: Request<pb::GetStateDigestRequestProto>,
    ) -> Result<Response<pb::GetStateDigestResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self.operations.get_state_digest(&caller).await?;
        Ok(Response::new(response))
    }

    async fn monitor_health(
        &self,
        request: Request<pb::MonitorHealthRequestProto>,
    ) -> Result<Response<pb::MonitorHealthResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self.operations.monitor_health(&caller).await?;
        Ok(Response::new(response))
    }

    async fn add_to_cluster_node_labels(
        &self,
        request: Request<pb::AddToClusterNodeLabelsRequestProto>,
    ) -> Result<Response<pb::AddToClusterNodeLabelsResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .add_to_cluster_node_labels(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn remove_from_cluster_node_labels(
        &self,
        request: Request<pb::RemoveFromClusterNodeLabelsRequestProto>,
    ) -> Result<Response<pb::RemoveFromClusterNodeLabelsResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .remove_from_cluster_node_labels(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn replace_labels_on_nodes(
        &self,
        request: Request<pb::ReplaceLabelsOnNodeRequestProto>,
    ) -> Result<Response<pb::ReplaceLabelsOnNodeResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .replace_labels_on_nodes(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn update_scheduler_configuration(
        &self,
        request: Request<pb::UpdateSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .update_scheduler_configuration(&caller, request.into_inner().into())
            .await?;
        Ok(Response::new(response))
    }

    async fn format_scheduler_configuration(
        &self,
        request: Request<pb::FormatSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .format_scheduler_configuration(&caller)
            .await?;
        Ok(Response::new(response))
    }

    async fn get_scheduler_configuration(
        &self,
        request: Request<pb::GetSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::GetSchedulerConfigurationResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let version = request.get_ref().version;
        let response = self
            .operations
            .get_scheduler_configuration(&caller, version)
            .await?;
        Ok(Response::new(response))
    }

    async fn restore_scheduler_configuration(
        &self,
        request: Request<pb::RestoreSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let version = request.get_ref().version;
        let response = self
            .operations
            .restore_scheduler_configuration(&caller, version)
            .await?;
        Ok(Response::new(response))
    }

    async fn refresh_queues(
        &self,
        request: Request<pb::RefreshQueuesRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self.operations.refresh_queues(&caller).await?;
        Ok(Response::new(response))
    }

    async fn refresh_nodes(
        &self,
        request: Request<pb::RefreshNodesRequestProto>,
    ) -> Result<Response<pb::RefreshNodesResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self.operations.refresh_nodes(&caller).await?;
        Ok(Response::new(response))
    }

    async fn refresh_admin_acls(
        &self,
        request: Request<pb::RefreshAdminAclsRequestProto>,
    ) -> Result<Response<pb::RefreshAdminAclsResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self.operations.refresh_admin_acls(&caller).await?;
        Ok(Response::new(response))
    }

    async fn get_cluster_membership(
        &self,
        request: Request<pb::GetClusterMembershipRequestProto>,
    ) -> Result<Response<pb::GetClusterMembershipResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self.operations.get_cluster_membership(&caller).await?;
        Ok(Response::new(response))
    }

    async fn add_raft_member(
        &self,
        request: Request<pb::AddRaftMemberRequestProto>,
    ) -> Result<Response<pb::AddRaftMemberResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .add_raft_member(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn remove_raft_member(
        &self,
        request: Request<pb::RemoveRaftMemberRequestProto>,
    ) -> Result<Response<pb::RemoveRaftMemberResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .remove_raft_member(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn transfer_leadership(
        &self,
        request: Request<pb::TransferLeadershipRequestProto>,
    ) -> Result<Response<pb::TransferLeadershipResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .transfer_leadership(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }
}
