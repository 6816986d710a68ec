//! [`ContainerManagerService`]: ContainerManagementProtocol on the NodeManager's address.

use std::sync::Arc;

use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::container_management_protocol_server::ContainerManagementProtocol;
use yarn_proto::token_metadata::{NM_TOKEN_METADATA_KEY, PresentedToken};
use yarn_security::{Authorizer, Role};

use super::ContainerManager;

/// The protocol name quoted in role refusals.
const ENDPOINT: &str = "container management";

/// Who may call: application masters, which hold user certificates, and ResourceManager
/// replicas, whose AM launcher starts AM containers. Either way the NM token decides which
/// application's containers the call may touch.
const ALLOWED_ROLES: [Role; 2] = [Role::User, Role::ResourceManager];

/// The thin tonic shell over a [`ContainerManager`]: it checks the caller's certificate role,
/// reads the NM token from the metadata (under [`NM_TOKEN_METADATA_KEY`]), and hands the containers to the
/// manager, which answers each one on its own.
///
/// A whole call fails only when the caller may not use the protocol at all: `UNAUTHENTICATED`
/// without a certificate while TLS is on, `PERMISSION_DENIED` for a NodeManager certificate.
/// Every other problem is a per-container failure in the response.
#[derive(Debug, Clone)]
pub struct ContainerManagerService {
    manager: Arc<ContainerManager>,
    authorizer: Authorizer,
}

impl ContainerManagerService {
    /// The service over `manager`, checking callers with `authorizer`.
    pub fn new(manager: Arc<ContainerManager>, authorizer: Authorizer) -> Self {
        Self {
            manager,
            authorizer,
        }
    }

    /// Checks the caller's role and reads its NM token.
    fn admit<T>(&self, request: &Request<T>) -> Result<PresentedToken, Status> {
        self.authorizer
            .authorize(request, &ALLOWED_ROLES, ENDPOINT)?;
        Ok(PresentedToken::from_metadata(
            request.metadata(),
            NM_TOKEN_METADATA_KEY,
        ))
    }
}

#[tonic::async_trait]
impl ContainerManagementProtocol for ContainerManagerService {
    /// Starts each container whose tokens check out; a retried start of a container this node
    /// already started is refused as a replay and leaves the container untouched.
    async fn start_containers(
        &self,
        request: Request<pb::StartContainersRequestProto>,
    ) -> Result<Response<pb::StartContainersResponseProto>, Status> {
        let nm_token = self.admit(&request)?;
        let requests = request.into_inner().start_container_requests;
        Ok(Response::new(
            self.manager.start_containers(requests, &nm_token).await,
        ))
    }

    /// Stops each container; stopping one that is stopping or finished succeeds and changes
    /// nothing.
    async fn stop_containers(
        &self,
        request: Request<pb::StopContainersRequestProto>,
    ) -> Result<Response<pb::StopContainersResponseProto>, Status> {
        let nm_token = self.admit(&request)?;
        let container_ids = request.into_inner().container_ids;
        Ok(Response::new(
            self.manager.stop_containers(container_ids, &nm_token),
        ))
    }

    /// Reports each container's status.
    async fn get_container_statuses(
        &self,
        request: Request<pb::GetContainerStatusesRequestProto>,
    ) -> Result<Response<pb::GetContainerStatusesResponseProto>, Status> {
        let nm_token = self.admit(&request)?;
        let container_ids = request.into_inner().container_ids;
        Ok(Response::new(
            self.manager.container_statuses(container_ids, &nm_token),
        ))
    }

    /// Promotes or demotes each container; a version the container already has succeeds and
    /// changes nothing, a resource change is refused as not supported yet.
    async fn update_container(
        &self,
        request: Request<pb::ContainerUpdateRequestProto>,
    ) -> Result<Response<pb::ContainerUpdateResponseProto>, Status> {
        let nm_token = self.admit(&request)?;
        let tokens = request.into_inner().update_container_tokens;
        Ok(Response::new(
            self.manager.update_containers(tokens, &nm_token).await,
        ))
    }
}
