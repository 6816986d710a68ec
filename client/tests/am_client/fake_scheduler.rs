//! A scheduler replica as test double: ApplicationMasterProtocol with a leader switch, the
//! "not registered" refusal of a leader that holds no registration, `response_id` checks, and
//! scripted allocations; it records every call with the AMRMToken presented.

use std::sync::{Arc, Mutex, MutexGuard};

use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status};
use yarn_proto::pb::application_master_protocol_server::{
    ApplicationMasterProtocol, ApplicationMasterProtocolServer,
};
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, PresentedToken, not_registered};
use yarn_proto::{LEADER_HINT_HEADER, NOT_LEADER_HEADER, pb};
use yarn_security::Role;
use yarn_test_support::pki::Pki;

use crate::support::must_listen;

/// What a replica knows and saw; tests script it through [`Scheduler::state`].
#[derive(Debug, Default)]
pub struct SchedulerState {
    /// Serving as the leader; otherwise every call is refused as not-leader.
    pub leader: bool,
    /// `<rm-id>=<address>` sent with not-leader refusals.
    pub leader_hint: Option<String>,
    /// Holds a registration of the attempt.
    pub registered: bool,
    /// The response id of the last allocate response.
    pub last_response_id: i32,
    /// Handed out with the next allocate response.
    pub to_allocate: Vec<pb::ContainerProto>,
    /// Reported with the next allocate response.
    pub to_complete: Vec<pb::ContainerStatusProto>,
    /// Sent with the next allocate response.
    pub nm_tokens: Vec<pb::NmTokenProto>,
    /// Sent with the next allocate response.
    pub new_amrm_token: Option<pb::TokenProto>,
    /// Finish calls answered `is_unregistered = false` before one is confirmed.
    pub unconfirmed_finishes: u32,
    /// Registrations lost right after they are served, as when leadership moves on between an
    /// AM's register and its next allocate.
    pub lost_registrations: u32,

    /// Registrations served.
    pub registrations: Vec<pb::RegisterApplicationMasterRequestProto>,
    /// Allocates served (refusals not included).
    pub allocates: Vec<pb::AllocateRequestProto>,
    /// Allocates refused as not registered.
    pub not_registered_refusals: u32,
    /// Finish calls served.
    pub finishes: Vec<pb::FinishApplicationMasterRequestProto>,
    /// The AMRMToken of every call served, in order.
    pub tokens: Vec<pb::TokenProto>,
}

/// A running replica.
#[derive(Clone)]
pub struct Scheduler {
    /// `127.0.0.1:<port>` of its scheduler service.
    pub address: String,
    state: Arc<Mutex<SchedulerState>>,
}

impl Scheduler {
    /// Serves a replica as `rm_id`, leading or not, on 127.0.0.1 port 0 until the test's
    /// runtime ends.
    pub async fn start(pki: &Pki, rm_id: &str, leader: bool) -> Self {
        let (incoming, address) = must_listen(pki, Role::ResourceManager, rm_id).await;
        let state = Arc::new(Mutex::new(SchedulerState {
            leader,
            ..SchedulerState::default()
        }));
        let service = ApplicationMasterProtocolServer::new(FakeScheduler {
            rm_id: rm_id.to_owned(),
            state: Arc::clone(&state),
        });
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(incoming),
        );
        Self { address, state }
    }

    /// The replica's state, to script or inspect.
    pub fn state(&self) -> MutexGuard<'_, SchedulerState> {
        self.state.lock().unwrap()
    }
}

struct FakeScheduler {
    rm_id: String,
    state: Arc<Mutex<SchedulerState>>,
}

impl FakeScheduler {
    /// Refuses unless leading, and records the AMRMToken presented.
    fn serve<T>(&self, request: &Request<T>) -> Result<MutexGuard<'_, SchedulerState>, Status> {
        let mut state = self.state.lock().unwrap();
        if !state.leader {
            let mut status = Status::unavailable(format!("{} is not the leader", self.rm_id));
            let metadata = status.metadata_mut();
            metadata.insert(NOT_LEADER_HEADER, self.rm_id.parse().unwrap());
            if let Some(hint) = &state.leader_hint {
                let value: MetadataValue<_> = hint.parse().unwrap();
                metadata.insert(LEADER_HINT_HEADER, value);
            }
            return Err(status);
        }
        match PresentedToken::from_metadata(request.metadata(), AMRM_TOKEN_METADATA_KEY) {
            PresentedToken::Token(token) => state.tokens.push(token),
            other => return Err(Status::unauthenticated(format!("AMRMToken: {other:?}"))),
        }
        Ok(state)
    }
}

#[tonic::async_trait]
impl ApplicationMasterProtocol for FakeScheduler {
    async fn register_application_master(
        &self,
        request: Request<pb::RegisterApplicationMasterRequestProto>,
    ) -> Result<Response<pb::RegisterApplicationMasterResponseProto>, Status> {
        let mut state = self.serve(&request)?;
        state.registered = state.lost_registrations == 0;
        state.lost_registrations = state.lost_registrations.saturating_sub(1);
        state.last_response_id = 0;
        state.registrations.push(request.into_inner());
        Ok(Response::new(pb::RegisterApplicationMasterResponseProto {
            queue: "default".to_owned(),
            ..Default::default()
        }))
    }

    async fn allocate(
        &self,
        request: Request<pb::AllocateRequestProto>,
    ) -> Result<Response<pb::AllocateResponseProto>, Status> {
        let mut state = self.serve(&request)?;
        if !state.registered {
            state.not_registered_refusals += 1;
            return Err(not_registered(format!(
                "AM is not registered on {}; register again",
                self.rm_id
            )));
        }
        let body = request.into_inner();
        if body.response_id != state.last_response_id {
            return Err(Status::invalid_argument(format!(
                "response_id {} does not follow {}",
                body.response_id, state.last_response_id
            )));
        }
        state.last_response_id += 1;
        state.allocates.push(body);
        Ok(Response::new(pb::AllocateResponseProto {
            response_id: state.last_response_id,
            allocated_containers: std::mem::take(&mut state.to_allocate),
            completed_container_statuses: std::mem::take(&mut state.to_complete),
            nm_tokens: std::mem::take(&mut state.nm_tokens),
            am_rm_token: state.new_amrm_token.take(),
            num_cluster_nodes: 2,
            limit: Some(pb::ResourceProto {
                memory: 8192,
                virtual_cores: 8,
                resource_value_map: Default::default(),
            }),
            ..Default::default()
        }))
    }

    async fn finish_application_master(
        &self,
        request: Request<pb::FinishApplicationMasterRequestProto>,
    ) -> Result<Response<pb::FinishApplicationMasterResponseProto>, Status> {
        let mut state = self.serve(&request)?;
        if !state.registered {
            return Err(not_registered(format!(
                "AM is not registered on {}; register again",
                self.rm_id
            )));
        }
        state.finishes.push(request.into_inner());
        let is_unregistered = state.unconfirmed_finishes == 0;
        state.unconfirmed_finishes = state.unconfirmed_finishes.saturating_sub(1);
        Ok(Response::new(pb::FinishApplicationMasterResponseProto {
            is_unregistered,
        }))
    }
}
