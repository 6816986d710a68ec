//! ApplicationMasterProtocol on the RM scheduler address: a thin adapter onto
//! [`AmOperations`]. The same service serves DistributedSchedulingAMProtocol on that address
//! (see `distributed_scheduling_service`).

use std::sync::Arc;

use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::application_master_protocol_server::ApplicationMasterProtocol;
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, PresentedToken};
use yarn_security::{Authorizer, Role};

use crate::operations::{AmCaller, AmOperations};

/// The protocol name quoted in role refusals.
const ENDPOINT: &str = "application master";

/// Authenticates each call (a `user` certificate for an AM, a `nodemanager` one for an
/// AMRMProxy, and the AMRMToken in the `AMRM_TOKEN_METADATA_KEY` metadata), runs the operation
/// and answers with its result or the status its error maps to.
pub(crate) struct ApplicationMasterService {
    pub(crate) operations: Arc<AmOperations>,
    pub(crate) authorizer: Authorizer,
}

impl ApplicationMasterService {
    /// The attempt the call's AMRMToken names, and the request's body.
    pub(super) fn authenticate<T>(&self, request: Request<T>) -> Result<(AmCaller, T), Status> {
        self.authorizer
            .authorize(&request, &[Role::User, Role::NodeManager], ENDPOINT)?;
        let token = PresentedToken::from_metadata(request.metadata(), AMRM_TOKEN_METADATA_KEY);
        let caller = self.operations.authenticate(token)?;
        Ok((caller, request.into_inner()))
    }

    /// The `FinishApplicationMaster` of both scheduler protocols.
    pub(super) async fn finish(
        &self,
        request: Request<pb::FinishApplicationMasterRequestProto>,
    ) -> Result<Response<pb::FinishApplicationMasterResponseProto>, Status> {
        let (caller, body) = self.authenticate(request)?;
        Ok(Response::new(self.operations.finish(&caller, body).await?))
    }
}

#[tonic::async_trait]
impl ApplicationMasterProtocol for ApplicationMasterService {
    async fn register_application_master(
        &self,
        request: Request<pb::RegisterApplicationMasterRequestProto>,
    ) -> Result<Response<pb::RegisterApplicationMasterResponseProto>, Status> {
        let (caller, body) = self.authenticate(request)?;
        Ok(Response::new(
            self.operations.register(&caller, body).await?,
        ))
    }

    async fn allocate(
        &self,
        request: Request<pb::AllocateRequestProto>,
    ) -> Result<Response<pb::AllocateResponseProto>, Status> {
        let (caller, body) = self.authenticate(request)?;
        Ok(Response::new(
            self.operations.allocate(&caller, body).await?,
        ))
    }

    async fn finish_application_master(
        &self,
        request: Request<pb::FinishApplicationMasterRequestProto>,
    ) -> Result<Response<pb::FinishApplicationMasterResponseProto>, Status> {
        self.finish(request).await
    }
}
