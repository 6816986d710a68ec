//! A ResourceManager stand-in: ApplicationMasterProtocol and DistributedSchedulingAMProtocol on
//! 127.0.0.1 port 0, with the real RM's response-id rules and "not registered" refusal, scripted
//! allocations, and a record of every call and the token it carried.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::net::TcpListener;
use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::application_master_protocol_server::{
    ApplicationMasterProtocol, ApplicationMasterProtocolServer,
};
use yarn_proto::pb::distributed_scheduling_am_protocol_server::{
    DistributedSchedulingAmProtocol, DistributedSchedulingAmProtocolServer,
};
use yarn_proto::token_metadata::{
    AMRM_TOKEN_METADATA_KEY, PresentedToken, not_registered, remote_containers_refused,
};

/// What the RM knows, will answer, and saw.
#[derive(Debug, Default)]
pub struct RmState {
    /// Holds a registration of the attempt.
    pub registered: bool,
    /// The id of the last allocate response.
    pub last_response_id: i32,
    /// The last allocate response, for duplicates.
    pub last_response: Option<pb::AllocateResponseProto>,
    /// Handed out with the next allocate response.
    pub to_allocate: Vec<pb::ContainerProto>,
    /// Every container handed out so far (none completes here), each once.
    pub live: Vec<pb::ContainerProto>,
    /// Sent with the next allocate response.
    pub new_amrm_token: Option<pb::TokenProto>,
    /// The least-loaded nodes sent with distributed-scheduling answers.
    pub nodes: Vec<pb::RemoteNodeProto>,
    /// `container_id_start` of distributed registrations.
    pub container_id_start: i64,
    /// The minimum (and increment) allocation of distributed registrations.
    pub minimum_allocation: pb::ResourceProto,
    /// Raw ids to refuse, once, when a distributed-scheduling allocate reports them: the call
    /// is then refused whole, naming those of them it reported.
    pub refuse_reported: Vec<i64>,
    /// Sent with every allocate response.
    pub num_cluster_nodes: i32,

    /// Registrations served, and whether each was a distributed one.
    pub registrations: Vec<(pb::RegisterApplicationMasterRequestProto, bool)>,
    /// Allocates served (duplicates and refusals not included).
    pub allocates: Vec<pb::AllocateRequestProto>,
    /// Containers reported by distributed-scheduling allocates, in order.
    pub reported: Vec<pb::ContainerProto>,
    /// Allocates refused as not registered.
    pub not_registered_refusals: u32,
    /// Distributed-scheduling allocates refused for the containers they reported.
    pub report_refusals: u32,
    /// Finishes served.
    pub finishes: u32,
    /// The AMRMToken of every call, in order.
    pub tokens: Vec<pb::TokenProto>,
}

/// A running fake RM.
#[derive(Clone)]
pub struct FakeRm {
    /// `127.0.0.1:<port>` of its scheduler service.
    pub address: String,
    state: Arc<Mutex<RmState>>,
}

impl FakeRm {
    /// Serves a fake RM until the test's runtime ends. Distributed registrations get
    /// `container_id_start` 3 << 40 (epoch 3), a minimum allocation of 1024 MB and 1 vcore,
    /// and the nodes `n1` and `n2`.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let state = Arc::new(Mutex::new(RmState {
            container_id_start: 3 << 40,
            minimum_allocation: pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                ..Default::default()
            },
            nodes: vec![
                crate::support::remote_node("n1"),
                crate::support::remote_node("n2"),
            ],
            num_cluster_nodes: 2,
            ..RmState::default()
        }));
        let service = Service {
            state: Arc::clone(&state),
        };
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(ApplicationMasterProtocolServer::new(service.clone()))
                .add_service(DistributedSchedulingAmProtocolServer::new(service))
                .serve_with_incoming(yarn_security::plaintext_incoming(listener)),
        );
        Self { address, state }
    }

    /// The RM's state, to script or inspect.
    pub fn state(&self) -> MutexGuard<'_, RmState> {
        self.state.lock().unwrap()
    }

    /// A failover: the new leader holds no registration, counts response ids from 0, and,
    /// as the real RM's new session does, hands out every live container of the attempt again
    /// with its first allocate response. Its epoch is the next one, so distributed
    /// registrations get the next epoch's `container_id_start`.
    pub fn fail_over(&self) {
        let mut state = self.state();
        state.container_id_start += 1 << 40;
        state.registered = false;
        state.last_response_id = 0;
        state.last_response = None;
        let live = state.live.clone();
        state.to_allocate.splice(0..0, live);
    }
}

#[derive(Clone)]
struct Service {
    state: Arc<Mutex<RmState>>,
}

impl Service {
    /// Records the AMRMToken presented, refusing a call without one.
    fn serve<T>(&self, request: &Request<T>) -> Result<MutexGuard<'_, RmState>, Status> {
        let mut state = self.state.lock().unwrap();
        match PresentedToken::from_metadata(request.metadata(), AMRM_TOKEN_METADATA_KEY) {
            PresentedToken::Token(token) => state.tokens.push(token),
            other => return Err(Status::unauthenticated(format!("AMRMToken: {other:?}"))),
        }
        Ok(state)
    }
}

fn register(
    state: &mut RmState,
    request: pb::RegisterApplicationMasterRequestProto,
    distributed: bool,
) -> pb::RegisterApplicationMasterResponseProto {
    if !state.registered {
        state.registered = true;
        state.last_response_id = 0;
        state.last_response = None;
    }
    state.registrations.push((request, distributed));
    pb::RegisterApplicationMasterResponseProto {
        maximum_capability: Some(pb::ResourceProto {
            memory: 8192,
            virtual_cores: 8,
            ..Default::default()
        }),
        queue: "default".to_owned(),
        ..Default::default()
    }
}

fn allocate(
    state: &mut RmState,
    request: pb::AllocateRequestProto,
) -> Result<pb::AllocateResponseProto, Status> {
    if !state.registered {
        state.not_registered_refusals += 1;
        return Err(not_registered("application attempt is not registered"));
    }
    if let Some(last) = &state.last_response
        && request.response_id == state.last_response_id - 1
    {
        return Ok(last.clone());
    }
    if request.response_id != state.last_response_id {
        return Err(Status::invalid_argument(format!(
            "response id {} does not follow the last response {}",
            request.response_id, state.last_response_id
        )));
    }
    state.allocates.push(request);
    state.last_response_id += 1;
    let allocated = std::mem::take(&mut state.to_allocate);
    for container in &allocated {
        if !state.live.iter().any(|live| live.id == container.id) {
            state.live.push(container.clone());
        }
    }
    let response = pb::AllocateResponseProto {
        response_id: state.last_response_id,
        allocated_containers: allocated,
        am_rm_token: state.new_amrm_token.take(),
        num_cluster_nodes: state.num_cluster_nodes,
        ..Default::default()
    };
    state.last_response = Some(response.clone());
    Ok(response)
}

#[tonic::async_trait]
impl ApplicationMasterProtocol for Service {
    async fn register_application_master(
        &self,
        request: Request<pb::RegisterApplicationMasterRequestProto>,
    ) -> Result<Response<pb::RegisterApplicationMasterResponseProto>, Status> {
        let mut state = self.serve(&request)?;
        Ok(Response::new(register(
            &mut state,
            request.into_inner(),
            false,
        )))
    }

    async fn allocate(
        &self,
        request: Request<pb::AllocateRequestProto>,
    ) -> Result<Response<pb::AllocateResponseProto>, Status> {
        let mut state = self.serve(&request)?;
        allocate(&mut state, request.into_inner()).map(Response::new)
    }

    async fn finish_application_master(
        &self,
        request: Request<pb::FinishApplicationMasterRequestProto>,
    ) -> Result<Response<pb::FinishApplicationMasterResponseProto>, Status> {
        let mut state = self.serve(&request)?;
        if !state.registered {
            return Err(not_registered("application attempt is not registered"));
        }
        state.finishes += 1;
        Ok(Response::new(pb::FinishApplicationMasterResponseProto {
            is_unregistered: true,
        }))
    }
}

#[tonic::async_trait]
impl DistributedSchedulingAmProtocol for Service {
    async fn register_application_master_for_distributed_scheduling(
        &self,
        request: Request<pb::RegisterApplicationMasterRequestProto>,
    ) -> Result<Response<pb::RegisterDistributedSchedulingAmResponseProto>, Status> {
        let mut state = self.serve(&request)?;
        let register_response = register(&mut state, request.into_inner(), true);
        Ok(Response::new(
            pb::RegisterDistributedSchedulingAmResponseProto {
                register_response: Some(register_response),
                max_container_resource: Some(pb::ResourceProto {
                    memory: 8192,
                    virtual_cores: 8,
                    ..Default::default()
                }),
                min_container_resource: Some(state.minimum_allocation.clone()),
                incr_container_resource: Some(state.minimum_allocation.clone()),
                container_token_expiry_interval: 600_000,
                container_id_start: state.container_id_start,
                nodes_for_scheduling: state.nodes.clone(),
            },
        ))
    }

    async fn allocate_for_distributed_scheduling(
        &self,
        request: Request<pb::DistributedSchedulingAllocateRequestProto>,
    ) -> Result<Response<pb::DistributedSchedulingAllocateResponseProto>, Status> {
        let mut state = self.serve(&request)?;
        let request = request.into_inner();
        let refused: Vec<i64> = request
            .allocated_containers
            .iter()
            .filter_map(|container| container.id.map(|id| id.id))
            .filter(|id| state.refuse_reported.contains(id))
            .collect();
        if !refused.is_empty() {
            state.refuse_reported.retain(|id| !refused.contains(id));
            state.report_refusals += 1;
            return Err(remote_containers_refused(
                "allocated_containers refused, none recorded",
                &refused,
            ));
        }
        let response = allocate(&mut state, request.allocate_request.unwrap_or_default())?;
        state.reported.extend(request.allocated_containers);
        Ok(Response::new(
            pb::DistributedSchedulingAllocateResponseProto {
                allocate_response: Some(response),
                nodes_for_scheduling: state.nodes.clone(),
            },
        ))
    }

    async fn finish_application_master(
        &self,
        request: Request<pb::FinishApplicationMasterRequestProto>,
    ) -> Result<Response<pb::FinishApplicationMasterResponseProto>, Status> {
        ApplicationMasterProtocol::finish_application_master(self, request).await
    }
}
