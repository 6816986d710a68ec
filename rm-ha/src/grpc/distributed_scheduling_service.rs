//! DistributedSchedulingAMProtocol on the RM scheduler address, served by the same
//! [`ApplicationMasterService`] as ApplicationMasterProtocol: what a NodeManager's AMRMProxy
//! calls when it places OPPORTUNISTIC containers itself.

use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::distributed_scheduling_am_protocol_server::DistributedSchedulingAmProtocol;

use super::application_master_service::ApplicationMasterService;

#[tonic::async_trait]
impl DistributedSchedulingAmProtocol for ApplicationMasterService {
    async fn register_application_master_for_distributed_scheduling(
        &self,
        request: Request<pb::RegisterApplicationMasterRequestProto>,
    ) -> Result<Response<pb::RegisterDistributedSchedulingAmResponseProto>, Status> {
        let (caller, body) = self.authenticate(request)?;
        let response = self
            .operations
            .register_for_distributed_scheduling(&caller, body)
            .await?;
        Ok(Response::new(response))
    }

    async fn allocate_for_distributed_scheduling(
        &self,
        request: Request<pb::DistributedSchedulingAllocateRequestProto>,
    ) -> Result<Response<pb::DistributedSchedulingAllocateResponseProto>, Status> {
        let (caller, body) = self.authenticate(request)?;
        let response = self
            .operations
            .allocate_for_distributed_scheduling(&caller, body)
            .await?;
        Ok(Response::new(response))
    }

    async fn finish_application_master(
        &self,
        request: Request<pb::FinishApplicationMasterRequestProto>,
    ) -> Result<Response<pb::FinishApplicationMasterResponseProto>, Status> {
        self.finish(request).await
    }
}
