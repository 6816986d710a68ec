//! [`DefaultRequestInterceptor`]: the end of the chain that relays to the ResourceManager group.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use tonic::transport::Channel;
use tonic::{Request, Response, Status};
use yarn_client::{Idempotency, RmClient};
use yarn_proto::pb;
use yarn_proto::pb::application_master_protocol_client::ApplicationMasterProtocolClient;
use yarn_proto::pb::distributed_scheduling_am_protocol_client::DistributedSchedulingAmProtocolClient;
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, insert_token, is_not_registered};

use crate::am_rm_relay::AmRmRelay;
use crate::request_interceptor::{BoxFuture, Next};
use crate::{ApplicationContext, Error, RequestInterceptor};

/// The state key of the relayed session.
const RELAY_STATE: &str = "relay";

/// Forwards every call to the ResourceManager group (Hadoop's `DefaultRequestInterceptor`),
/// through an [`RmClient`] on the scheduler addresses: failover between replicas, leader hints,
/// and resending of calls whose outcome is unknown (all of them are idempotent on the RM).
///
/// Guarantees:
/// - every call carries the RM-issued AMRMToken from the [`ApplicationContext`], never the local
///   one the AM presented;
/// - when a response carries a new AMRMToken (the RM rolled its key), the token is stored in
///   the context and removed from the response: the AM never sees an RM token;
/// - when the RM answers "not registered" (a new leader after a failover), the interceptor
///   registers again with the AM's remembered registration and re-sends everything the AM still
///   has outstanding (as Hadoop's `AMRMClientRelayer` does), within the same call; the AM
///   notices nothing, and its response ids continue as if the RM had not changed. If the AM
///   never registered through this proxy, the refusal goes to the AM, which registers itself.
///   The answer of a distributed-scheduling registration made again this way (the new
///   `container_id_start`, sizes and nodes) is left in the context for the
///   [`DistributedScheduler`](crate::DistributedScheduler)
///   ([`ApplicationContext::put_distributed_reregistration`]).
///
/// The distributed-scheduling variants call the RM's DistributedSchedulingAMProtocol on the same
/// address, with the same guarantees. The relayed session is the interceptor's persisted state.
/// It must be last in the chain: it never calls the next interceptor.
pub struct DefaultRequestInterceptor {
    rm: Arc<RmClient>,
    context: Option<ApplicationContext>,
    relay: AmRmRelay,
}

impl DefaultRequestInterceptor {
    /// An interceptor calling the RM group through `rm`, a client of
    /// [`RmService::Scheduler`](yarn_client::RmService::Scheduler), shared by every application
    /// of the node (it holds no token; each call carries its application's).
    pub fn new(rm: Arc<RmClient>) -> Self {
        Self {
            rm,
            context: None,
            relay: AmRmRelay::default(),
        }
    }

    fn context(&self) -> &ApplicationContext {
        self.context
            .as_ref()
            .expect("the chain initializes every interceptor before calling it")
    }

    /// One RM call with failover, carrying the RM AMRMToken.
    async fn call<Req, Resp, F, Fut>(
        &self,
        operation: &'static str,
        request: Req,
        op: F,
    ) -> Result<Resp, Error>
    where
        Req: Clone,
        F: Fn(Channel, Request<Req>) -> Fut,
        Fut: Future<Output = Result<Response<Resp>, Status>>,
    {
        let context = self.context();
        let token = context.rm_token();
        self.rm
            .call(Idempotency::Idempotent, |channel| {
                let mut call = Request::new(request.clone());
                insert_token(&mut call, AMRM_TOKEN_METADATA_KEY, &token);
                op(channel, call)
            })
            .await
            .map_err(|source| Error::Rm {
                operation,
                attempt: context.attempt().to_string(),
                source: Box::new(source),
            })
    }

    async fn rm_register(
        &self,
        request: pb::RegisterApplicationMasterRequestProto,
    ) -> Result<pb::RegisterApplicationMasterResponseProto, Error> {
        self.call("register", request, |channel, call| async move {
            ApplicationMasterProtocolClient::new(channel)
                .register_application_master(call)
                .await
        })
        .await
    }

    async fn rm_register_distributed(
        &self,
        request: pb::RegisterApplicationMasterRequestProto,
    ) -> Result<pb::RegisterDistributedSchedulingAmResponseProto, Error> {
        self.call(
            "register_for_distributed_scheduling",
            request,
            |channel, call| async move {
                DistributedSchedulingAmProtocolClient::new(channel)
                    .register_application_master_for_distributed_scheduling(call)
                    .await
            },
        )
        .await
    }

    async fn rm_allocate(
        &self,
        request: pb::AllocateRequestProto,
    ) -> Result<pb::AllocateResponseProto, Error> {
        self.call("allocate", request, |channel, call| async move {
            ApplicationMasterProtocolClient::new(channel)
                .allocate(call)
                .await
        })
        .await
    }

    async fn rm_allocate_distributed(
        &self,
        request: pb::DistributedSchedulingAllocateRequestProto,
    ) -> Result<pb::DistributedSchedulingAllocateResponseProto, Error> {
        self.call(
            "allocate_for_distributed_scheduling",
            request,
            |channel, call| async move {
                DistributedSchedulingAmProtocolClient::new(channel)
                    .allocate_for_distributed_scheduling(call)
                    .await
            },
        )
        .await
    }

    async fn rm_finish(
        &self,
        request: pb::FinishApplicationMasterRequestProto,
    ) -> Result<pb::FinishApplicationMasterResponseProto, Error> {
        self.call("finish", request, |channel, call| async move {
            ApplicationMasterProtocolClient::new(channel)
                .finish_application_master(call)
                .await
        })
        .await
    }

    /// Registers again with the AM's remembered registration, after the RM refused `operation`
    /// as not registered. `Ok(false)` when there is none to repeat: the refusal then goes to
    /// the AM.
    async fn register_again(&self, operation: &'static str) -> Result<bool, Error> {
        let Some((request, distributed)) = self.relay.registration() else {
            return Ok(false);
        };
        tracing::info!(
            attempt = %self.context().attempt(),
            operation,
            "the ResourceManager holds no registration of this attempt (failover); registering \
             it again and re-sending everything outstanding"
        );
        let request = request.clone();
        let outcome = if distributed {
            self.rm_register_distributed(request)
                .await
                .map(|response| self.context().put_distributed_reregistration(response))
        } else {
            self.rm_register(request).await.map(drop)
        };
        outcome.map_err(|source| Error::Reregistration {
            attempt: self.context().attempt().to_string(),
            source: Box::new(source),
        })?;
        Ok(true)
    }

    /// Takes a rolled RM AMRMToken out of `response` into the context.
    fn keep_rm_token(&self, response: &mut pb::AllocateResponseProto) {
        if let Some(token) = response.am_rm_token.take()
            && self.context().set_rm_token(token)
        {
            tracing::info!(
                attempt = %self.context().attempt(),
                "the ResourceManager rolled the attempt's AMRMToken; using the new one"
            );
        }
    }

    async fn relay_allocate(
        &mut self,
        request: pb::AllocateRequestProto,
    ) -> Result<pb::AllocateResponseProto, Error> {
        let to_rm = self.relay.request_for_rm(request.clone());
        let mut response = match self.rm_allocate(to_rm).await {
            Err(err) if refused_as_not_registered(&err) => {
                if !self.register_again("allocate").await? {
                    return Err(err);
                }
                let resync = self.relay.resync_request(request);
                self.rm_allocate(resync).await?
            }
            other => other?,
        };
        self.relay.response_for_am(&mut response);
        self.keep_rm_token(&mut response);
        Ok(response)
    }

    async fn relay_allocate_distributed(
        &mut self,
        mut request: pb::DistributedSchedulingAllocateRequestProto,
    ) -> Result<pb::DistributedSchedulingAllocateResponseProto, Error> {
        let allocate = request.allocate_request.take().unwrap_or_default();
        let to_rm = pb::DistributedSchedulingAllocateRequestProto {
            allocate_request: Some(self.relay.request_for_rm(allocate.clone())),
            allocated_containers: request.allocated_containers.clone(),
        };
        let mut response = match self.rm_allocate_distributed(to_rm).await {
            Err(err) if refused_as_not_registered(&err) => {
                if !self
                    .register_again("allocate_for_distributed_scheduling")
                    .await?
                {
                    return Err(err);
                }
                let resync = pb::DistributedSchedulingAllocateRequestProto {
                    allocate_request: Some(self.relay.resync_request(allocate)),
                    allocated_containers: request.allocated_containers,
                };
                self.rm_allocate_distributed(resync).await?
            }
            other => other?,
        };
        let inner =
            response
                .allocate_response
                .as_mut()
                .ok_or_else(|| Error::IncompleteRmResponse {
                    operation: "allocate_for_distributed_scheduling",
                    attempt: self.context().attempt().to_string(),
                    field: "allocate_response",
                })?;
        self.relay.response_for_am(inner);
        self.keep_rm_token(inner);
        Ok(response)
    }

    async fn relay_finish(
        &mut self,
        request: pb::FinishApplicationMasterRequestProto,
    ) -> Result<pb::FinishApplicationMasterResponseProto, Error> {
        match self.rm_finish(request.clone()).await {
            Err(err) if refused_as_not_registered(&err) => {
                if !self.register_again("finish").await? {
                    return Err(err);
                }
                self.rm_finish(request).await
            }
            other => other,
        }
    }
}

/// Whether `err` is the RM's "application master not registered" refusal.
fn refused_as_not_registered(err: &Error) -> bool {
    match err {
        Error::Rm { source, .. } => matches!(
            source.as_ref(),
            yarn_client::Error::CallFailed { status, .. } if is_not_registered(status)
        ),
        _ => false,
    }
}

impl RequestInterceptor for DefaultRequestInterceptor {
    fn init(&mut self, context: ApplicationContext) -> Result<(), Error> {
        self.context = Some(context);
        Ok(())
    }

    fn register<'a>(
        &'a mut self,
        request: pb::RegisterApplicationMasterRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::RegisterApplicationMasterResponseProto, Error>> {
        Box::pin(async move {
            let response = self.rm_register(request.clone()).await?;
            self.relay.registered(&request, false);
            Ok(response)
        })
    }

    fn allocate<'a>(
        &'a mut self,
        request: pb::AllocateRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::AllocateResponseProto, Error>> {
        Box::pin(self.relay_allocate(request))
    }

    fn finish<'a>(
        &'a mut self,
        request: pb::FinishApplicationMasterRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::FinishApplicationMasterResponseProto, Error>> {
        Box::pin(self.relay_finish(request))
    }

    fn register_for_distributed_scheduling<'a>(
        &'a mut self,
        request: pb::RegisterApplicationMasterRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::RegisterDistributedSchedulingAmResponseProto, Error>> {
        Box::pin(async move {
            let response = self.rm_register_distributed(request.clone()).await?;
            self.relay.registered(&request, true);
            Ok(response)
        })
    }

    fn allocate_for_distributed_scheduling<'a>(
        &'a mut self,
        request: pb::DistributedSchedulingAllocateRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::DistributedSchedulingAllocateResponseProto, Error>> {
        Box::pin(self.relay_allocate_distributed(request))
    }

    fn recover(&mut self, state: BTreeMap<String, Vec<u8>>) -> Result<(), Error> {
        if let Some(bytes) = state.get(RELAY_STATE) {
            self.relay = AmRmRelay::decode(bytes)?;
        }
        Ok(())
    }

    fn state(&self) -> BTreeMap<String, Vec<u8>> {
        BTreeMap::from([(RELAY_STATE.to_owned(), self.relay.encode())])
    }
}
