//! The harness: replicas of the real `ResourceManager` in this process, each with its own
//! configuration, sled storage and mutual-TLS endpoints on 127.0.0.1, and every Raft link
//! between two replicas running through a [`Link`] the test can cut.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tempfile::TempDir;
use tokio::net::TcpListener;
use tonic::transport::Channel;
use yarn_conf::Configuration;
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;
use yarn_rm_ha::state_machine::{CommandV1, RmCommand, RmResponse};
use yarn_rm_ha::{ResourceManager, RmConfig, RmListeners, Serving};
use yarn_security::pki::LeafSpec;
use yarn_security::{ChannelOptions, Role, TlsConfig};
use yarn_test_support::pki::Pki;

use crate::link::Link;

/// How long any wait in these tests may take before it fails, naming what it waited for.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// The user every test client is; `yarn.admin.acl` allows it.
pub const USER: &str = "alice";

/// The host of the test NodeManager certificate.
pub const NM_HOST: &str = "nm-host-1";

/// Polls `check` until it returns `Some`, failing the test after [`DEADLINE`].
pub async fn eventually<T, F, Fut>(what: &str, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    yarn_test_support::poll::eventually(what, DEADLINE, check).await
}

/// One replica's fixed identity: its ports and storage survive restarts.
pub struct Slot {
    pub rm_id: String,
    pub storage: TempDir,
    pub raft: String,
    pub admin: String,
    pub client: String,
    pub resource_tracker: String,
    pub scheduler: String,
    /// The web address: configured, not yet served.
    pub unserved: [String; 1],
    /// Listeners holding every port of this slot from creation, so that no other slot or link
    /// is given one of them; the served ones are handed to the first start.
    held: Option<RmListeners>,
    _reserved: Vec<TcpListener>,
}

/// One cluster at a time: the tests of this binary run in parallel threads, and several Raft
/// groups with 50 ms heartbeats on a loaded two-core machine would mostly test the scheduler.
static ONE_CLUSTER_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A cluster of replicas, some of which may be stopped.
pub struct Cluster {
    _turn: tokio::sync::MutexGuard<'static, ()>,
    pub pki: Pki,
    pub slots: Vec<Slot>,
    /// Members every replica's configuration lists in `rm-ids` (extra slots join later).
    pub configured: usize,
    /// Links by (from, to) slot index.
    pub links: BTreeMap<(usize, usize), Link>,
    pub replicas: Vec<Option<ResourceManager>>,
    /// Extra configuration every replica gets.
    pub extra: Vec<(String, String)>,
}

async fn reserve() -> (String, TcpListener) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    (
        listener.local_addr().expect("address").to_string(),
        listener,
    )
}

impl Cluster {
    /// Lays out `configured + extra` slots; only the first `configured` are in `rm-ids`.
    pub async fn new(configured: usize, extra_slots: usize, extra: &[(&str, &str)]) -> Cluster {
        let turn = ONE_CLUSTER_AT_A_TIME.lock().await;
        let total = configured + extra_slots;
        let ids: Vec<String> = (1..=total).map(|i| format!("rm{i}")).collect();
        let mut leaves: Vec<LeafSpec> = ids
            .iter()
            .map(|id| LeafSpec::new(Role::ResourceManager, id))
            .collect();
        leaves.push(LeafSpec::new(Role::User, USER));
        leaves.push(LeafSpec::new(Role::User, "mallory"));
        leaves.push(LeafSpec::new(Role::NodeManager, NM_HOST));
        let pki = Pki::new(&leaves);
        let mut slots = Vec::new();
        for rm_id in ids {
            let (raft, raft_listener) = reserve().await;
            let (admin, admin_listener) = reserve().await;
            let (client, client_listener) = reserve().await;
            let (resource_tracker, tracker_listener) = reserve().await;
            let (scheduler, scheduler_listener) = reserve().await;
            let mut unserved = Vec::new();
            let mut reserved = Vec::new();
            for _ in 0..1 {
                let (address, listener) = reserve().await;
                unserved.push(address);
                reserved.push(listener);
            }
            slots.push(Slot {
                rm_id,
                storage: tempfile::tempdir().expect("storage dir"),
                raft,
                admin,
                client,
                resource_tracker,
                scheduler,
                unserved: unserved.try_into().expect("one address"),
                held: Some(RmListeners {
                    raft: raft_listener,
                    admin: admin_listener,
                    client: client_listener,
                    resource_tracker: tracker_listener,
                    scheduler: scheduler_listener,
                }),
                _reserved: reserved,
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
        Cluster {
            _turn: turn,
            pki,
            slots,
            configured,
            links,
            replicas: (0..total).map(|_| None).collect(),
            extra: extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }

    /// The configuration replica `index` runs with: peers' Raft addresses are the links from it.
    pub fn conf(&self, index: usize) -> Configuration {
        let mut conf = Configuration::new();
        let members = if index < self.configured {
            self.configured
        } else {
            index + 1
        };
        let ids: Vec<&str> = self.slots[..members]
            .iter()
            .map(|s| s.rm_id.as_str())
            .collect();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", &ids.join(","));
        conf.set("yarn.resourcemanager.cluster-id", "test-cluster");
        conf.set("yarn.admin.acl", USER);
        for (peer, slot) in self.slots[..members].iter().enumerate() {
            let id = &slot.rm_id;
            let raft = if peer == index {
                slot.raft.clone()
            } else {
                self.links[&(index, peer)].address.clone()
            };
            conf.set(&format!("yarn.resourcemanager.ha.raft.address.{id}"), &raft);
            conf.set(
                &format!("yarn.resourcemanager.admin.address.{id}"),
                &slot.admin,
            );
            conf.set(&format!("yarn.resourcemanager.address.{id}"), &slot.client);
            conf.set(
                &format!("yarn.resourcemanager.resource-tracker.address.{id}"),
                &slot.resource_tracker,
            );
            conf.set(
                &format!("yarn.resourcemanager.scheduler.address.{id}"),
                &slot.scheduler,
            );
            conf.set(
                &format!("yarn.resourcemanager.webapp.address.{id}"),
                &slot.unserved[0],
            );
        }
        let slot = &self.slots[index];
        // The unsuffixed keys are what a replica reads with yarn.resourcemanager.ha.enabled=false.
        conf.set("yarn.resourcemanager.ha.raft.address", &slot.raft);
        conf.set("yarn.resourcemanager.admin.address", &slot.admin);
        conf.set("yarn.resourcemanager.address", &slot.client);
        conf.set(
            "yarn.resourcemanager.resource-tracker.address",
            &slot.resource_tracker,
        );
        conf.set("yarn.resourcemanager.scheduler.address", &slot.scheduler);
        conf.set("yarn.resourcemanager.webapp.address", &slot.unserved[0]);
        conf.set(
            "yarn.resourcemanager.ha.raft.storage-dir",
            &path(slot.storage.path()),
        );
        self.pki
            .set_tls(&mut conf, Role::ResourceManager, &slot.rm_id);
        for (key, value) in &self.extra {
            conf.set(key, value);
        }
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
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("start {}: {e}", slot.rm_id),
            }
        }
    }

    /// Starts the configured replicas.
    pub async fn start_configured(&mut self) {
        for index in 0..self.configured {
            self.start(index).await;
        }
    }

    /// Stops replica `index` cleanly (its storage stays).
    pub async fn stop(&mut self, index: usize) {
        if let Some(replica) = self.replicas[index].take() {
            replica.shutdown().await.expect("clean shutdown");
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
        eventually("exactly one serving leader", || async {
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

    /// The user's TLS setting.
    pub fn user_tls(&self, user: &str) -> TlsConfig {
        self.pki.tls(Role::User, user)
    }

    async fn channel(&self, address: &str, user: &str) -> Channel {
        yarn_security::connect(
            address,
            self.user_tls(user).client_config(),
            &ChannelOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("connect to {address}: {e}"))
    }

    /// A ResourceTracker client of replica `index`, with the certificate of NodeManager `host`.
    pub async fn resource_tracker(
        &self,
        index: usize,
    ) -> yarn_proto::pb::resource_tracker_client::ResourceTrackerClient<Channel> {
        let tls = self.pki.tls(Role::NodeManager, NM_HOST);
        let channel = yarn_security::connect(
            &self.slots[index].resource_tracker,
            tls.client_config(),
            &ChannelOptions::default(),
        )
        .await
        .expect("connect to the resource tracker");
        yarn_proto::pb::resource_tracker_client::ResourceTrackerClient::new(channel)
    }

    /// A client-protocol client of replica `index`, as [`USER`].
    pub async fn client(&self, index: usize) -> ApplicationClientProtocolClient<Channel> {
        ApplicationClientProtocolClient::new(self.channel(&self.slots[index].client, USER).await)
    }

    /// An ApplicationMasterProtocol client of replica `index`, as [`USER`].
    pub async fn scheduler(
        &self,
        index: usize,
    ) -> yarn_proto::pb::application_master_protocol_client::ApplicationMasterProtocolClient<Channel>
    {
        yarn_proto::pb::application_master_protocol_client::ApplicationMasterProtocolClient::new(
            self.channel(&self.slots[index].scheduler, USER).await,
        )
    }

    /// A DistributedSchedulingAMProtocol client of replica `index`, with the certificate of
    /// NodeManager [`NM_HOST`], as an AMRMProxy calls.
    pub async fn distributed_scheduler(
        &self,
        index: usize,
    ) -> yarn_proto::pb::distributed_scheduling_am_protocol_client::DistributedSchedulingAmProtocolClient<Channel>
    {
        let tls = self.pki.tls(Role::NodeManager, NM_HOST);
        let channel = yarn_security::connect(
            &self.slots[index].scheduler,
            tls.client_config(),
            &ChannelOptions::default(),
        )
        .await
        .expect("connect to the scheduler address");
        yarn_proto::pb::distributed_scheduling_am_protocol_client::DistributedSchedulingAmProtocolClient::new(channel)
    }

    /// An admin client of replica `index`, as `user`.
    pub async fn admin(
        &self,
        index: usize,
        user: &str,
    ) -> ResourceManagerAdministrationProtocolClient<Channel> {
        ResourceManagerAdministrationProtocolClient::new(
            self.channel(&self.slots[index].admin, user).await,
        )
    }
}

/// Binds `address` again after a replica that held it stopped; the kernel may take a moment
/// to release it.
async fn rebind(address: &str) -> TcpListener {
    eventually(&format!("{address} to be free"), || async {
        TcpListener::bind(address).await.ok()
    })
    .await
}

fn path(p: &Path) -> String {
    PathBuf::from(p).to_string_lossy().into_owned()
}

/// Whether `status` is a replica's refusal of a call it did not execute because it is not the
/// serving leader.
pub fn not_leader(status: &tonic::Status) -> bool {
    status
        .metadata()
        .contains_key(yarn_proto::NOT_LEADER_HEADER)
}

/// Runs `call` against the serving leader, again on whichever replica leads next whenever the
/// one called refuses as not leader (such a call was not executed, so resending is safe).
pub async fn on_leader<T, F, Fut>(cluster: &Cluster, what: &str, mut call: F) -> (usize, T)
where
    F: FnMut(usize) -> Fut,
    Fut: Future<Output = Result<T, tonic::Status>>,
{
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let leader = cluster.serving_leader(None).await;
        match call(leader).await {
            Ok(value) => return (leader, value),
            // Refused as not leader (not executed), or no quorum confirmed in time while an
            // election settles: every call used here is safe to resend.
            Err(status) if not_leader(&status) || status.code() == tonic::Code::Unavailable => {}
            Err(status) => panic!("{what} failed on {}: {status}", cluster.slots[leader].rm_id),
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {DEADLINE:?} waiting for {what} to succeed on a leader"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Replaces the committed queue configuration (`capacity-scheduler.xml` properties, full keys)
/// once the leader has committed its initial one.
pub async fn set_queue_configuration(cluster: &Cluster, properties: BTreeMap<String, String>) {
    let properties = &properties;
    on_leader(cluster, "SetQueueConfiguration", |leader| async move {
        let replica = cluster.replica(leader);
        let version = replica.state().read(|state| state.queue_config_version);
        if version == 0 {
            return Err(tonic::Status::unavailable(
                "the initial configuration is not in yet",
            ));
        }
        let command = RmCommand::V1(CommandV1::SetQueueConfiguration {
            expected: version,
            properties: properties.clone(),
        });
        match replica.raft().client_write(command).await {
            Ok(reply) if matches!(reply.data, RmResponse::QueueConfigVersionSet { .. }) => Ok(()),
            Ok(reply) => panic!("the test configuration was refused: {:?}", reply.data),
            Err(err) => Err(tonic::Status::unavailable(err.to_string())),
        }
    })
    .await;
}

/// Registers NodeManager `NM_HOST:45454` offering `memory_mb` and `vcores` with the serving
/// leader.
pub async fn register_node(cluster: &Cluster, memory_mb: i64, vcores: i32) {
    let registration = pb::RegisterNodeManagerRequestProto {
        node_id: Some(pb::NodeIdProto {
            host: NM_HOST.to_owned(),
            port: 45454,
        }),
        http_port: 8042,
        resource: Some(pb::ResourceProto {
            memory: memory_mb,
            virtual_cores: vcores,
            ..Default::default()
        }),
        ..Default::default()
    };
    let registration = &registration;
    on_leader(cluster, "RegisterNodeManager", |leader| async move {
        cluster
            .resource_tracker(leader)
            .await
            .register_node_manager(registration.clone())
            .await
    })
    .await;
}

/// Creates and submits one application named `name` through the serving leader; returns its id.
pub async fn submit(cluster: &Cluster, name: &str) -> ApplicationId {
    submit_with(
        cluster,
        pb::ApplicationSubmissionContextProto {
            application_name: Some(name.to_owned()),
            ..Default::default()
        },
    )
    .await
}

/// Creates an application and submits it with `context` (its id filled in) through the serving
/// leader; returns its id.
pub async fn submit_with(
    cluster: &Cluster,
    context: pb::ApplicationSubmissionContextProto,
) -> ApplicationId {
    let (id, outcome) = try_submit_with(cluster, context).await;
    if let Err(status) = outcome {
        panic!("SubmitApplication of {id} was refused: {status}");
    }
    id
}

/// Submits `context` under a fresh application id; returns the id and the leader's answer, a
/// definitive refusal (PERMISSION_DENIED, INVALID_ARGUMENT) included.
pub async fn try_submit_with(
    cluster: &Cluster,
    context: pb::ApplicationSubmissionContextProto,
) -> (ApplicationId, Result<(), tonic::Status>) {
    let (_, id) = on_leader(cluster, "GetNewApplication", |leader| async move {
        let mut client = cluster.client(leader).await;
        let reply = client
            .get_new_application(pb::GetNewApplicationRequestProto {})
            .await?;
        Ok(reply
            .into_inner()
            .application_id
            .expect("an application id"))
    })
    .await;
    let context = &context;
    let (_, outcome) = on_leader(cluster, "SubmitApplication", |leader| async move {
        let context = pb::ApplicationSubmissionContextProto {
            application_id: Some(id),
            ..context.clone()
        };
        let reply = cluster
            .client(leader)
            .await
            .submit_application(pb::SubmitApplicationRequestProto {
                application_submission_context: Some(context),
            })
            .await;
        match reply {
            Ok(_) => Ok(Ok(())),
            Err(status)
                if matches!(
                    status.code(),
                    tonic::Code::PermissionDenied | tonic::Code::InvalidArgument
                ) =>
            {
                Ok(Err(status))
            }
            Err(status) => Err(status),
        }
    })
    .await;
    (ApplicationId::try_from(id).expect("a valid id"), outcome)
}

/// The ids of every application the serving leader reports, sorted.
pub async fn list(cluster: &Cluster) -> Vec<ApplicationId> {
    let (_, reports) = on_leader(cluster, "GetApplications", |leader| async move {
        let mut client = cluster.client(leader).await;
        let reply = client
            .get_applications(pb::GetApplicationsRequestProto::default())
            .await?;
        Ok(reply.into_inner().applications)
    })
    .await;
    let mut ids: Vec<ApplicationId> = reports
        .into_iter()
        .map(|r| ApplicationId::try_from(r.application_id.expect("id")).expect("valid id"))
        .collect();
    ids.sort();
    ids
}

/// Asks the leader to hand leadership to `target_rm_id` (`TransferLeadership`, retried on
/// not-leader refusals) and returns the leader the answer names.
pub async fn transfer_leadership(cluster: &Cluster, target_rm_id: &str) -> String {
    let (_, reply) = on_leader(cluster, "TransferLeadership", |leader| async move {
        let mut admin = cluster.admin(leader, USER).await;
        admin
            .transfer_leadership(pb::TransferLeadershipRequestProto {
                target_rm_id: target_rm_id.to_owned(),
            })
            .await
    })
    .await;
    reply.into_inner().leader_rm_id
}
