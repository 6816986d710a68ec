//! Federation, as YARN's FederationInterceptor does it, against two real ResourceManager
//! clusters in this process: an interceptor placed before the default one keeps the home
//! cluster on the rest of the chain (where the application's own, managed attempt runs) and,
//! on the secondary cluster, submits an unmanaged application, takes its AMRMToken from the
//! application report and acts as its AM. The ApplicationMaster sees one RM.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::net::TcpListener;
use tonic::Request;
use tonic::transport::Endpoint;
use yarn_amrmproxy::{
    AmrmProxy, ApplicationContext, BoxError, BoxFuture, DEFAULT_INTERCEPTOR,
    DefaultRequestInterceptor, Error, InterceptorChain, InterceptorPipeline, InterceptorRegistry,
    InterceptorRole, MemoryProxyStateStore, Next, RequestInterceptor,
};
use yarn_client::{ApplicationFilter, RmClient, RmService, YarnClient};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use yarn_proto::pb;
use yarn_proto::pb::application_master_protocol_client::ApplicationMasterProtocolClient;
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, insert_token};
use yarn_security::Role;
use yarn_security::pki::LeafSpec;
use yarn_test_support::pki::Pki;
use yarn_test_support::rm_cluster::{DEADLINE, RmCluster};

use crate::rm_cluster::{self, client_config, cluster_timestamp, register_node};
use crate::support::{TestNode, USER, ask, proxy_config};

/// The registered name of the test's interceptor.
const FEDERATION: &str = "federation";
/// The home cluster's only node; the AMRMProxy runs there, and calls both clusters with its
/// certificate.
const HOME_NODE: &str = "home-nm";
/// The secondary cluster's only node.
const SECONDARY_NODE: &str = "secondary-nm";
/// How often the interceptor asks for the unmanaged application's report while it waits for
/// its AMRMToken.
const REPORT_POLL: Duration = Duration::from_millis(20);

/// What the interceptor sent to each cluster, for the test to check the split.
#[derive(Debug, Default)]
struct Routed {
    home: Vec<pb::ResourceRequestProto>,
    secondary: Vec<pb::ResourceRequestProto>,
}

/// The way to the secondary cluster, shared by the interceptors of every application: its
/// client protocol as the application's user, its scheduler protocol through a one-interceptor
/// pipeline (`default`, on the secondary's scheduler addresses), and the hosts it owns.
struct SecondaryCluster {
    users: YarnClient,
    pipeline: InterceptorPipeline,
    hosts: BTreeSet<String>,
}

impl SecondaryCluster {
    fn new(users: YarnClient, scheduler: Arc<RmClient>, hosts: &[&str]) -> Self {
        let mut registry = InterceptorRegistry::new();
        registry
            .register(DEFAULT_INTERCEPTOR, InterceptorRole::RmFacing, move || {
                Box::new(DefaultRequestInterceptor::new(Arc::clone(&scheduler)))
            })
            .expect("a fresh registry");
        let pipeline = InterceptorPipeline::new(&[DEFAULT_INTERCEPTOR.to_owned()], false, registry)
            .expect("a valid pipeline");
        Self {
            users,
            pipeline,
            hosts: hosts.iter().map(|host| (*host).to_owned()).collect(),
        }
    }
}

/// The unmanaged AM one application runs on the secondary cluster: a chain of its own, whose
/// default interceptor hides the secondary's failovers and key rolls, and the response id of
/// its last allocate (it counts apart from the AM's).
struct UnmanagedAm {
    chain: InterceptorChain,
    response_id: i32,
}

/// The test's federation interceptor. Its split rule: the asks of one allocation request id go
/// to the secondary cluster when one of them names a host the secondary owns, and home
/// otherwise; a release goes to the cluster that allocated the container.
struct TwoClusterFederation {
    secondary: Arc<SecondaryCluster>,
    routed: Arc<Mutex<Routed>>,
    context: Option<ApplicationContext>,
    unmanaged: Option<UnmanagedAm>,
    /// The containers the secondary cluster allocated.
    secondary_containers: BTreeSet<ContainerId>,
}

impl TwoClusterFederation {
    fn new(secondary: Arc<SecondaryCluster>, routed: Arc<Mutex<Routed>>) -> Self {
        Self {
            secondary,
            routed,
            context: None,
            unmanaged: None,
            secondary_containers: BTreeSet::new(),
        }
    }

    fn context(&self) -> &ApplicationContext {
        self.context.as_ref().expect("initialized by the chain")
    }

    /// Submits the unmanaged application on the secondary cluster and waits for the AMRMToken
    /// its report hands the owner; returns the chain that acts as its AM. Takes its inputs
    /// owned: the interceptor itself may not cross an `.await` by reference (its chains are
    /// not `Sync`).
    async fn launch_unmanaged_am(
        secondary: Arc<SecondaryCluster>,
        context: ApplicationContext,
    ) -> Result<InterceptorChain, Error> {
        let failed = |source: BoxError| Error::Interceptor {
            interceptor: FEDERATION.to_owned(),
            attempt: context.attempt().to_string(),
            source,
        };
        let users = &secondary.users;
        let id = users
            .get_new_application()
            .await
            .map_err(|e| failed(e.into()))?
            .application_id;
        users
            .submit_application(pb::ApplicationSubmissionContextProto {
                application_id: Some(id.into()),
                application_name: Some(format!("unmanaged AM of {}", context.attempt())),
                unmanaged_am: true,
                ..Default::default()
            })
            .await
            .map_err(|e| failed(e.into()))?;
        let deadline = tokio::time::Instant::now() + DEADLINE;
        let (attempt, token) = loop {
            let report = users
                .get_application_report(id)
                .await
                .map_err(|e| failed(e.into()))?;
            if let (Some(attempt), Some(token)) =
                (report.current_application_attempt_id, report.am_rm_token)
            {
                let attempt =
                    ApplicationAttemptId::try_from(attempt).map_err(|e| failed(e.into()))?;
                break (attempt, token);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(failed(
                    format!("{id} reported no AMRMToken within {DEADLINE:?}").into(),
                ));
            }
            tokio::time::sleep(REPORT_POLL).await;
        };
        secondary.pipeline.build(ApplicationContext::new(
            attempt,
            context.user(),
            token,
            Arc::clone(context.node()),
        ))
    }

    /// Splits the AM's request by the rule: `(home, secondary)`. The home part keeps the AM's
    /// response id; the secondary part carries the unmanaged AM's.
    fn split(
        &self,
        request: pb::AllocateRequestProto,
        secondary_response_id: i32,
    ) -> (pb::AllocateRequestProto, pb::AllocateRequestProto) {
        let to_secondary: BTreeSet<i64> = request
            .ask
            .iter()
            .filter(|ask| self.secondary.hosts.contains(&ask.resource_name))
            .map(|ask| ask.allocation_request_id)
            .collect();
        let mut secondary = pb::AllocateRequestProto {
            response_id: secondary_response_id,
            progress: request.progress,
            ..Default::default()
        };
        let mut home = request;
        let (away, stay) = std::mem::take(&mut home.ask)
            .into_iter()
            .partition(|ask| to_secondary.contains(&ask.allocation_request_id));
        (secondary.ask, home.ask) = (away, stay);
        let (away, stay) = std::mem::take(&mut home.release)
            .into_iter()
            .partition(|release| {
                ContainerId::try_from(*release)
                    .is_ok_and(|id| self.secondary_containers.contains(&id))
            });
        (secondary.release, home.release) = (away, stay);
        (home, secondary)
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
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::RegisterApplicationMasterResponseProto, Error>> {
        Box::pin(async move {
            let home = next.register(request.clone()).await?;
            if self.unmanaged.is_none() {
                let launched =
                    Self::launch_unmanaged_am(Arc::clone(&self.secondary), self.context().clone());
                let mut chain = launched.await?;
                chain.register(request).await?;
                self.unmanaged = Some(UnmanagedAm {
                    chain,
                    response_id: 0,
                });
            }
            Ok(home)
        })
    }

    fn allocate<'a>(
        &'a mut self,
        request: pb::AllocateRequestProto,
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::AllocateResponseProto, Error>> {
        Box::pin(async move {
            let Some(response_id) = self.unmanaged.as_ref().map(|uam| uam.response_id) else {
                // Not registered: the home RM answers as it does to any such AM.
                return next.allocate(request).await;
            };
            let (home, secondary) = self.split(request, response_id);
            {
                let mut routed = self.routed.lock().unwrap_or_else(PoisonError::into_inner);
                routed.home.extend(home.ask.iter().cloned());
                routed.secondary.extend(secondary.ask.iter().cloned());
            }
            let mut merged = next.allocate(home).await?;
            let uam = self.unmanaged.as_mut().expect("checked above");
            let answer = uam.chain.allocate(secondary).await?;
            uam.response_id = answer.response_id;
            for container in &answer.allocated_containers {
                let id = container.id.map(ContainerId::try_from);
                if let Some(Ok(id)) = id {
                    self.secondary_containers.insert(id);
                }
            }
            merged
                .allocated_containers
                .extend(answer.allocated_containers);
            merged
                .completed_container_statuses
                .extend(answer.completed_container_statuses);
            merged.nm_tokens.extend(answer.nm_tokens);
            merged.num_cluster_nodes += answer.num_cluster_nodes;
            Ok(merged)
        })
    }

    fn finish<'a>(
        &'a mut self,
        request: pb::FinishApplicationMasterRequestProto,
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::FinishApplicationMasterResponseProto, Error>> {
        Box::pin(async move {
            if let Some(uam) = self.unmanaged.as_mut() {
                uam.chain.finish(request.clone()).await?;
            }
            next.finish(request).await
        })
    }

    fn shutdown(&mut self) {
        if let Some(uam) = self.unmanaged.as_mut() {
            uam.chain.shutdown();
        }
    }
}

/// A GUARANTEED ask of allocation request `id` for `count` containers at `name`.
fn request(id: i64, name: &str, count: i32) -> pb::ResourceRequestProto {
    pb::ResourceRequestProto {
        allocation_request_id: id,
        ..ask(1, name, count, pb::ExecutionTypeProto::Guaranteed)
    }
}

fn signed<T>(body: T, token: &pb::TokenProto) -> Request<T> {
    let mut request = Request::new(body);
    insert_token(&mut request, AMRM_TOKEN_METADATA_KEY, token);
    request
}

fn container_id(container: &pb::ContainerProto) -> ContainerId {
    ContainerId::try_from(container.id.expect("an id")).expect("a valid container id")
}

/// The ids of the containers `reports` lists, AM container included.
fn reported(reports: &[pb::ContainerReportProto]) -> BTreeSet<ContainerId> {
    reports
        .iter()
        .map(|r| ContainerId::try_from(r.container_id.expect("an id")).expect("a valid id"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_federation_interceptor_runs_an_unmanaged_am_on_a_secondary_cluster_and_splits_asks() {
    let mut leaves: Vec<LeafSpec> = ["home1", "home2", "home3", "secondary1"]
        .into_iter()
        .map(|id| LeafSpec::new(Role::ResourceManager, id))
        .collect();
    leaves.push(LeafSpec::new(Role::NodeManager, HOME_NODE));
    leaves.push(LeafSpec::new(Role::NodeManager, SECONDARY_NODE));
    leaves.push(LeafSpec::new(Role::User, USER));
    let pki = Arc::new(Pki::new(&leaves));

    tracing::info!("--- a three-replica home cluster and a one-replica secondary, one node each");
    let home = rm_cluster::start(&pki, "home", 3).await;
    // The secondary starts after the home cluster chose its timestamp, so the two differ and
    // every id tells its cluster.
    let home_timestamp = cluster_timestamp(&home).await;
    let secondary = rm_cluster::start(&pki, "secondary", 1).await;
    let secondary_timestamp = cluster_timestamp(&secondary).await;
    assert_ne!(home_timestamp, secondary_timestamp);
    // Roomy enough that the default queue's AM share (10%) fits the AM container.
    register_node(&home, HOME_NODE, 65536, 64).await;
    register_node(&secondary, SECONDARY_NODE, 8192, 8).await;
    let home_users = YarnClient::new(&client_config(&home, Role::User, USER));
    let secondary_users = YarnClient::new(&client_config(&secondary, Role::User, USER));

    tracing::info!("--- the application's managed attempt on the home cluster");
    let app = home_users
        .get_new_application()
        .await
        .expect("a new application")
        .application_id;
    home_users
        .submit_application(pb::ApplicationSubmissionContextProto {
            application_id: Some(app.into()),
            application_name: Some("federated".to_owned()),
            resource: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("submitted");
    let attempt = ApplicationAttemptId::new(app, 1);
    let rm_token = home.am_token(attempt).await;

    tracing::info!("--- the AMRMProxy of the home node: throttle, federation, default");
    let config = proxy_config("throttle,federation,default", false, &[]);
    let node_scheduler = |cluster: &RmCluster| {
        Arc::new(RmClient::new(
            &client_config(cluster, Role::NodeManager, HOME_NODE),
            RmService::Scheduler,
        ))
    };
    let mut registry = InterceptorRegistry::with_builtins(&config, node_scheduler(&home));
    let routed = Arc::new(Mutex::new(Routed::default()));
    let access = Arc::new(SecondaryCluster::new(
        YarnClient::new(&client_config(&secondary, Role::User, USER)),
        node_scheduler(&secondary),
        &[SECONDARY_NODE],
    ));
    let shared = Arc::clone(&routed);
    registry
        .register(FEDERATION, InterceptorRole::Intermediate, move || {
            Box::new(TwoClusterFederation::new(
                Arc::clone(&access),
                Arc::clone(&shared),
            ))
        })
        .unwrap();
    let pipeline = InterceptorPipeline::from_config(&config, registry).unwrap();
    assert_eq!(
        pipeline.names(),
        ["throttle", FEDERATION, DEFAULT_INTERCEPTOR]
    );
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
        .init_application(attempt, USER, rm_token)
        .await
        .unwrap();

    tracing::info!("--- register: home through the chain, an unmanaged AM on the secondary");
    am.register_application_master(signed(
        pb::RegisterApplicationMasterRequestProto::default(),
        &local,
    ))
    .await
    .expect("registered");
    let running = home_users.get_application_report(app).await.unwrap();
    assert_eq!(
        running.yarn_application_state(),
        pb::YarnApplicationStateProto::Running
    );
    let on_secondary = secondary_users
        .get_applications(&ApplicationFilter::default())
        .await
        .unwrap();
    assert_eq!(on_secondary.len(), 1, "one unmanaged application");
    let unmanaged = &on_secondary[0];
    assert!(unmanaged.unmanaged_application);
    assert_eq!(
        unmanaged.yarn_application_state(),
        pb::YarnApplicationStateProto::Running
    );
    let uam = ApplicationId::try_from(unmanaged.application_id.expect("an id")).unwrap();
    let uam_attempt = ApplicationAttemptId::new(uam, 1);

    tracing::info!("--- allocate: request 1 names a home host, request 2 a secondary host");
    let mut asks = vec![
        request(1, HOME_NODE, 1),
        request(1, "*", 1),
        request(2, SECONDARY_NODE, 2),
        request(2, "*", 2),
    ];
    let mut containers = Vec::new();
    let mut nm_token_hosts = BTreeSet::new();
    let mut response_id = 0;
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while containers.len() < 3 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "only {} of 3 containers within {DEADLINE:?}",
            containers.len()
        );
        let response = am
            .allocate(signed(
                pb::AllocateRequestProto {
                    ask: std::mem::take(&mut asks),
                    response_id,
                    ..Default::default()
                },
                &local,
            ))
            .await
            .expect("allocate")
            .into_inner();
        response_id = response.response_id;
        nm_token_hosts.extend(
            response
                .nm_tokens
                .iter()
                .filter_map(|t| t.node_id.as_ref().map(|n| n.host.clone())),
        );
        containers.extend(response.allocated_containers);
        // The scheduling loops of both clusters commit allocations every few milliseconds.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    {
        let routed = routed.lock().unwrap();
        let names = |asks: &[pb::ResourceRequestProto]| -> Vec<(i64, String)> {
            asks.iter()
                .map(|a| (a.allocation_request_id, a.resource_name.clone()))
                .collect()
        };
        assert_eq!(
            names(&routed.home),
            [(1, HOME_NODE.to_owned()), (1, "*".to_owned())]
        );
        assert_eq!(
            names(&routed.secondary),
            [(2, SECONDARY_NODE.to_owned()), (2, "*".to_owned())]
        );
    }
    let (from_home, from_secondary): (Vec<_>, Vec<_>) = containers.iter().partition(|c| {
        container_id(c)
            .application_attempt_id()
            .application_id
            .cluster_timestamp
            == home_timestamp
    });
    assert_eq!(from_home.len(), 1, "{containers:?}");
    assert_eq!(from_secondary.len(), 2, "{containers:?}");
    for (cluster_containers, owner, host, request_id) in [
        (&from_home, attempt, HOME_NODE, 1),
        (&from_secondary, uam_attempt, SECONDARY_NODE, 2),
    ] {
        for container in cluster_containers {
            assert_eq!(container_id(container).application_attempt_id(), owner);
            assert_eq!(container.node_id.as_ref().expect("a node").host, host);
            assert_eq!(container.allocation_request_id, Some(request_id));
        }
    }
    assert_eq!(
        nm_token_hosts,
        BTreeSet::from([HOME_NODE.to_owned(), SECONDARY_NODE.to_owned()]),
        "NM tokens for the nodes of both clusters"
    );
    // Each cluster's own container report confirms the allocation was its own.
    let home_ids: BTreeSet<ContainerId> = from_home.iter().map(|c| container_id(c)).collect();
    let secondary_ids: BTreeSet<ContainerId> =
        from_secondary.iter().map(|c| container_id(c)).collect();
    let home_reported = reported(&home_users.get_containers(attempt).await.unwrap());
    assert!(home_reported.is_superset(&home_ids), "{home_reported:?}");
    assert_eq!(home_reported.len(), 2, "the AM container and one task");
    let secondary_reported = reported(&secondary_users.get_containers(uam_attempt).await.unwrap());
    assert_eq!(secondary_reported, secondary_ids, "no AM container there");

    tracing::info!("--- a release of a secondary container goes back to the secondary");
    let released = *secondary_ids.first().expect("a secondary container");
    am.allocate(signed(
        pb::AllocateRequestProto {
            release: vec![released.into()],
            response_id,
            ..Default::default()
        },
        &local,
    ))
    .await
    .expect("release");
    let after_release = secondary_users.get_containers(uam_attempt).await.unwrap();
    let state_of = |id: ContainerId| {
        after_release
            .iter()
            .find(|r| r.container_id == Some(id.into()))
            .map(|r| r.container_state())
    };
    assert_eq!(state_of(released), Some(pb::ContainerStateProto::CComplete));
    let home_after = home_users.get_containers(attempt).await.unwrap();
    assert!(
        home_after
            .iter()
            .all(|r| r.container_state() == pb::ContainerStateProto::CRunning),
        "{home_after:?}"
    );

    tracing::info!("--- finish reaches both clusters");
    let finished = am
        .finish_application_master(signed(
            pb::FinishApplicationMasterRequestProto {
                final_application_status: pb::FinalApplicationStatusProto::AppSucceeded.into(),
                diagnostics: "done on two clusters".to_owned(),
                ..Default::default()
            },
            &local,
        ))
        .await
        .expect("finish")
        .into_inner();
    assert!(finished.is_unregistered);
    for (users, id) in [(&home_users, app), (&secondary_users, uam)] {
        let report = users.get_application_report(id).await.unwrap();
        assert_eq!(
            (
                report.yarn_application_state(),
                report.final_application_status()
            ),
            (
                pb::YarnApplicationStateProto::Finished,
                pb::FinalApplicationStatusProto::AppSucceeded
            ),
            "{id}"
        );
    }
    let uam_attempts = secondary_users.get_application_attempts(uam).await.unwrap();
    assert_eq!(uam_attempts.len(), 1);
    assert_eq!(uam_attempts[0].am_container_id, None);

    home.shutdown().await;
    secondary.shutdown().await;
}
