//! [`OpportunisticContext`]: one application's distributed-scheduling state (Hadoop's
//! `OpportunisticContainerContext` on the NM side), as pure decisions.

use std::collections::{BTreeMap, BTreeSet};

use yarn_opportunistic::{
    Locality, OpportunisticAsk, OpportunisticContainerAllocator, OpportunisticPlacement,
    RemoteNode, Resource, merge_asks,
};
use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_security::{ContainerTokenFields, MasterKey, TokenSecretManager};

use crate::Error;
use crate::error::AskProblem;
use crate::stored_state::{decode_record, encode_record};

/// What the RM said at registration about how to allocate.
#[derive(Debug, Clone, PartialEq)]
struct AllocationParameters {
    minimum: pb::ResourceProto,
    maximum: pb::ResourceProto,
    increment: pb::ResourceProto,
    token_expiry_ms: i64,
    container_id_start: i64,
}

impl AllocationParameters {
    /// The RM epoch the parameters were given under, which container tokens carry as
    /// `rm_identifier`: the RM places `container_id_start` in `((epoch - 1) << 40, epoch << 40]`.
    fn epoch(&self) -> i64 {
        (self.container_id_start.saturating_sub(1) >> ContainerId::EPOCH_SHIFT) + 1
    }
}

/// The containers (and NM tokens) placed for the AM request with `response_id`, kept so that
/// the same request sent again gets the same answer instead of new containers.
#[derive(Debug, Clone, PartialEq)]
struct Exchange {
    response_id: i32,
    containers: Vec<pb::ContainerProto>,
    nm_tokens: Vec<pb::NmTokenProto>,
    /// The asks each placement was taken off, by scheduler key and resource name.
    charges: Vec<Charge>,
}

/// One container taken off one ask, with what it takes to give it back.
#[derive(Clone, PartialEq, prost::Message)]
struct Charge {
    #[prost(int32, tag = "1")]
    priority: i32,
    #[prost(int64, tag = "2")]
    allocation_request_id: i64,
    #[prost(string, tag = "3")]
    resource_name: String,
    /// The raw id of the container (0 in state written before it was kept).
    #[prost(int64, tag = "4")]
    container_id: i64,
    /// The ask's capability, as the AM asked (before normalization); absent only in state
    /// written before it was kept, whose charges are never given back (their id is 0).
    #[prost(message, optional, tag = "5")]
    capability: Option<pb::ResourceProto>,
    /// Whether the key's `"*"` ask kept containers to the places it names.
    #[prost(bool, tag = "6")]
    strict_locality: bool,
}

impl Charge {
    fn matches(&self, ask: &OpportunisticAsk) -> bool {
        (self.priority, self.allocation_request_id) == ask.scheduler_key()
            && self.resource_name == ask.resource_name
    }
}

/// What placing containers needs from the node and the application.
#[derive(Debug)]
pub(crate) struct Signer<'a> {
    /// The attempt the containers are for.
    pub attempt: ApplicationAttemptId,
    /// The application's submitter.
    pub user: &'a str,
    /// The node's clock.
    pub now_ms: i64,
    /// The node's current container-token master key.
    pub container_key: &'a MasterKey,
    /// The node's current NM-token master key.
    pub nm_key: &'a MasterKey,
}

/// One application's OPPORTUNISTIC asks, candidate nodes and container ids, and the containers
/// placed but not yet reported to the RM.
///
/// Guarantees:
/// - container ids count down from `container_id_start` (one below it first), never repeat
///   within an RM epoch, and never meet the ids the RM counts up from the same start;
/// - asks replace earlier ones by scheduler key and resource name, as in the RM, and each
///   placed container is taken off them;
/// - a request the AM sends again (same response id) gets the same containers and NM tokens,
///   and places nothing new; its asks still count, less the containers that answer them;
/// - every placed container stays in [`unreported`](Self::unreported) until
///   [`reported`](Self::reported) is called after a successful RM call, or until the RM
///   refuses it ([`refused`](Self::refused)), which gives its asks back;
/// - after a registration, ids go on below both the new start and every id already issued,
///   unless the start is of a later RM epoch (whose range lies above every id issued).
#[derive(Debug, Clone)]
pub(crate) struct OpportunisticContext {
    parameters: Option<AllocationParameters>,
    /// The last id handed out (or the start): the next one is one below.
    last_container_id: i64,
    nodes: Vec<pb::RemoteNodeProto>,
    asks: Vec<OpportunisticAsk>,
    allocator: OpportunisticContainerAllocator,
    blacklist: BTreeSet<String>,
    nm_token_nodes: BTreeSet<String>,
    unreported: Vec<pb::ContainerProto>,
    last_exchange: Option<Exchange>,
}

impl OpportunisticContext {
    /// A context that knows nothing until the AM registers.
    pub(crate) fn new() -> Self {
        Self {
            parameters: None,
            last_container_id: 0,
            nodes: Vec::new(),
            asks: Vec::new(),
            allocator: OpportunisticContainerAllocator::new(None),
            blacklist: BTreeSet::new(),
            nm_token_nodes: BTreeSet::new(),
            unreported: Vec::new(),
            last_exchange: None,
        }
    }

    /// Takes in the RM's answer to the AM's distributed registration: as
    /// [`reregistered`](Self::reregistered), plus the NM tokens the AM already holds; and the
    /// AM counts response ids from 0 again, so no later request repeats an earlier one.
    pub(crate) fn registered(
        &mut self,
        response: &pb::RegisterDistributedSchedulingAmResponseProto,
    ) {
        self.reregistered(response);
        if let Some(register) = &response.register_response {
            self.nm_tokens_seen(&register.nm_tokens_from_previous_attempts);
        }
        self.last_exchange = None;
    }

    /// Takes in the RM's answer to a distributed registration: sizes, token lifetime, node list,
    /// and where ids count down from. A start of a later RM epoch restarts the count there (it
    /// lies above the epoch before, so above every id issued so far); under the same epoch the
    /// count goes on below both the new start and the last id issued, so no id is issued
    /// twice. The AM's exchange is untouched: this is also how the answer of a registration
    /// made again behind the AM's back (an RM failover) is taken in.
    pub(crate) fn reregistered(
        &mut self,
        response: &pb::RegisterDistributedSchedulingAmResponseProto,
    ) {
        let minimum = response.min_container_resource.clone().unwrap_or_default();
        let parameters = AllocationParameters {
            maximum: response.max_container_resource.clone().unwrap_or_default(),
            // YARN's increment defaults to the minimum allocation.
            increment: response
                .incr_container_resource
                .clone()
                .unwrap_or_else(|| minimum.clone()),
            minimum,
            token_expiry_ms: i64::from(response.container_token_expiry_interval),
            container_id_start: response.container_id_start,
        };
        let start = parameters.container_id_start;
        self.last_container_id = match &self.parameters {
            Some(old) if parameters.epoch() <= old.epoch() => start.min(self.last_container_id),
            _ => start,
        };
        self.parameters = Some(parameters);
        self.refresh_nodes(response.nodes_for_scheduling.clone());
    }

    /// Whether an AM request with `response_id` repeats the last one.
    pub(crate) fn is_repeat(&self, response_id: i32) -> bool {
        self.last_exchange
            .as_ref()
            .is_some_and(|exchange| exchange.response_id == response_id)
    }

    /// What the last exchange placed, to answer a repeated request.
    pub(crate) fn last_placed(&self) -> (Vec<pb::ContainerProto>, Vec<pb::NmTokenProto>) {
        self.last_exchange
            .as_ref()
            .map(|exchange| (exchange.containers.clone(), exchange.nm_tokens.clone()))
            .unwrap_or_default()
    }

    /// Takes the OPPORTUNISTIC asks of the AM request `response_id` into the ask table and
    /// returns the others (for the RM) in their order.
    ///
    /// The AM's counts do not yet reflect containers it has not received; so when the request
    /// repeats the last one, whose containers are only now delivered, each ask is first reduced
    /// by the containers placed against it then. Taking the same request twice thus leaves the
    /// table as taking it once did.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidAsk`] for a malformed OPPORTUNISTIC ask or one above the maximum
    /// allocation, [`Error::OpportunisticAsksRefused`] when the table they make is not valid
    /// (a key without a `"*"` ask, sizes that differ within a key, one place asked twice).
    /// Nothing is taken then.
    pub(crate) fn take_asks(
        &mut self,
        attempt: ApplicationAttemptId,
        response_id: i32,
        asks: Vec<pb::ResourceRequestProto>,
    ) -> Result<Vec<pb::ResourceRequestProto>, Error> {
        let mut guaranteed = Vec::with_capacity(asks.len());
        let mut opportunistic = Vec::new();
        for (index, ask) in asks.into_iter().enumerate() {
            if !is_opportunistic(&ask) {
                guaranteed.push(ask);
                continue;
            }
            let invalid = |problem| Error::InvalidAsk {
                attempt: attempt.to_string(),
                index,
                problem,
            };
            opportunistic.push(self.opportunistic_ask(&ask).map_err(invalid)?);
        }
        if opportunistic.is_empty() {
            return Ok(guaranteed);
        }
        if let Some(exchange) = self
            .last_exchange
            .as_ref()
            .filter(|exchange| exchange.response_id == response_id)
        {
            for ask in &mut opportunistic {
                let placed = exchange.charges.iter().filter(|c| c.matches(ask)).count();
                let placed = u32::try_from(placed).unwrap_or(u32::MAX);
                ask.num_containers = ask.num_containers.saturating_sub(placed);
            }
        }
        let table = merge_asks(&self.asks, opportunistic).map_err(|source| {
            Error::OpportunisticAsksRefused {
                attempt: attempt.to_string(),
                source: Box::new(source),
            }
        })?;
        self.asks = table;
        Ok(guaranteed)
    }

    /// Applies the AM's blacklist changes to local placement.
    pub(crate) fn update_blacklist(&mut self, request: Option<&pb::ResourceBlacklistRequestProto>) {
        if let Some(request) = request {
            self.blacklist
                .extend(request.blacklist_additions.iter().cloned());
            for removed in &request.blacklist_removals {
                self.blacklist.remove(removed);
            }
        }
    }

    /// Places what the ask table allows on the candidate nodes and remembers the result as the
    /// answer to the AM request `response_id`: containers with ids, normalized sizes and
    /// container tokens, plus NM tokens for the nodes the AM has none for. Before the AM
    /// registered (no parameters) nothing is placed.
    ///
    /// # Errors
    ///
    /// [`Error::ContainerIdsExhausted`] when an id would become negative, or
    /// [`Error::OpportunisticAsksRefused`] should the allocator refuse the table. Nothing
    /// changes then.
    pub(crate) fn place(
        &mut self,
        response_id: i32,
        signer: Option<&Signer<'_>>,
    ) -> Result<(Vec<pb::ContainerProto>, Vec<pb::NmTokenProto>), Error> {
        let (Some(parameters), Some(signer)) = (&self.parameters, signer) else {
            self.last_exchange = Some(Exchange {
                response_id,
                containers: Vec::new(),
                nm_tokens: Vec::new(),
                charges: Vec::new(),
            });
            return Ok((Vec::new(), Vec::new()));
        };
        let candidates = remote_nodes(&self.nodes);
        let mut allocator = self.allocator.clone();
        let allocation = allocator
            .allocate(&self.asks, &candidates, &self.blacklist)
            .map_err(|source| Error::OpportunisticAsksRefused {
                attempt: signer.attempt.to_string(),
                source: Box::new(source),
            })?;
        let mut last_id = self.last_container_id;
        let mut containers = Vec::with_capacity(allocation.placements.len());
        let mut nm_token_nodes = self.nm_token_nodes.clone();
        let mut nm_tokens = Vec::new();
        let mut charges = Vec::new();
        for placement in &allocation.placements {
            let Ok(node) = placement.node_id.parse::<NodeId>() else {
                // remote_nodes only lists parseable ids; a placement elsewhere is impossible.
                continue;
            };
            last_id -= 1;
            let container_id = ContainerId::from_raw(signer.attempt, last_id).map_err(|_| {
                Error::ContainerIdsExhausted {
                    attempt: signer.attempt.to_string(),
                    container_id_start: parameters.container_id_start,
                }
            })?;
            containers.push(self.container(parameters, signer, placement, container_id, &node));
            let strict_locality = self.asks.iter().any(|ask| {
                ask.is_any()
                    && ask.scheduler_key() == (placement.priority, placement.allocation_request_id)
                    && !ask.relax_locality
            });
            charges.extend(charges_of(placement, &candidates, last_id, strict_locality));
            if nm_token_nodes.insert(node.to_string()) {
                nm_tokens.push(
                    TokenSecretManager::<pb::NmTokenIdentifierProto>::new(signer.nm_key.clone())
                        .sign_nm_token(signer.attempt, &node, signer.user),
                );
            }
        }
        self.allocator = allocator;
        self.asks = allocation.remaining;
        self.last_container_id = last_id;
        self.nm_token_nodes = nm_token_nodes;
        self.unreported.extend(containers.iter().cloned());
        self.last_exchange = Some(Exchange {
            response_id,
            containers: containers.clone(),
            nm_tokens: nm_tokens.clone(),
            charges,
        });
        Ok((containers, nm_tokens))
    }

    /// Containers placed locally that the RM has not yet been told about.
    pub(crate) fn unreported(&self) -> &[pb::ContainerProto] {
        &self.unreported
    }

    /// The RM accepted the call that reported [`unreported`](Self::unreported).
    pub(crate) fn reported(&mut self) {
        self.unreported.clear();
    }

    /// The RM refused the call that reported [`unreported`](Self::unreported), naming the
    /// containers it refused by raw id: drops those (every unreported one when it named none
    /// of them, so a retry never sends the same refused report) and gives their asks back, to
    /// be placed again under new ids. Returns the raw ids dropped.
    ///
    /// An unreported container never reached the AM (containers go out only with the answer
    /// of the RM call that reported them), so it is dropped from the last exchange too: a
    /// repeated request must not get it either.
    pub(crate) fn refused(&mut self, refused: &[i64]) -> Vec<i64> {
        let raw_id = |container: &pb::ContainerProto| container.id.map(|id| id.id);
        let named = |container: &pb::ContainerProto| {
            raw_id(container).is_some_and(|id| refused.contains(&id))
        };
        let drop_all = !self.unreported.iter().any(named);
        let (dropped, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.unreported)
            .into_iter()
            .partition(|container| drop_all || named(container));
        self.unreported = kept;
        let dropped: Vec<i64> = dropped.iter().filter_map(raw_id).collect();
        if let Some(exchange) = &mut self.last_exchange {
            exchange
                .containers
                .retain(|container| !raw_id(container).is_some_and(|id| dropped.contains(&id)));
            let (returned, charges): (Vec<_>, Vec<_>) = std::mem::take(&mut exchange.charges)
                .into_iter()
                .partition(|charge| dropped.contains(&charge.container_id));
            exchange.charges = charges;
            // A key's "*" charge comes before its host or rack charge, so a key that was
            // satisfied (and so left the table) gets its "*" ask back first.
            for charge in &returned {
                self.give_back(charge);
            }
        }
        dropped
    }

    /// Puts the container `charge` took off its ask back on it, bringing the ask back when
    /// it had left the table.
    fn give_back(&mut self, charge: &Charge) {
        if let Some(ask) = self.asks.iter_mut().find(|ask| charge.matches(ask)) {
            ask.num_containers = ask.num_containers.saturating_add(1);
            return;
        }
        let capability = charge
            .capability
            .as_ref()
            .map_or(Resource::new(0, 0), |asked| {
                Resource::new(
                    u64::try_from(asked.memory).unwrap_or(0),
                    u32::try_from(asked.virtual_cores).unwrap_or(0),
                )
            });
        self.asks.push(OpportunisticAsk {
            priority: charge.priority,
            allocation_request_id: charge.allocation_request_id,
            resource_name: charge.resource_name.clone(),
            num_containers: 1,
            capability,
            // Only the "*" ask's flag counts; host and rack asks keep YARN's default.
            relax_locality: !(charge.strict_locality
                && charge.resource_name == OpportunisticAsk::ANY),
        });
    }

    /// Replaces the candidate nodes with the RM's latest least-loaded list.
    pub(crate) fn refresh_nodes(&mut self, nodes: Vec<pb::RemoteNodeProto>) {
        self.nodes = nodes;
    }

    /// Notes nodes the AM received NM tokens for from the RM.
    pub(crate) fn nm_tokens_seen(&mut self, tokens: &[pb::NmTokenProto]) {
        for token in tokens {
            if let Some(node) = token
                .node_id
                .clone()
                .and_then(|node| NodeId::try_from(node).ok())
            {
                self.nm_token_nodes.insert(node.to_string());
            }
        }
    }

    fn container(
        &self,
        parameters: &AllocationParameters,
        signer: &Signer<'_>,
        placement: &OpportunisticPlacement,
        container_id: ContainerId,
        node: &NodeId,
    ) -> pb::ContainerProto {
        let resource = normalize(placement.capability, parameters);
        let node_name = node.to_string();
        // Signed as the RM signs an OPPORTUNISTIC task container, with the key the node got
        // from the RM, so that no NodeManager can tell the two apart.
        let token = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(
            signer.container_key.clone(),
        )
        .sign_container_token(&ContainerTokenFields {
            container_id,
            node: &node_name,
            user: signer.user,
            resource: resource.clone(),
            priority: placement.priority,
            allocation_request_id: placement.allocation_request_id,
            container_type: pb::ContainerTypeProto::Task,
            execution_type: pb::ExecutionTypeProto::Opportunistic,
            version: 0,
            rm_identifier: parameters.epoch(),
            now_ms: signer.now_ms,
            expiry_ms: signer.now_ms.saturating_add(parameters.token_expiry_ms),
        });
        let http_address = self
            .nodes
            .iter()
            .find(|candidate| {
                candidate
                    .node_id
                    .as_ref()
                    .is_some_and(|id| id.host == node.host && id.port == i32::from(node.port))
            })
            .map(|candidate| candidate.http_address.clone())
            .unwrap_or_default();
        pb::ContainerProto {
            id: Some(container_id.into()),
            node_id: Some(node.into()),
            node_http_address: http_address,
            resource: Some(resource),
            priority: Some(pb::PriorityProto {
                priority: placement.priority,
            }),
            container_token: Some(token),
            execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
            allocation_request_id: Some(placement.allocation_request_id),
            version: 0,
        }
    }

    fn opportunistic_ask(
        &self,
        ask: &pb::ResourceRequestProto,
    ) -> Result<OpportunisticAsk, AskProblem> {
        let capability = ask
            .capability
            .as_ref()
            .ok_or(AskProblem::MissingCapability)?;
        let (Ok(memory_mb), Ok(vcores)) = (
            u64::try_from(capability.memory),
            u32::try_from(capability.virtual_cores),
        ) else {
            return Err(AskProblem::NegativeCapability {
                memory: capability.memory,
                vcores: capability.virtual_cores,
            });
        };
        let num_containers =
            u32::try_from(ask.num_containers).map_err(|_| AskProblem::NegativeCount {
                count: ask.num_containers,
            })?;
        if let Some(parameters) = &self.parameters {
            let maximum = &parameters.maximum;
            let above = |asked: i64, max: i64| max > 0 && asked > max;
            if above(capability.memory, maximum.memory)
                || above(
                    i64::from(capability.virtual_cores),
                    i64::from(maximum.virtual_cores),
                )
            {
                return Err(AskProblem::AboveMaximum {
                    memory: capability.memory,
                    vcores: capability.virtual_cores,
                    max_memory: maximum.memory,
                    max_vcores: maximum.virtual_cores,
                });
            }
        }
        let resource_name = if ask.resource_name.is_empty() {
            OpportunisticAsk::ANY.to_owned()
        } else {
            ask.resource_name.clone()
        };
        Ok(OpportunisticAsk {
            priority: ask.priority.map_or(0, |p| p.priority),
            allocation_request_id: ask.allocation_request_id,
            resource_name,
            num_containers,
            capability: Resource::new(memory_mb, vcores),
            relax_locality: ask.relax_locality.unwrap_or(true),
        })
    }

    /// The context as persisted.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let parameters = self.parameters.as_ref();
        let exchange = self.last_exchange.as_ref();
        encode_record(&StoredContext {
            registered: parameters.is_some(),
            minimum: parameters.map(|p| p.minimum.clone()),
            maximum: parameters.map(|p| p.maximum.clone()),
            increment: parameters.map(|p| p.increment.clone()),
            token_expiry_ms: parameters.map_or(0, |p| p.token_expiry_ms),
            container_id_start: parameters.map_or(0, |p| p.container_id_start),
            last_container_id: self.last_container_id,
            nodes: self.nodes.clone(),
            asks: self.asks.iter().map(ask_proto).collect(),
            blacklist: self.blacklist.iter().cloned().collect(),
            nm_token_nodes: self.nm_token_nodes.iter().cloned().collect(),
            unreported: self.unreported.clone(),
            last_response_id: exchange.map(|e| e.response_id),
            last_containers: exchange.map(|e| e.containers.clone()).unwrap_or_default(),
            last_nm_tokens: exchange.map(|e| e.nm_tokens.clone()).unwrap_or_default(),
            last_charges: exchange.map(|e| e.charges.clone()).unwrap_or_default(),
        })
    }

    /// Reads a context written by [`encode`](Self::encode).
    pub(crate) fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let stored: StoredContext = decode_record("distributed scheduler state", bytes)?;
        let parameters = stored.registered.then(|| AllocationParameters {
            minimum: stored.minimum.unwrap_or_default(),
            maximum: stored.maximum.unwrap_or_default(),
            increment: stored.increment.unwrap_or_default(),
            token_expiry_ms: stored.token_expiry_ms,
            container_id_start: stored.container_id_start,
        });
        let mut context = Self {
            parameters,
            last_container_id: stored.last_container_id,
            nodes: stored.nodes,
            blacklist: stored.blacklist.into_iter().collect(),
            nm_token_nodes: stored.nm_token_nodes.into_iter().collect(),
            unreported: stored.unreported,
            last_exchange: stored.last_response_id.map(|response_id| Exchange {
                response_id,
                containers: stored.last_containers,
                nm_tokens: stored.last_nm_tokens,
                charges: stored.last_charges,
            }),
            ..Self::new()
        };
        let mut asks = Vec::with_capacity(stored.asks.len());
        for ask in &stored.asks {
            asks.push(
                context
                    .opportunistic_ask(ask)
                    .map_err(|problem| Error::CorruptState {
                        record: "distributed scheduler state",
                        reason: format!("a stored ask is invalid: {problem}"),
                    })?,
            );
        }
        context.asks = asks;
        Ok(context)
    }
}

/// Whether `ask` wants OPPORTUNISTIC containers.
fn is_opportunistic(ask: &pb::ResourceRequestProto) -> bool {
    ask.execution_type_request
        .as_ref()
        .is_some_and(|request| request.execution_type() == pb::ExecutionTypeProto::Opportunistic)
}

/// The RM's list as allocator candidates: entries without a usable node id are left out, and a
/// node listed twice counts once.
fn remote_nodes(nodes: &[pb::RemoteNodeProto]) -> Vec<RemoteNode> {
    let mut seen = BTreeMap::new();
    nodes
        .iter()
        .filter_map(|node| {
            let id = NodeId::try_from(node.node_id.clone()?).ok()?;
            seen.insert(id.to_string(), ())
                .is_none()
                .then(|| RemoteNode {
                    node_id: id.to_string(),
                    host: id.host.clone(),
                    rack: node.rack_name.clone(),
                    queue_room: None,
                })
        })
        .collect()
}

/// The asks `placement` (the container `container_id`) was taken off, as the allocator counts:
/// the `"*"` ask always, and the host ask (node-local) or the rack ask (rack-local) of the node
/// it went to. `strict_locality` says whether the key's `"*"` ask did not relax locality.
fn charges_of(
    placement: &OpportunisticPlacement,
    candidates: &[RemoteNode],
    container_id: i64,
    strict_locality: bool,
) -> Vec<Charge> {
    let capability = pb::ResourceProto {
        memory: i64::try_from(placement.capability.memory_mb).unwrap_or(i64::MAX),
        virtual_cores: i32::try_from(placement.capability.vcores).unwrap_or(i32::MAX),
        ..Default::default()
    };
    let charge = |resource_name: &str| Charge {
        priority: placement.priority,
        allocation_request_id: placement.allocation_request_id,
        resource_name: resource_name.to_owned(),
        container_id,
        capability: Some(capability.clone()),
        strict_locality,
    };
    let mut charges = vec![charge(OpportunisticAsk::ANY)];
    match placement.locality {
        Locality::NodeLocal => charges.push(charge(&placement.host)),
        Locality::RackLocal => charges.extend(
            candidates
                .iter()
                .find(|node| node.node_id == placement.node_id)
                .map(|node| charge(&node.rack)),
        ),
        Locality::OffSwitch => {}
    }
    charges
}

/// `asked` raised to the minimum, rounded up to the increment and capped at the maximum, per
/// dimension, as YARN's DominantResourceCalculator normalizes opportunistic asks. A zero
/// increment or maximum (the RM did not say) leaves that step out.
fn normalize(asked: Resource, parameters: &AllocationParameters) -> pb::ResourceProto {
    let dimension = |asked: i64, minimum: i64, increment: i64, maximum: i64| {
        let raised = asked.max(minimum);
        let rounded = if increment > 0 {
            ceil_div(raised, increment).saturating_mul(increment)
        } else {
            raised
        };
        if maximum > 0 {
            rounded.min(maximum)
        } else {
            rounded
        }
    };
    let memory = dimension(
        i64::try_from(asked.memory_mb).unwrap_or(i64::MAX),
        parameters.minimum.memory,
        parameters.increment.memory,
        parameters.maximum.memory,
    );
    let vcores = dimension(
        i64::from(asked.vcores),
        i64::from(parameters.minimum.virtual_cores),
        i64::from(parameters.increment.virtual_cores),
        i64::from(parameters.maximum.virtual_cores),
    );
    pb::ResourceProto {
        memory,
        virtual_cores: i32::try_from(vcores).unwrap_or(i32::MAX),
        ..Default::default()
    }
}

/// `value / step` rounded up, for a non-negative `value` and a positive `step`.
fn ceil_div(value: i64, step: i64) -> i64 {
    value / step + i64::from(value % step != 0)
}

/// An ask of the table as the AM would have sent it, for persisting.
fn ask_proto(ask: &OpportunisticAsk) -> pb::ResourceRequestProto {
    pb::ResourceRequestProto {
        priority: Some(pb::PriorityProto {
            priority: ask.priority,
        }),
        resource_name: ask.resource_name.clone(),
        capability: Some(pb::ResourceProto {
            memory: i64::try_from(ask.capability.memory_mb).unwrap_or(i64::MAX),
            virtual_cores: i32::try_from(ask.capability.vcores).unwrap_or(i32::MAX),
            ..Default::default()
        }),
        num_containers: i32::try_from(ask.num_containers).unwrap_or(i32::MAX),
        relax_locality: Some(ask.relax_locality),
        execution_type_request: Some(pb::ExecutionTypeRequestProto {
            execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
            enforce_execution_type: true,
        }),
        allocation_request_id: ask.allocation_request_id,
        ..Default::default()
    }
}

#[derive(Clone, PartialEq, prost::Message)]
struct StoredContext {
    #[prost(bool, tag = "1")]
    registered: bool,
    #[prost(message, optional, tag = "2")]
    minimum: Option<pb::ResourceProto>,
    #[prost(message, optional, tag = "3")]
    maximum: Option<pb::ResourceProto>,
    #[prost(message, optional, tag = "4")]
    increment: Option<pb::ResourceProto>,
    #[prost(int64, tag = "5")]
    token_expiry_ms: i64,
    #[prost(int64, tag = "6")]
    container_id_start: i64,
    #[prost(int64, tag = "7")]
    last_container_id: i64,
    #[prost(message, repeated, tag = "8")]
    nodes: Vec<pb::RemoteNodeProto>,
    #[prost(message, repeated, tag = "9")]
    asks: Vec<pb::ResourceRequestProto>,
    #[prost(string, repeated, tag = "10")]
    blacklist: Vec<String>,
    #[prost(string, repeated, tag = "11")]
    nm_token_nodes: Vec<String>,
    #[prost(message, repeated, tag = "12")]
    unreported: Vec<pb::ContainerProto>,
    #[prost(int32, optional, tag = "13")]
    last_response_id: Option<i32>,
    #[prost(message, repeated, tag = "14")]
    last_containers: Vec<pb::ContainerProto>,
    #[prost(message, repeated, tag = "15")]
    last_nm_tokens: Vec<pb::NmTokenProto>,
    #[prost(message, repeated, tag = "16")]
    last_charges: Vec<Charge>,
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;

    use super::*;

    const START: i64 = 3 << 40;

    fn attempt() -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(1_690_000_000_000, 1), 1)
    }

    fn resource(memory: i64) -> Option<pb::ResourceProto> {
        Some(pb::ResourceProto {
            memory,
            virtual_cores: 1,
            ..Default::default()
        })
    }

    fn node(host: &str) -> pb::RemoteNodeProto {
        pb::RemoteNodeProto {
            node_id: Some(pb::NodeIdProto {
                host: host.to_owned(),
                port: 8041,
            }),
            rack_name: "/rack".to_owned(),
            ..Default::default()
        }
    }

    fn registration(start: i64) -> pb::RegisterDistributedSchedulingAmResponseProto {
        pb::RegisterDistributedSchedulingAmResponseProto {
            min_container_resource: resource(1024),
            max_container_resource: resource(8192),
            container_token_expiry_interval: 600_000,
            container_id_start: start,
            nodes_for_scheduling: vec![node("n1"), node("n2")],
            ..Default::default()
        }
    }

    fn ask(name: &str, count: i32, relax_locality: bool) -> pb::ResourceRequestProto {
        pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority: 1 }),
            resource_name: name.to_owned(),
            capability: resource(1000),
            num_containers: count,
            relax_locality: Some(relax_locality),
            execution_type_request: Some(pb::ExecutionTypeRequestProto {
                execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
                enforce_execution_type: true,
            }),
            ..Default::default()
        }
    }

    /// Takes `asks` with the AM request `response_id` and places what they allow; returns the
    /// raw ids, hosts and token epochs of the containers.
    fn exchange(
        context: &mut OpportunisticContext,
        response_id: i32,
        asks: Vec<pb::ResourceRequestProto>,
    ) -> Vec<(i64, String, i64)> {
        let (container_key, nm_key) = (
            MasterKey::new(11, [0xC1; MasterKey::LEN]),
            MasterKey::new(21, [0x21; MasterKey::LEN]),
        );
        let signer = Signer {
            attempt: attempt(),
            user: "alice",
            now_ms: 1_700_000_000_000,
            container_key: &container_key,
            nm_key: &nm_key,
        };
        context.take_asks(attempt(), response_id, asks).unwrap();
        let (containers, _) = context.place(response_id, Some(&signer)).unwrap();
        let verifier =
            TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(container_key.clone());
        containers
            .iter()
            .map(|container| {
                let token =
                    yarn_security::Token::try_from(container.container_token.clone().unwrap())
                        .unwrap();
                let identifier = verifier.verify(&token, signer.now_ms).unwrap();
                (
                    container.id.unwrap().id,
                    container.node_id.clone().unwrap().host,
                    identifier.rm_identifier,
                )
            })
            .collect()
    }

    fn ids(placed: &[(i64, String, i64)]) -> Vec<i64> {
        placed.iter().map(|(id, _, _)| *id).collect()
    }

    #[test]
    fn registering_again_never_reissues_an_id_and_a_later_epoch_restarts_the_count() {
        let mut context = OpportunisticContext::new();
        context.registered(&registration(START));
        let placed = exchange(&mut context, 0, vec![ask("*", 2, true)]);
        assert_eq!(ids(&placed), [START - 1, START - 2]);
        assert!(placed.iter().all(|(_, _, epoch)| *epoch == 3));
        context.reported();

        // The RM, holding only START - 1, hands out that as the start: the count goes on
        // below the last id issued, and so it does when the start is the same again.
        context.reregistered(&registration(START - 1));
        assert_eq!(
            ids(&exchange(&mut context, 1, vec![ask("*", 1, true)])),
            [START - 3]
        );
        context.reregistered(&registration(START));
        assert_eq!(
            ids(&exchange(&mut context, 2, vec![ask("*", 1, true)])),
            [START - 4]
        );
        // Below every id issued, the new start is taken as it is: an earlier attempt's ids lie
        // between.
        context.reregistered(&registration(START - 10));
        assert_eq!(
            ids(&exchange(&mut context, 3, vec![ask("*", 1, true)])),
            [START - 11]
        );

        // A later epoch: its range lies above everything issued.
        context.reregistered(&registration(4 << 40));
        let placed = exchange(&mut context, 4, vec![ask("*", 1, true)]);
        assert_eq!(ids(&placed), [(4 << 40) - 1]);
        assert_eq!(placed[0].2, 4, "tokens carry the new epoch");
    }

    #[test]
    fn a_refused_container_leaves_the_exchange_and_its_asks_come_back_as_they_were() {
        let mut context = OpportunisticContext::new();
        context.registered(&registration(START));
        // Two containers on n1 only: the "*" ask does not relax locality.
        let placed = exchange(
            &mut context,
            0,
            vec![ask("*", 2, false), ask("n1", 2, true)],
        );
        assert_eq!(
            placed,
            [
                (START - 1, "n1".to_owned(), 3),
                (START - 2, "n1".to_owned(), 3)
            ]
        );
        assert!(context.asks.is_empty(), "both asks satisfied");

        assert_eq!(context.refused(&[START - 2]), [START - 2]);
        assert_eq!(ids_of(context.unreported()), [START - 1]);
        assert_eq!(ids_of(&context.last_placed().0), [START - 1]);
        let mut given_back: Vec<(String, u32, bool, u64)> = context
            .asks
            .iter()
            .map(|ask| {
                (
                    ask.resource_name.clone(),
                    ask.num_containers,
                    ask.relax_locality,
                    ask.capability.memory_mb,
                )
            })
            .collect();
        given_back.sort();
        assert_eq!(
            given_back,
            [
                ("*".to_owned(), 1, false, 1000),
                ("n1".to_owned(), 1, true, 1000)
            ]
        );

        // A refusal naming none of the unreported containers drops them all.
        assert_eq!(context.refused(&[42]), [START - 1]);
        assert!(context.unreported().is_empty());
        assert!(context.last_placed().0.is_empty());
        // Both come back, on n1 only, under new ids.
        let placed = exchange(&mut context, 1, Vec::new());
        assert_eq!(
            placed,
            [
                (START - 3, "n1".to_owned(), 3),
                (START - 4, "n1".to_owned(), 3)
            ]
        );
    }

    fn ids_of(containers: &[pb::ContainerProto]) -> Vec<i64> {
        containers.iter().map(|c| c.id.unwrap().id).collect()
    }
}
