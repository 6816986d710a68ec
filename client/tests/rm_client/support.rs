//! The harness: a cluster PKI in a temporary directory, admin-protocol replicas as test
//! doubles served over real mutual TLS on 127.0.0.1 port 0, a replica that drops every
//! connection once a request arrived, and the client configuration pointing at them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_stream::StreamExt;
use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status};
use yarn_client::{RmClient, RmClientConfig, RmService};
use yarn_conf::Configuration;
use yarn_proto::pb::resource_manager_administration_protocol_server::{
    ResourceManagerAdministrationProtocol, ResourceManagerAdministrationProtocolServer,
};
use yarn_proto::{LEADER_HINT_HEADER, NOT_LEADER_HEADER, pb};
use yarn_security::pki::LeafSpec;
use yarn_security::{Incoming, PeerConnection, Role};
use yarn_test_support::pki::Pki;

/// The user every test client authenticates as.
pub const USER: &str = "alice";

/// The state digest every test replica reports, at [`STATE_DIGEST_INDEX`] in
/// [`STATE_DIGEST_TERM`].
pub const STATE_DIGEST: &str = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";

/// The applied index test replicas report with their digest.
pub const STATE_DIGEST_INDEX: u64 = 123;

/// The applied term test replicas report with their digest.
pub const STATE_DIGEST_TERM: u64 = 4;

/// A PKI with `resourcemanager/rm1..rm3` and `user/alice`.
pub fn must_make_pki() -> Pki {
    Pki::new(&[
        LeafSpec::new(Role::ResourceManager, "rm1"),
        LeafSpec::new(Role::ResourceManager, "rm2"),
        LeafSpec::new(Role::ResourceManager, "rm3"),
        LeafSpec::new(Role::User, USER),
    ])
}

/// A client configuration with HA over `replicas` (rm id, admin address), presenting the
/// user certificate, with millisecond failover pauses and `max_failovers`.
pub fn client_conf(pki: &Pki, replicas: &[(&str, &str)], max_failovers: u32) -> Configuration {
    let mut conf = Configuration::new();
    conf.set("yarn.resourcemanager.ha.enabled", "true");
    let ids: Vec<&str> = replicas.iter().map(|(id, _)| *id).collect();
    conf.set("yarn.resourcemanager.ha.rm-ids", &ids.join(","));
    for (id, address) in replicas {
        conf.set(&format!("yarn.resourcemanager.admin.address.{id}"), address);
    }
    pki.set_tls(&mut conf, Role::User, USER);
    conf.set("yarn.client.failover-sleep-base-ms", "1");
    conf.set("yarn.client.failover-sleep-max-ms", "10");
    conf.set(
        "yarn.client.failover-max-attempts",
        &max_failovers.to_string(),
    );
    conf
}

/// The typed client configuration of `conf`, with a call deadline short enough that tests of
/// hanging servers end quickly and long enough for a first TLS handshake on a loaded machine.
pub fn must_client_config(conf: &Configuration) -> RmClientConfig {
    let mut config = RmClientConfig::from_conf(conf).expect("valid client configuration");
    config.call_timeout = Duration::from_secs(2);
    config
}

/// An admin-service client over `replicas`.
pub fn must_client(pki: &Pki, replicas: &[(&str, &str)], max_failovers: u32) -> RmClient {
    let config = must_client_config(&client_conf(pki, replicas, max_failovers));
    RmClient::new(&config, RmService::Admin)
}

/// `rm1` behaving as `first`, `rm2` the leader, and an admin client trying rm1 first with up to
/// three failovers.
pub async fn first_then_leader(pki: &Pki, first: Behaviour) -> (Replica, Replica, RmClient) {
    let rm1 = ReplicaSpec::new(pki, "rm1", first).start().await;
    let rm2 = ReplicaSpec::new(pki, "rm2", Behaviour::Leader)
        .start()
        .await;
    let replicas = [("rm1", rm1.address.as_str()), ("rm2", rm2.address.as_str())];
    let client = must_client(pki, &replicas, 3);
    (rm1, rm2, client)
}

/// How a test replica answers the leader-only RPCs (refreshes, membership changes, transfers).
#[derive(Clone, Debug)]
pub enum Behaviour {
    /// Executes them; `GetServiceStatus` says ACTIVE.
    Leader,
    /// Refuses with UNAVAILABLE, the not-leader header and, if given, the hint
    /// `<rm-id>=<host:port>`; `GetServiceStatus` says STANDBY.
    Follower { hint: Option<String> },
    /// Never answers; `GetServiceStatus` says STANDBY.
    Hang,
    /// Refuses every call with PERMISSION_DENIED, as for a user outside `yarn.admin.acl`.
    Deny,
}

/// What a test replica saw, shared with the test.
#[derive(Debug, Default)]
pub struct Seen {
    /// Leader-only calls received.
    pub leader_calls: AtomicUsize,
    /// Targets of the TransferLeadership calls it executed.
    pub transfers: Mutex<Vec<String>>,
}

impl Seen {
    pub fn leader_calls(&self) -> usize {
        self.leader_calls.load(Ordering::SeqCst)
    }

    pub fn transfers(&self) -> Vec<String> {
        self.transfers.lock().unwrap().clone()
    }
}

/// One replica as the admin protocol shows it.
struct FakeRm {
    rm_id: String,
    behaviour: Behaviour,
    unhealthy: Option<String>,
    membership: pb::GetClusterMembershipResponseProto,
    seen: Arc<Seen>,
}

impl FakeRm {
    /// The common gate of every leader-only RPC: counts the call and applies the behaviour.
    async fn leader_only(&self) -> Result<(), Status> {
        self.seen.leader_calls.fetch_add(1, Ordering::SeqCst);
        match &self.behaviour {
            Behaviour::Leader => Ok(()),
            Behaviour::Follower { hint } => {
                let mut status = Status::unavailable(format!("{} is not the leader", self.rm_id));
                let metadata = status.metadata_mut();
                metadata.insert(NOT_LEADER_HEADER, self.rm_id.parse().unwrap());
                if let Some(hint) = hint {
                    let value: MetadataValue<_> = hint.parse().unwrap();
                    metadata.insert(LEADER_HINT_HEADER, value);
                }
                Err(status)
            }
            Behaviour::Hang => std::future::pending().await,
            Behaviour::Deny => Err(denied()),
        }
    }
}

/// A [`Behaviour::Deny`] replica's answer.
fn denied() -> Status {
    Status::permission_denied(format!("user {USER} is not allowed by yarn.admin.acl"))
}

#[tonic::async_trait]
impl ResourceManagerAdministrationProtocol for FakeRm {
    async fn get_service_status(
        &self,
        _: Request<pb::HaServiceStatusRequestProto>,
    ) -> Result<Response<pb::HaServiceStatusResponseProto>, Status> {
        let state = match self.behaviour {
            Behaviour::Leader => pb::HaServiceStateProto::Active,
            Behaviour::Deny => return Err(denied()),
            Behaviour::Follower { .. } | Behaviour::Hang => pb::HaServiceStateProto::Standby,
        };
        Ok(Response::new(pb::HaServiceStatusResponseProto {
            state: state as i32,
            rm_id: self.rm_id.clone(),
            ..Default::default()
        }))
    }

    async fn monitor_health(
        &self,
        _: Request<pb::MonitorHealthRequestProto>,
    ) -> Result<Response<pb::MonitorHealthResponseProto>, Status> {
        match &self.unhealthy {
            None => Ok(Response::new(pb::MonitorHealthResponseProto {})),
            Some(reason) => Err(Status::failed_precondition(reason.clone())),
        }
    }

    async fn refresh_queues(
        &self,
        _: Request<pb::RefreshQueuesRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        self.leader_only().await?;
        Ok(Response::new(pb::RefreshQueuesResponseProto {
            queue_config_version: 3,
            ..Default::default()
        }))
    }

    async fn refresh_nodes(
        &self,
        _: Request<pb::RefreshNodesRequestProto>,
    ) -> Result<Response<pb::RefreshNodesResponseProto>, Status> {
        self.leader_only().await?;
        Ok(Response::new(pb::RefreshNodesResponseProto {}))
    }

    async fn refresh_admin_acls(
        &self,
        _: Request<pb::RefreshAdminAclsRequestProto>,
    ) -> Result<Response<pb::RefreshAdminAclsResponseProto>, Status> {
        self.leader_only().await?;
        Ok(Response::new(pb::RefreshAdminAclsResponseProto {}))
    }

    async fn get_cluster_membership(
        &self,
        _: Request<pb::GetClusterMembershipRequestProto>,
    ) -> Result<Response<pb::GetClusterMembershipResponseProto>, Status> {
        Ok(Response::new(self.membership.clone()))
    }

    async fn add_raft_member(
        &self,
        request: Request<pb::AddRaftMemberRequestProto>,
    ) -> Result<Response<pb::AddRaftMemberResponseProto>, Status> {
        self.leader_only().await?;
        let mut membership = self.membership.clone();
        membership.members.extend(request.into_inner().member);
        Ok(Response::new(pb::AddRaftMemberResponseProto {
            membership: Some(membership),
        }))
    }

    async fn remove_raft_member(
        &self,
        request: Request<pb::RemoveRaftMemberRequestProto>,
    ) -> Result<Response<pb::RemoveRaftMemberResponseProto>, Status> {
        self.leader_only().await?;
        let rm_id = request.into_inner().rm_id;
        let mut membership = self.membership.clone();
        membership.members.retain(|m| m.rm_id != rm_id);
        Ok(Response::new(pb::RemoveRaftMemberResponseProto {
            membership: Some(membership),
        }))
    }

    async fn transfer_leadership(
        &self,
        request: Request<pb::TransferLeadershipRequestProto>,
    ) -> Result<Response<pb::TransferLeadershipResponseProto>, Status> {
        self.leader_only().await?;
        let target = request.into_inner().target_rm_id;
        self.seen.transfers.lock().unwrap().push(target.clone());
        Ok(Response::new(pb::TransferLeadershipResponseProto {
            leader_rm_id: target,
        }))
    }
    async fn get_state_digest(
        &self,
        _: Request<pb::GetStateDigestRequestProto>,
    ) -> Result<Response<pb::GetStateDigestResponseProto>, Status> {
        Ok(Response::new(pb::GetStateDigestResponseProto {
            rm_id: self.rm_id.clone(),
            applied_index: STATE_DIGEST_INDEX,
            applied_term: STATE_DIGEST_TERM,
            digest: STATE_DIGEST.to_owned(),
        }))
    }

    async fn add_to_cluster_node_labels(
        &self,
        _: Request<pb::AddToClusterNodeLabelsRequestProto>,
    ) -> Result<Response<pb::AddToClusterNodeLabelsResponseProto>, Status> {
        Err(Status::unimplemented("not in the fake"))
    }

    async fn remove_from_cluster_node_labels(
        &self,
        _: Request<pb::RemoveFromClusterNodeLabelsRequestProto>,
    ) -> Result<Response<pb::RemoveFromClusterNodeLabelsResponseProto>, Status> {
        Err(Status::unimplemented("not in the fake"))
    }

    async fn replace_labels_on_nodes(
        &self,
        _: Request<pb::ReplaceLabelsOnNodeRequestProto>,
    ) -> Result<Response<pb::ReplaceLabelsOnNodeResponseProto>, Status> {
        Err(Status::unimplemented("not in the fake"))
    }

    async fn update_scheduler_configuration(
        &self,
        _: Request<pb::UpdateSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        Err(Status::unimplemented("not in the fake"))
    }

    async fn format_scheduler_configuration(
        &self,
        _: Request<pb::FormatSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        Err(Status::unimplemented("not in the fake"))
    }

    async fn restore_scheduler_configuration(
        &self,
        _: Request<pb::RestoreSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        Err(Status::unimplemented("not in the fake"))
    }

    async fn get_scheduler_configuration(
        &self,
        _: Request<pb::GetSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::GetSchedulerConfigurationResponseProto>, Status> {
        Err(Status::unimplemented("not in the fake"))
    }
}

/// A running test replica.
pub struct Replica {
    /// `127.0.0.1:<port>` of its admin service.
    pub address: String,
    /// What it saw.
    pub seen: Arc<Seen>,
}

/// How to start a test replica.
pub struct ReplicaSpec<'a> {
    pub pki: &'a Pki,
    pub rm_id: &'a str,
    pub behaviour: Behaviour,
    pub unhealthy: Option<String>,
    pub membership: pb::GetClusterMembershipResponseProto,
}

impl<'a> ReplicaSpec<'a> {
    /// A healthy replica with an empty membership.
    pub fn new(pki: &'a Pki, rm_id: &'a str, behaviour: Behaviour) -> Self {
        Self {
            pki,
            rm_id,
            behaviour,
            unhealthy: None,
            membership: pb::GetClusterMembershipResponseProto::default(),
        }
    }

    /// Serves the admin test double on 127.0.0.1 port 0 with the replica's own certificate.
    /// The server lives until the test's runtime ends.
    pub async fn start(self) -> Replica {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let tls = self.pki.tls(Role::ResourceManager, self.rm_id);
        let seen = Arc::new(Seen::default());
        let service = ResourceManagerAdministrationProtocolServer::new(FakeRm {
            rm_id: self.rm_id.to_owned(),
            behaviour: self.behaviour,
            unhealthy: self.unhealthy,
            membership: self.membership,
            seen: Arc::clone(&seen),
        });
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(Incoming::new(listener, &tls)),
        );
        Replica { address, seen }
    }
}

/// Starts a replica that accepts TLS connections, reads until a request's HEADERS frame has
/// arrived, and then drops the connection without answering: the request was sent, its outcome
/// is unknown to the client. Returns its address and the count of requests it dropped.
pub async fn start_dropping_replica(pki: &Pki, rm_id: &str) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let mut incoming = Incoming::new(listener, &pki.tls(Role::ResourceManager, rm_id));
    let dropped = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&dropped);
    tokio::spawn(async move {
        while let Some(Ok(mut connection)) = incoming.next().await {
            if read_until_request(&mut connection).await {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    (address, dropped)
}

/// An address on 127.0.0.1 where nothing listens: bound, then released.
pub async fn closed_address() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().to_string()
}

/// The HTTP/2 client preface every connection starts with.
const PREFACE_LEN: usize = 24;
/// An empty SETTINGS frame, the server's part of the HTTP/2 handshake.
const EMPTY_SETTINGS: [u8; 9] = [0, 0, 0, 0x4, 0, 0, 0, 0, 0];
const HEADERS_FRAME: u8 = 0x1;

/// Reads until the client's first HEADERS frame (a request) is in; false if the client closed
/// first.
async fn read_until_request(connection: &mut PeerConnection) -> bool {
    if connection.write_all(&EMPTY_SETTINGS).await.is_err() {
        return false;
    }
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match connection.read(&mut chunk).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => received.extend_from_slice(&chunk[..n]),
        }
        if has_headers_frame(&received) {
            return true;
        }
    }
}

fn has_headers_frame(bytes: &[u8]) -> bool {
    let mut at = PREFACE_LEN;
    while bytes.len() >= at + 9 {
        let length = usize::from(bytes[at]) << 16
            | usize::from(bytes[at + 1]) << 8
            | usize::from(bytes[at + 2]);
        if bytes[at + 3] == HEADERS_FRAME {
            return true;
        }
        at += 9 + length;
    }
    false
}
