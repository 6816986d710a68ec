//! [`RmCluster`]: replicas of the real `yarn_rm_ha::ResourceManager` in the test's process, each
//! with its own configuration, sled storage and mutual-TLS endpoints on 127.0.0.1, every
//! certificate from one [`Pki`], and every Raft link between two replicas running through a
//! forwarder the test can cut ([`RmCluster::isolate`]). A replica's ports and storage are fixed
//! when the cluster is laid out, so it can be stopped and started again; every wait has a
//! deadline, [`DEADLINE`].

mod link;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::MutexGuard;
use tonic::transport::Channel;
use yarn_conf::Configuration;
use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;
use yarn_proto::pb::application_master_protocol_client::ApplicationMasterProtocolClient;
use yarn_proto::pb::distributed_scheduling_am_protocol_client::DistributedSchedulingAmProtocolClient;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;
use yarn_proto::pb::resource_tracker_client::ResourceTrackerClient;
use yarn_rm_ha::applications::TokenIssuer;
use yarn_rm_ha::{ResourceManager, RmConfig, RmListeners, Serving};
use yarn_security::{ChannelOptions, Role, TlsConfig};

use crate::pki::{Pki, utf8};
use crate::poll::{POLL, eventually};
use link::Link;

/// How long any wait on a cluster may take before the test fails, naming what it waited for.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// One cluster at a time per test process, for the clusters laid out with
/// [`Layout::one_at_a_time`]: tests run in parallel threads, and several Raft groups with short
/// heartbeats on a loaded two-core machine would mostly test the scheduler.
static ONE_CLUSTER_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How [`RmCluster::new`] lays a cluster out.
pub struct Layout<'a> {
    /// The cluster id (`yarn.resourcemanager.cluster-id`); the replicas' rm-ids are `<name>1`,
    /// `<name>2` and so on, each with the [`Role::ResourceManager`] certificate of its rm-id.
    pub name: &'a str,
    /// The replicas every configuration lists in `yarn.resourcemanager.ha.rm-ids`.
    pub members: usize,
    /// Further replicas after the members, each listing the members and itself: replicas
    /// that join the group later.
    pub spares: usize,
    /// Configuration every replica gets, set after (so over) the layout's own.
    pub extra: &'a [(&'a str, &'a str)],
    /// Wait for, and hold until dropped, the one turn of the test process that clusters laid
    /// out this way share.
    pub one_at_a_time: bool,
}

/// One replica's fixed identity: its rm-id and addresses, which survive its restarts.
pub struct Slot {
    pub rm_id: String,
    /// The replica's own Raft address; its peers dial it through their links.
    pub raft: String,
    pub admin: String,
    /// The client protocol's address.
    pub client: String,
    pub resource_tracker: String,
    /// The ApplicationMaster (and distributed scheduling) protocol's address.
    pub scheduler: String,
    /// The REST API's address.
    pub webapp: String,
    storage: TempDir,
    /// Listeners holding the served ports from the layout on, so that no other slot or link is
    /// given one of them; handed to the first start.
    held: Option<RmListeners>,
}

/// A cluster of replicas, any of which may be stopped.
pub struct RmCluster {
    pki: Arc<Pki>,
    name: String,
    slots: Vec<Slot>,
    members: usize,
    /// Links by (from, to) slot index.
    links: BTreeMap<(usize, usize), Link>,
    replicas: Vec<Option<ResourceManager>>,
    extra: Vec<(String, String)>,
    _turn: Option<MutexGuard<'static, ()>>,
}

/// Binds 127.0.0.1 port 0 and returns the address with the listener.
pub async fn reserve() -> (String, TcpListener) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    (
        listener.local_addr().expect("address").to_string(),
        listener,
    )
}

/// Binds `address` again after the daemon that held it stopped; the kernel may take a moment
/// to release it.
pub async fn rebind(address: &str) -> TcpListener {
    eventually(&format!("{address} to be free"), DEADLINE, || async {
        TcpListener::bind(address).await.ok()
    })
    .await
}

/// The registration of a stand-in NodeManager `host:45454` (web port 8042) offering
/// `memory_mb` and `vcores`; nothing listens there, so its containers are allocated, never
/// launched.
pub fn node_registration(
    host: &str,
    memory_mb: i64,
    vcores: i32,
) -> pb::RegisterNodeManagerRequestProto {
    pb::RegisterNodeManagerRequestProto {
        node_id: Some(pb::NodeIdProto {
            host: host.to_owned(),
            port: 45454,
        }),
        http_port: 8042,
        resource: Some(pb::ResourceProto {
            memory: memory_mb,
            virtual_cores: vcores,
            ..Default::default()
        }),
        ..Default::default()
    }
}

impl RmCluster {
    /// Lays out the replicas of `layout` with certificates from `pki`, and the links between
    /// them; starts nothing.
    pub async fn new(pki: Arc<Pki>, layout: Layout<'_>) -> Self {
        let turn = if layout.one_at_a_time {
            Some(ONE_CLUSTER_AT_A_TIME.lock().await)
        } else {
            None
        };
        let total = layout.members + layout.spares;
        let mut slots = Vec::new();
        for i in 1..=total {
            let (raft, raft_listener) = reserve().await;
            let (admin, admin_listener) = reserve().await;
            let (client, client_listener) = reserve().await;
            let (resource_tracker, tracker_listener) = reserve().await;
            let (scheduler, scheduler_listener) = reserve().await;
            let (webapp, webapp_listener) = reserve().await;
            slots.push(Slot {
                rm_id: format!("{}{i}", layout.name),
                raft,
                admin,
                client,
                resource_tracker,
                scheduler,
                webapp,
                storage: tempfile::tempdir().expect("storage dir"),
                held: Some(RmListeners {
                    raft: raft_listener,
                    admin: admin_listener,
                    client: client_listener,
                    resource_tracker: tracker_listener,
                    scheduler: scheduler_listener,
                    webapp: webapp_listener,
                }),
            });
        }
        let mut links = BTreeMap::new();
        for from in 0..total {
            for (to, slot) in slots.iter().enumerate() {
                if from != to {
                    links.insert((from, to), Link::start(slot.raft.clone()).await);
                }
            }
        }
        RmCluster {
            pki,
            name: layout.name.to_owned(),
            slots,
            members: layout.members,
            links,
            replicas: (0..total).map(|_| None).collect(),
            extra: layout
                .extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            _turn: turn,
        }
    }

    /// The PKI every replica's certificate comes from.
    pub fn pki(&self) -> &Pki {
        &self.pki
    }

    /// The rm-id and addresses of replica `index`.
    pub fn slot(&self, index: usize) -> &Slot {
        &self.slots[index]
    }

    /// HA on, the rm-ids and the endpoints of the first `members` slots, the Raft address of
    /// each given by `raft`.
    fn members_conf(&self, members: usize, raft: impl Fn(usize) -> String) -> Configuration {
        let mut conf = Configuration::new();
        let ids: Vec<&str> = self.slots[..members]
            .iter()
            .map(|s| s.rm_id.as_str())
            .collect();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", &ids.join(","));
        conf.set("yarn.resourcemanager.cluster-id", &self.name);
        for (peer, slot) in self.slots[..members].iter().enumerate() {
            let id = &slot.rm_id;
            let endpoints = [
                ("ha.raft.address", &raft(peer)),
                ("admin.address", &slot.admin),
                ("address", &slot.client),
                ("resource-tracker.address", &slot.resource_tracker),
                ("scheduler.address", &slot.scheduler),
                ("webapp.address", &slot.webapp),
            ];
            for (key, address) in endpoints {
                conf.set(&format!("yarn.resourcemanager.{key}.{id}"), address);
            }
        }
        conf
    }

    /// The configuration replica `index` runs with: peers' Raft addresses are the links from
    /// it, and the unsuffixed keys name its own endpoints, which is what a replica reads with
    /// `yarn.resourcemanager.ha.enabled=false`.
    fn conf(&self, index: usize) -> Configuration {
        let members = if index < self.members {
            self.members
        } else {
            index + 1
        };
        let slot = &self.slots[index];
        let mut conf = self.members_conf(members, |peer| {
            if peer == index {
                slot.raft.clone()
            } else {
                self.links[&(index, peer)].address.clone()
            }
        });
        let endpoints = [
            ("ha.raft.address", &slot.raft),
            ("admin.address", &slot.admin),
            ("address", &slot.client),
            ("resource-tracker.address", &slot.resource_tracker),
            ("scheduler.address", &slot.scheduler),
            ("webapp.address", &slot.webapp),
        ];
        for (key, address) in endpoints {
            conf.set(&format!("yarn.resourcemanager.{key}"), address);
        }
        conf.set(
            "yarn.resourcemanager.ha.raft.storage-dir",
            &utf8(slot.storage.path()),
        );
        self.pki
            .set_tls(&mut conf, Role::ResourceManager, &slot.rm_id);
        for (key, value) in &self.extra {
            conf.set(key, value);
        }
        conf
    }

    /// What a client of the cluster needs: HA on, the members' endpoints, and the certificate
    /// of `role`/`name`.
    pub fn client_conf(&self, role: Role, name: &str) -> Configuration {
        let mut conf = self.members_conf(self.members, |peer| self.slots[peer].raft.clone());
        self.pki.set_tls(&mut conf, role, name);
        conf
    }

    /// Starts replica `index` on its fixed ports and storage.
    ///
    /// sled releases its directory lock from a background thread after the previous instance
    /// in this process shut down, so opening the storage is retried until the deadline.
    pub async fn start(&mut self, index: usize) {
        let conf = self.conf(index);
        let deadline = tokio::time::Instant::now() + DEADLINE;
        let slot = &mut self.slots[index];
        loop {
            let config = RmConfig::from_conf(&conf, Some(&slot.rm_id)).expect("valid RmConfig");
            let tls = TlsConfig::from_conf(&conf).expect("valid TLS setting");
            let listeners = match slot.held.take() {
                Some(listeners) => listeners,
                None => RmListeners {
                    raft: rebind(&slot.raft).await,
                    admin: rebind(&slot.admin).await,
                    client: rebind(&slot.client).await,
                    resource_tracker: rebind(&slot.resource_tracker).await,
                    scheduler: rebind(&slot.scheduler).await,
                    webapp: rebind(&slot.webapp).await,
                },
            };
            match ResourceManager::start_with(config, tls, listeners).await {
                Ok(replica) => {
                    self.replicas[index] = Some(replica);
                    return;
                }
                Err(yarn_rm_ha::Error::OpenStorage { .. })
                    if tokio::time::Instant::now() < deadline =>
                {
                    tokio::time::sleep(POLL).await;
                }
                Err(e) => panic!("start {}: {e}", slot.rm_id),
            }
        }
    }

    /// Starts the members, in rm-id order.
    pub async fn start_members(&mut self) {
        for index in 0..self.members {
            self.start(index).await;
        }
    }

    /// Stops replica `index` cleanly if it runs; its ports and storage stay.
    pub async fn stop(&mut self, index: usize) {
        if let Some(replica) = self.replicas[index].take() {
            replica.shutdown().await.expect("clean shutdown");
        }
    }

    /// Stops every running replica cleanly, then closes the links and removes the storage.
    pub async fn shutdown(mut self) {
        for index in 0..self.replicas.len() {
            self.stop(index).await;
        }
    }

    /// Cuts (or heals) every link into and out of replica `index`.
    pub fn isolate(&self, index: usize, cut: bool) {
        for ((from, to), link) in &self.links {
            if *from == index || *to == index {
                if cut { link.cut() } else { link.heal() }
            }
        }
    }

    /// The running replica at `index`.
    pub fn replica(&self, index: usize) -> &ResourceManager {
        self.replicas[index].as_ref().expect("a running replica")
    }

    /// Waits until exactly one running replica, other than `not`, serves as leader, and
    /// returns its index.
    pub async fn serving_leader(&self, not: Option<usize>) -> usize {
        eventually("exactly one serving leader", DEADLINE, || async {
            let leaders: Vec<usize> = self
                .replicas
                .iter()
                .enumerate()
                .filter(|(i, r)| {
                    Some(*i) != not
                        && r.as_ref()
                            .is_some_and(|r| matches!(r.serving(), Serving::Leader(_)))
                })
                .map(|(i, _)| i)
                .collect();
            (leaders.len() == 1).then(|| leaders[0])
        })
        .await
    }

    /// Waits until the serving leader has allocated `attempt`'s AM container, then signs the
    /// attempt's AMRMToken with the replicated key: the token the AM launcher puts in the AM
    /// container's credentials.
    pub async fn am_token(&self, attempt: ApplicationAttemptId) -> pb::TokenProto {
        eventually(&format!("{attempt}'s AM container"), DEADLINE, || async {
            let leader = self.serving_leader(None).await;
            self.replica(leader).state().read(|state| {
                state
                    .containers
                    .of_application(attempt.application_id.id)
                    .find(|r| r.is_am && r.attempt_id == attempt.attempt_id)?;
                Some(TokenIssuer::from_state(state)?.amrm_token(attempt))
            })
        })
        .await
    }

    async fn channel(&self, address: &str, role: Role, name: &str) -> Channel {
        yarn_security::connect(
            address,
            self.pki.tls(role, name).client_config(),
            &ChannelOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("connect to {address} as {role}/{name}: {e}"))
    }

    /// A client-protocol client of replica `index`, as `user`.
    pub async fn client(
        &self,
        index: usize,
        user: &str,
    ) -> ApplicationClientProtocolClient<Channel> {
        let address = &self.slots[index].client;
        ApplicationClientProtocolClient::new(self.channel(address, Role::User, user).await)
    }

    /// An ApplicationMasterProtocol client of replica `index`, as `user`.
    pub async fn scheduler(
        &self,
        index: usize,
        user: &str,
    ) -> ApplicationMasterProtocolClient<Channel> {
        let address = &self.slots[index].scheduler;
        ApplicationMasterProtocolClient::new(self.channel(address, Role::User, user).await)
    }

    /// An admin client of replica `index`, as `user`.
    pub async fn admin(
        &self,
        index: usize,
        user: &str,
    ) -> ResourceManagerAdministrationProtocolClient<Channel> {
        let address = &self.slots[index].admin;
        ResourceManagerAdministrationProtocolClient::new(
            self.channel(address, Role::User, user).await,
        )
    }

    /// A ResourceTracker client of replica `index`, with the certificate of NodeManager `host`.
    pub async fn resource_tracker(
        &self,
        index: usize,
        host: &str,
    ) -> ResourceTrackerClient<Channel> {
        let address = &self.slots[index].resource_tracker;
        ResourceTrackerClient::new(self.channel(address, Role::NodeManager, host).await)
    }

    /// A DistributedSchedulingAMProtocol client of replica `index`, with the certificate of
    /// NodeManager `host`, as an AMRMProxy calls.
    pub async fn distributed_scheduler(
        &self,
        index: usize,
        host: &str,
    ) -> DistributedSchedulingAmProtocolClient<Channel> {
        let address = &self.slots[index].scheduler;
        DistributedSchedulingAmProtocolClient::new(
            self.channel(address, Role::NodeManager, host).await,
        )
    }
}
