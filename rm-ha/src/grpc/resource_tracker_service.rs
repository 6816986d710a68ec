//! ResourceTracker on the RM resource-tracker address: a thin adapter onto
//! [`ResourceTrackerOperations`].

use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::resource_tracker_server::ResourceTracker;
use yarn_security::{Authorizer, Caller, Role};

use crate::operations::ResourceTrackerOperations;

/// The protocol name quoted in role refusals.
const ENDPOINT: &str = "resource tracker";

/// Authenticates each call (a `nodemanager` certificate), runs the operation and answers with
/// its result or the status its error maps to.
pub(crate) struct ResourceTrackerService {
    pub(crate) operations: ResourceTrackerOperations,
    pub(crate) authorizer: Authorizer,
}

impl ResourceTrackerService {
    fn caller<T>(&self, request: &Request<T>) -> Result<Caller, Status> {
        self.authorizer
            .authorize(request, &[Role::NodeManager], ENDPOINT)
    }
}

#[tonic::async_trait]
impl ResourceTracker for ResourceTrackerService {
    async fn register_node_manager(
        &self,
        request: Request<pb::RegisterNodeManagerRequestProto>,
    ) -> Result<Response<pb::RegisterNodeManagerResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .register_node_manager(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn node_heartbeat(
        &self,
        request: Request<pb::NodeHeartbeatRequestProto>,
    ) -> Result<Response<pb::NodeHeartbeatResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .node_heartbeat(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }

    async fn un_register_node_manager(
        &self,
        request: Request<pb::UnRegisterNodeManagerRequestProto>,
    ) -> Result<Response<pb::UnRegisterNodeManagerResponseProto>, Status> {
        let caller = self.caller(&request)?;
        let response = self
            .operations
            .un_register_node_manager(&caller, request.into_inner())
            .await?;
        Ok(Response::new(response))
    }
}
