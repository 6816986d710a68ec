//! [`DistributedScheduler`]: places OPPORTUNISTIC containers on the AM's own node (Hadoop's
//! NM-side `DistributedScheduler`).

use std::collections::BTreeMap;

use yarn_proto::{pb, token_metadata};

use crate::opportunistic_context::{OpportunisticContext, Signer};
use crate::request_interceptor::{BoxFuture, Next};
use crate::{ApplicationContext, Error, RequestInterceptor};

/// The state key of the scheduling context.
const CONTEXT_STATE: &str = "context";

/// Serves an application's OPPORTUNISTIC asks in the AMRMProxy, without an RM round trip, on
/// the least-loaded nodes the RM lists; first in the chain when distributed scheduling is on.
///
/// - `register` becomes `registerApplicationMasterForDistributedScheduling` on the next
///   interceptor; the interceptor keeps the minimum, maximum and increment sizes, the container
///   token lifetime, `container_id_start` and the node list, and hands the AM the plain
///   registration response.
/// - `allocate` splits the asks by execution type. OPPORTUNISTIC ones go into a local ask
///   table and are placed by the shared
///   [`OpportunisticContainerAllocator`](yarn_opportunistic::OpportunisticContainerAllocator): ids
///   counted down from `container_id_start`, sizes normalized as the RM would, container
///   tokens signed with the node's container-token key (execution type OPPORTUNISTIC, the RM
///   epoch, `container_id_start / 2^40` rounded up, as `rm_identifier`), and NM tokens made
///   with the node's NM-token key for nodes the AM has no token for. Only the GUARANTEED asks
///   go on, through `allocateForDistributedScheduling`, together with every container placed
///   since the last successful call, so the RM records each exactly once. The local containers
///   are added to the RM's answer, and the node list is replaced by the one in it.
/// - When the RM refuses reported containers (naming them under
///   [`token_metadata::REMOTE_CONTAINERS_REFUSED_HEADER`]), they are dropped (the AM never got
///   them), their asks go back into the table, and the call is made again without them, so
///   one refusal never blocks the attempt's later calls.
/// - When the interceptor talking to the RM registered again on the AM's behalf (an RM
///   failover it hides), the new answer is adopted after the call: later containers count
///   down from the new `container_id_start` (never reissuing an id) and carry the new epoch,
///   and the new sizes and nodes apply.
/// - A request the AM sends again (same response id, after a lost answer) gets the same local
///   containers; nothing new is placed, and its asks are taken less those containers.
/// - Until the node holds both keys from the RM nothing is placed: the asks wait in the table.
/// - `finish` passes straight through.
///
/// The whole context (asks, id counter, nodes, unreported containers) is the persisted state,
/// so a NodeManager restart neither reissues ids nor loses a container the RM was not told of.
pub struct DistributedScheduler {
    context: Option<ApplicationContext>,
    opportunistic: OpportunisticContext,
}

impl DistributedScheduler {
    /// A scheduler with an empty context; the AM's registration fills it.
    pub fn new() -> Self {
        Self {
            context: None,
            opportunistic: OpportunisticContext::new(),
        }
    }

    fn context(&self) -> &ApplicationContext {
        self.context
            .as_ref()
            .expect("the chain initializes every interceptor before calling it")
    }

    async fn register_distributed(
        &mut self,
        request: pb::RegisterApplicationMasterRequestProto,
        mut next: Next<'_>,
    ) -> Result<pb::RegisterApplicationMasterResponseProto, Error> {
        let response = next.register_for_distributed_scheduling(request).await?;
        // This answer supersedes any registration made again behind the AM's back before.
        self.context().take_distributed_reregistration();
        self.opportunistic.registered(&response);
        response
            .register_response
            .ok_or_else(|| Error::IncompleteRmResponse {
                operation: "register_for_distributed_scheduling",
                attempt: self.context().attempt().to_string(),
                field: "register_response",
            })
    }

    async fn allocate_distributed(
        &mut self,
        mut request: pb::AllocateRequestProto,
        mut next: Next<'_>,
    ) -> Result<pb::AllocateResponseProto, Error> {
        let context = self.context().clone();
        let asks = std::mem::take(&mut request.ask);
        let repeat = self.opportunistic.is_repeat(request.response_id);
        request.ask = self
            .opportunistic
            .take_asks(context.attempt(), request.response_id, asks)?;
        self.opportunistic
            .update_blacklist(request.blacklist_request.as_ref());
        let (mut containers, nm_tokens) = if repeat {
            self.opportunistic.last_placed()
        } else {
            let node = context.node();
            let keys = node
                .container_token_master_key()
                .zip(node.nm_token_master_key());
            let signer = keys.as_ref().map(|(container_key, nm_key)| Signer {
                attempt: context.attempt(),
                user: context.user(),
                now_ms: node.now_ms(),
                container_key,
                nm_key,
            });
            self.opportunistic
                .place(request.response_id, signer.as_ref())?
        };
        let response = loop {
            let forwarded = pb::DistributedSchedulingAllocateRequestProto {
                allocate_request: Some(request.clone()),
                allocated_containers: self.opportunistic.unreported().to_vec(),
            };
            let outcome = next.allocate_for_distributed_scheduling(forwarded).await;
            // The interceptor talking to the RM may have registered again (a hidden failover),
            // whatever the outcome of the call itself.
            if let Some(registration) = context.take_distributed_reregistration() {
                self.opportunistic.reregistered(&registration);
            }
            let error = match outcome {
                Ok(response) => break response,
                Err(error) => error,
            };
            let refused = if self.opportunistic.unreported().is_empty() {
                None
            } else {
                refused_remote_containers(&error)
            };
            let Some(refused) = refused else {
                return Err(error);
            };
            // Each round drops at least one container, so this ends.
            let dropped = self.opportunistic.refused(&refused);
            tracing::warn!(
                attempt = %context.attempt(),
                ?dropped,
                %error,
                "the ResourceManager refused OPPORTUNISTIC containers this proxy placed; \
                 dropping them (their AM never received them) and placing their asks again"
            );
            containers.retain(|container| !container.id.is_some_and(|id| dropped.contains(&id.id)));
        };
        self.opportunistic.reported();
        self.opportunistic
            .refresh_nodes(response.nodes_for_scheduling);
        let mut answer = response
            .allocate_response
            .ok_or_else(|| Error::IncompleteRmResponse {
                operation: "allocate_for_distributed_scheduling",
                attempt: context.attempt().to_string(),
                field: "allocate_response",
            })?;
        self.opportunistic.nm_tokens_seen(&answer.nm_tokens);
        answer.allocated_containers.extend(containers);
        answer.nm_tokens.extend(nm_tokens);
        Ok(answer)
    }
}

/// The raw ids of the containers the RM refused, when `err` is its refusal of a report of
/// locally placed containers.
fn refused_remote_containers(err: &Error) -> Option<Vec<i64>> {
    match err {
        Error::Rm { source, .. } => match source.as_ref() {
            yarn_client::Error::CallFailed { status, .. } => {
                token_metadata::refused_remote_containers(status)
            }
            _ => None,
        },
        _ => None,
    }
}

impl Default for DistributedScheduler {
    fn default() -> Self {
        Self::new()
    }
}

impl RequestInterceptor for DistributedScheduler {
    fn init(&mut self, context: ApplicationContext) -> Result<(), Error> {
        self.context = Some(context);
        Ok(())
    }

    fn register<'a>(
        &'a mut self,
        request: pb::RegisterApplicationMasterRequestProto,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::RegisterApplicationMasterResponseProto, Error>> {
        Box::pin(self.register_distributed(request, next))
    }

    fn allocate<'a>(
        &'a mut self,
        request: pb::AllocateRequestProto,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::AllocateResponseProto, Error>> {
        Box::pin(self.allocate_distributed(request, next))
    }

    fn recover(&mut self, state: BTreeMap<String, Vec<u8>>) -> Result<(), Error> {
        if let Some(bytes) = state.get(CONTEXT_STATE) {
            self.opportunistic = OpportunisticContext::decode(bytes)?;
        }
        Ok(())
    }

    fn state(&self) -> BTreeMap<String, Vec<u8>> {
        BTreeMap::from([(CONTEXT_STATE.to_owned(), self.opportunistic.encode())])
    }
}
