//! DistributedScheduler in a chain whose next interceptor is a scripted RM: OPPORTUNISTIC asks
//! are placed locally with RM-format tokens and never forwarded, GUARANTEED ones are, and each
//! local container is reported to the RM exactly once.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use yarn_amrmproxy::{
    ApplicationContext, BoxFuture, DISTRIBUTED_SCHEDULER, DistributedScheduler, Error,
    InterceptorChain, InterceptorPipeline, InterceptorRegistry, InterceptorRole, Next,
    RequestInterceptor,
};
use yarn_proto::pb;
use yarn_security::{Token, TokenSecretManager};

use crate::support::{
    T0, TestNode, USER, ask, attempt, container_key, nm_key, remote_node, rm_container, rm_token,
};

const START: i64 = 3 << 40;
const OPPORTUNISTIC: pb::ExecutionTypeProto = pb::ExecutionTypeProto::Opportunistic;
const GUARANTEED: pb::ExecutionTypeProto = pb::ExecutionTypeProto::Guaranteed;

/// What the scripted RM at the end of the chain answers and saw.
#[derive(Debug, Default)]
struct NextState {
    /// Sent with every allocate answer.
    nodes: Vec<pb::RemoteNodeProto>,
    /// Handed out with the next allocate answer.
    to_allocate: Vec<pb::ContainerProto>,
    /// Fail this many allocates before answering.
    failures: u32,
    response_id: i32,
    distributed_registrations: u32,
    allocates: Vec<pb::DistributedSchedulingAllocateRequestProto>,
    plain_allocates: u32,
}

struct ScriptedRm {
    state: Arc<Mutex<NextState>>,
}

impl RequestInterceptor for ScriptedRm {
    fn init(&mut self, _context: ApplicationContext) -> Result<(), Error> {
        Ok(())
    }

    fn allocate<'a>(
        &'a mut self,
        _request: pb::AllocateRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::AllocateResponseProto, Error>> {
        self.state.lock().unwrap().plain_allocates += 1;
        Box::pin(async { Ok(pb::AllocateResponseProto::default()) })
    }

    fn register_for_distributed_scheduling<'a>(
        &'a mut self,
        _request: pb::RegisterApplicationMasterRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::RegisterDistributedSchedulingAmResponseProto, Error>> {
        let mut state = self.state.lock().unwrap();
        state.distributed_registrations += 1;
        let response = pb::RegisterDistributedSchedulingAmResponseProto {
            register_response: Some(pb::RegisterApplicationMasterResponseProto {
                queue: "default".to_owned(),
                ..Default::default()
            }),
            max_container_resource: Some(resource(8192, 8)),
            min_container_resource: Some(resource(1024, 1)),
            incr_container_resource: Some(resource(512, 1)),
            container_token_expiry_interval: 600_000,
            container_id_start: START,
            nodes_for_scheduling: vec![remote_node("n1"), remote_node("n2")],
        };
        Box::pin(async move { Ok(response) })
    }

    fn allocate_for_distributed_scheduling<'a>(
        &'a mut self,
        request: pb::DistributedSchedulingAllocateRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::DistributedSchedulingAllocateResponseProto, Error>> {
        let mut state = self.state.lock().unwrap();
        let outcome = if state.failures > 0 {
            state.failures -= 1;
            Err(Error::Interceptor {
                interceptor: "scripted-rm".to_owned(),
                attempt: attempt(1).to_string(),
                source: "the RM is unreachable".into(),
            })
        } else {
            state.allocates.push(request);
            state.response_id += 1;
            Ok(pb::DistributedSchedulingAllocateResponseProto {
                allocate_response: Some(pb::AllocateResponseProto {
                    response_id: state.response_id,
                    allocated_containers: std::mem::take(&mut state.to_allocate),
                    ..Default::default()
                }),
                nodes_for_scheduling: state.nodes.clone(),
            })
        };
        Box::pin(async move { outcome })
    }
}

fn resource(memory: i64, vcores: i32) -> pb::ResourceProto {
    pb::ResourceProto {
        memory,
        virtual_cores: vcores,
        ..Default::default()
    }
}

struct Harness {
    pipeline: InterceptorPipeline,
    node: Arc<TestNode>,
    rm: Arc<Mutex<NextState>>,
}

impl Harness {
    fn new(node: Arc<TestNode>) -> Self {
        let rm = Arc::new(Mutex::new(NextState {
            nodes: vec![remote_node("n1"), remote_node("n2")],
            ..NextState::default()
        }));
        let mut registry = InterceptorRegistry::new();
        registry
            .register(DISTRIBUTED_SCHEDULER, InterceptorRole::Intermediate, || {
                Box::new(DistributedScheduler::new())
            })
            .unwrap();
        let state = Arc::clone(&rm);
        registry
            .register("scripted-rm", InterceptorRole::RmFacing, move || {
                Box::new(ScriptedRm {
                    state: Arc::clone(&state),
                })
            })
            .unwrap();
        let pipeline = InterceptorPipeline::new(&["scripted-rm".to_owned()], true, registry)
            .expect("pipeline");
        Self { pipeline, node, rm }
    }

    fn chain(&self) -> InterceptorChain {
        let context =
            ApplicationContext::new(attempt(1), USER, rm_token(attempt(1), 1), self.node.clone());
        self.pipeline.build(context).expect("chain")
    }

    fn rm(&self) -> MutexGuard<'_, NextState> {
        self.rm.lock().unwrap()
    }
}

async fn registered(harness: &Harness) -> InterceptorChain {
    let mut chain = harness.chain();
    let response = chain
        .register(pb::RegisterApplicationMasterRequestProto::default())
        .await
        .expect("register");
    assert_eq!(
        response.queue, "default",
        "the AM gets the plain registration"
    );
    assert_eq!(harness.rm().distributed_registrations, 1);
    chain
}

fn allocate(response_id: i32, asks: Vec<pb::ResourceRequestProto>) -> pb::AllocateRequestProto {
    pb::AllocateRequestProto {
        ask: asks,
        response_id,
        ..Default::default()
    }
}

fn opportunistic(containers: &[pb::ContainerProto]) -> Vec<&pb::ContainerProto> {
    containers
        .iter()
        .filter(|c| c.execution_type == OPPORTUNISTIC as i32)
        .collect()
}

fn raw_ids(containers: &[&pb::ContainerProto]) -> Vec<i64> {
    containers.iter().map(|c| c.id.unwrap().id).collect()
}

#[tokio::test]
async fn opportunistic_asks_are_placed_locally_and_only_guaranteed_ones_reach_the_rm() {
    let harness = Harness::new(TestNode::with_keys());
    let mut chain = registered(&harness).await;
    harness.rm().to_allocate = vec![rm_container(attempt(1), 1, "n9")];

    let guaranteed_ask = ask(1, "*", 2, GUARANTEED);
    let response = chain
        .allocate(allocate(
            0,
            vec![ask(2, "*", 3, OPPORTUNISTIC), guaranteed_ask.clone()],
        ))
        .await
        .expect("allocate");

    let rm = harness.rm();
    assert_eq!(rm.plain_allocates, 0);
    assert_eq!(rm.allocates.len(), 1);
    let forwarded = &rm.allocates[0];
    assert_eq!(
        forwarded.allocate_request.as_ref().unwrap().ask,
        [guaranteed_ask],
        "OPPORTUNISTIC asks never reach the RM"
    );
    assert_eq!(forwarded.allocated_containers.len(), 3);

    assert_eq!(response.allocated_containers.len(), 4);
    let local = opportunistic(&response.allocated_containers);
    assert_eq!(raw_ids(&local), [START - 1, START - 2, START - 3]);
    assert_eq!(
        forwarded
            .allocated_containers
            .iter()
            .map(|c| c.id.unwrap().id)
            .collect::<Vec<_>>(),
        raw_ids(&local)
    );
    let verifier = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(container_key());
    let mut hosts = Vec::new();
    for container in &local {
        let node = container.node_id.clone().unwrap();
        let node_id = format!("{}:{}", node.host, node.port);
        hosts.push(node.host.clone());
        assert_eq!(container.node_http_address, format!("{}:8042", node.host));
        let token = Token::try_from(container.container_token.clone().unwrap()).unwrap();
        assert_eq!(token.service, node_id);
        let identifier = verifier
            .verify(&token, T0)
            .expect("the node's container-token key verifies a local token");
        assert_eq!(identifier.container_id, container.id);
        assert_eq!(identifier.nm_host_addr, node_id);
        assert_eq!(identifier.app_submitter, USER);
        assert_eq!(
            identifier.rm_identifier, 3,
            "the epoch of container_id_start"
        );
        assert_eq!(identifier.execution_type(), OPPORTUNISTIC);
        assert_eq!(identifier.container_type(), pb::ContainerTypeProto::Task);
        assert_eq!(identifier.expiry_time_stamp, T0 + 600_000);
        assert_eq!(
            identifier.resource,
            Some(resource(1024, 1)),
            "1000 MB normalized"
        );
        assert_eq!(container.resource, Some(resource(1024, 1)));
        assert_eq!(identifier.priority.unwrap().priority, 2);
    }
    hosts.sort();
    hosts.dedup();
    assert_eq!(hosts, ["n1", "n2"], "spread over the least-loaded nodes");

    let nm_verifier = TokenSecretManager::<pb::NmTokenIdentifierProto>::new(nm_key());
    let mut token_nodes: Vec<String> = response
        .nm_tokens
        .iter()
        .map(|nm_token| {
            let token = Token::try_from(nm_token.token.clone().unwrap()).unwrap();
            let identifier = nm_verifier.verify(&token, T0).expect("NM token verifies");
            assert_eq!(identifier.app_attempt_id, Some(attempt(1).into()));
            assert_eq!(identifier.app_submitter, USER);
            identifier.node_id.unwrap().host
        })
        .collect();
    token_nodes.sort();
    assert_eq!(token_nodes, ["n1", "n2"]);
}

#[tokio::test]
async fn placed_containers_are_reported_exactly_once_and_the_node_list_follows_the_rm() {
    let harness = Harness::new(TestNode::with_keys());
    let mut chain = registered(&harness).await;
    chain
        .allocate(allocate(0, vec![ask(2, "*", 2, OPPORTUNISTIC)]))
        .await
        .unwrap();
    harness.rm().nodes = vec![remote_node("n3")];

    let quiet = chain.allocate(allocate(1, vec![])).await.unwrap();
    assert!(quiet.allocated_containers.is_empty());
    assert!(
        harness.rm().allocates[1].allocated_containers.is_empty(),
        "reported in the first allocate, never again"
    );

    let response = chain
        .allocate(allocate(2, vec![ask(3, "*", 1, OPPORTUNISTIC)]))
        .await
        .unwrap();
    let local = opportunistic(&response.allocated_containers);
    assert_eq!(raw_ids(&local), [START - 3], "ids keep counting down");
    assert_eq!(local[0].node_id.as_ref().unwrap().host, "n3");
    let reported = &harness.rm().allocates[2].allocated_containers;
    assert_eq!(reported.len(), 1);
    assert_eq!(reported[0].id.unwrap().id, START - 3);
    // n3 is new to the AM, so it gets an NM token for it; n1 and n2 are not repeated.
    assert_eq!(response.nm_tokens.len(), 1);
    assert_eq!(response.nm_tokens[0].node_id.as_ref().unwrap().host, "n3");
}

#[tokio::test]
async fn a_repeated_request_gets_the_same_containers_and_an_unreported_one_goes_again() {
    let harness = Harness::new(TestNode::with_keys());
    let mut chain = registered(&harness).await;
    harness.rm().failures = 1;
    let request = allocate(0, vec![ask(2, "*", 2, OPPORTUNISTIC)]);
    let err = chain.allocate(request.clone()).await.unwrap_err();
    assert!(matches!(err, Error::Interceptor { .. }), "{err:?}");

    let response = chain.allocate(request).await.unwrap();
    let local = opportunistic(&response.allocated_containers);
    assert_eq!(
        raw_ids(&local),
        [START - 1, START - 2],
        "the same containers"
    );
    assert_eq!(response.nm_tokens.len(), 2, "and their NM tokens");
    let reported: Vec<i64> = harness.rm().allocates[0]
        .allocated_containers
        .iter()
        .map(|c| c.id.unwrap().id)
        .collect();
    assert_eq!(reported, [START - 1, START - 2]);

    // The repeated ask was not counted twice: nothing more is placed.
    let next = chain.allocate(allocate(1, vec![])).await.unwrap();
    assert!(next.allocated_containers.is_empty());
    assert!(harness.rm().allocates[1].allocated_containers.is_empty());
}

#[tokio::test]
async fn nothing_is_placed_before_the_node_holds_the_rms_keys() {
    let node = TestNode::without_keys();
    let harness = Harness::new(node.clone());
    let mut chain = registered(&harness).await;
    let response = chain
        .allocate(allocate(0, vec![ask(2, "*", 1, OPPORTUNISTIC)]))
        .await
        .unwrap();
    assert!(response.allocated_containers.is_empty());
    assert!(harness.rm().allocates[0].allocated_containers.is_empty());
    assert!(
        harness.rm().allocates[0]
            .allocate_request
            .as_ref()
            .unwrap()
            .ask
            .is_empty()
    );

    node.install_keys();
    let response = chain.allocate(allocate(1, vec![])).await.unwrap();
    assert_eq!(
        raw_ids(&opportunistic(&response.allocated_containers)),
        [START - 1],
        "the waiting ask is placed once the keys arrive"
    );
}

#[tokio::test]
async fn an_ask_above_the_maximum_is_refused_and_nothing_is_forwarded() {
    let harness = Harness::new(TestNode::with_keys());
    let mut chain = registered(&harness).await;
    let mut big = ask(2, "*", 1, OPPORTUNISTIC);
    big.capability = Some(resource(10_000, 1));
    let err = chain.allocate(allocate(0, vec![big])).await.unwrap_err();
    assert!(matches!(err, Error::InvalidAsk { index: 0, .. }), "{err:?}");
    assert!(err.to_string().contains("maximum allocation"), "{err}");
    assert!(harness.rm().allocates.is_empty());
}

#[tokio::test]
async fn the_state_survives_a_restart_without_losing_reports_or_reissuing_ids() {
    let harness = Harness::new(TestNode::with_keys());
    let mut chain = registered(&harness).await;
    harness.rm().failures = 1;
    let request = allocate(0, vec![ask(2, "*", 2, OPPORTUNISTIC)]);
    chain.allocate(request.clone()).await.unwrap_err();
    let state: BTreeMap<String, Vec<u8>> = chain.state();
    assert!(
        state.contains_key("distributed-scheduler/context"),
        "{state:?}"
    );
    drop(chain);

    let mut recovered = harness.chain();
    recovered.recover(state).unwrap();
    let response = recovered.allocate(request).await.unwrap();
    assert_eq!(
        raw_ids(&opportunistic(&response.allocated_containers)),
        [START - 1, START - 2]
    );
    assert_eq!(harness.rm().allocates[0].allocated_containers.len(), 2);

    let response = recovered
        .allocate(allocate(1, vec![ask(3, "*", 1, OPPORTUNISTIC)]))
        .await
        .unwrap();
    assert_eq!(
        raw_ids(&opportunistic(&response.allocated_containers)),
        [START - 3]
    );
    // Registering again in the same epoch does not restart the countdown.
    recovered
        .register(pb::RegisterApplicationMasterRequestProto::default())
        .await
        .unwrap();
    let response = recovered
        .allocate(allocate(0, vec![ask(4, "*", 1, OPPORTUNISTIC)]))
        .await
        .unwrap();
    assert_eq!(
        raw_ids(&opportunistic(&response.allocated_containers)),
        [START - 4]
    );
}
