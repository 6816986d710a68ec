//! One running NodeManager: the container manager, its RPC server, its web server and the
//! heartbeat loop.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_stream::Stream;
use tokio_util::sync::CancellationToken;
use tonic::transport::server::Connected;
use yarn_client::{RmClient, RmClientConfig, RmService};
use yarn_conf::HostPort;
use yarn_proto::ids::NodeId;
use yarn_proto::pb;
use yarn_security::{Authorizer, HadoopIpcShare, Incoming, PeerInfo, TlsConfig, now_ms};

use yarn_amrmproxy::{AmrmProxy, AmrmProxyDispatcher, InterceptorPipeline, InterceptorRegistry};

use crate::amrm_proxy::{AmrmProxyHost, ManagerNodeContext};
use crate::container_manager::{ContainerManager, ContainerManagerDispatcher};
use crate::executor::IoCause;
use crate::node_status_updater::{Connection, NodeStatusUpdater};
use crate::state_store::ProxyRecords;
use crate::web::{self, NodeDescription};
use crate::{ContainerExecutor, Error, NmConfig, NmStateStore};
use yarn_web::WebServer;

/// The keys of the two endpoints, named when one cannot be bound.
const NM_ADDRESS_KEY: &str = "yarn.nodemanager.address";
const NM_WEBAPP_ADDRESS_KEY: &str = "yarn.nodemanager.webapp.address";
const AMRM_PROXY_ADDRESS_KEY: &str = "yarn.nodemanager.amrmproxy.address";

/// How often the AMRMProxy's local key is checked for a roll and finished attempts are
/// forgotten: far below any sensible rolling interval, and cheap.
const AMRM_PROXY_TICK: Duration = Duration::from_secs(1);

/// The heartbeat interval used until the RM dictates one (YARN's default).
const DEFAULT_HEARTBEAT_INTERVAL: Duration = Duration::from_secs(1);

/// A running NodeManager.
///
/// Start-up order matters for recovery: the state store is read and running containers are
/// re-acquired before the container manager serves, and the node registers with every recovered
/// container. A plain stop (SIGTERM) leaves containers running so the next start re-acquires
/// them; only an RM-ordered SHUTDOWN stops them.
pub struct NodeManager {
    node_id: NodeId,
    manager: Arc<ContainerManager>,
    local_address: SocketAddr,
    web_address: SocketAddr,
    shutdown: CancellationToken,
    tasks: JoinSet<Result<Option<String>, Error>>,
}

impl NodeManager {
    /// Binds the NM address and starts the node.
    ///
    /// # Errors
    ///
    /// [`Error::Bind`] naming the address (the NM address or the webapp address), state-store
    /// errors, and recovery errors.
    pub async fn start(
        config: NmConfig,
        client: RmClientConfig,
        tls: TlsConfig,
    ) -> Result<Self, Error> {
        let listener = bind(NM_ADDRESS_KEY, &config.address).await?;
        Self::start_with(config, client, tls, listener).await
    }

    /// Starts the node on an already bound listener (whose port is the node id's port), and
    /// binds the webapp address (`yarn.nodemanager.webapp.address`) for the web server, whose
    /// bound port is the HTTP port the node registers with.
    ///
    /// The web server serves from here on, also while the node is still trying to register.
    ///
    /// # Errors
    ///
    /// As [`NodeManager::start`].
    pub async fn start_with(
        config: NmConfig,
        client: RmClientConfig,
        tls: TlsConfig,
        listener: TcpListener,
    ) -> Result<Self, Error> {
        let local_address = listener.local_addr().map_err(|source| Error::Bind {
            key: NM_ADDRESS_KEY,
            address: config.address.to_string(),
            source: IoCause::from(source),
        })?;
        let node_id = NodeId {
            host: node_host(&config.address),
            port: local_address.port(),
        };
        let started_at_ms = now_ms();
        let web_listener = bind(NM_WEBAPP_ADDRESS_KEY, &config.webapp_address).await?;
        let web_address = web_listener.local_addr().map_err(|source| Error::Bind {
            key: NM_WEBAPP_ADDRESS_KEY,
            address: config.webapp_address.to_string(),
            source: IoCause::from(source),
        })?;
        let Recovered {
            manager,
            proxy_records,
            connection,
        } = Recovered::recover(&config, &node_id, web_address.port(), || {
            ContainerExecutor::try_new(&config)
        })
        .await?;

        let shutdown = CancellationToken::new();
        let mut tasks = JoinSet::new();
        if config.amrm_proxy.enabled {
            let proxy_listener = bind(AMRM_PROXY_ADDRESS_KEY, &config.amrm_proxy.address).await?;
            let bound = proxy_listener.local_addr().map_err(|source| Error::Bind {
                key: AMRM_PROXY_ADDRESS_KEY,
                address: config.amrm_proxy.address.to_string(),
                source: IoCause::from(source),
            })?;
            let host = start_amrm_proxy(
                &config,
                &client,
                &node_id,
                &manager,
                web_address.port(),
                proxy_records,
                bound,
            )?;
            let (incoming, hadoop_ipc) = HadoopIpcShare::share(
                Incoming::new(proxy_listener, &tls),
                &config.hadoop_ipc,
                AmrmProxyDispatcher::auth(Arc::clone(host.proxy())),
                AmrmProxyDispatcher::new(Arc::clone(host.proxy())),
            );
            if let Some(hadoop_ipc) = hadoop_ipc {
                hadoop_ipc.serve_in(&mut tasks, &shutdown, Ok(None));
            }
            serve_amrm_proxy(host, &manager, incoming, &mut tasks, &shutdown);
        }
        let (incoming, hadoop_ipc) = HadoopIpcShare::share(
            Incoming::new(listener, &tls),
            &config.hadoop_ipc,
            ContainerManagerDispatcher::auth(Arc::clone(&manager)),
            ContainerManagerDispatcher::new(Arc::clone(&manager)),
        );
        if let Some(hadoop_ipc) = hadoop_ipc {
            hadoop_ipc.serve_in(&mut tasks, &shutdown, Ok(None));
        }
        let server = tonic::transport::Server::builder()
            .layer(yarn_security::BoundStatusMessages)
            .add_service(manager.service(Authorizer::for_tls(&tls)))
            .serve_with_incoming_shutdown(incoming, shutdown.clone().cancelled_owned());
        spawn_server(&mut tasks, config.address.to_string(), server);
        let web = WebServer::new(
            web_listener,
            web_address,
            &tls,
            config.web_access,
            web::router(
                manager.clone(),
                NodeDescription::new(&config, node_id.clone(), started_at_ms),
            ),
        );
        let web_shutdown = shutdown.clone();
        tasks.spawn(async move {
            web.run(web_shutdown).await.map_err(|err| Error::Serve {
                address: err.address,
                reason: err.source.to_string(),
            })?;
            Ok(None)
        });

        let node = Self {
            node_id,
            manager,
            local_address,
            web_address,
            shutdown,
            tasks,
        };
        Ok(node.heartbeating(&config, &client, connection))
    }

    /// Starts the node of the deterministic simulation: the real container manager (with
    /// `executor`, normally the simulated one) serving the container-management protocol on
    /// `incoming`, and the real status updater heartbeating through `client`. The node id is
    /// `address`'s host and port, and the node registers `http_port` as its web port.
    ///
    /// With `yarn.nodemanager.amrmproxy.enabled`, the node's real AMRMProxy serves on
    /// `amrm_proxy`'s stream, advertised at the node's host and that address's port; it is
    /// ignored otherwise. What it does not start: the web server and the Hadoop IPC listeners.
    ///
    /// # Errors
    ///
    /// [`Error::AmrmProxy`] when the AMRMProxy is enabled and `amrm_proxy` is `None`, or it
    /// cannot start; state-store and recovery errors.
    pub async fn start_simulated<I, IO, IE>(
        config: NmConfig,
        client: RmClientConfig,
        executor: ContainerExecutor,
        address: SocketAddr,
        http_port: u16,
        incoming: I,
        amrm_proxy: Option<(SocketAddr, I)>,
    ) -> Result<Self, Error>
    where
        I: Stream<Item = Result<IO, IE>> + Send + 'static,
        IO: AsyncRead + AsyncWrite + Connected<ConnectInfo = PeerInfo> + Unpin + Send + 'static,
        IE: Into<Box<dyn std::error::Error + Send + Sync>> + 'static,
    {
        let node_id = NodeId {
            host: node_host(&config.address),
            port: address.port(),
        };
        let proxy = match (config.amrm_proxy.enabled, amrm_proxy) {
            (false, _) => None,
            (true, Some(proxy)) => Some(proxy),
            (true, None) => {
                return Err(Error::AmrmProxy {
                    reason: "yarn.nodemanager.amrmproxy.enabled is true but the simulated node \
                             was given no AMRMProxy listener"
                        .to_owned(),
                });
            }
        };
        let Recovered {
            manager,
            proxy_records,
            connection,
        } = Recovered::recover(&config, &node_id, http_port, || Ok(executor)).await?;
        let shutdown = CancellationToken::new();
        let mut tasks = JoinSet::new();
        if let Some((bound, incoming)) = proxy {
            let host = start_amrm_proxy(
                &config,
                &client,
                &node_id,
                &manager,
                http_port,
                proxy_records,
                bound,
            )?;
            serve_amrm_proxy(host, &manager, incoming, &mut tasks, &shutdown);
        }
        let server = tonic::transport::Server::builder()
            .layer(yarn_security::BoundStatusMessages)
            .add_service(manager.service(Authorizer::new(false)))
            .serve_with_incoming_shutdown(incoming, shutdown.clone().cancelled_owned());
        spawn_server(&mut tasks, config.address.to_string(), server);
        let node = Self {
            node_id,
            manager,
            local_address: address,
            web_address: SocketAddr::new(address.ip(), http_port),
            shutdown,
            tasks,
        };
        Ok(node.heartbeating(&config, &client, connection))
    }

    /// Starts the status updater: the node registers and heartbeats through `client`.
    fn heartbeating(
        mut self,
        config: &NmConfig,
        client: &RmClientConfig,
        connection: watch::Sender<Connection>,
    ) -> Self {
        let updater = NodeStatusUpdater {
            client: RmClient::new(client, RmService::ResourceTracker),
            node_id: self.node_id.clone(),
            http_port: i32::from(self.web_address.port()),
            resource: pb::ResourceProto {
                memory: i64::try_from(config.memory_mb).unwrap_or(i64::MAX),
                virtual_cores: i32::try_from(config.vcores).unwrap_or(i32::MAX),
                ..Default::default()
            },
            source: self.manager.clone(),
            connection,
            default_interval: DEFAULT_HEARTBEAT_INTERVAL,
            incarnation: now_ms(),
        };
        let updater_shutdown = self.shutdown.clone();
        self.tasks
            .spawn(async move { Ok(updater.run(updater_shutdown).await) });
        tracing::info!(
            node = %self.node_id,
            local_address = %self.local_address,
            web_address = %self.web_address,
            "NodeManager started"
        );
        self
    }

    /// This node's id, as registered with the RM.
    pub fn node_id(&self) -> &NodeId {
        &self.node_id
    }

    /// The container manager, for the web view and tests.
    pub fn container_manager(&self) -> &Arc<ContainerManager> {
        &self.manager
    }

    /// The bound address of the container-management endpoint.
    pub fn local_address(&self) -> SocketAddr {
        self.local_address
    }

    /// The bound address of the web server (`/ws/v1/node/...`).
    pub fn web_address(&self) -> SocketAddr {
        self.web_address
    }

    /// Runs until `stop` resolves (containers keep running for the next start to re-acquire),
    /// the RM orders a shutdown (containers are stopped), or a server fails.
    ///
    /// # Errors
    ///
    /// A server failure, or [`Error::ShutDownByResourceManager`] with the RM's reason.
    pub async fn run_until(
        mut self,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<(), Error> {
        let outcome = tokio::select! {
            () = stop => Ok(()),
            Some(joined) = self.tasks.join_next() => match joined {
                Ok(Ok(Some(reason))) => {
                    self.manager.stop_all(&reason).await;
                    Err(Error::ShutDownByResourceManager { reason })
                }
                Ok(Ok(None)) => Ok(()),
                Ok(Err(err)) => Err(err),
                Err(join) => Err(Error::TaskPanicked { reason: join.to_string() }),
            },
        };
        self.shutdown.cancel();
        while self.tasks.join_next().await.is_some() {}
        tracing::info!(node = %self.node_id, "NodeManager stopped");
        outcome
    }
}

/// What a starting node recovers before it serves: its container manager, with the containers
/// its state store holds re-acquired, and the AMRMProxy's records.
struct Recovered {
    manager: Arc<ContainerManager>,
    proxy_records: ProxyRecords,
    /// Tells the container manager whether the node is registered.
    connection: watch::Sender<Connection>,
}

impl Recovered {
    /// Opens the state store first, so that a store another NodeManager holds is the error
    /// reported, then makes the executor with `executor`.
    async fn recover(
        config: &NmConfig,
        node_id: &NodeId,
        http_port: u16,
        executor: impl FnOnce() -> Result<ContainerExecutor, Error>,
    ) -> Result<Self, Error> {
        let store = NmStateStore::from_config(config)?;
        let proxy_records = store.proxy_records();
        let executor = executor()?;
        let (connection, connected) = watch::channel(Connection::Disconnected);
        let manager = ContainerManager::recover(
            config,
            node_id.clone(),
            http_port,
            store,
            executor,
            connected,
        )
        .await?;
        Ok(Self {
            manager,
            proxy_records,
            connection,
        })
    }
}

/// Builds the AMRMProxy of node `node_id`, bound at `bound`, for the containers of `manager`
/// (the node serves HTTP on `http_port`), recovers the chains of the applications it served before
/// a restart, and attaches it to `manager` so that AM containers start behind it.
///
/// The proxy is advertised to AMs under the node's host name and the bound port, which is
/// what the node's TLS certificate names.
fn start_amrm_proxy(
    config: &NmConfig,
    client: &RmClientConfig,
    node_id: &NodeId,
    manager: &Arc<ContainerManager>,
    http_port: u16,
    records: ProxyRecords,
    bound: SocketAddr,
) -> Result<Arc<AmrmProxyHost>, Error> {
    let context = Arc::new(ManagerNodeContext::new(
        node_id.clone(),
        format!("{}:{http_port}", node_id.host),
    ));
    context.attach(Arc::downgrade(manager));
    let advertised = HostPort {
        host: node_id.host.clone(),
        port: bound.port(),
    };
    let mut proxy_config = config.amrm_proxy.clone();
    proxy_config.address = advertised.clone();
    let rm = Arc::new(RmClient::new(client, RmService::Scheduler));
    let registry = InterceptorRegistry::with_builtins(&proxy_config, rm);
    let failed = |err: yarn_amrmproxy::Error| Error::AmrmProxy {
        reason: err.to_string(),
    };
    let pipeline = InterceptorPipeline::from_config(&proxy_config, registry).map_err(failed)?;
    let proxy = Arc::new(
        AmrmProxy::new(&proxy_config, pipeline, context, Arc::new(records)).map_err(failed)?,
    );
    let recovered = proxy.recover().map_err(failed)?;
    tracing::info!(
        proxy = %advertised,
        chain = ?proxy_config.interceptor_pipeline,
        distributed_scheduling = proxy_config.distributed_scheduling,
        recovered = recovered.recovered.len(),
        unrecoverable = recovered.failed.len(),
        "AMRMProxy started"
    );
    let host = Arc::new(AmrmProxyHost::new(proxy, advertised));
    manager.attach_amrm_proxy(Arc::clone(&host));
    Ok(host)
}

/// Serves the AMRMProxy of `host` on `incoming` and tends it (see [`tend_amrm_proxy`]), both
/// in `tasks` until `shutdown`.
fn serve_amrm_proxy<I, IO, IE>(
    host: Arc<AmrmProxyHost>,
    manager: &Arc<ContainerManager>,
    incoming: I,
    tasks: &mut JoinSet<Result<Option<String>, Error>>,
    shutdown: &CancellationToken,
) where
    I: Stream<Item = Result<IO, IE>> + Send + 'static,
    IO: AsyncRead + AsyncWrite + Connected<ConnectInfo = PeerInfo> + Unpin + Send + 'static,
    IE: Into<Box<dyn std::error::Error + Send + Sync>> + 'static,
{
    let server = tonic::transport::Server::builder()
        .layer(yarn_security::BoundStatusMessages)
        .add_service(host.proxy().service())
        .serve_with_incoming_shutdown(incoming, shutdown.clone().cancelled_owned());
    spawn_server(tasks, host.advertised().to_string(), server);
    let (manager, shutdown) = (Arc::clone(manager), shutdown.clone());
    tasks.spawn(async move {
        tend_amrm_proxy(&host, &manager, shutdown).await;
        Ok(None)
    });
}

/// Rolls the AMRMProxy's local key when due and forgets attempts whose AM is gone, every
/// [`AMRM_PROXY_TICK`], until `shutdown`.
async fn tend_amrm_proxy(
    host: &AmrmProxyHost,
    manager: &ContainerManager,
    shutdown: CancellationToken,
) {
    let mut tick = tokio::time::interval(AMRM_PROXY_TICK);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        if let Err(err) = host.proxy().roll_keys(now_ms()) {
            tracing::warn!(%err, "the AMRMProxy could not roll its key; it keeps the old one");
        }
        host.stop_finished(manager).await;
    }
}

/// Runs `server`, which serves `address`, in `tasks`; if it fails, the node stops with
/// [`Error::Serve`] naming the address.
fn spawn_server(
    tasks: &mut JoinSet<Result<Option<String>, Error>>,
    address: String,
    server: impl std::future::Future<Output = Result<(), tonic::transport::Error>> + Send + 'static,
) {
    tasks.spawn(async move {
        server.await.map_err(|source| Error::Serve {
            address,
            reason: source.to_string(),
        })?;
        Ok(None)
    });
}

async fn bind(key: &'static str, address: &HostPort) -> Result<TcpListener, Error> {
    TcpListener::bind((address.host.as_str(), address.port))
        .await
        .map_err(|source| Error::Bind {
            key,
            address: address.to_string(),
            source: IoCause::from(source),
        })
}

/// The host name the node registers under: the configured address host, or this machine's
/// host name when the address is a wildcard, as Hadoop resolves `0.0.0.0`.
fn node_host(address: &HostPort) -> String {
    let wildcard = address.host.is_empty() || address.host == "0.0.0.0" || address.host == "::";
    if !wildcard {
        return address.host.clone();
    }
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}
