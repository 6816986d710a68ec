//! One running ResourceManager replica: storage, Raft, servers and the leadership monitor.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use openraft::Raft;
use openraft::error::Fatal;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tonic::transport::Server;
use yarn_conf::{HostPort, RmEndpoints};
use yarn_security::{Authorizer, BoundStatusMessages, ChannelOptions, Dialer, Incoming, TlsConfig};
use yarn_web::WebServer;

use super::async_scheduler::PassThreads;
use super::leader_gate::{LeaderGate, Serving};
use super::leadership::Leadership;
use super::master_key_service::SecretSource;
use super::raft_core::RaftCore;
use super::replica_services::{ReplicaServices, ServiceWiring};
use crate::error::Error;
use crate::hadoop_ipc::{self, AmDispatcher, AmrmTokenSecrets, ClientDispatcher};
use crate::raft_types::{RmNodeId, RmTypeConfig, node_id_of};
use crate::rest::{RestApi, StandbyRedirect};
use crate::state_machine::StateView;
use crate::storage::{DurableDb, Failpoints, open_db};
use crate::telemetry::{RmMetrics, RpcMetricsLayer};
use crate::{RaftGrpcNetworkFactory, RmConfig};

/// How long a stopping replica waits for its servers and tasks before aborting them: long
/// enough for in-flight calls to be answered, short enough that a supervisor's SIGTERM (or a
/// fatal storage error) ends the process promptly.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// The listeners a replica serves on, bound before anything else starts so that a port clash
/// fails start-up with the address named.
pub struct RmListeners {
    /// Raft transport.
    pub raft: TcpListener,
    /// Admin protocol.
    pub admin: TcpListener,
    /// Application client protocol.
    pub client: TcpListener,
    /// ResourceTracker (NodeManagers).
    pub resource_tracker: TcpListener,
    /// ApplicationMasterProtocol (the scheduler address).
    pub scheduler: TcpListener,
    /// The REST API (`yarn.resourcemanager.webapp.address`).
    pub webapp: TcpListener,
}

impl RmListeners {
    /// Binds the endpoints of `member`.
    ///
    /// # Errors
    ///
    /// [`Error::Bind`] naming the service and address.
    pub async fn bind(member: &RmEndpoints) -> Result<Self, Error> {
        Ok(Self {
            raft: bind("Raft", &member.raft).await?,
            admin: bind("admin", &member.admin).await?,
            client: bind("client", &member.client).await?,
            resource_tracker: bind("resource tracker", &member.resource_tracker).await?,
            scheduler: bind("scheduler", &member.scheduler).await?,
            webapp: bind("webapp", &member.webapp).await?,
        })
    }
}

async fn bind(service: &'static str, address: &HostPort) -> Result<TcpListener, Error> {
    TcpListener::bind((address.host.as_str(), address.port))
        .await
        .map_err(|source| Error::Bind {
            service,
            address: address.to_string(),
            source,
        })
}

/// A running replica.
///
/// Start-up: open the sled storage, start Raft, bootstrap the group if this is the first
/// configured rm-id and the storage is pristine (never otherwise: a replica with any Raft state
/// rejoins with it), then serve Raft, admin and client RPCs over mutual TLS and follow
/// leadership ([`Serving`]). Shut-down stops the servers, leader services and Raft, in that
/// order, and waits for them.
///
/// Test builds with the `failpoints` feature read `YARN_HA_FAILPOINTS` once at start
/// ([`Failpoints`]); a storage failure they inject stops Raft, and with it the replica, as a
/// real one does.
pub struct ResourceManager {
    config: Arc<RmConfig>,
    node_id: RmNodeId,
    raft: Raft<RmTypeConfig>,
    state: StateView,
    serving: watch::Receiver<Serving>,
    local_addresses: BTreeMap<&'static str, SocketAddr>,
    shutdown: CancellationToken,
    tasks: JoinSet<Result<(), Error>>,
    /// The replica's sled database, kept to be leaked if its disk fails (see `run_until`).
    storage: DurableDb,
}

impl ResourceManager {
    /// Binds the configured endpoints and starts the replica.
    ///
    /// # Errors
    ///
    /// As [`ResourceManager::start_with`], plus [`Error::Bind`].
    pub async fn start(config: RmConfig, tls: TlsConfig) -> Result<Self, Error> {
        let member =
            config
                .ha
                .member(&config.rm_id)
                .cloned()
                .ok_or_else(|| Error::UnknownRmId {
                    rm_id: config.rm_id.clone(),
                })?;
        let listeners = RmListeners::bind(&member).await?;
        Self::start_with(config, tls, listeners).await
    }

    /// Starts the replica on already bound listeners.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidFailpoint`] when `YARN_HA_FAILPOINTS` is set and invalid (builds with the
    /// `failpoints` feature only), [`Error::OpenStorage`] and other storage errors,
    /// [`Error::RaftConfig`] for timings openraft refuses, [`Error::RaftStart`] and
    /// [`Error::Bootstrap`].
    pub async fn start_with(
        config: RmConfig,
        tls: TlsConfig,
        listeners: RmListeners,
    ) -> Result<Self, Error> {
        let config = Arc::new(config);
        if let Some(reason) = config.queues.settings.open_admin_rights() {
            tracing::warn!(
                rm_id = %config.rm_id,
                "{reason}: any user with a certificate of this cluster can remove Raft members, \
                 move leadership and refresh queues; set yarn.acl.enable to true and \
                 yarn.admin.acl to the administrators"
            );
        }
        let node_id = node_id_of(&config.rm_id);
        let failpoints = Failpoints::from_env()?;
        let db = open_db(&config.storage_dir, &failpoints)?;
        let metrics = Arc::new(RmMetrics::new().with_storage_counts(db.counts()));
        let options = ChannelOptions {
            request_timeout: config.raft.rpc_timeout,
            ..ChannelOptions::default()
        };
        let address_book = config
            .raft_members()
            .map(|node| (node.rm_id, node.raft_address))
            .collect();
        let network = RaftGrpcNetworkFactory::new(config.rm_id.clone(), tls.clone(), options)
            .with_address_book(address_book);
        let authorizer = Authorizer::for_tls(&tls);
        let core = RaftCore::start_measured(
            Arc::clone(&config),
            &db,
            network,
            failpoints,
            authorizer,
            Arc::clone(&metrics),
        )
        .await?;
        let raft = core.raft.clone();
        let state = core.state.clone();
        let shutdown = CancellationToken::new();
        let local_addresses = BTreeMap::from([
            ("raft", local_addr(&listeners.raft)?),
            ("admin", local_addr(&listeners.admin)?),
            ("client", local_addr(&listeners.client)?),
            ("resource-tracker", local_addr(&listeners.resource_tracker)?),
            ("scheduler", local_addr(&listeners.scheduler)?),
            ("webapp", local_addr(&listeners.webapp)?),
        ]);
        // Every daemon of a cluster shares `yarn.tls.enabled`: the NodeManagers' web pages use
        // the scheme this replica's does.
        let web_scheme = if tls.server_config().is_some() {
            "https"
        } else {
            "http"
        };
        let wiring = ServiceWiring {
            nm_dialer: Dialer::tls(
                &tls,
                ChannelOptions {
                    request_timeout: ServiceWiring::NM_CALL_TIMEOUT,
                    ..ChannelOptions::default()
                },
            ),
            passes: PassThreads::Blocking,
            secrets: SecretSource::OperatingSystem,
            web_scheme,
        };
        let services = ReplicaServices::new(&core, wiring, shutdown.clone());
        let serving = services.serving.clone();
        let mut tasks = JoinSet::new();
        let monitor = services.leadership;
        tasks.spawn(async move {
            monitor.run().await;
            Ok(())
        });
        let elections = core.run_elections(StdRng::from_os_rng(), shutdown.clone());
        tasks.spawn(async move {
            elections.await;
            Ok(())
        });
        let upkeep = Arc::clone(&metrics);
        let upkeep_shutdown = shutdown.clone();
        tasks.spawn(async move {
            upkeep.keep_up(upkeep_shutdown).await;
            Ok(())
        });
        let rpc_metrics = RpcMetricsLayer {
            metrics: Arc::clone(&metrics),
        };
        let client_incoming = hadoop_ipc::share_port(
            Incoming::new(listeners.client, &tls),
            &config.hadoop_ipc,
            hadoop_ipc::client_auth(&config.hadoop_ipc),
            ClientDispatcher {
                operations: Arc::clone(&services.client_operations),
            },
            &mut tasks,
            &shutdown,
        );
        let gate = LeaderGate::new(
            config.rm_id.clone(),
            config.ha.clone(),
            "web",
            |e| &e.webapp,
            serving.clone(),
        );
        let rest = RestApi {
            operations: services.client_operations,
            admin: services.admin_operations,
            raft: raft.clone(),
            state: state.clone(),
            rm_id: config.rm_id.clone(),
            metrics: Arc::clone(&metrics),
            tls: tls.server_config().is_some(),
            ha: config.ha.clone(),
        }
        .router(StandbyRedirect {
            gate,
            scheme: web_scheme,
        });
        let webapp_address = local_addr(&listeners.webapp)?;
        let web = WebServer::new(
            listeners.webapp,
            webapp_address,
            &tls,
            config.web_access,
            rest,
        );
        let web_shutdown = shutdown.clone();
        tasks.spawn(async move { web.run(web_shutdown).await.map_err(Error::WebServe) });
        let am_operations = services.am_operations;
        let scheduler_incoming = hadoop_ipc::share_port(
            Incoming::new(listeners.scheduler, &tls),
            &config.hadoop_ipc,
            hadoop_ipc::am_auth(AmrmTokenSecrets {
                operations: Arc::clone(&am_operations),
            }),
            AmDispatcher {
                operations: am_operations,
            },
            &mut tasks,
            &shutdown,
        );
        let grpc = |routes| {
            Server::builder()
                .layer(BoundStatusMessages)
                .layer(rpc_metrics.clone())
                .add_routes(routes)
        };
        spawn_server(
            &mut tasks,
            "Raft",
            Server::builder()
                .layer(BoundStatusMessages)
                .layer(rpc_metrics.clone())
                .add_service(core.service.into_server())
                .serve_with_incoming_shutdown(
                    Incoming::new(listeners.raft, &tls),
                    shutdown.clone().cancelled_owned(),
                ),
        );
        spawn_server(
            &mut tasks,
            "admin",
            grpc(services.admin).serve_with_incoming_shutdown(
                Incoming::new(listeners.admin, &tls),
                shutdown.clone().cancelled_owned(),
            ),
        );
        spawn_server(
            &mut tasks,
            "client",
            grpc(services.client)
                .serve_with_incoming_shutdown(client_incoming, shutdown.clone().cancelled_owned()),
        );
        spawn_server(
            &mut tasks,
            "resource tracker",
            grpc(services.resource_tracker).serve_with_incoming_shutdown(
                Incoming::new(listeners.resource_tracker, &tls),
                shutdown.clone().cancelled_owned(),
            ),
        );
        spawn_server(
            &mut tasks,
            "scheduler",
            grpc(services.scheduler).serve_with_incoming_shutdown(
                scheduler_incoming,
                shutdown.clone().cancelled_owned(),
            ),
        );
        tracing::info!(
            rm_id = %config.rm_id,
            node_id,
            ?local_addresses,
            "ResourceManager replica started"
        );
        Ok(Self {
            config,
            node_id,
            raft,
            state,
            serving,
            local_addresses,
            shutdown,
            tasks,
            storage: db,
        })
    }

    /// This replica's rm-id.
    pub fn rm_id(&self) -> &str {
        &self.config.rm_id
    }

    /// This replica's Raft node id.
    pub fn node_id(&self) -> RmNodeId {
        self.node_id
    }

    /// The Raft handle, for metrics and tests.
    pub fn raft(&self) -> &Raft<RmTypeConfig> {
        &self.raft
    }

    /// The applied state.
    pub fn state(&self) -> &StateView {
        &self.state
    }

    /// The leadership this replica serves, if it leads: its registered NodeManagers and its
    /// scheduler, for in-process harnesses (benchmarks, tests) that stand in for NodeManagers
    /// and feed the scheduler with asks as the ApplicationMaster protocol does.
    pub fn leadership(&self) -> Option<Arc<Leadership>> {
        match &*self.serving.borrow() {
            Serving::Leader(leadership) => Some(Arc::clone(leadership)),
            Serving::NotLeader { .. } => None,
        }
    }

    /// The current serving role.
    pub fn serving(&self) -> Serving {
        self.serving.borrow().clone()
    }

    /// A receiver of serving-role changes.
    pub fn watch_serving(&self) -> watch::Receiver<Serving> {
        self.serving.clone()
    }

    /// The bound address of `service` (`raft`, `admin`, `client`, `resource-tracker` or
    /// `scheduler`).
    pub fn local_addr(&self, service: &str) -> Option<SocketAddr> {
        self.local_addresses.get(service).copied()
    }

    /// Runs until `stop` resolves or the replica fails, then shuts down.
    ///
    /// # Errors
    ///
    /// The first failure: a server that stopped serving, or Raft stopping on a fatal error.
    pub async fn run_until(
        mut self,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<(), Error> {
        let mut metrics = self.raft.metrics();
        let failure = tokio::select! {
            () = stop => None,
            Some(joined) = self.tasks.join_next() => Some(task_result(joined).err().unwrap_or(Error::TaskEnded)),
            fatal = metrics.wait_for(|m| m.running_state.is_err()) => Some(match fatal {
                Ok(m) => Error::RaftStopped { reason: format!("{:?}", m.running_state) },
                Err(_) => Error::TaskEnded,
            }),
        };
        drop(metrics);
        let stopped = self.shutdown().await;
        match failure {
            Some(err) => Err(err),
            None => stopped,
        }
    }

    /// Stops serving, stops leader services and Raft, and waits for every task, for at most
    /// `SHUTDOWN_GRACE` (3 s): then whatever still runs (a server draining a connection that never
    /// closes, a task waiting on a Raft core that died of a storage error) is aborted, so a
    /// replica that stops always ends instead of lingering with its ports closed.
    ///
    /// # Errors
    ///
    /// The first task failure seen while stopping.
    pub async fn shutdown(mut self) -> Result<(), Error> {
        self.shutdown.cancel();
        let rm_id = self.config.rm_id.clone();
        let mut first_error = None;
        let drained = tokio::time::timeout(SHUTDOWN_GRACE, async {
            if let Err(err) = self.raft.shutdown().await {
                first_error.get_or_insert(Error::RaftStopped {
                    reason: err.to_string(),
                });
            }
            while let Some(joined) = self.tasks.join_next().await {
                if let Err(err) = task_result(joined) {
                    first_error.get_or_insert(err);
                }
            }
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                %rm_id,
                remaining = self.tasks.len(),
                "tasks still running {SHUTDOWN_GRACE:?} after the stop; aborting them"
            );
            self.tasks.shutdown().await;
        }
        if matches!(
            self.raft.metrics().borrow().running_state,
            Err(Fatal::StorageError(_))
        ) {
            // sled flushes when its last handle drops, and on a full or failing disk that flush
            // waits for ever, on whichever thread drops it last. Nothing more can be made durable
            // here: leak one handle so that no drop flushes, and the process can end. Checked
            // after the stop, whichever way the failure surfaced.
            std::mem::forget(self.storage.clone());
        }
        tracing::info!(%rm_id, "ResourceManager replica stopped");
        first_error.map_or(Ok(()), Err)
    }
}

fn task_result(joined: Result<Result<(), Error>, tokio::task::JoinError>) -> Result<(), Error> {
    joined.map_err(|err| Error::TaskPanicked {
        reason: err.to_string(),
    })?
}

fn local_addr(listener: &TcpListener) -> Result<SocketAddr, Error> {
    listener.local_addr().map_err(|source| Error::Bind {
        service: "local address",
        address: "?".to_owned(),
        source,
    })
}

fn spawn_server(
    tasks: &mut JoinSet<Result<(), Error>>,
    service: &'static str,
    server: impl std::future::Future<Output = Result<(), tonic::transport::Error>> + Send + 'static,
) {
    tasks.spawn(async move {
        server
            .await
            .map_err(|source| Error::Serve { service, source })
    });
}
