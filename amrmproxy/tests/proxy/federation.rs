//! Federation readiness: an interceptor registered by name ends the chain and talks to two RM
//! clusters itself, splitting the AM's asks between them and merging their answers.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::net::TcpListener;
use tonic::Request;
use tonic::transport::Endpoint;
use yarn_amrmproxy::{
    AmrmProxy, ApplicationContext, BoxFuture, Error, InterceptorPipeline, InterceptorRegistry,
    InterceptorRole, MemoryProxyStateStore, Next, RequestInterceptor,
};
use yarn_client::{Idempotency, RmClient};
use yarn_proto::pb;
use yarn_proto::pb::application_master_protocol_client::ApplicationMasterProtocolClient;
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, insert_token};

use crate::fake_rm::FakeRm;
use crate::support::{
    TestNode, USER, ask, attempt, proxy_config, rm_client, rm_container, rm_token,
};

const HOME: usize = 0;
const SECONDARY: usize = 1;

/// Sends asks for hosts whose name starts with `b` to the secondary cluster and everything
/// else to the home cluster; releases go to the cluster that allocated the container.
struct TwoClusterFederation {
    clusters: [Arc<RmClient>; 2],
    context: Option<ApplicationContext>,
    /// The last response id of each cluster: each counts on its own.
    response_ids: [i32; 2],
    /// Which cluster allocated each container, by raw id.
    owners: BTreeMap<i64, usize>,
}

impl TwoClusterFederation {
    fn cluster_of(ask: &pb::ResourceRequestProto) -> usize {
        if ask.resource_name.starts_with('b') {
            SECONDARY
        } else {
            HOME
        }
    }

    async fn call<Req: Clone, Resp>(
        &self,
        cluster: usize,
        request: Req,
        op: impl AsyncCall<Req, Resp>,
    ) -> Result<Resp, Error> {
        let context = self.context.as_ref().expect("initialized");
        let token = context.rm_token();
        self.clusters[cluster]
            .call(Idempotency::Idempotent, |channel| {
                let mut call = Request::new(request.clone());
                insert_token(&mut call, AMRM_TOKEN_METADATA_KEY, &token);
                op.call(ApplicationMasterProtocolClient::new(channel), call)
            })
            .await
            .map_err(|source| Error::Rm {
                operation: op.name(),
                attempt: context.attempt().to_string(),
                source: Box::new(source),
            })
    }
}

/// One ApplicationMasterProtocol RPC, so `call` can make it on either cluster.
trait AsyncCall<Req, Resp> {
    fn name(&self) -> &'static str;
    fn call(
        &self,
        client: ApplicationMasterProtocolClient<tonic::transport::Channel>,
        request: Request<Req>,
    ) -> BoxFuture<'static, Result<tonic::Response<Resp>, tonic::Status>>;
}

struct Register;

impl
    AsyncCall<pb::RegisterApplicationMasterRequestProto, pb::RegisterApplicationMasterResponseProto>
    for Register
{
    fn name(&self) -> &'static str {
        "register"
    }

    fn call(
        &self,
        mut client: ApplicationMasterProtocolClient<tonic::transport::Channel>,
        request: Request<pb::RegisterApplicationMasterRequestProto>,
    ) -> BoxFuture<
        'static,
        Result<tonic::Response<pb::RegisterApplicationMasterResponseProto>, tonic::Status>,
    > {
        Box::pin(async move { client.register_application_master(request).await })
    }
}

struct Allocate;

impl AsyncCall<pb::AllocateRequestProto, pb::AllocateResponseProto> for Allocate {
    fn name(&self) -> &'static str {
        "allocate"
    }

    fn call(
        &self,
        mut client: ApplicationMasterProtocolClient<tonic::transport::Channel>,
        request: Request<pb::AllocateRequestProto>,
    ) -> BoxFuture<'static, Result<tonic::Response<pb::AllocateResponseProto>, tonic::Status>> {
        Box::pin(async move { client.allocate(request).await })
    }
}

impl RequestInterceptor for TwoClusterFederation {
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
            self.call(SECONDARY, request.clone(), Register).await?;
            self.call(HOME, request, Register).await
        })
    }

    fn allocate<'a>(
        &'a mut self,
        request: pb::AllocateRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::AllocateResponseProto, Error>> {
        Box::pin(async move {
            let mut split: [pb::AllocateRequestProto; 2] = Default::default();
            for (cluster, part) in split.iter_mut().enumerate() {
                part.response_id = self.response_ids[cluster];
                part.progress = request.progress;
            }
            for ask in request.ask {
                split[Self::cluster_of(&ask)].ask.push(ask);
            }
            for release in request.release {
                let owner = self.owners.get(&release.id).copied().unwrap_or(HOME);
                split[owner].release.push(release);
            }
            let [home, secondary] = split;
            let secondary = self.call(SECONDARY, secondary, Allocate).await?;
            let mut merged = self.call(HOME, home, Allocate).await?;
            self.response_ids = [merged.response_id, secondary.response_id];
            for container in &merged.allocated_containers {
                self.owners.insert(container.id.unwrap().id, HOME);
            }
            for container in &secondary.allocated_containers {
                self.owners.insert(container.id.unwrap().id, SECONDARY);
            }
            merged
                .allocated_containers
                .extend(secondary.allocated_containers);
            merged.num_cluster_nodes += secondary.num_cluster_nodes;
            // The AM counts in the home cluster's response ids.
            Ok(merged)
        })
    }
}

#[tokio::test]
async fn a_federation_interceptor_registered_by_name_splits_asks_between_two_clusters() {
    let (home, secondary) = (FakeRm::start().await, FakeRm::start().await);
    let config = proxy_config("throttle,federation", false, &[]);
    let mut registry = InterceptorRegistry::with_builtins(&config, rm_client(&home.address));
    let clusters = [rm_client(&home.address), rm_client(&secondary.address)];
    registry
        .register("federation", InterceptorRole::RmFacing, move || {
            Box::new(TwoClusterFederation {
                clusters: clusters.clone(),
                context: None,
                response_ids: [0, 0],
                owners: BTreeMap::new(),
            })
        })
        .unwrap();
    let pipeline = InterceptorPipeline::from_config(&config, registry).unwrap();
    assert_eq!(pipeline.names(), ["throttle", "federation"]);
    let proxy = Arc::new(
        AmrmProxy::new(
            &config,
            pipeline,
            TestNode::with_keys(),
            Arc::new(MemoryProxyStateStore::new()),
        )
        .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(proxy.service())
            .serve_with_incoming(yarn_security::plaintext_incoming(listener)),
    );
    let mut am = ApplicationMasterProtocolClient::new(
        Endpoint::from_shared(format!("http://{address}"))
            .unwrap()
            .connect_lazy(),
    );
    let local = proxy
        .init_application(attempt(1), USER, rm_token(attempt(1), 1))
        .await
        .unwrap();

    am.register_application_master(signed(
        pb::RegisterApplicationMasterRequestProto::default(),
        &local,
    ))
    .await
    .unwrap();
    assert_eq!(home.state().registrations.len(), 1);
    assert_eq!(secondary.state().registrations.len(), 1);

    home.state().to_allocate = vec![rm_container(attempt(1), 1, "a1")];
    secondary.state().to_allocate = vec![rm_container(attempt(1), 2, "b1")];
    let guaranteed = pb::ExecutionTypeProto::Guaranteed;
    let response = am
        .allocate(signed(
            pb::AllocateRequestProto {
                ask: vec![
                    ask(1, "*", 2, guaranteed),
                    ask(1, "a1", 1, guaranteed),
                    ask(1, "b1", 1, guaranteed),
                ],
                ..Default::default()
            },
            &local,
        ))
        .await
        .unwrap()
        .into_inner();
    let hosts: Vec<String> = response
        .allocated_containers
        .iter()
        .map(|c| c.node_id.as_ref().unwrap().host.clone())
        .collect();
    assert_eq!(hosts, ["a1", "b1"], "one answer merged from both clusters");
    assert_eq!(response.num_cluster_nodes, 4);
    assert_eq!(response.response_id, 1);
    let names = |rm: &FakeRm| -> Vec<String> {
        rm.state().allocates[0]
            .ask
            .iter()
            .map(|a| a.resource_name.clone())
            .collect()
    };
    assert_eq!(names(&home), ["*", "a1"]);
    assert_eq!(names(&secondary), ["b1"]);

    // Releasing the secondary cluster's container goes to that cluster only.
    am.allocate(signed(
        pb::AllocateRequestProto {
            release: vec![response.allocated_containers[1].id.unwrap()],
            response_id: 1,
            ..Default::default()
        },
        &local,
    ))
    .await
    .unwrap();
    assert!(home.state().allocates[1].release.is_empty());
    assert_eq!(secondary.state().allocates[1].release.len(), 1);
    // Neither cluster ever saw the AM's local token.
    for rm in [&home, &secondary] {
        assert!(
            rm.state()
                .tokens
                .iter()
                .all(|t| *t == rm_token(attempt(1), 1))
        );
    }
}

fn signed<T>(body: T, token: &pb::TokenProto) -> Request<T> {
    let mut request = Request::new(body);
    insert_token(&mut request, AMRM_TOKEN_METADATA_KEY, token);
    request
}
