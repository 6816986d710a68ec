//! AmrmProxy and its gRPC service, called by an ApplicationMaster over the network: local
//! token authentication, recovery from the state store, local key rolls, and distributed
//! scheduling end to end.

use std::sync::Arc;

use tokio::net::TcpListener;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request};
use yarn_amrmproxy::{
    AmrmProxy, FORMAT_VERSION, InterceptorPipeline, InterceptorRegistry, MemoryProxyStateStore,
    ProxyConfig, ProxyMasterKeys, ProxyStateStore,
};
use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;
use yarn_proto::pb::application_master_protocol_client::ApplicationMasterProtocolClient;
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, insert_token};

use crate::fake_rm::FakeRm;
use crate::support::{T0, TestNode, USER, ask, attempt, proxy_config, rm_client, rm_token};

type AmClient = ApplicationMasterProtocolClient<Channel>;

/// A proxy on `node` and `store`, in front of `rm`, served on 127.0.0.1 port 0; returns it and
/// an AM's client of it.
async fn serve(
    config: &ProxyConfig,
    rm: &FakeRm,
    node: &Arc<TestNode>,
    store: &Arc<MemoryProxyStateStore>,
) -> (Arc<AmrmProxy>, AmClient) {
    let registry = InterceptorRegistry::with_builtins(config, rm_client(&rm.address));
    let pipeline = InterceptorPipeline::from_config(config, registry).unwrap();
    let proxy = Arc::new(
        AmrmProxy::new(config, pipeline, node.clone(), store.clone()).expect("proxy starts"),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(proxy.service())
            .serve_with_incoming(yarn_security::plaintext_incoming(listener)),
    );
    let channel = Endpoint::from_shared(format!("http://{address}"))
        .unwrap()
        .connect_lazy();
    (proxy, ApplicationMasterProtocolClient::new(channel))
}

fn signed<T>(body: T, token: &pb::TokenProto) -> Request<T> {
    let mut request = Request::new(body);
    insert_token(&mut request, AMRM_TOKEN_METADATA_KEY, token);
    request
}

fn allocate(response_id: i32, asks: Vec<pb::ResourceRequestProto>) -> pb::AllocateRequestProto {
    pb::AllocateRequestProto {
        ask: asks,
        response_id,
        ..Default::default()
    }
}

async fn register(am: &mut AmClient, token: &pb::TokenProto) {
    am.register_application_master(signed(Default::default(), token))
        .await
        .expect("register through the proxy");
}

#[tokio::test]
async fn an_am_with_its_local_token_is_served_and_the_rm_sees_only_the_rm_token() {
    let rm = FakeRm::start().await;
    let (node, store) = (
        TestNode::with_keys(),
        Arc::new(MemoryProxyStateStore::new()),
    );
    let (proxy, mut am) = serve(&proxy_config("default", false, &[]), &rm, &node, &store).await;
    let local = proxy
        .init_application(attempt(1), USER, rm_token(attempt(1), 1))
        .await
        .unwrap();
    assert_eq!(local.kind, "YARN_AM_RM_TOKEN");
    assert_eq!(local.service, "nm0:8049");
    assert_ne!(local, rm_token(attempt(1), 1));
    assert!(
        store
            .snapshot()
            .applications
            .contains_key(&attempt(1).application_id)
    );

    register(&mut am, &local).await;
    let response = am
        .allocate(signed(allocate(0, vec![]), &local))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(response.response_id, 1);
    let state = rm.state();
    assert_eq!(
        state.tokens,
        [rm_token(attempt(1), 1), rm_token(attempt(1), 1)]
    );
}

#[tokio::test]
async fn missing_forged_rm_issued_and_finished_tokens_are_permission_denied() {
    let rm = FakeRm::start().await;
    let (node, store) = (
        TestNode::with_keys(),
        Arc::new(MemoryProxyStateStore::new()),
    );
    let (proxy, mut am) = serve(&proxy_config("default", false, &[]), &rm, &node, &store).await;
    let local = proxy
        .init_application(attempt(1), USER, rm_token(attempt(1), 1))
        .await
        .unwrap();

    let status = am
        .register_application_master(Request::new(Default::default()))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    assert!(
        status.message().contains(AMRM_TOKEN_METADATA_KEY),
        "{status:?}"
    );

    let mut forged = local.clone();
    forged.password[3] ^= 0x55;
    let status = am
        .register_application_master(signed(Default::default(), &forged))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    assert!(status.message().contains("does not verify"), "{status:?}");

    let status = am
        .register_application_master(signed(Default::default(), &rm_token(attempt(1), 1)))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    assert!(
        status
            .message()
            .contains("not an AMRMToken of the AMRMProxy"),
        "{status:?}"
    );
    assert!(
        rm.state().registrations.is_empty(),
        "no refused call reached the RM"
    );

    assert!(
        proxy
            .stop_application(attempt(1).application_id)
            .await
            .unwrap()
    );
    assert!(store.snapshot().applications.is_empty());
    let status = am
        .register_application_master(signed(Default::default(), &local))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    assert!(
        status.message().contains("not known to this AMRMProxy"),
        "{status:?}"
    );
}

#[tokio::test]
async fn a_new_attempt_replaces_the_old_one_whose_token_stops_working() {
    let rm = FakeRm::start().await;
    let (node, store) = (
        TestNode::with_keys(),
        Arc::new(MemoryProxyStateStore::new()),
    );
    let (proxy, mut am) = serve(&proxy_config("default", false, &[]), &rm, &node, &store).await;
    let first = proxy
        .init_application(attempt(1), USER, rm_token(attempt(1), 1))
        .await
        .unwrap();
    let second_attempt = ApplicationAttemptId::new(attempt(1).application_id, 2);
    let second = proxy
        .init_application(second_attempt, USER, rm_token(second_attempt, 1))
        .await
        .unwrap();
    assert_eq!(proxy.attempts(), [second_attempt]);
    let status = am
        .register_application_master(signed(Default::default(), &first))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    register(&mut am, &second).await;
    assert_eq!(rm.state().tokens, [rm_token(second_attempt, 1)]);
}

#[tokio::test]
async fn a_recovered_proxy_serves_the_same_attempt_where_it_left_off() {
    let rm = FakeRm::start().await;
    let (node, store) = (
        TestNode::with_keys(),
        Arc::new(MemoryProxyStateStore::new()),
    );
    let config = proxy_config("default", false, &[]);
    let local = {
        let (proxy, mut am) = serve(&config, &rm, &node, &store).await;
        let local = proxy
            .init_application(attempt(1), USER, rm_token(attempt(1), 1))
            .await
            .unwrap();
        register(&mut am, &local).await;
        am.allocate(signed(
            allocate(0, vec![ask(1, "*", 2, pb::ExecutionTypeProto::Guaranteed)]),
            &local,
        ))
        .await
        .unwrap();
        local
    };

    // The NodeManager restarts: a new proxy on the same store.
    let (proxy, mut am) = serve(&config, &rm, &node, &store).await;
    let report = proxy.recover().unwrap();
    assert_eq!(report.recovered, [attempt(1)]);
    assert!(report.failed.is_empty());

    let response = am
        .allocate(signed(allocate(1, vec![]), &local))
        .await
        .expect("the AM's token from before the restart still works")
        .into_inner();
    assert_eq!(response.response_id, 2);

    // The recovered chain still knows the registration and the outstanding asks.
    rm.fail_over();
    let response = am
        .allocate(signed(allocate(2, vec![]), &local))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(response.response_id, 3);
    let state = rm.state();
    assert_eq!(state.registrations.len(), 2);
    assert_eq!(state.allocates.last().unwrap().ask.len(), 1);
    assert_eq!(state.allocates.last().unwrap().ask[0].num_containers, 2);
}

#[tokio::test]
async fn an_unreadable_record_is_reported_and_forgotten_while_the_others_recover() {
    let rm = FakeRm::start().await;
    let (node, store) = (
        TestNode::with_keys(),
        Arc::new(MemoryProxyStateStore::new()),
    );
    let config = proxy_config("default", false, &[]);
    {
        let (proxy, _) = serve(&config, &rm, &node, &store).await;
        proxy
            .init_application(attempt(1), USER, rm_token(attempt(1), 1))
            .await
            .unwrap();
    }
    store
        .put_application(attempt(2).application_id, vec![FORMAT_VERSION, 0xFF])
        .unwrap();
    let (proxy, _) = serve(&config, &rm, &node, &store).await;
    let report = proxy.recover().unwrap();
    assert_eq!(report.recovered, [attempt(1)]);
    assert_eq!(report.failed.len(), 1);
    assert_eq!(report.failed[0].0, attempt(2).application_id);
    assert!(
        !store
            .snapshot()
            .applications
            .contains_key(&attempt(2).application_id)
    );
}

#[tokio::test]
async fn a_local_key_roll_hands_the_am_a_new_local_token_and_never_an_rm_token() {
    let rm = FakeRm::start().await;
    let (node, store) = (
        TestNode::with_keys(),
        Arc::new(MemoryProxyStateStore::new()),
    );
    let config = proxy_config(
        "default",
        false,
        &[
            ("yarn.am.liveness-monitor.expiry-interval-ms", "1000"),
            (
                "yarn.resourcemanager.am-rm-tokens.master-key-rolling-interval-secs",
                "4",
            ),
        ],
    );
    let (proxy, mut am) = serve(&config, &rm, &node, &store).await;
    let old = proxy
        .init_application(attempt(1), USER, rm_token(attempt(1), 1))
        .await
        .unwrap();
    register(&mut am, &old).await;

    assert!(proxy.roll_keys(T0 + 3_999).unwrap().is_none());
    assert!(proxy.roll_keys(T0 + 4_000).unwrap().is_some());
    rm.state().new_amrm_token = Some(rm_token(attempt(1), 2));
    let response = am
        .allocate(signed(allocate(0, vec![]), &old))
        .await
        .unwrap()
        .into_inner();
    let new = response.am_rm_token.expect("a rolled local token");
    assert_eq!(new.service, "nm0:8049", "local, not the RM's rolled token");
    assert_ne!(new, old);

    // Once the next key is active the old token is refused and the new one works.
    assert!(proxy.roll_keys(T0 + 5_500).unwrap().is_some());
    let stored = ProxyMasterKeys::decode(&store.snapshot().master_keys.unwrap()).unwrap();
    assert!(stored.next.is_none(), "the activated keys are stored");
    let status = am
        .allocate(signed(allocate(1, vec![]), &old))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    let response = am
        .allocate(signed(allocate(1, vec![]), &new))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        response.am_rm_token, None,
        "the AM already has the signing key's token"
    );
    assert_eq!(rm.state().tokens.last().unwrap(), &rm_token(attempt(1), 2));
}

#[tokio::test]
async fn distributed_scheduling_end_to_end_places_locally_and_reports_to_the_rm() {
    let rm = FakeRm::start().await;
    let (node, store) = (
        TestNode::with_keys(),
        Arc::new(MemoryProxyStateStore::new()),
    );
    let (proxy, mut am) = serve(&proxy_config("default", true, &[]), &rm, &node, &store).await;
    let local = proxy
        .init_application(attempt(1), USER, rm_token(attempt(1), 1))
        .await
        .unwrap();
    register(&mut am, &local).await;
    assert!(
        rm.state().registrations[0].1,
        "registered for distributed scheduling"
    );

    let response = am
        .allocate(signed(
            allocate(
                0,
                vec![ask(2, "*", 2, pb::ExecutionTypeProto::Opportunistic)],
            ),
            &local,
        ))
        .await
        .unwrap()
        .into_inner();
    let ids: Vec<i64> = response
        .allocated_containers
        .iter()
        .map(|c| c.id.unwrap().id)
        .collect();
    assert_eq!(ids, [(3 << 40) - 1, (3 << 40) - 2]);
    let state = rm.state();
    assert!(state.allocates[0].ask.is_empty());
    let reported: Vec<i64> = state.reported.iter().map(|c| c.id.unwrap().id).collect();
    assert_eq!(reported, ids);
}
