//! [`AmrmProxyService`]: the ApplicationMasterProtocol the AMRMProxy serves to the
//! ApplicationMasters of its node.

use std::sync::Arc;

use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::application_master_protocol_server::ApplicationMasterProtocol;

use crate::AmrmProxy;

/// The gRPC face of an [`AmrmProxy`]: every call is authenticated by the local AMRMToken in the
/// request metadata (missing, malformed, forged, RM-issued and unknown-attempt tokens are
/// refused with PERMISSION_DENIED naming what was wrong), then runs through the attempt's
/// chain. Errors become statuses in one place (`status.rs`).
///
/// Built by [`AmrmProxy::service`]; transport and TLS are the NodeManager's.
#[derive(Debug, Clone)]
pub struct AmrmProxyService {
    proxy: Arc<AmrmProxy>,
}

impl AmrmProxyService {
    pub(crate) fn new(proxy: Arc<AmrmProxy>) -> Self {
        Self { proxy }
    }
}

#[tonic::async_trait]
impl ApplicationMasterProtocol for AmrmProxyService {
    async fn register_application_master(
        &self,
        request: Request<pb::RegisterApplicationMasterRequestProto>,
    ) -> Result<Response<pb::RegisterApplicationMasterResponseProto>, Status> {
        let (attempt, _) = self.proxy.authenticate("register", request.metadata())?;
        let body = request.into_inner();
        let response = self
            .proxy
            .with_chain(attempt, |chain| Box::pin(chain.register(body)))
            .await?;
        Ok(Response::new(response))
    }

    async fn allocate(
        &self,
        request: Request<pb::AllocateRequestProto>,
    ) -> Result<Response<pb::AllocateResponseProto>, Status> {
        let (attempt, key_id) = self.proxy.authenticate("allocate", request.metadata())?;
        let body = request.into_inner();
        let mut response = self
            .proxy
            .with_chain(attempt, |chain| Box::pin(chain.allocate(body)))
            .await?;
        // Whatever the interceptors did, an RM token never reaches the AM; a rolled local one
        // does.
        response.am_rm_token = self.proxy.rolled_token(attempt, key_id);
        Ok(Response::new(response))
    }

    async fn finish_application_master(
        &self,
        request: Request<pb::FinishApplicationMasterRequestProto>,
    ) -> Result<Response<pb::FinishApplicationMasterResponseProto>, Status> {
        let (attempt, _) = self.proxy.authenticate("finish", request.metadata())?;
        let body = request.into_inner();
        let response = self
            .proxy
            .with_chain(attempt, |chain| Box::pin(chain.finish(body)))
            .await?;
        Ok(Response::new(response))
    }
}
