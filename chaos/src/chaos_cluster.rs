//! [`ChaosCluster`]: a proxied local cluster of real processes, and the controls faults and
//! observers use on it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::Context;
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::timeout;
use tonic::transport::Channel;
use yarn_conf::{Configuration, keys};
use yarn_minicluster::{
    CAPACITY_SCHEDULER_XML, ClusterLayout, ClusterManifest, ClusterState, DEFAULT_STOP_TIMEOUT,
    DaemonRole, DaemonSpec, DaemonState, LayoutOptions, ManifestDaemon, MiniCluster, RmLayout,
    capacity_scheduler_xml, daemon_addresses, restart_with_env,
};
use yarn_nodemanager::NmConfig;
use yarn_nodemanager::executor::Signal;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;
use yarn_proto::pb::{
    HaServiceStateProto, HaServiceStatusRequestProto, TransferLeadershipRequestProto,
};
use yarn_security::{ChannelOptions, TlsConfig, connect_lazy};
use yarn_volatile_fs::LostWrites;

use crate::cluster_view::ClusterView;
use crate::connection_source::{DaemonPids, ProcSources};
use crate::disk_mode::DiskMode;
use crate::kernel_network::{KernelNetwork, KernelPeer};
use crate::leftovers::kill_leftovers;
use crate::membership_fault::{SpareReplica, retire_spare};
use crate::network_control::NetworkControl;
use crate::network_mode::{NetworkMode, OBSERVER_ADDRESS};
use crate::network_rules::NetworkRules;
use crate::observations::{NodeInfo, ReplicaAnswer, ReplicaStatus};
use crate::proxy_fleet::ProxyFleet;
use crate::volatile_disks::VolatileDisks;

/// How long a power loss waits for the supervisor to see its killed replica exit.
const EXIT_WAIT: Duration = Duration::from_secs(10);

/// How long one status or admin call to a replica may take before it counts as unanswered.
const CALL_DEADLINE: Duration = Duration::from_millis(700);

/// How long a leadership transfer may take, as `rmadmin` allows its calls.
const TRANSFER_DEADLINE: Duration = yarn_client::DEFAULT_CALL_TIMEOUT;

/// Memory each NodeManager offers, in MB: small, so GUARANTEED work fills nodes and the
/// capacity invariant has something to check.
pub const NODE_MEMORY_MB: u64 = 2048;

/// Vcores each NodeManager offers.
pub const NODE_VCORES: u64 = 4;

/// The configuration a chaos cluster adds to the minicluster's.
fn site() -> Vec<(String, String)> {
    let key = |key: &yarn_conf::Key, value: &str| (key.name.to_string(), value.to_owned());
    vec![
        key(&keys::NM_PMEM_MB, &NODE_MEMORY_MB.to_string()),
        key(&keys::NM_VCORES, &NODE_VCORES.to_string()),
        // Containers as small as the workload asks for, not rounded up to 1 GB.
        key(&keys::SCHEDULER_MINIMUM_ALLOCATION_MB, "128"),
        // Heartbeats twice a second: jobs progress, and resync after failover, faster.
        key(&keys::RM_NM_HEARTBEAT_INTERVAL_MS, "500"),
        // Every acknowledged submission must be found after healing: none is retired, however
        // long the run.
        key(&keys::RM_MAX_COMPLETED_APPLICATIONS, &u32::MAX.to_string()),
    ]
}

/// A NodeManager's addresses and capacity.
#[derive(Debug, Clone)]
pub struct NodeEndpoint {
    /// Its node id and capacity.
    pub info: NodeInfo,
    /// Its web address (`host:port`), serving `/ws/v1/node/containers` over HTTPS.
    pub web_address: String,
}

/// A running chaos cluster: the minicluster supervisor as a task of the current runtime, what
/// makes its network faults ([`NetworkControl`]: a proxy in front of every ResourceManager
/// endpoint, or the kernel's filter in the netns mode), clients that reach every replica at its
/// real address from [`OBSERVER_ADDRESS`] (so observers see through faults), and a spare
/// ResourceManager that only the membership fault starts ([`SpareReplica`]).
///
/// Guarantees: [`stop`](Self::stop) stops every daemon and the spare. Dropped without it, the
/// supervisor stops them when its task next runs, and its own drop SIGKILLs any left, as the
/// spare's drop SIGKILLs the spare, so no daemon outlives the run; dropping the proxies closes
/// every proxied connection, and dropping the kernel's filter removes the daemons' cgroups.
#[derive(Debug)]
pub struct ChaosCluster {
    manifest: ClusterManifest,
    tls: TlsConfig,
    admins: BTreeMap<String, ResourceManagerAdministrationProtocolClient<Channel>>,
    clients: BTreeMap<String, ApplicationClientProtocolClient<Channel>>,
    nodes: BTreeMap<String, NodeEndpoint>,
    stop: Mutex<Option<oneshot::Sender<()>>>,
    supervisor: JoinHandle<anyhow::Result<ClusterState>>,
    failpoints_missing: Option<String>,
    spare: SpareReplica,
    disks: VolatileDisks,
    // Last, so that a cluster dropped without `stop` has its spare killed before the kernel
    // network's cgroups are emptied and removed.
    network: NetworkControl,
}

impl ChaosCluster {
    /// Lays out a cluster of `rms` ResourceManagers and `nms` NodeManagers in `dir` (new or
    /// empty), with a spare ResourceManager that is not started, sets up its network faults
    /// for `network` (proxies in front of a proxied layout, or a cgroup per daemon and the
    /// kernel's filter), then starts every daemon as `<exe> resourcemanager|nodemanager` with
    /// `env` added to the environment it inherits (the spare gets it too when it starts). Must
    /// run inside a multi-threaded Tokio runtime (proxies place callers on blocking threads),
    /// and for the netns mode in a network namespace of its own ([`enter_private_network`]).
    ///
    /// [`enter_private_network`]: super::enter_private_network
    ///
    /// # Errors
    ///
    /// When the layout cannot be written, a front cannot be bound, the kernel's filter cannot
    /// be set up, the configuration cannot be read back, or a daemon cannot be started.
    pub async fn start(
        dir: &Path,
        exe: &Path,
        rms: usize,
        nms: usize,
        env: &BTreeMap<String, String>,
        network: NetworkMode,
        disks: DiskMode,
    ) -> anyhow::Result<Self> {
        let failpoints_missing = failpoints_missing(exe).await;
        let mut site = site();
        if network == NetworkMode::Netns {
            // Containers must stay in their NodeManager's cgroup, where the packet filter
            // counts them as that NodeManager's: a mount path that is no cgroup leaves the
            // NodeManagers measuring containers' memory in /proc instead of giving each a
            // cgroup of its own (which would be outside the NodeManager's).
            let no_cgroups = std::path::absolute(dir)
                .with_context(|| format!("resolving {}", dir.display()))?
                .join("no-cgroups");
            site.push((
                keys::NM_LINUX_CONTAINER_CGROUPS_MOUNT_PATH.name.to_string(),
                no_cgroups.display().to_string(),
            ));
        }
        let options = LayoutOptions {
            proxied: network == NetworkMode::Proxy,
            site,
        };
        let (manifest, spare, storage_dirs) = init_with_spare(dir, rms, nms, &options)?;
        let disks = match disks {
            DiskMode::Real => VolatileDisks::default(),
            DiskMode::Volatile => VolatileDisks::mount(&storage_dirs)?,
        };
        let base = manifest.base_dir.clone();
        let conf = load(&manifest.client_conf_dir)?;
        let tls = TlsConfig::from_conf(&conf).with_context(|| {
            format!(
                "reading the TLS settings of {}",
                manifest.client_conf_dir.display()
            )
        })?;
        let network = match network {
            NetworkMode::Proxy => {
                NetworkControl::Proxies(start_proxies(&manifest, &spare.rm_id).await?)
            }
            NetworkMode::Netns => {
                let peers = kernel_peers(&manifest, &spare)?;
                NetworkControl::Kernel(KernelNetwork::start(peers).await?)
            }
        };

        let mut specs = Vec::new();
        let mut admins = BTreeMap::new();
        let mut clients = BTreeMap::new();
        let mut nodes = BTreeMap::new();
        let options = ChannelOptions {
            connect_timeout: Duration::from_secs(1),
            request_timeout: Duration::from_secs(2),
            local_address: Some(OBSERVER_ADDRESS),
            ..ChannelOptions::default()
        };
        for daemon in &manifest.daemons {
            let addresses = daemon_addresses(daemon)?;
            let address = |service: &str| {
                addresses
                    .get(service)
                    .cloned()
                    .with_context(|| format!("{} has no {service} address", daemon.id))
            };
            match daemon.role {
                DaemonRole::ResourceManager => {
                    let admin = address("admin")?;
                    let channel = connect_lazy(&admin, tls.client_config(), &options)
                        .with_context(|| format!("the admin address {admin} of {}", daemon.id))?;
                    admins.insert(
                        daemon.id.clone(),
                        ResourceManagerAdministrationProtocolClient::new(channel),
                    );
                    let client = address("client")?;
                    let channel = connect_lazy(&client, tls.client_config(), &options)
                        .with_context(|| format!("the client address {client} of {}", daemon.id))?;
                    clients.insert(
                        daemon.id.clone(),
                        ApplicationClientProtocolClient::new(channel),
                    );
                }
                DaemonRole::NodeManager => {
                    let nm = NmConfig::from_conf(&load(&daemon.conf_dir)?)
                        .with_context(|| format!("reading the configuration of {}", daemon.id))?;
                    nodes.insert(
                        daemon.id.clone(),
                        NodeEndpoint {
                            info: NodeInfo {
                                node_id: nm.address.to_string(),
                                memory_mb: nm.memory_mb,
                                vcores: u64::from(nm.vcores),
                            },
                            web_address: nm.webapp_address.to_string(),
                        },
                    );
                }
            }
            let mut spec =
                DaemonSpec::yarn_ha(exe, daemon, manifest.log_file(&daemon.id), addresses);
            spec.env = env.clone();
            spec.cgroup = kernel_cgroup(&network, &daemon.id)?;
            specs.push(spec);
        }
        let spare = SpareReplica::new(
            &spare,
            manifest.log_file(&spare.rm_id),
            exe,
            env,
            &tls,
            kernel_cgroup(&network, &spare.rm_id)?,
        )?;
        let cluster = MiniCluster::launch(
            &base,
            &manifest.client_conf_dir,
            specs,
            DEFAULT_STOP_TIMEOUT,
        )
        .await?;
        let (stop, stopped) = oneshot::channel::<()>();
        // A dropped sender stops the cluster as surely as a sent message.
        let supervisor = tokio::spawn(cluster.run(async {
            let _ = stopped.await;
        }));
        Ok(Self {
            manifest,
            tls,
            admins,
            clients,
            nodes,
            stop: Mutex::new(Some(stop)),
            supervisor,
            failpoints_missing,
            spare,
            disks,
            network,
        })
    }

    /// The spare ResourceManager, which only the membership fault starts.
    pub fn spare(&self) -> &SpareReplica {
        &self.spare
    }

    /// Why the daemons' binary takes no failpoints (`<exe> chaos failpoints` failed), so the
    /// disk faults are unavailable; `None` when it takes them.
    pub fn failpoints_missing(&self) -> Option<&str> {
        self.failpoints_missing.as_deref()
    }

    /// The manifest: directories, daemons, proxy routes.
    pub fn manifest(&self) -> &ClusterManifest {
        &self.manifest
    }

    /// The client configuration directory, whose RM addresses are the proxies' fronts (the real
    /// ones in the netns mode, where the kernel's filter stands between).
    pub fn client_conf_dir(&self) -> &Path {
        &self.manifest.client_conf_dir
    }

    /// The harness user's TLS settings.
    pub fn tls(&self) -> &TlsConfig {
        &self.tls
    }

    /// The NodeManagers by name.
    pub fn nodes(&self) -> &BTreeMap<String, NodeEndpoint> {
        &self.nodes
    }

    /// Admin clients to every replica at its real address, by rm id.
    pub fn admin_clients(
        &self,
    ) -> BTreeMap<String, ResourceManagerAdministrationProtocolClient<Channel>> {
        self.admins.clone()
    }

    /// Client-protocol clients to every replica at its real address, by rm id.
    pub fn direct_clients(&self) -> BTreeMap<String, ApplicationClientProtocolClient<Channel>> {
        self.clients.clone()
    }

    /// The supervisor's record of the cluster.
    ///
    /// # Errors
    ///
    /// When `cluster.json` cannot be read.
    pub fn state(&self) -> anyhow::Result<ClusterState> {
        ClusterState::read(&self.manifest.base_dir)
    }

    /// The cluster as faults see it, with `leader` as the leader.
    ///
    /// # Errors
    ///
    /// When `cluster.json` cannot be read.
    pub fn view(&self, leader: Option<String>) -> anyhow::Result<ClusterView> {
        let state = self.state()?;
        let ids = |role| {
            self.manifest
                .daemons
                .iter()
                .filter(|daemon| daemon.role == role)
                .map(|daemon| daemon.id.clone())
                .collect()
        };
        Ok(ClusterView {
            rms: ids(DaemonRole::ResourceManager),
            nms: ids(DaemonRole::NodeManager),
            leader,
            running: state
                .daemons
                .iter()
                .filter(|daemon| daemon.state == DaemonState::Running)
                .map(|daemon| daemon.id.clone())
                .collect(),
            failpoints_missing: self.failpoints_missing.clone(),
            delay_missing: self.network.delay_missing().map(str::to_owned),
            volatile_disks_missing: (!self.disks.is_volatile()).then(|| {
                "the replicas' storage is on real disks (run with --disks volatile)".to_owned()
            }),
        })
    }

    /// Cuts the power of ResourceManager `id`'s disk once its process is gone: every write it
    /// had not fsync'd is dropped. Waits up to [`EXIT_WAIT`] for the supervisor to record the
    /// process's exit, so that nothing it still had in flight lands after the cut.
    ///
    /// # Errors
    ///
    /// When the process still runs after the wait, or `id` has no volatile disk.
    pub async fn power_loss(&self, id: &str) -> anyhow::Result<LostWrites> {
        let deadline = tokio::time::Instant::now() + EXIT_WAIT;
        while self.is_running(id)? {
            anyhow::ensure!(
                tokio::time::Instant::now() < deadline,
                "{id} still runs {EXIT_WAIT:?} after it was killed; its disk keeps its power"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.disks.power_loss(id)
    }

    /// Sends `signal` to daemon `id`'s process.
    ///
    /// # Errors
    ///
    /// When `id` has no running process or the signal cannot be sent.
    pub fn signal(&self, id: &str, signal: Signal) -> anyhow::Result<()> {
        let pid = self
            .state()?
            .daemon(id)
            .and_then(|daemon| daemon.pid)
            .with_context(|| format!("{id} has no running process"))?;
        signal
            .send(pid)
            .with_context(|| format!("sending {signal:?} to {id} (pid {pid})"))
    }

    /// Starts daemon `id` again through the supervisor.
    ///
    /// # Errors
    ///
    /// When the supervisor refuses (the daemon still runs) or does not answer.
    pub async fn restart(&self, id: &str) -> anyhow::Result<()> {
        self.restart_with_env(id, BTreeMap::new()).await
    }

    /// Starts daemon `id` again through the supervisor with `env` added to its environment for
    /// this start only.
    ///
    /// # Errors
    ///
    /// As [`restart`](Self::restart).
    pub async fn restart_with_env(
        &self,
        id: &str,
        env: BTreeMap<String, String>,
    ) -> anyhow::Result<()> {
        let base = self.manifest.base_dir.clone();
        let id = id.to_owned();
        // The control client blocks; the supervisor it talks to is a task of this runtime.
        tokio::task::spawn_blocking(move || restart_with_env(&base, &id, &env))
            .await
            .context("the restart request's thread failed")??;
        Ok(())
    }

    /// Whether daemon `id`'s process runs, as `cluster.json` records it.
    ///
    /// # Errors
    ///
    /// When `cluster.json` cannot be read.
    pub fn is_running(&self, id: &str) -> anyhow::Result<bool> {
        Ok(self
            .state()?
            .daemon(id)
            .is_some_and(|daemon| daemon.state == DaemonState::Running))
    }

    /// How network faults are made.
    pub fn network(&self) -> &NetworkControl {
        &self.network
    }

    /// Puts `rules` in force.
    ///
    /// # Errors
    ///
    /// In the netns mode, when the kernel's filter cannot be changed.
    pub async fn set_network(&self, rules: NetworkRules) -> anyhow::Result<()> {
        self.network.set_rules(rules).await
    }

    /// Asks replica `from` (at its real admin address) to hand leadership to `to`; returns
    /// the leader it reports afterwards (another replica than `to` may have won the election).
    ///
    /// # Errors
    ///
    /// When `from` refuses or does not answer within the transfer deadline.
    pub async fn transfer_leadership(&self, from: &str, to: &str) -> anyhow::Result<String> {
        // A channel of its own: a transfer waits for the target's election, which can take
        // longer than the status calls' short deadline.
        let mut admin = self.admin_client(from, TRANSFER_DEADLINE)?;
        let request = TransferLeadershipRequestProto {
            target_rm_id: to.to_owned(),
        };
        let reply = admin
            .transfer_leadership(request)
            .await
            .with_context(|| format!("asking {from} to hand leadership to {to}"))?
            .into_inner();
        Ok(reply.leader_rm_id)
    }

    /// An admin client of its own to replica `rm_id` (a configured one or the spare) at its real
    /// address, whose calls may take up to `deadline`: for calls that wait on the group, such
    /// as a leadership transfer or a membership change.
    ///
    /// # Errors
    ///
    /// When no such replica exists or its admin address is invalid.
    pub fn admin_client(
        &self,
        rm_id: &str,
        deadline: Duration,
    ) -> anyhow::Result<ResourceManagerAdministrationProtocolClient<Channel>> {
        let address = if rm_id == self.spare.rm_id() {
            self.spare.admin_address().to_owned()
        } else {
            self.manifest
                .resourcemanagers()
                .find(|daemon| daemon.id == rm_id)
                .map(daemon_addresses)
                .transpose()?
                .and_then(|addresses| addresses.get("admin").cloned())
                .with_context(|| format!("no replica {rm_id} with an admin address"))?
        };
        let options = ChannelOptions {
            connect_timeout: Duration::from_secs(1),
            request_timeout: deadline,
            local_address: Some(OBSERVER_ADDRESS),
            ..ChannelOptions::default()
        };
        let channel = connect_lazy(&address, self.tls.client_config(), &options)
            .with_context(|| format!("the admin address {address} of {rm_id}"))?;
        Ok(ResourceManagerAdministrationProtocolClient::new(channel))
    }

    /// Every replica's status, asked concurrently at its real admin address, in `rm-ids`
    /// order.
    pub async fn statuses(&self) -> Vec<ReplicaStatus> {
        replica_statuses(&self.admins).await
    }

    /// The replica that reports ACTIVE and names itself leader, if exactly one does.
    pub async fn leader(&self) -> Option<String> {
        sole_leader(&self.statuses().await)
    }

    /// Undoes every fault that may still be in force: lifts the network rules, resumes every
    /// daemon (SIGCONT is harmless to a running one), starts every exited one again, and
    /// removes the spare from the group if it may still be a member, then stops it.
    ///
    /// # Errors
    ///
    /// When a daemon cannot be resumed or restarted, or the spare cannot be removed; the others
    /// are still healed.
    pub async fn heal_all(&self) -> anyhow::Result<()> {
        let mut failures = Vec::new();
        if let Err(err) = self.set_network(NetworkRules::healthy()).await {
            failures.push(format!("lifting the network rules: {err:#}"));
        }
        for daemon in self.state()?.daemons {
            let healed = match (daemon.state, daemon.pid) {
                (DaemonState::Running, Some(pid)) => Signal::Cont
                    .send(pid)
                    .with_context(|| format!("resuming {} (pid {pid})", daemon.id)),
                (DaemonState::Exited, _) => self.restart(&daemon.id).await,
                _ => Ok(()),
            };
            if let Err(err) = healed {
                failures.push(format!("{err:#}"));
            }
        }
        let mut log = |what: String| tracing::info!("healing the spare: {what}");
        if let Err(err) = retire_spare(self, &mut log).await {
            failures.push(format!("{err:#}"));
        }
        anyhow::ensure!(
            failures.is_empty(),
            "healing failed: {}",
            failures.join("; ")
        );
        Ok(())
    }

    /// Stops every daemon (SIGTERM, then SIGKILL after the stop timeout) and the spare
    /// (SIGKILL), SIGKILLs the container processes the NodeManagers left running (see
    /// [`kill_leftovers`]), then stops the proxies or removes the kernel network's cgroups, and
    /// returns the final state.
    ///
    /// # Errors
    ///
    /// When the supervisor fails or its task panicked.
    pub async fn stop(self) -> anyhow::Result<ClusterState> {
        let stop = self
            .stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(stop) = stop {
            // The supervisor may already be gone after an error; awaiting it says why.
            let _ = stop.send(());
        }
        if let Err(err) = self.spare.stop().await {
            tracing::warn!("stopping the spare: {err:#}");
        }
        let state = self
            .supervisor
            .await
            .context("the minicluster supervisor task failed");
        let leftovers = kill_leftovers(&self.manifest.base_dir);
        if !leftovers.is_empty() {
            tracing::info!(
                count = leftovers.len(),
                "killed container processes the stopped NodeManagers left running"
            );
        }
        if let Err(err) = self.disks.unmount() {
            tracing::warn!("{err:#}");
        }
        // Last: the kernel's cgroups can only go once every process has left them.
        drop(self.network);
        state?
    }
}

/// The replica that reports ACTIVE and names itself leader, if exactly one of `statuses` does.
pub(crate) fn sole_leader(statuses: &[ReplicaStatus]) -> Option<String> {
    let leaders: Vec<&str> = statuses
        .iter()
        .filter(|status| {
            status
                .answer
                .as_ref()
                .is_ok_and(|answer| answer.active && answer.leader_rm_id == status.rm_id)
        })
        .map(|status| status.rm_id.as_str())
        .collect();
    match leaders[..] {
        [leader] => Some(leader.to_owned()),
        _ => None,
    }
}

/// As [`init_with`](yarn_minicluster::init_with), laying the cluster out with a spare
/// ResourceManager ([`ClusterLayout::create_with_spare`]) that the manifest does not list, so
/// the supervisor never starts it; returns the manifest and the spare's layout. The spare's
/// configuration directory gets the same `capacity-scheduler.xml` as every other.
///
/// # Errors
///
/// When `dir` is not a new or empty directory, or a directory, certificate or file cannot be
/// written; the message names it.
fn init_with_spare(
    dir: &Path,
    rms: usize,
    nms: usize,
    options: &LayoutOptions,
) -> anyhow::Result<(ClusterManifest, RmLayout, BTreeMap<String, PathBuf>)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let base = dir
        .canonicalize()
        .with_context(|| format!("resolving {}", dir.display()))?;
    let (layout, routes, spare) = ClusterLayout::create_with_spare(&base, rms, nms, options)?;
    let xml = capacity_scheduler_xml();
    let conf_dirs = layout
        .rms
        .iter()
        .chain([&spare])
        .map(|rm| &rm.conf_dir)
        .chain(layout.nms.iter().map(|nm| &nm.conf_dir))
        .chain([&layout.client_conf_dir]);
    for conf_dir in conf_dirs {
        let file = conf_dir.join(CAPACITY_SCHEDULER_XML);
        std::fs::write(&file, &xml).with_context(|| format!("writing {}", file.display()))?;
    }
    let mut manifest = ClusterManifest::from_layout(&layout);
    manifest.proxy_routes = routes;
    std::fs::create_dir_all(&manifest.logs_dir)
        .with_context(|| format!("creating {}", manifest.logs_dir.display()))?;
    manifest.write()?;
    let storage_dirs = layout
        .rms
        .iter()
        .map(|rm| (rm.rm_id.clone(), rm.storage_dir.clone()))
        .collect();
    Ok((manifest, spare, storage_dirs))
}

/// A proxy in front of every ResourceManager endpoint of `manifest`'s proxied layout, placing
/// each caller by its process ([`ProcSources`]).
async fn start_proxies(manifest: &ClusterManifest, spare: &str) -> anyhow::Result<ProxyFleet> {
    let base = manifest.base_dir.clone();
    // The spare works in its own directory, so proxies place its connections as its own.
    let daemon_dirs: Vec<(String, PathBuf)> = manifest
        .daemons
        .iter()
        .map(|daemon| daemon.id.as_str())
        .chain([spare])
        .map(|id| (id.to_owned(), base.join(id)))
        .collect();
    let pids: DaemonPids = Arc::new(move || running_pids(&base));
    ProxyFleet::start(
        &manifest.proxy_routes,
        Arc::new(ProcSources::new(daemon_dirs, pids)),
    )
    .await
}

/// Every daemon of `manifest` and the spare with the ports it listens on, for the kernel's
/// filter: a ResourceManager's endpoints; a NodeManager's container manager, web server and
/// AMRMProxy.
fn kernel_peers(manifest: &ClusterManifest, spare: &RmLayout) -> anyhow::Result<Vec<KernelPeer>> {
    let spare = ManifestDaemon::resourcemanager(spare);
    let mut peers = Vec::new();
    for daemon in manifest.daemons.iter().chain([&spare]) {
        let mut ports: Vec<u16> = daemon_addresses(daemon)?
            .values()
            .map(|address| port_of(address, &daemon.id))
            .collect::<anyhow::Result<_>>()?;
        if daemon.role == DaemonRole::NodeManager {
            let nm = NmConfig::from_conf(&load(&daemon.conf_dir)?)
                .with_context(|| format!("reading the configuration of {}", daemon.id))?;
            if nm.amrm_proxy.enabled {
                ports.push(nm.amrm_proxy.address.port);
            }
        }
        peers.push(KernelPeer {
            id: daemon.id.clone(),
            ports,
        });
    }
    Ok(peers)
}

fn port_of(address: &str, daemon: &str) -> anyhow::Result<u16> {
    address
        .rsplit_once(':')
        .and_then(|(_, port)| port.parse().ok())
        .with_context(|| format!("the address {address} of {daemon} names no port"))
}

/// The cgroup daemon `id` joins: its own in the netns mode, none with the proxies.
///
/// # Errors
///
/// In the netns mode, when the kernel network made no cgroup for `id` (its packets would pass
/// as the harness's).
fn kernel_cgroup(network: &NetworkControl, id: &str) -> anyhow::Result<Option<PathBuf>> {
    match network {
        NetworkControl::Kernel(kernel) => kernel
            .cgroup(id)
            .map(|dir| Some(dir.to_path_buf()))
            .with_context(|| format!("the packet filter has no cgroup for {id}")),
        NetworkControl::Proxies(_) => Ok(None),
    }
}

/// Every replica's status, asked concurrently, each under [`CALL_DEADLINE`].
pub(crate) async fn replica_statuses(
    admins: &BTreeMap<String, ResourceManagerAdministrationProtocolClient<Channel>>,
) -> Vec<ReplicaStatus> {
    let mut asking = JoinSet::new();
    for (index, (rm_id, admin)) in admins.iter().enumerate() {
        let (rm_id, mut admin) = (rm_id.clone(), admin.clone());
        asking.spawn(async move {
            let answer = match timeout(
                CALL_DEADLINE,
                admin.get_service_status(HaServiceStatusRequestProto {}),
            )
            .await
            {
                Ok(Ok(reply)) => {
                    let status = reply.into_inner();
                    Ok(ReplicaAnswer {
                        active: status.state() == HaServiceStateProto::Active,
                        term: status.current_term,
                        leader_rm_id: status.leader_rm_id,
                        last_applied_index: status.last_applied_index,
                    })
                }
                Ok(Err(status)) => Err(format!("{:?}: {}", status.code(), status.message())),
                Err(_) => Err(format!("no answer within {CALL_DEADLINE:?}")),
            };
            (index, ReplicaStatus { rm_id, answer })
        });
    }
    let mut statuses = Vec::new();
    while let Some(joined) = asking.join_next().await {
        if let Ok(status) = joined {
            statuses.push(status);
        }
    }
    statuses.sort_by_key(|(index, _)| *index);
    statuses.into_iter().map(|(_, status)| status).collect()
}

/// Asks `<exe> chaos failpoints` whether the binary takes failpoints: `None` when it does (exit
/// 0), otherwise why not (its message, or why it could not be asked).
async fn failpoints_missing(exe: &Path) -> Option<String> {
    let output = tokio::process::Command::new(exe)
        .args(["chaos", "failpoints"])
        .stdin(std::process::Stdio::null())
        .output()
        .await;
    match output {
        Ok(output) if output.status.success() => None,
        Ok(output) => {
            let said = String::from_utf8_lossy(&output.stderr).trim().to_owned();
            Some(format!(
                "`{} chaos failpoints` exited with {}: {said}",
                exe.display(),
                output.status
            ))
        }
        Err(err) => Some(format!(
            "running `{} chaos failpoints`: {err}",
            exe.display()
        )),
    }
}

fn load(dir: &Path) -> anyhow::Result<Configuration> {
    Configuration::load_dir(dir).with_context(|| format!("loading {}", dir.display()))
}

/// The pids of the daemons `cluster.json` records as running, by pid; empty if it cannot be
/// read (before the first start, say).
fn running_pids(base: &Path) -> BTreeMap<u32, String> {
    ClusterState::read(base)
        .map(|state| {
            state
                .daemons
                .into_iter()
                .filter(|daemon| daemon.state == DaemonState::Running)
                .filter_map(|daemon| Some((daemon.pid?, daemon.id)))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(rm_id: &str, active: bool, leader: &str, term: u64) -> ReplicaStatus {
        ReplicaStatus {
            rm_id: rm_id.to_owned(),
            answer: Ok(ReplicaAnswer {
                active,
                term,
                leader_rm_id: leader.to_owned(),
                last_applied_index: 9,
            }),
        }
    }

    #[test]
    fn the_leader_is_the_one_replica_that_is_active_and_names_itself() {
        // The spare leads: the configured replicas follow it.
        let statuses = [
            status("rm1", false, "rm4", 3),
            status("rm2", false, "rm4", 3),
            ReplicaStatus {
                rm_id: "rm3".to_owned(),
                answer: Err("no answer within 700ms".to_owned()),
            },
            status("rm4", true, "rm4", 3),
        ];
        assert_eq!(sole_leader(&statuses).as_deref(), Some("rm4"));
        // An old leader that has not heard of the new term yet makes two claimants: none.
        let split = [status("rm1", true, "rm1", 2), status("rm2", true, "rm2", 3)];
        assert_eq!(sole_leader(&split), None);
        // Active but naming another is not a claim.
        assert_eq!(sole_leader(&[status("rm1", true, "rm2", 3)]), None);
    }
}
