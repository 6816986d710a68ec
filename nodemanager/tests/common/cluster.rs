//! A PKI, one ResourceManager replica in this process (a `yarn_test_support::rm_cluster`) and one
//! NodeManager, over mutual TLS on 127.0.0.1: what the tests of the NodeManager with a real
//! ResourceManager share. The
//! NodeManager runs in this process or, for the root package's tests that kill it for real, as a
//! `yarn-ha nodemanager` process started on the configuration [`Cluster::nm_conf`] gives.
//!
//! The RM is one replica with HA disabled; a leader change is that replica stopped and started
//! again on its storage, which is what a new leader is to a node: a higher epoch and an empty
//! node tracker. Every wait polls with a deadline.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use prost::Message;
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::time::Instant;
use tonic::Request;
use tonic::transport::Channel;
use yarn_client::RmClientConfig;
use yarn_conf::Configuration;
use yarn_nodemanager::container_manager::ContainerReport;
use yarn_nodemanager::node_status_updater::NOT_CONNECTED;
use yarn_nodemanager::{NmConfig, NodeManager};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_proto::pb::container_management_protocol_client::ContainerManagementProtocolClient;
use yarn_proto::pb::resource_tracker_client::ResourceTrackerClient;
use yarn_proto::token_metadata::{NM_TOKEN_METADATA_KEY, insert_token};
use yarn_rm_ha::Serving;
use yarn_rm_ha::state_machine::{
    ApplicationRecord, ApplicationState, AttemptRecord, AttemptState, CommandV1, ContainerKey,
    ContainerRecord, ContainerState, ExecutionType, MasterKeyKind, RmCommand, RmResponse,
};
use yarn_security::pki::LeafSpec;
use yarn_security::{ChannelOptions, MasterKey, Role, TlsConfig};
use yarn_test_support::pki::Pki;
use yarn_test_support::rm_cluster::{DEADLINE, Layout, RmCluster, rebind, reserve};

use super::{ContainerGroups, USER, launch};

/// The pause between two polls.
pub const POLL: Duration = Duration::from_millis(20);
/// The NodeManager's host, and the name of its certificate: the RM lets a NodeManager
/// certificate speak only for nodes on the host it names.
pub const NM_HOST: &str = "127.0.0.1";
/// The refusal of a container token of a later RM epoch than the node follows.
pub const LATER_EPOCH: &str = "rejected as it is allocated by a newer RM";

/// Polls `check` until it returns `Some`, failing the test after [`DEADLINE`].
pub async fn within_deadline<T, F, Fut>(what: &str, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    super::eventually(what, DEADLINE, check).await
}

/// What the leader signs with, read from its replicated state: the tokens a test hands the node
/// are those the RM of this epoch issues.
#[derive(Clone)]
pub struct Issuer {
    pub epoch: i64,
    pub cluster_timestamp_ms: i64,
    pub container_key: MasterKey,
    pub nm_key: MasterKey,
    pub node: NodeId,
}

impl Issuer {
    /// Every container of these tests belongs to the first attempt of application 1.
    pub fn attempt(&self) -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(self.cluster_timestamp_ms, 1), 1)
    }

    /// Container `sequence`, allocated under this epoch.
    pub fn container(&self, sequence: i64) -> ContainerId {
        ContainerId::new(self.attempt(), self.epoch, sequence).unwrap()
    }

    /// The start of `container_id` running `command`, with a container token for this node and
    /// epoch, valid for ten minutes.
    pub fn start(
        &self,
        container_id: ContainerId,
        memory_mb: i64,
        execution_type: pb::ExecutionTypeProto,
        command: &str,
    ) -> pb::StartContainerRequestProto {
        let identifier = super::container_token_identifier(
            container_id,
            &self.node,
            self.epoch,
            memory_mb,
            execution_type,
        );
        launch(
            super::sign(&self.container_key, &self.node, identifier),
            command,
        )
    }

    /// The application's NM token for this node.
    pub fn nm_token(&self) -> pb::TokenProto {
        let identifier = super::nm_token_identifier(self.attempt(), &self.node);
        super::sign(&self.nm_key, &self.node, identifier)
    }

    /// `message` carrying the application's NM token.
    pub fn request<T>(&self, message: T) -> Request<T> {
        let mut request = Request::new(message);
        insert_token(&mut request, NM_TOKEN_METADATA_KEY, &self.nm_token());
        request
    }
}

/// How the leader sees the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeView {
    Unregistered,
    Running,
    Lost,
}

/// A PKI, one ResourceManager replica and one NodeManager, each on its own fixed ports and
/// storage so that either can be stopped and started again.
pub struct Cluster {
    /// The containers seen running, killed with their process groups when the cluster is
    /// dropped; declared first so that this happens before anything else of the cluster goes.
    pub seen: ContainerGroups,
    /// The one replica, `rm1`, which holds the test process's one cluster turn: the liveness
    /// expiry is short, and several clusters on a loaded two-core machine would declare each
    /// other's nodes LOST for want of CPU, not of heartbeats.
    pub rm: RmCluster,
    pub nm_dir: TempDir,
    pub nm_memory_mb: u64,
    pub nm_queue_length: u32,
    pub nm_address: String,
    pub node: NodeId,
    pub nm_listener: Option<TcpListener>,
    pub nm: Option<NodeManager>,
}

impl Cluster {
    /// Lays out a cluster whose node offers `nm_memory_mb` and queues up to `nm_queue_length`
    /// opportunistic containers; starts nothing.
    pub async fn new(nm_memory_mb: u64, nm_queue_length: u32) -> Self {
        let pki = Pki::new(&[
            LeafSpec::new(Role::ResourceManager, "rm1"),
            LeafSpec::new(Role::NodeManager, NM_HOST),
            LeafSpec::new(Role::User, USER),
        ]);
        // HA off, so the replica reads the unsuffixed address keys; NMs heartbeat every 100 ms
        // and are LOST after 4 s of silence: short enough that the lost-node tests end soon,
        // long enough that a loaded machine does not lose a live node between two heartbeats.
        let layout = Layout {
            name: "rm",
            members: 1,
            spares: 0,
            extra: &[
                ("yarn.resourcemanager.ha.enabled", "false"),
                (
                    "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms",
                    "100",
                ),
                ("yarn.nm.liveness-monitor.expiry-interval-ms", "4000"),
            ],
            one_at_a_time: true,
        };
        let rm = RmCluster::new(Arc::new(pki), layout).await;
        let (nm_address, nm_listener) = reserve().await;
        let node = NodeId::new(NM_HOST, nm_listener.local_addr().unwrap().port());
        Self {
            seen: ContainerGroups::default(),
            rm,
            nm_dir: tempfile::tempdir().unwrap(),
            nm_memory_mb,
            nm_queue_length,
            nm_address,
            node,
            nm_listener: Some(nm_listener),
            nm: None,
        }
    }

    /// The node's configuration: its fixed container-manager port and any free web port, its
    /// own directories with recovery on, the default (process) executor, a short stop delay, no
    /// memory check, and short failover pauses towards the RM.
    pub fn nm_conf(&self) -> Configuration {
        let mut conf = super::recoverable_node_conf(
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
            &self.rm.slot(0).resource_tracker,
        );
        conf.set("yarn.client.failover-sleep-base-ms", "20");
        conf.set("yarn.client.failover-sleep-max-ms", "200");
        self.rm.pki().set_tls(&mut conf, Role::NodeManager, NM_HOST);
        conf
    }

    /// Waits until the replica serves as leader of an epoch after `after_epoch` with both token
    /// keys in its state, and returns what it signs with.
    pub async fn issuer(&self, after_epoch: Option<i64>) -> Issuer {
        let rm = self.rm.replica(0);
        within_deadline(
            "the ResourceManager to lead a new epoch with its keys",
            || async {
                let Serving::Leader(leadership) = rm.serving() else {
                    return None;
                };
                let epoch = i64::try_from(leadership.epoch()).unwrap();
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
    pub async fn start_nm(&mut self) {
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
    pub async fn stop_nm(&mut self) {
        let nm = self.nm.take().expect("a running NodeManager");
        nm.run_until(std::future::ready(()))
            .await
            .expect("a clean NodeManager stop");
    }

    /// Drops the NodeManager without a stop, as close to a SIGKILL as this process allows: its
    /// server, heartbeat loop and container supervision are aborted, nothing is written on the
    /// way out, and its containers keep running.
    pub fn crash_nm(&mut self) {
        drop(self.nm.take().expect("a running NodeManager"));
    }

    pub fn nm(&self) -> &NodeManager {
        self.nm.as_ref().expect("a running NodeManager")
    }

    /// Stops whichever daemons run.
    pub async fn shutdown(mut self) {
        if self.nm.is_some() {
            self.stop_nm().await;
        }
        self.rm.stop(0).await;
    }

    /// A ContainerManagementProtocol client of the node, as the application master; waits for
    /// the node to listen, which a NodeManager process does a moment after it starts.
    pub async fn am(&self) -> ContainerManagementProtocolClient<Channel> {
        let tls = self.rm.pki().tls(Role::User, USER);
        let channel = within_deadline("the NodeManager to accept connections", || async {
            yarn_security::connect(
                &self.nm_address,
                tls.client_config(),
                &ChannelOptions::default(),
            )
            .await
            .ok()
        })
        .await;
        ContainerManagementProtocolClient::new(channel)
    }

    pub async fn start_containers(
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
    /// epoch later than the one it follows; a refusal does not use the token up, so the same
    /// start is sent again.
    pub async fn start_once_registered(
        &self,
        issuer: &Issuer,
        start: pb::StartContainerRequestProto,
    ) {
        let what = format!(
            "the node to accept a container of RM epoch {}",
            issuer.epoch
        );
        within_deadline(&what, || {
            let start = start.clone();
            async move {
                let response = self.start_containers(issuer, vec![start]).await;
                if response.succeeded_requests.len() == 1 {
                    return Some(());
                }
                let message = only_failure(&response.failed_requests);
                assert!(
                    message == NOT_CONNECTED || message.contains(LATER_EPOCH),
                    "a start refused for another reason than the registration: {message}"
                );
                None
            }
        })
        .await;
    }

    pub async fn stop_containers(
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
    pub fn report(&self, container_id: ContainerId) -> ContainerReport {
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

    pub async fn reach(
        &self,
        container_id: ContainerId,
        state: pb::ContainerStateProto,
    ) -> ContainerReport {
        within_deadline(
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
    pub async fn node_view(&self) -> Option<NodeView> {
        let tls = self.rm.pki().tls(Role::NodeManager, NM_HOST);
        let channel = yarn_security::connect(
            &self.rm.slot(0).resource_tracker,
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
    pub async fn commit(&self, command: CommandV1) -> RmResponse {
        self.rm
            .replica(0)
            .raft()
            .client_write(RmCommand::V1(command))
            .await
            .expect("a committed command")
            .data
    }

    /// Submits the tests' application 1, as the client service would.
    pub async fn submit_application(&self, issuer: &Issuer) {
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
            // Unmanaged: the scheduler allocates no AM container, so the container ids the
            // tests record by hand are theirs alone.
            submission_context: pb::ApplicationSubmissionContextProto {
                unmanaged_am: true,
                ..Default::default()
            }
            .encode_to_vec(),
            priority: 0,
            current_attempt: 1,
            diagnostics: String::new(),
            max_attempts: 1,
            attempts: vec![AttemptRecord {
                attempt_id: 1,
                state: AttemptState::Running,
                ..AttemptRecord::default()
            }],
            ..ApplicationRecord::default()
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
    pub async fn allocate(&self, issuer: &Issuer, sequence: i64, node: &str) -> ContainerKey {
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
    pub async fn completion(&self, key: ContainerKey) -> (i32, String) {
        let rm = self.rm.replica(0);
        within_deadline(
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

    pub async fn see_node(&self, view: NodeView) {
        within_deadline(&format!("the leader to see the node {view:?}"), || async {
            (self.node_view().await == Some(view)).then_some(())
        })
        .await;
    }
}

/// The message of the only failure of a response.
pub fn only_failure(failed: &[pb::ContainerExceptionMapProto]) -> String {
    assert_eq!(failed.len(), 1, "{failed:?}");
    failed[0]
        .exception
        .as_ref()
        .expect("an exception")
        .message
        .clone()
}

pub async fn must_end(what: &str, pid: u32) {
    super::group_ends(what, pid, DEADLINE).await;
}
