//! A NodeManager's container manager as test double: it checks the NM token, starts each
//! container once (the container token's identifier is, by this double's convention, the
//! encoded `ContainerIdProto`), and stops and reports the containers it started.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use prost::Message;
use tokio::net::TcpListener;
use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::container_management_protocol_server::{
    ContainerManagementProtocol, ContainerManagementProtocolServer,
};
use yarn_proto::token_metadata::{NM_TOKEN_METADATA_KEY, PresentedToken};
use yarn_security::Role;
use yarn_test_support::pki::Pki;

use crate::support::{NODE, must_listen_on};

/// What the node holds and saw.
#[derive(Debug, Default)]
pub struct NmState {
    /// Started containers by raw id, with the command of their launch context.
    pub running: BTreeMap<i64, Vec<String>>,
    /// Stopped containers, by raw id.
    pub stopped: Vec<i64>,
    /// Never answers while set.
    pub hang: bool,
    /// Refuses this many more starts as not ready yet, as a node does right after a failover.
    pub not_ready_starts: u32,
    /// Starts this many more containers and then answers UNAVAILABLE, as a call whose
    /// connection broke after the node took it.
    pub lost_start_replies: u32,
    /// With a lost reply, also loses the container it started but keeps its token as used,
    /// as a node that crashed before recording the container.
    pub lose_started_container: bool,
    /// Container tokens used by a start whose container was lost, by raw id.
    pub used_tokens: Vec<i64>,
}

/// A running node.
pub struct Nm {
    /// `127.0.0.1:<port>` of its container manager.
    pub address: String,
    state: Arc<Mutex<NmState>>,
}

impl Nm {
    /// Serves a node accepting only `nm_token`, on 127.0.0.1 port 0, until the test's runtime
    /// ends.
    pub async fn start(pki: &Pki, nm_token: pb::TokenProto) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        Self::start_on(pki, nm_token, listener)
    }

    /// As [`start`](Self::start), on `listener`.
    pub fn start_on(pki: &Pki, nm_token: pb::TokenProto, listener: TcpListener) -> Self {
        let (incoming, address) = must_listen_on(pki, Role::NodeManager, NODE, listener);
        let state = Arc::new(Mutex::new(NmState::default()));
        let service = ContainerManagementProtocolServer::new(FakeNm {
            nm_token,
            state: Arc::clone(&state),
        });
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(incoming),
        );
        Self { address, state }
    }

    /// The node's state, to script or inspect.
    pub fn state(&self) -> MutexGuard<'_, NmState> {
        self.state.lock().unwrap()
    }

    /// The node id this node is called at.
    pub fn node_id(&self) -> pb::NodeIdProto {
        let (host, port) = self.address.split_once(':').unwrap();
        pb::NodeIdProto {
            host: host.to_owned(),
            port: port.parse().unwrap(),
        }
    }
}

/// The container token this double accepts for `container_id`.
pub fn container_token(container_id: &pb::ContainerIdProto) -> pb::TokenProto {
    pb::TokenProto {
        identifier: container_id.encode_to_vec(),
        password: vec![1],
        kind: "ContainerToken".to_owned(),
        service: String::new(),
    }
}

struct FakeNm {
    nm_token: pb::TokenProto,
    state: Arc<Mutex<NmState>>,
}

impl FakeNm {
    /// Refuses a call without the expected NM token; waits forever while hanging.
    async fn admit<T>(&self, request: &Request<T>) -> Result<(), Status> {
        let hang = self.state.lock().unwrap().hang;
        if hang {
            std::future::pending::<()>().await;
        }
        match PresentedToken::from_metadata(request.metadata(), NM_TOKEN_METADATA_KEY) {
            PresentedToken::Token(token) if token == self.nm_token => Ok(()),
            other => Err(Status::permission_denied(format!(
                "NM token refused: {other:?}"
            ))),
        }
    }
}

fn failure(container_id: pb::ContainerIdProto, message: String) -> pb::ContainerExceptionMapProto {
    failure_of_class(
        container_id,
        message,
        "org.apache.hadoop.yarn.exceptions.YarnException",
    )
}

fn failure_of_class(
    container_id: pb::ContainerIdProto,
    message: String,
    class_name: &str,
) -> pb::ContainerExceptionMapProto {
    pb::ContainerExceptionMapProto {
        container_id: Some(container_id),
        exception: Some(pb::SerializedExceptionProto {
            message,
            class_name: class_name.to_owned(),
            ..Default::default()
        }),
    }
}

#[tonic::async_trait]
impl ContainerManagementProtocol for FakeNm {
    async fn start_containers(
        &self,
        request: Request<pb::StartContainersRequestProto>,
    ) -> Result<Response<pb::StartContainersResponseProto>, Status> {
        self.admit(&request).await?;
        let mut response = pb::StartContainersResponseProto::default();
        let mut state = self.state.lock().unwrap();
        for start in request.into_inner().start_container_requests {
            let token = start
                .container_token
                .ok_or_else(|| Status::invalid_argument("no container token"))?;
            let id = pb::ContainerIdProto::decode(token.identifier.as_slice())
                .map_err(|e| Status::invalid_argument(format!("container token: {e}")))?;
            if state.not_ready_starts > 0 {
                state.not_ready_starts -= 1;
                let message = "this NodeManager has not registered with that RM yet".to_owned();
                response.failed_requests.push(failure_of_class(
                    id,
                    message,
                    "org.apache.hadoop.yarn.exceptions.NMNotYetReadyException",
                ));
                continue;
            }
            if state.used_tokens.contains(&id.id) {
                let message = format!("Attempt to relaunch the same container with id {}", id.id);
                response.failed_requests.push(failure(id, message));
                continue;
            }
            if state.running.contains_key(&id.id) {
                let message = format!("Container {} already exists", id.id);
                response.failed_requests.push(failure(id, message));
                continue;
            }
            let command = start
                .container_launch_context
                .map(|context| context.commands)
                .unwrap_or_default();
            state.running.insert(id.id, command);
            response.succeeded_requests.push(id);
        }
        if state.lost_start_replies > 0 {
            state.lost_start_replies -= 1;
            if state.lose_started_container {
                let started: Vec<i64> =
                    response.succeeded_requests.iter().map(|id| id.id).collect();
                for id in started {
                    state.running.remove(&id);
                    state.used_tokens.push(id);
                }
            }
            return Err(Status::unavailable("the connection broke before the reply"));
        }
        Ok(Response::new(response))
    }

    async fn stop_containers(
        &self,
        request: Request<pb::StopContainersRequestProto>,
    ) -> Result<Response<pb::StopContainersResponseProto>, Status> {
        self.admit(&request).await?;
        let mut response = pb::StopContainersResponseProto::default();
        let mut state = self.state.lock().unwrap();
        for id in request.into_inner().container_ids {
            if state.used_tokens.contains(&id.id) {
                let message = format!("Attempt to relaunch the same container with id {}", id.id);
                response.failed_requests.push(failure(id, message));
                continue;
            }
            if state.running.contains_key(&id.id) {
                state.stopped.push(id.id);
                response.succeeded_requests.push(id);
            } else {
                let message = format!("Container {} is not handled by this NodeManager", id.id);
                response.failed_requests.push(failure(id, message));
            }
        }
        Ok(Response::new(response))
    }

    async fn get_container_statuses(
        &self,
        request: Request<pb::GetContainerStatusesRequestProto>,
    ) -> Result<Response<pb::GetContainerStatusesResponseProto>, Status> {
        self.admit(&request).await?;
        let mut response = pb::GetContainerStatusesResponseProto::default();
        let state = self.state.lock().unwrap();
        for id in request.into_inner().container_ids {
            if !state.running.contains_key(&id.id) {
                let message = format!("Container {} is not handled by this NodeManager", id.id);
                response.failed_requests.push(failure(id, message));
                continue;
            }
            let container_state = if state.stopped.contains(&id.id) {
                pb::ContainerStateProto::CComplete
            } else {
                pb::ContainerStateProto::CRunning
            };
            response.statuses.push(pb::ContainerStatusProto {
                container_id: Some(id),
                state: container_state as i32,
                ..Default::default()
            });
        }
        Ok(Response::new(response))
    }

    async fn update_container(
        &self,
        _: Request<pb::ContainerUpdateRequestProto>,
    ) -> Result<Response<pb::ContainerUpdateResponseProto>, Status> {
        Err(Status::unimplemented("not part of this test double"))
    }
}
