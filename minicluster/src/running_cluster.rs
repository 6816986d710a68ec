//! A cluster that benchmarks measure and the demo and process tests drive: three
//! ResourceManager processes (and any NodeManagers) supervised in this process, with admin
//! clients to watch them and client channels to load them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::{Instant, sleep};
use tonic::transport::Channel;
use yarn_conf::Configuration;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;
use yarn_proto::pb::{
    HaServiceStateProto, HaServiceStatusRequestProto, HaServiceStatusResponseProto,
};
use yarn_security::{ChannelOptions, TlsConfig, connect, connect_lazy};

use crate::{
    ClusterState, DEFAULT_STOP_TIMEOUT, DaemonRole, DaemonSpec, LEADER_WAIT, LayoutOptions, Leader,
    LeaderProbe, MiniCluster,
};

/// How many ResourceManager replicas a [`RunningCluster`] runs.
pub const REPLICAS: usize = 3;

/// How long a replica may take to come back, catch up, or let the cluster settle.
const SETTLE_DEADLINE: Duration = Duration::from_secs(60);

/// How often replicas are asked while waiting for them.
const POLL: Duration = Duration::from_millis(50);

/// One ResourceManager replica of the cluster.
#[derive(Debug)]
struct Replica {
    rm_id: String,
    client_address: String,
    admin: ResourceManagerAdministrationProtocolClient<Channel>,
}

/// A running three-replica cluster laid out by [`init`](crate::init) in its own directory,
/// whose [`MiniCluster`] supervisor runs as a task of the current runtime.
///
/// Guarantees: [`RunningCluster::stop`] stops every daemon (SIGTERM, then SIGKILL). Dropped
/// without `stop`, the supervisor stops them when its task next runs, and its own drop (when
/// the runtime shuts down) SIGKILLs any still running, so no daemon outlives its user.
#[derive(Debug)]
pub struct RunningCluster {
    base_dir: PathBuf,
    client_conf_dir: PathBuf,
    /// The harness user's TLS settings; always enabled.
    tls: TlsConfig,
    replicas: Vec<Replica>,
    probe: LeaderProbe,
    stop: oneshot::Sender<()>,
    supervisor: JoinHandle<anyhow::Result<ClusterState>>,
}

impl RunningCluster {
    /// Lays out a cluster of [`REPLICAS`] ResourceManagers (and no NodeManager) in `base_dir`
    /// and starts each as `<exe> resourcemanager`. Must run inside a Tokio runtime.
    ///
    /// # Errors
    ///
    /// When `base_dir` is not new or empty, the layout cannot be written, the client
    /// configuration has TLS disabled or unreadable, or a daemon cannot be started (see
    /// [`MiniCluster::launch`]).
    pub async fn start(base_dir: &Path, exe: &Path) -> anyhow::Result<Self> {
        Self::start_with_nodes(base_dir, exe, 0).await
    }

    /// As [`start`](Self::start), with `nodemanagers` NodeManagers started after the
    /// ResourceManagers, each as `<exe> nodemanager`.
    ///
    /// # Errors
    ///
    /// As [`start`](Self::start).
    pub async fn start_with_nodes(
        base_dir: &Path,
        exe: &Path,
        nodemanagers: usize,
    ) -> anyhow::Result<Self> {
        Self::start_with_layout(base_dir, exe, nodemanagers, &LayoutOptions::default()).await
    }

    /// As [`start_with_nodes`](Self::start_with_nodes), with the cluster laid out by
    /// [`init_with`](crate::init_with) under `options` (extra `yarn-site.xml` properties, which
    /// come after the layout's own and so override them). Meant for unproxied layouts: this
    /// type starts no proxy on the fronts of a proxied one, so its daemons could not talk.
    ///
    /// # Errors
    ///
    /// As [`start`](Self::start).
    pub async fn start_with_layout(
        base_dir: &Path,
        exe: &Path,
        nodemanagers: usize,
        options: &LayoutOptions,
    ) -> anyhow::Result<Self> {
        let manifest = crate::init_with(base_dir, REPLICAS, nodemanagers, options)?;
        let conf = Configuration::load_dir(&manifest.client_conf_dir).with_context(|| {
            format!(
                "loading the client configuration {}",
                manifest.client_conf_dir.display()
            )
        })?;
        let tls = TlsConfig::from_conf(&conf).with_context(|| {
            format!(
                "reading the TLS settings of {}",
                manifest.client_conf_dir.display()
            )
        })?;
        anyhow::ensure!(
            tls.is_enabled(),
            "{} disables TLS, but the benchmark measures mutual TLS",
            manifest.client_conf_dir.display()
        );
        let specs = manifest
            .daemons
            .iter()
            .map(|daemon| {
                let addresses = crate::daemon_addresses(daemon)?;
                Ok(DaemonSpec::yarn_ha(
                    exe,
                    daemon,
                    manifest.log_file(&daemon.id),
                    addresses,
                ))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let admin_options = ChannelOptions {
            connect_timeout: Duration::from_secs(1),
            request_timeout: Duration::from_secs(1),
            ..ChannelOptions::default()
        };
        let mut replicas = Vec::new();
        let mut admin_addresses = Vec::new();
        for spec in specs
            .iter()
            .filter(|spec| spec.role == DaemonRole::ResourceManager)
        {
            let address = |service: &str| {
                spec.addresses.get(service).cloned().with_context(|| {
                    format!(
                        "{} has no {service} address in {}",
                        spec.id,
                        spec.conf_dir.display()
                    )
                })
            };
            let admin_address = address("admin")?;
            let admin = connect_lazy(&admin_address, tls.client_config(), &admin_options)
                .with_context(|| format!("the admin address {admin_address} of {}", spec.id))?;
            replicas.push(Replica {
                rm_id: spec.id.clone(),
                client_address: address("client")?,
                admin: ResourceManagerAdministrationProtocolClient::new(admin),
            });
            admin_addresses.push((spec.id.clone(), admin_address));
        }
        let probe = LeaderProbe::new(&manifest.client_conf_dir, admin_addresses)?;
        let cluster = MiniCluster::launch(
            &manifest.base_dir,
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
        Ok(RunningCluster {
            client_conf_dir: manifest.client_conf_dir,
            base_dir: manifest.base_dir,
            tls,
            replicas,
            probe,
            stop,
            supervisor,
        })
    }

    /// The configuration directory of the harness user (RM addresses, the user's certificate).
    pub fn client_conf_dir(&self) -> &Path {
        &self.client_conf_dir
    }

    /// The rm ids of the replicas, in `rm-ids` order.
    pub fn rm_ids(&self) -> impl Iterator<Item = &str> {
        self.replicas.iter().map(|replica| replica.rm_id.as_str())
    }

    /// The replica that reports ACTIVE, with its term, asking every replica in turn for up
    /// to [`LEADER_WAIT`].
    ///
    /// # Errors
    ///
    /// When none does within that time.
    pub async fn leader(&mut self) -> anyhow::Result<Leader> {
        self.probe.find_leader(LEADER_WAIT).await.with_context(|| {
            format!(
                "no ResourceManager reported ACTIVE within {LEADER_WAIT:?}; see the logs in {}",
                self.base_dir.join("logs").display()
            )
        })
    }

    /// `count` client-protocol clients, each over its own connection (TCP and the TLS
    /// handshake done, concurrently) to replica `rm_id`'s client address, presenting the
    /// harness user's certificate.
    ///
    /// # Errors
    ///
    /// When `rm_id` is not a replica or a connection fails within `options.connect_timeout`.
    pub async fn clients(
        &self,
        rm_id: &str,
        count: usize,
        options: &ChannelOptions,
    ) -> anyhow::Result<Vec<ApplicationClientProtocolClient<Channel>>> {
        let address = &self.replica(rm_id)?.client_address;
        let mut connecting = JoinSet::new();
        for _ in 0..count {
            let (address, tls, options) = (address.clone(), self.tls.client_config(), *options);
            connecting.spawn(async move { connect(&address, tls, &options).await });
        }
        let mut clients = Vec::with_capacity(count);
        while let Some(joined) = connecting.join_next().await {
            let channel = joined
                .context("a connecting task failed")?
                .with_context(|| {
                    format!("connecting to the client address {address} of {rm_id}")
                })?;
            clients.push(ApplicationClientProtocolClient::new(channel));
        }
        Ok(clients)
    }

    /// The process id of replica `rm_id`, as `cluster.json` records it.
    ///
    /// # Errors
    ///
    /// When `cluster.json` cannot be read or does not record `rm_id` as running.
    pub fn pid(&self, rm_id: &str) -> anyhow::Result<u32> {
        let state = ClusterState::read(&self.base_dir)?;
        state
            .daemon(rm_id)
            .and_then(|daemon| daemon.pid)
            .with_context(|| {
                format!(
                    "{} records no running process for {rm_id}",
                    ClusterState::path_in(&self.base_dir).display()
                )
            })
    }

    /// Asks the supervisor to start replica `rm_id` again after it was killed.
    ///
    /// # Errors
    ///
    /// When the supervisor refuses or does not answer (see [`restart`](crate::restart)).
    pub async fn restart(&self, rm_id: &str) -> anyhow::Result<()> {
        let base_dir = self.base_dir.clone();
        let id = rm_id.to_owned();
        // The control client blocks; the supervisor it talks to is a task of this runtime.
        tokio::task::spawn_blocking(move || crate::restart(&base_dir, &id))
            .await
            .context("the restart request's thread failed")??;
        Ok(())
    }

    /// Waits until replica `rm_id` answers and has applied at least every entry the leader
    /// had applied when the wait began.
    ///
    /// # Errors
    ///
    /// When there is no leader, or `rm_id` does not catch up within a minute.
    pub async fn wait_caught_up(&mut self, rm_id: &str) -> anyhow::Result<()> {
        let leader = self.leader().await?.rm_id;
        let deadline = Instant::now() + SETTLE_DEADLINE;
        let target = loop {
            if let Some(status) = self.status(&leader).await {
                break status.last_applied_index;
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "the leader {leader} did not report its status within {SETTLE_DEADLINE:?}"
            );
            sleep(POLL).await;
        };
        let mut applied = None;
        loop {
            if let Some(status) = self.status(rm_id).await {
                if status.last_applied_index >= target {
                    return Ok(());
                }
                applied = Some(status.last_applied_index);
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "{rm_id} did not catch up with {leader} within {SETTLE_DEADLINE:?}: it applied \
                 {} of {target} entries; see {}",
                applied.map_or_else(|| "none".to_owned(), |index| index.to_string()),
                self.base_dir
                    .join("logs")
                    .join(format!("{rm_id}.log"))
                    .display()
            );
            sleep(POLL).await;
        }
    }

    /// Waits until, for `stable_for` without a break, every replica answers and all name the
    /// same ACTIVE leader in the same term; returns that leader.
    ///
    /// # Errors
    ///
    /// When that does not happen within a minute; the message gives the last disagreement.
    pub async fn wait_stable(&mut self, stable_for: Duration) -> anyhow::Result<String> {
        let deadline = Instant::now() + SETTLE_DEADLINE;
        // Since when every replica has agreed on this (leader, term).
        let mut since: Option<(Instant, (String, u64))> = None;
        let mut problem = String::from("the leader kept changing");
        loop {
            match self.agreed_leader().await {
                Ok(view) => match &since {
                    Some((start, seen)) if *seen == view => {
                        if start.elapsed() >= stable_for {
                            return Ok(view.0);
                        }
                    }
                    _ => since = Some((Instant::now(), view)),
                },
                Err(why) => {
                    since = None;
                    problem = why;
                }
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "the cluster did not settle within {SETTLE_DEADLINE:?}: {problem}"
            );
            sleep(POLL).await;
        }
    }

    /// The leader and term every replica agrees on, or what disagrees.
    async fn agreed_leader(&mut self) -> Result<(String, u64), String> {
        let mut agreed: Option<(String, u64)> = None;
        let mut active = None;
        for index in 0..self.replicas.len() {
            let rm_id = self.replicas[index].rm_id.clone();
            let status = self
                .status(&rm_id)
                .await
                .ok_or_else(|| format!("{rm_id} does not answer"))?;
            if status.state() == HaServiceStateProto::Active {
                active = Some(rm_id.clone());
            }
            let view = (status.leader_rm_id.clone(), status.current_term);
            if view.0.is_empty() {
                return Err(format!("{rm_id} knows no leader"));
            }
            match &agreed {
                Some(first) if *first != view => {
                    return Err(format!(
                        "{rm_id} follows {} in term {}, another replica {} in term {}",
                        view.0, view.1, first.0, first.1
                    ));
                }
                Some(_) => {}
                None => agreed = Some(view),
            }
        }
        let (leader, term) = agreed.ok_or("the cluster has no replicas")?;
        if active.as_deref() != Some(leader.as_str()) {
            return Err(format!("every replica names {leader}, which is not ACTIVE"));
        }
        Ok((leader, term))
    }

    /// Replica `rm_id`'s HA status, `None` when it does not answer.
    async fn status(&mut self, rm_id: &str) -> Option<HaServiceStatusResponseProto> {
        let replica = self.replicas.iter_mut().find(|r| r.rm_id == rm_id)?;
        replica
            .admin
            .get_service_status(HaServiceStatusRequestProto {})
            .await
            .ok()
            .map(tonic::Response::into_inner)
    }

    fn replica(&self, rm_id: &str) -> anyhow::Result<&Replica> {
        self.replicas
            .iter()
            .find(|replica| replica.rm_id == rm_id)
            .with_context(|| format!("the benchmark cluster has no replica {rm_id}"))
    }

    /// Stops every daemon (SIGTERM, then SIGKILL after the stop timeout) and returns the final
    /// state.
    ///
    /// # Errors
    ///
    /// When the supervisor fails (see [`MiniCluster::run`]) or its task panicked.
    pub async fn stop(self) -> anyhow::Result<ClusterState> {
        // The supervisor may already be gone after an error; awaiting it says why.
        let _ = self.stop.send(());
        self.supervisor
            .await
            .context("the minicluster supervisor task failed")?
    }
}
