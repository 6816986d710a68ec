//! The leader probe over real mutual TLS against stand-in admin services: it presents the
//! harness user's certificate, skips replicas that are down or standby, and gives up at its
//! deadline when nobody is active.

use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::{Request, Response, Status};
use yarn_conf::Configuration;
use yarn_minicluster::{ClusterLayout, HARNESS_USER, Leader, LeaderProbe};
use yarn_proto::pb::resource_manager_administration_protocol_server::{
    ResourceManagerAdministrationProtocol, ResourceManagerAdministrationProtocolServer,
};
use yarn_proto::pb::*;
use yarn_security::{Incoming, PeerIdentity, Role, TlsConfig, peer_identity};

/// An admin service that reports a fixed HA state, to the harness user only.
struct FixedStatus {
    rm_id: String,
    state: HaServiceStateProto,
    term: u64,
}

fn unimplemented<T>() -> Result<Response<T>, Status> {
    Err(Status::unimplemented(
        "not part of the leader probe's stand-in",
    ))
}

#[tonic::async_trait]
impl ResourceManagerAdministrationProtocol for FixedStatus {
    async fn get_service_status(
        &self,
        request: Request<HaServiceStatusRequestProto>,
    ) -> Result<Response<HaServiceStatusResponseProto>, Status> {
        let user = PeerIdentity {
            role: Role::User,
            name: HARNESS_USER.to_owned(),
        };
        if peer_identity(&request) != Some(&user) {
            return Err(Status::permission_denied("only the harness user may ask"));
        }
        Ok(Response::new(HaServiceStatusResponseProto {
            state: self.state as i32,
            rm_id: self.rm_id.clone(),
            current_term: self.term,
            ..Default::default()
        }))
    }
    async fn monitor_health(
        &self,
        _: Request<MonitorHealthRequestProto>,
    ) -> Result<Response<MonitorHealthResponseProto>, Status> {
        unimplemented()
    }
    async fn refresh_queues(
        &self,
        _: Request<RefreshQueuesRequestProto>,
    ) -> Result<Response<RefreshQueuesResponseProto>, Status> {
        unimplemented()
    }
    async fn refresh_nodes(
        &self,
        _: Request<RefreshNodesRequestProto>,
    ) -> Result<Response<RefreshNodesResponseProto>, Status> {
        unimplemented()
    }
    async fn refresh_admin_acls(
        &self,
        _: Request<RefreshAdminAclsRequestProto>,
    ) -> Result<Response<RefreshAdminAclsResponseProto>, Status> {
        unimplemented()
    }
    async fn get_cluster_membership(
        &self,
        _: Request<GetClusterMembershipRequestProto>,
    ) -> Result<Response<GetClusterMembershipResponseProto>, Status> {
        unimplemented()
    }
    async fn add_raft_member(
        &self,
        _: Request<AddRaftMemberRequestProto>,
    ) -> Result<Response<AddRaftMemberResponseProto>, Status> {
        unimplemented()
    }
    async fn remove_raft_member(
        &self,
        _: Request<RemoveRaftMemberRequestProto>,
    ) -> Result<Response<RemoveRaftMemberResponseProto>, Status> {
        unimplemented()
    }
    async fn transfer_leadership(
        &self,
        _: Request<TransferLeadershipRequestProto>,
    ) -> Result<Response<TransferLeadershipResponseProto>, Status> {
        unimplemented()
    }
    async fn get_state_digest(
        &self,
        _: Request<GetStateDigestRequestProto>,
    ) -> Result<Response<GetStateDigestResponseProto>, Status> {
        unimplemented()
    }

    async fn add_to_cluster_node_labels(
        &self,
        _: Request<AddToClusterNodeLabelsRequestProto>,
    ) -> Result<Response<AddToClusterNodeLabelsResponseProto>, Status> {
        unimplemented()
    }

    async fn remove_from_cluster_node_labels(
        &self,
        _: Request<RemoveFromClusterNodeLabelsRequestProto>,
    ) -> Result<Response<RemoveFromClusterNodeLabelsResponseProto>, Status> {
        unimplemented()
    }

    async fn replace_labels_on_nodes(
        &self,
        _: Request<ReplaceLabelsOnNodeRequestProto>,
    ) -> Result<Response<ReplaceLabelsOnNodeResponseProto>, Status> {
        unimplemented()
    }

    async fn update_scheduler_configuration(
        &self,
        _: Request<yarn_proto::pb::UpdateSchedulerConfigurationRequestProto>,
    ) -> Result<Response<RefreshQueuesResponseProto>, Status> {
        unimplemented()
    }

    async fn format_scheduler_configuration(
        &self,
        _: Request<yarn_proto::pb::FormatSchedulerConfigurationRequestProto>,
    ) -> Result<Response<RefreshQueuesResponseProto>, Status> {
        unimplemented()
    }

    async fn restore_scheduler_configuration(
        &self,
        _: Request<yarn_proto::pb::RestoreSchedulerConfigurationRequestProto>,
    ) -> Result<Response<RefreshQueuesResponseProto>, Status> {
        unimplemented()
    }

    async fn get_scheduler_configuration(
        &self,
        _: Request<yarn_proto::pb::GetSchedulerConfigurationRequestProto>,
    ) -> Result<Response<yarn_proto::pb::GetSchedulerConfigurationResponseProto>, Status> {
        unimplemented()
    }
}

/// Serves `status` with `rm_id`'s certificate on 127.0.0.1 port 0; returns the address and the
/// sender that stops the server.
async fn serve(layout: &ClusterLayout, status: FixedStatus) -> (String, oneshot::Sender<()>) {
    let rm = layout
        .rms
        .iter()
        .find(|rm| rm.rm_id == status.rm_id)
        .unwrap();
    let tls = TlsConfig::from_conf(&Configuration::load_dir(&rm.conf_dir).unwrap()).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(ResourceManagerAdministrationProtocolServer::new(status))
            .serve_with_incoming_shutdown(Incoming::new(listener, &tls), async {
                let _ = stopped.await;
            }),
    );
    (address, stop)
}

/// An address nothing listens on: bound, then released.
async fn closed_address() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().to_string()
}

#[tokio::test]
async fn the_probe_finds_the_active_replica_past_a_down_and_a_standby_one() {
    yarn_security::install_crypto_provider();
    let dir = tempfile::tempdir().unwrap();
    let layout = ClusterLayout::create(dir.path(), 3, 0).unwrap();
    let down = closed_address().await;
    let (standby, _stop_standby) = serve(
        &layout,
        FixedStatus {
            rm_id: "rm2".to_owned(),
            state: HaServiceStateProto::Standby,
            term: 7,
        },
    )
    .await;
    let (active, _stop_active) = serve(
        &layout,
        FixedStatus {
            rm_id: "rm3".to_owned(),
            state: HaServiceStateProto::Active,
            term: 7,
        },
    )
    .await;

    let mut probe = LeaderProbe::new(
        &layout.client_conf_dir,
        [
            ("rm1".to_owned(), down),
            ("rm2".to_owned(), standby.clone()),
            ("rm3".to_owned(), active),
        ],
    )
    .unwrap();
    assert_eq!(
        probe.find_leader(Duration::from_secs(20)).await,
        Some(Leader {
            rm_id: "rm3".to_owned(),
            term: 7
        })
    );

    let mut standby_only =
        LeaderProbe::new(&layout.client_conf_dir, [("rm2".to_owned(), standby)]).unwrap();
    assert_eq!(
        standby_only.find_leader(Duration::from_millis(600)).await,
        None
    );
}

#[test]
fn a_probe_needs_a_loadable_client_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let err = LeaderProbe::new(&dir.path().join("missing"), [])
        .unwrap_err()
        .to_string();
    assert!(err.contains("client configuration"), "{err}");
}
