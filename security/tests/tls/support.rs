//! The harness: a PKI in a temporary directory, a tonic admin service that reports who called
//! it, a server fed by `Incoming`, and a client call that folds every failure into one value.

use std::net::SocketAddr;
use std::sync::Arc;

use rustls::ClientConfig;
use time::{Duration, OffsetDateTime};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic::{Request, Response, Status};
use yarn_conf::Configuration;
use yarn_proto::pb;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;
use yarn_proto::pb::resource_manager_administration_protocol_server::{
    ResourceManagerAdministrationProtocol, ResourceManagerAdministrationProtocolServer,
};
use yarn_security::pki::{self, LeafSpec, PkiOptions, Validity};
use yarn_security::tls::{self, Credentials};
use yarn_security::{
    Authorizer, Caller, CertificateRefusal, ChannelOptions, Incoming, Role, TlsConfig, TlsFiles,
    connect, tls_incoming,
};
use yarn_test_support::pki::{Pki as TestPki, set_tls_files};

/// The name the admin handler reports for an anonymous (plaintext) caller.
pub const ANONYMOUS: &str = "anonymous";

/// The cluster PKI of every test, plus a second CA nobody trusts.
pub struct Pki {
    pub ca: TestPki,
    pub other_ca: TestPki,
}

/// Creates the cluster CA with `resourcemanager/rm1` (the server), `user/alice`,
/// `nodemanager/h1` and an expired `user/old`, and a second CA with `user/mallory`.
pub fn must_make_pki() -> Pki {
    let now = OffsetDateTime::now_utc();
    let ca = TestPki::new(&[
        LeafSpec::new(Role::ResourceManager, "rm1"),
        LeafSpec::new(Role::User, "alice"),
        LeafSpec::new(Role::NodeManager, "h1"),
    ]);
    let expired = PkiOptions {
        leaf_validity: Validity::new(now - Duration::days(30), now - Duration::days(1)).unwrap(),
        ..PkiOptions::starting_at(now)
    };
    pki::issue(ca.path(), &LeafSpec::new(Role::User, "old"), &expired).unwrap();
    let other_ca = TestPki::new(&[LeafSpec::new(Role::User, "mallory")]);
    Pki { ca, other_ca }
}

impl Pki {
    /// The TLS setting of `role`/`name`, built through the configuration keys as daemons do.
    pub fn tls_config(&self, role: Role, name: &str) -> TlsConfig {
        self.tls_config_with(role, name, &[])
    }

    /// Like [`Pki::tls_config`], with the `(key, value)` pairs of `settings` set too.
    pub fn tls_config_with(&self, role: Role, name: &str, settings: &[(&str, &str)]) -> TlsConfig {
        let mut conf = conf_for(&self.ca.files(role, name));
        for (key, value) in settings {
            conf.set(key, value);
        }
        TlsConfig::from_conf(&conf).unwrap()
    }

    /// A client configuration trusting the cluster CA and presenting `cert` (from any CA).
    pub fn client_presenting(&self, cert: Option<(&TestPki, Role, &str)>) -> Arc<ClientConfig> {
        let ca = tls::read_certificates(&self.ca.path().join(pki::CA_CERT_FILE)).unwrap();
        let own = cert.map(|(issuer, role, name)| {
            let files = issuer.files(role, name);
            Credentials::read(&files.cert, &files.key).unwrap()
        });
        tls::client_config(&ca, own).unwrap()
    }
}

/// A configuration whose `yarn.tls.*` keys point at `files`.
pub fn conf_for(files: &TlsFiles) -> Configuration {
    let mut conf = Configuration::new();
    set_tls_files(&mut conf, files);
    conf
}

/// The admin protocol as a test double: only `get_service_status`, allowed to users, which
/// answers with the caller's name in `rm_id` and role in `not_ready_reason`.
struct WhoCalled {
    authorizer: Authorizer,
}

#[tonic::async_trait]
impl ResourceManagerAdministrationProtocol for WhoCalled {
    async fn get_service_status(
        &self,
        request: Request<pb::HaServiceStatusRequestProto>,
    ) -> Result<Response<pb::HaServiceStatusResponseProto>, Status> {
        let (rm_id, not_ready_reason) =
            match self
                .authorizer
                .authorize(&request, &[Role::User], "admin")?
            {
                Caller::Peer(identity) => (identity.name, identity.role.to_string()),
                Caller::Anonymous => (ANONYMOUS.to_owned(), String::new()),
            };
        Ok(Response::new(pb::HaServiceStatusResponseProto {
            rm_id,
            not_ready_reason,
            ..Default::default()
        }))
    }

    async fn monitor_health(
        &self,
        _: Request<pb::MonitorHealthRequestProto>,
    ) -> Result<Response<pb::MonitorHealthResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn refresh_queues(
        &self,
        _: Request<pb::RefreshQueuesRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn refresh_nodes(
        &self,
        _: Request<pb::RefreshNodesRequestProto>,
    ) -> Result<Response<pb::RefreshNodesResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn refresh_admin_acls(
        &self,
        _: Request<pb::RefreshAdminAclsRequestProto>,
    ) -> Result<Response<pb::RefreshAdminAclsResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn get_cluster_membership(
        &self,
        _: Request<pb::GetClusterMembershipRequestProto>,
    ) -> Result<Response<pb::GetClusterMembershipResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn add_raft_member(
        &self,
        _: Request<pb::AddRaftMemberRequestProto>,
    ) -> Result<Response<pb::AddRaftMemberResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn remove_raft_member(
        &self,
        _: Request<pb::RemoveRaftMemberRequestProto>,
    ) -> Result<Response<pb::RemoveRaftMemberResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn transfer_leadership(
        &self,
        _: Request<pb::TransferLeadershipRequestProto>,
    ) -> Result<Response<pb::TransferLeadershipResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn get_state_digest(
        &self,
        _: Request<pb::GetStateDigestRequestProto>,
    ) -> Result<Response<pb::GetStateDigestResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn add_to_cluster_node_labels(
        &self,
        _: Request<pb::AddToClusterNodeLabelsRequestProto>,
    ) -> Result<Response<pb::AddToClusterNodeLabelsResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn remove_from_cluster_node_labels(
        &self,
        _: Request<pb::RemoveFromClusterNodeLabelsRequestProto>,
    ) -> Result<Response<pb::RemoveFromClusterNodeLabelsResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn replace_labels_on_nodes(
        &self,
        _: Request<pb::ReplaceLabelsOnNodeRequestProto>,
    ) -> Result<Response<pb::ReplaceLabelsOnNodeResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn update_scheduler_configuration(
        &self,
        _: Request<pb::UpdateSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn format_scheduler_configuration(
        &self,
        _: Request<pb::FormatSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn restore_scheduler_configuration(
        &self,
        _: Request<pb::RestoreSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::RefreshQueuesResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }

    async fn get_scheduler_configuration(
        &self,
        _: Request<pb::GetSchedulerConfigurationRequestProto>,
    ) -> Result<Response<pb::GetSchedulerConfigurationResponseProto>, Status> {
        Err(Status::unimplemented("not in the test double"))
    }
}

/// A running admin server on 127.0.0.1; dropping it shuts the server down.
pub struct TestServer {
    pub addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), tonic::transport::Error>>,
}

impl TestServer {
    /// Serves the admin test double with `tls`'s transport and role policy.
    pub async fn start(tls: &TlsConfig) -> TestServer {
        TestServer::start_with(tls, |incoming| incoming).await
    }

    /// Like [`TestServer::start`], with `tune` applied to the incoming stream.
    pub async fn start_with(
        tls: &TlsConfig,
        tune: impl FnOnce(Incoming) -> Incoming,
    ) -> TestServer {
        TestServer::serve(tls, |listener| tune(Incoming::new(listener, tls))).await
    }

    /// Like [`TestServer::start`], but on a listener built as a web endpoint's is when anonymous
    /// reads are allowed: clients without a certificate complete the handshake.
    pub async fn start_admitting_anonymous(tls: &TlsConfig) -> TestServer {
        let config = tls.anonymous_server_config().expect("TLS is enabled");
        TestServer::serve(tls, |listener| {
            tls_incoming(listener, config).admitting_anonymous()
        })
        .await
    }

    /// Serves the admin test double, with `tls`'s role policy, on the stream `incoming` makes
    /// of a listener on 127.0.0.1.
    pub async fn serve(
        tls: &TlsConfig,
        incoming: impl FnOnce(TcpListener) -> Incoming,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let incoming = incoming(listener);
        let addr = incoming.local_addr().unwrap();
        let service = ResourceManagerAdministrationProtocolServer::new(WhoCalled {
            authorizer: Authorizer::for_tls(tls),
        });
        let (shutdown, signal) = oneshot::channel::<()>();
        let task = tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming_shutdown(incoming, async {
                    let _ = signal.await;
                }),
        );
        TestServer {
            addr,
            shutdown: Some(shutdown),
            task,
        }
    }

    /// Whether the server task is still running (it must survive every refused client).
    pub fn is_serving(&self) -> bool {
        !self.task.is_finished()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// Why a call did not succeed.
#[derive(Debug)]
pub enum CallError {
    /// The channel could not be set up.
    Connect(yarn_security::Error),
    /// The server (or the transport under the call) answered with a status.
    Rpc(Status),
}

/// Calls `get_service_status` on `server` with `tls` (plaintext when `None`).
pub async fn call_admin(
    server: &TestServer,
    tls: Option<Arc<ClientConfig>>,
) -> Result<pb::HaServiceStatusResponseProto, CallError> {
    let address = format!("127.0.0.1:{}", server.addr.port());
    let channel = connect(&address, tls, &ChannelOptions::default())
        .await
        .map_err(CallError::Connect)?;
    ResourceManagerAdministrationProtocolClient::new(channel)
        .get_service_status(pb::HaServiceStatusRequestProto {})
        .await
        .map(Response::into_inner)
        .map_err(CallError::Rpc)
}

/// Asserts that a good user certificate still gets through, naming `alice`.
pub async fn must_serve_alice(pki: &Pki, server: &TestServer) {
    let alice = pki.tls_config(Role::User, "alice");
    let reply = call_admin(server, alice.client_config())
        .await
        .expect("a good call after refused ones");
    assert_eq!(reply.rm_id, "alice");
    assert!(server.is_serving());
}

/// Asserts that the call failed while connecting, with `expected` in the error's chain: the
/// refusal is part of the handshake, never a failure of the first request.
pub fn assert_certificate_refused(
    result: Result<pb::HaServiceStatusResponseProto, CallError>,
    expected: CertificateRefusal,
) {
    match result {
        Ok(reply) => panic!("call succeeded as {:?}", reply.rm_id),
        Err(CallError::Connect(err)) => {
            assert_eq!(CertificateRefusal::find(&err), Some(expected), "{err}");
        }
        Err(CallError::Rpc(status)) => {
            panic!("expected the connection to fail, got a call failure: {status:?}")
        }
    }
}
