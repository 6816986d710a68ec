//! The NodeManager with a real ResourceManager replica, both in this process over mutual TLS on
//! 127.0.0.1: the node registers and runs containers whose tokens carry the RM's own keys and
//! epoch, a silent node is declared LOST (its containers complete as lost on the RM) and comes
//! back by registering again, a leader change
//! makes the node resync while its containers keep running, and a NodeManager dropped like a
//! crash and started again on its recovery directory re-acquires its running container and
//! queues its queued one again.
//!
//! The RM is one replica with HA disabled; a leader change is that replica stopped and started
//! again on its storage, which is what a new leader is to a node: a higher epoch and an empty
//! node tracker. Every wait polls with a deadline; every container process a test saw is killed
//! when the test ends, pass or fail.

mod common;

use std::future::Future;
use std::time::Duration;

use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::time::Instant;
use tonic::Request;
use tonic::transport::Channel;
use yarn_client::RmClientConfig;
use yarn_conf::Configuration;
use yarn_nodemanager::container_manager::{
    ContainerReport, KILLED_BY_APPMASTER_DIAGNOSTIC, insert_nm_token,
};
use yarn_nodemanager::node_status_updater::{NOT_CONNECTED, NodeStatusSource};
use yarn_nodemanager::{NmConfig, NodeManager};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_proto::pb::container_management_protocol_client::ContainerManagementProtocolClient;
use yarn_proto::pb::resource_tracker_client::ResourceTrackerClient;
use yarn_rm_ha::state_machine::{
    ABORTED, ApplicationRecord, ApplicationState, CommandV1, ContainerKey, ContainerRecord,
    ContainerState, ExecutionType, LOST_NODE_DIAGNOSTIC, MasterKeyKind, RmCommand, RmResponse,
};
use yarn_rm_ha::{ResourceManager, RmConfig, RmListeners, Serving};
use yarn_security::pki::LeafSpec;
use yarn_security::{ChannelOptions, MasterKey, Role, TlsConfig};

use common::{
    COMPLETE, ContainerGroups, GUARANTEED, KILLED_BY_APPMASTER, OPPORTUNISTIC, Pki, RUNNING,
    SCHEDULED, USER, launch, leads_running_group, path,
};

/// How long any wait may take before the test fails, naming what it waited for.
const DEADLINE: Duration = Duration::from_secs(30);
/// The pause between two polls.
const POLL: Duration = Duration::from_millis(20);
/// The NodeManager's host, and the name of its certificate: the RM lets a NodeManager
/// certificate speak only for nodes on the host it names.
const NM_HOST: &str = "127.0.0.1";
const RM_ID: &str = "rm1";
/// The refusal of a container token of another RM epoch than the node follows.
const OTHER_EPOCH: &str = "rejected as it is allocated by a previous RM";

/// One RM and one NM at a time: the liveness expiry is short, and several clusters on a loaded
/// two-core machine would declare each other's nodes LOST for want of CPU, not of heartbeats.
static ONE_CLUSTER_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Polls `check` until it returns `Some`, failing the test after [`DEADLINE`].
async fn eventually<T, F, Fut>(what: &str, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    common::eventually(what, DEADLINE, check).await
}

/// Binds `address` again after the daemon that held it stopped; the kernel may take a moment to
/// release it.
async fn rebind(address: &str) -> TcpListener {
    eventually(&format!("{address} to be free"), || async {
        TcpListener::bind(address).await.ok()
    })
    .await
}

async fn reserve() -> (String, TcpListener) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    (listener.local_addr().unwrap().to_string(), listener)
}

/// What the leader signs with, read from its replicated state: the tokens a test hands the node
/// are those the RM of this epoch issues.
#[derive(Clone)]
struct Issuer {
    epoch: i64,
    cluster_timestamp_ms: i64,
    container_key: MasterKey,
    nm_key: MasterKey,
    node: NodeId,
}

impl Issuer {
    /// Every container of these tests belongs to the first attempt of application 1.
    fn attempt(&self) -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(self.cluster_timestamp_ms, 1), 1)
    }

    /// Container `sequence`, allocated under this epoch.
    fn container(&self, sequence: i64) -> ContainerId {
        ContainerId::new(self.attempt(), self.epoch, sequence).unwrap()
    }

    /// The start of `container_id` running `command`, with a container token for this node and
    /// epoch, valid for ten minutes.
    fn start(
        &self,
        container_id: ContainerId,
        memory_mb: i64,
        execution_type: pb::ExecutionTypeProto,
        command: &str,
    ) -> pb::StartContainerRequestProto {
        let identifier = common::container_token_identifier(
            container_id,
            &self.node,
            self.epoch,
            memory_mb,
            execution_type,
        );
        launch(
            common::sign(&self.container_key, &self.node, identifier),
            command,
        )
    }

    /// The application's NM token for this node.
    fn nm_token(&self) -> pb::TokenProto {
        let identifier = common::nm_token_identifier(self.attempt(), &self.node);
        common::sign(&self.nm_key, &self.node, identifier)
    }

    /// `message` carrying the application's NM token.
    fn request<T>(&self, message: T) -> Request<T> {
        let mut request = Request::new(message);
        insert_nm_token(&mut request, &self.nm_token());
        request
    }
}

/// How the leader sees the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeView {
    Unregistered,
    Running,
    Lost,
}

/// The RM's addresses: fixed for the test, so a restarted replica serves where the node looks.
struct RmAddresses {
    raft: String,
    admin: String,
    client: String,
    resource_tracker: String,
}

/// A PKI, one ResourceManager replica and one NodeManager, each on its own fixed ports and
/// storage so that either can be stopped and started again.
struct Cluster {
    /// The containers seen running, killed with their process groups when the cluster is
    /// dropped; declared first so that this happens before anything else of the cluster goes.
    seen: ContainerGroups,
    _turn: tokio::sync::MutexGuard<'static, ()>,
    pki: Pki,
    rm_storage: TempDir,
    rm_addresses: RmAddresses,
    /// The listeners of the first start, bound when the cluster is laid out.
    rm_listeners: Option<RmListeners>,
    rm: Option<ResourceManager>,
    nm_dir: TempDir,
    nm_memory_mb: u64,
    nm_queue_length: u32,
    nm_address: String,
    node: NodeId,
    nm_listener: Option<TcpListener>,
    nm: Option<NodeManager>,
}

impl Cluster {
    /// Lays out a cluster whose node offers `nm_memory_mb` and queues up to `nm_queue_length`
    /// opportunistic containers; starts nothing.
    async fn new(nm_memory_mb: u64, nm_queue_length: u32) -> Self {
        let turn = ONE_CLUSTER_AT_A_TIME.lock().await;
        let pki = Pki::new(&[
            LeafSpec::new(Role::ResourceManager, RM_ID),
            LeafSpec::new(Role::NodeManager, NM_HOST),
            LeafSpec::new(Role::User, USER),
        ]);
        let (raft, raft_listener) = reserve().await;
        let (admin, admin_listener) = reserve().await;
        let (client, client_listener) = reserve().await;
        let (resource_tracker, tracker_listener) = reserve().await;
        let (nm_address, nm_listener) = reserve().await;
        let node = NodeId::new(NM_HOST, nm_listener.local_addr().unwrap().port());
        Self {
            seen: ContainerGroups::default(),
            _turn: turn,
            pki,
            rm_storage: tempfile::tempdir().unwrap(),
            rm_addresses: RmAddresses {
                raft,
                admin,
                client,
                resource_tracker,
            },
            rm_listeners: Some(RmListeners {
                raft: raft_listener,
                admin: admin_listener,
                client: client_listener,
                resource_tracker: tracker_listener,
            }),
            rm: None,
            nm_dir: tempfile::tempdir().unwrap(),
            nm_memory_mb,
            nm_queue_length,
            nm_address,
            node,
            nm_listener: Some(nm_listener),
            nm: None,
        }
    }

    /// The replica's configuration: HA off, so it reads the unsuffixed address keys; NMs
    /// heartbeat every 100 ms and are LOST after 1.5 s of silence.
    fn rm_conf(&self) -> Configuration {
        let addresses = &self.rm_addresses;
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.ha.enabled", "false");
        conf.set("yarn.resourcemanager.cluster-id", "nm-with-rm");
        conf.set("yarn.resourcemanager.ha.raft.address", &addresses.raft);
        conf.set("yarn.resourcemanager.admin.address", &addresses.admin);
        conf.set("yarn.resourcemanager.address", &addresses.client);
        conf.set(
            "yarn.resourcemanager.resource-tracker.address",
            &addresses.resource_tracker,
        );
        conf.set(
            "yarn.resourcemanager.ha.raft.storage-dir",
            &path(self.rm_storage.path()),
        );
        conf.set(
            "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms",
            "100",
        );
        conf.set("yarn.nm.liveness-monitor.expiry-interval-ms", "1500");
        self.pki.set_tls(&mut conf, Role::ResourceManager, RM_ID);
        conf
    }

    /// The node's configuration: its fixed container-manager port and any free web port, its
    /// own directories with recovery on, the default (process) executor, a short stop delay, no
    /// memory check, and short failover pauses towards the RM.
    fn nm_conf(&self) -> Configuration {
        let mut conf = common::recoverable_node_conf(
            self.nm_dir.path(),
            self.nm_memory_mb,
            4,
            self.nm_queue_length,
        );
        conf.set("yarn.nodemanager.address", &self.nm_address);
        conf.set("yarn.nodemanager.webapp.address", "127.0.0.1:0");
        conf.set("yarn.resourcemanager.ha.enabled", "false");
        conf.set(
            "yarn.resourcemanager.resource-tracker.address",
            &self.rm_addresses.resource_tracker,
        );
        conf.set("yarn.client.failover-sleep-base-ms", "20");
        conf.set("yarn.client.failover-sleep-max-ms", "200");
        self.pki.set_tls(&mut conf, Role::NodeManager, NM_HOST);
        conf
    }

    /// Starts the replica on its ports and storage. sled releases the directory lock of a
    /// stopped instance from a background thread, so opening it is retried until the deadline.
    async fn start_rm(&mut self) {
        let conf = self.rm_conf();
        let deadline = Instant::now() + DEADLINE;
        loop {
            let config = RmConfig::from_conf(&conf, Some(RM_ID)).expect("a valid RmConfig");
            let tls = TlsConfig::from_conf(&conf).expect("the RM's TLS setting");
            let listeners = match self.rm_listeners.take() {
                Some(listeners) => listeners,
                None => RmListeners {
                    raft: rebind(&self.rm_addresses.raft).await,
                    admin: rebind(&self.rm_addresses.admin).await,
                    client: rebind(&self.rm_addresses.client).await,
                    resource_tracker: rebind(&self.rm_addresses.resource_tracker).await,
                },
            };
            match ResourceManager::start_with(config, tls, listeners).await {
                Ok(rm) => {
                    self.rm = Some(rm);
                    return;
                }
                Err(yarn_rm_ha::Error::OpenStorage { .. }) if Instant::now() < deadline => {
                    tokio::time::sleep(POLL).await;
                }
                Err(err) => panic!("start {RM_ID}: {err}"),
            }
        }
    }

    async fn stop_rm(&mut self) {
        let rm = self.rm.take().expect("a running ResourceManager");
        rm.shutdown().await.expect("a clean RM shutdown");
    }

    /// Waits until the replica serves as leader of an epoch after `after_epoch` with both token
    /// keys in its state, and returns what it signs with.
    async fn issuer(&self, after_epoch: Option<i64>) -> Issuer {
        let rm = self.rm.as_ref().expect("a running ResourceManager");
        eventually(
            "the ResourceManager to lead a new epoch with its keys",
            || async {
                let Serving::Leader { epoch, .. } = rm.serving() else {
                    return None;
                };
                let epoch = i64::try_from(epoch).unwrap();
                if after_epoch.is_some_and(|old| epoch <= old) {
                    return None;
                }
                rm.state().read(|state| {
                    let key = |kind| {
                        state
                            .master_keys
                            .get(kind)
                            .map(|pair| pair.current.master_key())
                    };
                    Some(Issuer {
                        epoch,
                        cluster_timestamp_ms: state.cluster_timestamp_ms,
                        container_key: key(MasterKeyKind::Container)?,
                        nm_key: key(MasterKeyKind::Nm)?,
                        node: self.node.clone(),
                    })
                })
            },
        )
        .await
    }

    /// Starts the NodeManager on its port and recovery directory, retrying while the state
    /// store of a NodeManager dropped in this process still holds the directory's lock.
    async fn start_nm(&mut self) {
        let conf = self.nm_conf();
        let deadline = Instant::now() + DEADLINE;
        loop {
            let config = NmConfig::from_conf(&conf).expect("a valid NmConfig");
            let client = RmClientConfig::from_conf(&conf).expect("a valid RM client setting");
            let tls = TlsConfig::from_conf(&conf).expect("the NM's TLS setting");
            let listener = match self.nm_listener.take() {
                Some(listener) => listener,
                None => rebind(&self.nm_address).await,
            };
            match NodeManager::start_with(config, client, tls, listener).await {
                Ok(nm) => {
                    assert_eq!(nm.node_id(), &self.node);
                    self.nm = Some(nm);
                    return;
                }
                Err(yarn_nodemanager::Error::StateStoreLocked { .. })
                    if Instant::now() < deadline =>
                {
                    tokio::time::sleep(POLL).await;
                }
                Err(err) => panic!("start the NodeManager: {err}"),
            }
        }
    }

    /// Stops the NodeManager as SIGTERM does: it stops heartbeating and serving, and its
    /// containers keep running.
    async fn stop_nm(&mut self) {
        let nm = self.nm.take().expect("a running NodeManager");
        nm.run_until(std::future::ready(()))
            .await
            .expect("a clean NodeManager stop");
    }

    /// Drops the NodeManager without a stop, as close to a SIGKILL as this process allows: its
    /// server, heartbeat loop and container supervision are aborted, nothing is written on the
    /// way out, and its containers keep running.
    fn crash_nm(&mut self) {
        drop(self.nm.take().expect("a running NodeManager"));
    }

    fn nm(&self) -> &NodeManager {
        self.nm.as_ref().expect("a running NodeManager")
    }

    /// Stops whichever daemons run.
    async fn shutdown(mut self) {
        if self.nm.is_some() {
            self.stop_nm().await;
        }
        if self.rm.is_some() {
            self.stop_rm().await;
        }
    }

    /// A ContainerManagementProtocol client of the node, as the application master.
    async fn am(&self) -> ContainerManagementProtocolClient<Channel> {
        let tls = self.pki.tls(Role::User, USER);
        let channel = yarn_security::connect(
            &self.nm_address,
            tls.client_config(),
            &ChannelOptions::default(),
        )
        .await
        .expect("connect to the NodeManager");
        ContainerManagementProtocolClient::new(channel)
    }

    async fn start_containers(
        &self,
        issuer: &Issuer,
        requests: Vec<pb::StartContainerRequestProto>,
    ) -> pb::StartContainersResponseProto {
        let message = pb::StartContainersRequestProto {
            start_container_requests: requests,
        };
        self.am()
            .await
            .start_containers(issuer.request(message))
            .await
            .expect("StartContainers")
            .into_inner()
    }

    /// Starts one container as soon as the node accepts it. Until the node has registered with
    /// the leader of the issuer's epoch, it refuses the start as not connected, or as of an
    /// epoch other than the one it follows; a refusal does not use the token up, so the same
    /// start is sent again.
    async fn start_once_registered(&self, issuer: &Issuer, start: pb::StartContainerRequestProto) {
        let what = format!(
            "the node to accept a container of RM epoch {}",
            issuer.epoch
        );
        eventually(&what, || {
            let start = start.clone();
            async move {
                let response = self.start_containers(issuer, vec![start]).await;
                if response.succeeded_requests.len() == 1 {
                    return Some(());
                }
                let message = only_failure(&response.failed_requests);
                assert!(
                    message == NOT_CONNECTED || message.contains(OTHER_EPOCH),
                    "a start refused for another reason than the registration: {message}"
                );
                None
            }
        })
        .await;
    }

    async fn stop_containers(
        &self,
        issuer: &Issuer,
        container_ids: &[ContainerId],
    ) -> pb::StopContainersResponseProto {
        let message = pb::StopContainersRequestProto {
            container_ids: container_ids.iter().map(|&id| id.into()).collect(),
        };
        self.am()
            .await
            .stop_containers(issuer.request(message))
            .await
            .expect("StopContainers")
            .into_inner()
    }

    /// The node's report of `container_id`; a pid it shows is remembered for the clean-up.
    fn report(&self, container_id: ContainerId) -> ContainerReport {
        let report = self
            .nm()
            .container_manager()
            .container_reports()
            .into_iter()
            .find(|report| report.container_id == container_id)
            .unwrap_or_else(|| panic!("container {container_id} is unknown to the node"));
        self.seen.note(&report);
        report
    }

    async fn reach(
        &self,
        container_id: ContainerId,
        state: pb::ContainerStateProto,
    ) -> ContainerReport {
        eventually(
            &format!("container {container_id} to be {state:?}"),
            || async {
                let report = self.report(container_id);
                (report.state == state).then_some(report)
            },
        )
        .await
    }

    /// How the leader sees this node, asked with a heartbeat whose response id is never in
    /// sequence: the RESYNC it gets says why, and changes nothing on the RM. `None` while the
    /// replica does not answer as leader.
    async fn node_view(&self) -> Option<NodeView> {
        let tls = self.pki.tls(Role::NodeManager, NM_HOST);
        let channel = yarn_security::connect(
            &self.rm_addresses.resource_tracker,
            tls.client_config(),
            &ChannelOptions::default(),
        )
        .await
        .ok()?;
        let heartbeat = pb::NodeHeartbeatRequestProto {
            node_status: Some(pb::NodeStatusProto {
                node_id: Some((&self.node).into()),
                response_id: i32::MIN,
                ..Default::default()
            }),
            ..Default::default()
        };
        let response = ResourceTrackerClient::new(channel)
            .node_heartbeat(heartbeat)
            .await
            .ok()?
            .into_inner();
        assert_eq!(
            response.node_action(),
            pb::NodeActionProto::Resync,
            "{response:?}"
        );
        let reason = &response.diagnostics_message;
        Some(if reason.contains("is not registered") {
            NodeView::Unregistered
        } else if reason.contains("was declared LOST") {
            NodeView::Lost
        } else if reason.contains("too far behind") {
            NodeView::Running
        } else {
            panic!("a RESYNC for an unexpected reason: {reason}")
        })
    }

    /// Commits `command` on the replica, as its leader services would.
    async fn commit(&self, command: CommandV1) -> RmResponse {
        let rm = self.rm.as_ref().expect("a running ResourceManager");
        rm.raft()
            .client_write(RmCommand::V1(command))
            .await
            .expect("a committed command")
            .data
    }

    /// Submits the tests' application 1, as the client service would.
    async fn submit_application(&self, issuer: &Issuer) {
        let ids = self
            .commit(CommandV1::AllocateApplicationIds { count: 1 })
            .await;
        assert_eq!(
            ids,
            RmResponse::ApplicationIdsAllocated { first: 1, count: 1 }
        );
        let application = ApplicationRecord {
            sequence: 1,
            user: USER.to_owned(),
            name: "lost-node".to_owned(),
            queue: "default".to_owned(),
            application_type: "YARN".to_owned(),
            tags: Vec::new(),
            submit_time_ms: issuer.cluster_timestamp_ms,
            state: ApplicationState::Running,
            submission_context: Vec::new(),
        };
        let submitted = self
            .commit(CommandV1::SubmitApplication {
                cluster_timestamp_ms: issuer.cluster_timestamp_ms,
                application,
            })
            .await;
        assert_eq!(submitted, RmResponse::ApplicationSubmitted);
    }

    /// Records container `sequence` of application 1 as allocated on `node`, as the scheduler
    /// would, and returns its table key.
    async fn allocate(&self, issuer: &Issuer, sequence: i64, node: &str) -> ContainerKey {
        let key = ContainerKey {
            application_seq: 1,
            container_id: issuer.container(sequence).container_id(),
        };
        let record = ContainerRecord {
            key,
            attempt_id: 1,
            node: node.to_owned(),
            memory_mb: 256,
            vcores: 1,
            execution_type: ExecutionType::Guaranteed,
            is_am: false,
            priority: 1,
            allocation_request_id: 0,
            allocated_at_ms: issuer.cluster_timestamp_ms,
            state: ContainerState::Allocated,
        };
        let response = self
            .commit(CommandV1::AllocateContainers {
                allocations: vec![record],
            })
            .await;
        assert_eq!(
            response,
            RmResponse::ContainersAllocated {
                recorded: 1,
                rejected: Vec::new()
            }
        );
        key
    }

    /// Waits until the replicated table shows `key` completed, and returns how.
    async fn completion(&self, key: ContainerKey) -> (i32, String) {
        let rm = self.rm.as_ref().expect("a running ResourceManager");
        eventually(
            &format!("container {key:?} to complete on the RM"),
            || async {
                rm.state()
                    .read(|state| match &state.containers.get(&key)?.state {
                        ContainerState::Allocated => None,
                        ContainerState::Completed {
                            exit_status,
                            diagnostics,
                        } => Some((*exit_status, diagnostics.clone())),
                    })
            },
        )
        .await
    }

    async fn see_node(&self, view: NodeView) {
        eventually(&format!("the leader to see the node {view:?}"), || async {
            (self.node_view().await == Some(view)).then_some(())
        })
        .await;
    }
}

/// The message of the only failure of a response.
fn only_failure(failed: &[pb::ContainerExceptionMapProto]) -> String {
    assert_eq!(failed.len(), 1, "{failed:?}");
    failed[0]
        .exception
        .as_ref()
        .expect("an exception")
        .message
        .clone()
}

async fn must_end(what: &str, pid: u32) {
    common::group_ends(what, pid, DEADLINE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nodemanager_registers_and_heartbeats_with_the_leader() {
    let mut cluster = Cluster::new(4096, 0).await;
    cluster.start_rm().await;
    let issuer = cluster.issuer(None).await;
    cluster.start_nm().await;
    // The leader knows the node only once it registered, and keeps it running only while it
    // heartbeats.
    cluster.see_node(NodeView::Running).await;

    // The node started with an empty state store: a token signed with the RM's keys verifies
    // only because registration delivered them, and one of the RM's epoch is accepted only
    // because the node follows that epoch.
    let id = issuer.container(1);
    cluster
        .start_once_registered(
            &issuer,
            issuer.start(id, 256, GUARANTEED, "echo hi; exit 3"),
        )
        .await;
    let report = cluster.reach(id, COMPLETE).await;
    assert_eq!(report.exit_code, Some(3), "{report:?}");
    assert_eq!(report.user, USER);
    let stdout = std::fs::read_to_string(report.log_dir.join("stdout")).unwrap();
    assert_eq!(stdout, "hi\n");

    let message = pb::GetContainerStatusesRequestProto {
        container_ids: vec![id.into()],
    };
    let statuses = cluster
        .am()
        .await
        .get_container_statuses(issuer.request(message))
        .await
        .expect("GetContainerStatuses")
        .into_inner();
    assert!(statuses.failed_requests.is_empty(), "{statuses:?}");
    assert_eq!(statuses.statuses[0].state(), COMPLETE);
    assert_eq!(statuses.statuses[0].exit_status, Some(3));

    // Still heartbeating in sequence after the container's life.
    assert_eq!(cluster.node_view().await, Some(NodeView::Running));
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_node_is_lost_and_comes_back_by_registering_again() {
    let mut cluster = Cluster::new(4096, 0).await;
    cluster.start_rm().await;
    let issuer = cluster.issuer(None).await;
    cluster.see_node(NodeView::Unregistered).await;
    cluster.start_nm().await;
    cluster.see_node(NodeView::Running).await;

    // The RM holds a container on the node, and one on a node that never registers.
    cluster.submit_application(&issuer).await;
    let on_node = cluster
        .allocate(&issuer, 1, &cluster.node.to_string())
        .await;
    let ghost = "127.0.0.1:9";

    cluster.stop_nm().await;
    cluster.see_node(NodeView::Lost).await;
    // LOST is kept until the node registers again, and its containers complete as lost.
    assert_eq!(cluster.node_view().await, Some(NodeView::Lost));
    assert_eq!(
        cluster.completion(on_node).await,
        (ABORTED, LOST_NODE_DIAGNOSTIC.to_owned())
    );

    // A new leader knows nodes only from heartbeats; one that holds containers in the
    // replicated table but never registers is awaited for an expiry interval, then lost too.
    let on_ghost = cluster.allocate(&issuer, 2, ghost).await;
    cluster.stop_rm().await;
    cluster.start_rm().await;
    let issuer = cluster.issuer(Some(issuer.epoch)).await;
    assert_eq!(
        cluster.completion(on_ghost).await,
        (ABORTED, LOST_NODE_DIAGNOSTIC.to_owned())
    );

    cluster.start_nm().await;
    cluster.see_node(NodeView::Running).await;
    let id = issuer.container(3);
    cluster
        .start_once_registered(&issuer, issuer.start(id, 256, GUARANTEED, "exit 0"))
        .await;
    assert_eq!(cluster.reach(id, COMPLETE).await.exit_code, Some(0));
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resync_after_a_leader_change_keeps_containers_running() {
    let mut cluster = Cluster::new(4096, 0).await;
    cluster.start_rm().await;
    let old = cluster.issuer(None).await;
    cluster.start_nm().await;
    let long = old.container(1);
    cluster
        .start_once_registered(&old, old.start(long, 256, GUARANTEED, "sleep 30"))
        .await;
    let pid = cluster.reach(long, RUNNING).await.pid.expect("a pid");

    // The leader goes away and a new one takes over from the same replicated state: a higher
    // epoch, the same keys, and no heartbeat state about any node.
    cluster.stop_rm().await;
    cluster.start_rm().await;
    let new = cluster.issuer(Some(old.epoch)).await;

    // The node's next heartbeat gets RESYNC; it re-registers and follows the new epoch, which
    // is the only way a container of the new epoch can start.
    let fresh = new.container(2);
    cluster
        .start_once_registered(&new, new.start(fresh, 256, GUARANTEED, "exit 0"))
        .await;
    assert_eq!(cluster.reach(fresh, COMPLETE).await.exit_code, Some(0));
    cluster.see_node(NodeView::Running).await;

    // A token of the old epoch, valid in every other respect, is refused.
    let stale = old.container(3);
    let response = cluster
        .start_containers(&new, vec![old.start(stale, 256, GUARANTEED, "exit 0")])
        .await;
    assert!(response.succeeded_requests.is_empty(), "{response:?}");
    let message = only_failure(&response.failed_requests);
    assert!(message.contains(OTHER_EPOCH), "{message}");
    assert!(
        message.contains(&format!("RM epoch {}", old.epoch))
            && message.contains(&format!("RM epoch {}", new.epoch)),
        "{message}"
    );

    // Through all of it the container kept running, as the same process.
    let report = cluster.report(long);
    assert_eq!((report.state, report.pid), (RUNNING, Some(pid)));
    assert!(leads_running_group(pid));

    let stopped = cluster.stop_containers(&new, &[long]).await;
    assert_eq!(stopped.succeeded_requests, vec![long.into()]);
    let report = cluster.reach(long, COMPLETE).await;
    assert_eq!(report.exit_code, Some(KILLED_BY_APPMASTER));
    assert!(
        report.diagnostics.contains(KILLED_BY_APPMASTER_DIAGNOSTIC),
        "{report:?}"
    );
    must_end("the stopped container's processes to end", pid).await;
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_nm_killed_and_restarted_recovers_running_and_queued_containers() {
    // The guaranteed container fills the node; the opportunistic one has to wait.
    let mut cluster = Cluster::new(1024, 2).await;
    cluster.start_rm().await;
    let issuer = cluster.issuer(None).await;
    cluster.start_nm().await;
    let running = issuer.container(1);
    let queued = issuer.container(2);
    cluster
        .start_once_registered(&issuer, issuer.start(running, 1024, GUARANTEED, "sleep 30"))
        .await;
    let response = cluster
        .start_containers(
            &issuer,
            vec![issuer.start(queued, 512, OPPORTUNISTIC, "exit 7")],
        )
        .await;
    assert_eq!(response.succeeded_requests, vec![queued.into()]);
    let pid = cluster.reach(running, RUNNING).await.pid.expect("a pid");
    assert_eq!(cluster.report(queued).state, SCHEDULED);

    cluster.crash_nm();
    assert!(
        leads_running_group(pid),
        "the container died with its NodeManager"
    );

    // Recovery happens before the new NodeManager serves or registers.
    cluster.start_nm().await;
    let report = cluster.report(running);
    assert_eq!((report.state, report.pid), (RUNNING, Some(pid)));
    assert_eq!(cluster.report(queued).state, SCHEDULED);
    // What its registration reports to the RM: both containers, in their states.
    let mut registered: Vec<(ContainerId, pb::ContainerStateProto)> = cluster
        .nm()
        .container_manager()
        .nm_container_statuses()
        .iter()
        .map(|status| {
            let id = ContainerId::try_from(status.container_id.expect("a container id"));
            (id.unwrap(), status.container_state())
        })
        .collect();
    registered.sort();
    assert_eq!(registered, vec![(running, RUNNING), (queued, SCHEDULED)]);

    // Accepting a start again means the node has registered with the leader.
    let later = issuer.container(3);
    cluster
        .start_once_registered(&issuer, issuer.start(later, 512, OPPORTUNISTIC, "exit 0"))
        .await;
    cluster.see_node(NodeView::Running).await;
    assert_eq!(cluster.report(later).state, SCHEDULED);

    // Once the re-acquired container is stopped, the queue starts in its order.
    let stopped = cluster.stop_containers(&issuer, &[running]).await;
    assert_eq!(stopped.succeeded_requests, vec![running.into()]);
    let report = cluster.reach(running, COMPLETE).await;
    assert_eq!(report.exit_code, Some(KILLED_BY_APPMASTER));
    must_end("the re-acquired container's processes to end", pid).await;
    assert_eq!(cluster.reach(queued, COMPLETE).await.exit_code, Some(7));
    assert_eq!(cluster.reach(later, COMPLETE).await.exit_code, Some(0));
    cluster.shutdown().await;
}
