//! ApplicationClientProtocol on the RM client address.

use tonic::{Request, Response, Status};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb::application_client_protocol_server::ApplicationClientProtocol;
use yarn_proto::pb::{self, YarnApplicationStateProto};
use yarn_security::{Authorizer, Caller, Role};

use super::clock::now_ms;
use super::proposer::Proposer;
use crate::nodes::NodeRegistry;
use crate::scheduling::{QueueConfigSource, SchedulerCell, queue_info_proto};
use crate::state_machine::{
    ApplicationRecord, ApplicationState, CommandV1, RmCommand, RmResponse, StateView,
};

/// The protocol name quoted in role refusals.
const ENDPOINT: &str = "application client";

/// The work item that brings the rest of the protocol, named in its refusals.
const APPLICATIONS_WORK_ITEM: &str =
    "Applications end to end (client protocol, CLI, distributed shell, pi)";

/// The client protocol of one replica: users (by `user` certificate) create and submit
/// applications and read their reports.
///
/// Every call is leader-only: writes go through [`Proposer::propose`], reads wait on
/// [`Proposer::read_barrier`] first, so a report never misses an acknowledged submission even
/// right after a failover.
pub(crate) struct ClientService {
    pub(crate) proposer: Proposer,
    pub(crate) state: StateView,
    pub(crate) authorizer: Authorizer,
    /// The registered nodes, whose capacities make up the cluster a queue's share is of.
    pub(crate) nodes: NodeRegistry,
    /// How to interpret the replicated queue configuration.
    pub(crate) queues: QueueConfigSource,
    /// The leader's scheduler, which queue reports are read from.
    pub(crate) scheduler: SchedulerCell,
}

impl ClientService {
    /// The calling user's name; `dr.who` over plaintext, Hadoop's name for an anonymous user.
    fn user<T>(&self, request: &Request<T>) -> Result<String, Status> {
        Ok(
            match self
                .authorizer
                .authorize(request, &[Role::User], ENDPOINT)?
            {
                Caller::Peer(identity) => identity.name,
                Caller::Anonymous => "dr.who".to_owned(),
            },
        )
    }

    fn report(
        &self,
        cluster_timestamp_ms: i64,
        app: &ApplicationRecord,
    ) -> pb::ApplicationReportProto {
        pb::ApplicationReportProto {
            application_id: Some(ApplicationId::new(cluster_timestamp_ms, app.sequence).into()),
            user: app.user.clone(),
            queue: app.queue.clone(),
            name: app.name.clone(),
            yarn_application_state: state_proto(app.state).into(),
            start_time: app.submit_time_ms,
            application_type: app.application_type.clone(),
            application_tags: app.tags.clone(),
            diagnostics: app.diagnostics.clone(),
            priority: Some(pb::PriorityProto {
                priority: app.priority,
            }),
            ..Default::default()
        }
    }
}

fn state_proto(state: ApplicationState) -> YarnApplicationStateProto {
    match state {
        ApplicationState::Submitted => YarnApplicationStateProto::Submitted,
        ApplicationState::Accepted => YarnApplicationStateProto::Accepted,
        ApplicationState::Running => YarnApplicationStateProto::Running,
        ApplicationState::Finished => YarnApplicationStateProto::Finished,
        ApplicationState::Failed => YarnApplicationStateProto::Failed,
        ApplicationState::Killed => YarnApplicationStateProto::Killed,
    }
}

fn pending(rpc: &str) -> Status {
    Status::unimplemented(format!(
        "{rpc} arrives with the work item \"{APPLICATIONS_WORK_ITEM}\""
    ))
}

/// Builds the record of a submission, applying YARN's defaults for absent fields.
fn application_record(
    user: String,
    context: &pb::ApplicationSubmissionContextProto,
    sequence: i32,
    submit_time_ms: i64,
) -> ApplicationRecord {
    use prost::Message;
    ApplicationRecord {
        sequence,
        user,
        name: context
            .application_name
            .clone()
            .unwrap_or_else(|| "N/A".to_owned()),
        queue: context
            .queue
            .clone()
            .unwrap_or_else(|| "default".to_owned()),
        application_type: context
            .application_type
            .clone()
            .unwrap_or_else(|| "YARN".to_owned()),
        tags: context
            .application_tags
            .iter()
            .map(|tag| tag.to_lowercase())
            .collect(),
        submit_time_ms,
        state: ApplicationState::Submitted,
        submission_context: context.encode_to_vec(),
        priority: 0,
        current_attempt: 0,
        diagnostics: String::new(),
    }
}

#[tonic::async_trait]
impl ApplicationClientProtocol for ClientService {
    async fn get_new_application(
        &self,
        request: Request<pb::GetNewApplicationRequestProto>,
    ) -> Result<Response<pb::GetNewApplicationResponseProto>, Status> {
        self.user(&request)?;
        let command = RmCommand::V1(CommandV1::AllocateApplicationIds { count: 1 });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationIdsAllocated { first, .. } => {
                let cluster_timestamp = self.state.read(|s| s.cluster_timestamp_ms);
                Ok(Response::new(pb::GetNewApplicationResponseProto {
                    application_id: Some(ApplicationId::new(cluster_timestamp, first).into()),
                    maximum_capability: None,
                }))
            }
            RmResponse::ApplicationIdsExhausted { .. } => Err(Status::resource_exhausted(
                "this cluster has handed out every application id (2^31 - 1)",
            )),
            other => Err(Status::internal(format!(
                "allocating an application id produced {other:?}"
            ))),
        }
    }

    async fn submit_application(
        &self,
        request: Request<pb::SubmitApplicationRequestProto>,
    ) -> Result<Response<pb::SubmitApplicationResponseProto>, Status> {
        let user = self.user(&request)?;
        let context = request
            .into_inner()
            .application_submission_context
            .ok_or_else(|| {
                Status::invalid_argument(
                    "SubmitApplication: application_submission_context is required",
                )
            })?;
        let id_proto = context.application_id.ok_or_else(|| {
            Status::invalid_argument(
                "SubmitApplication: application_submission_context.application_id is required",
            )
        })?;
        let id = ApplicationId::try_from(id_proto)
            .map_err(|err| Status::invalid_argument(format!("SubmitApplication: {err}")))?;
        let record = application_record(user, &context, id.id, now_ms());
        let command = RmCommand::V1(CommandV1::SubmitApplication {
            cluster_timestamp_ms: id.cluster_timestamp,
            application: record,
        });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationSubmitted | RmResponse::ApplicationAlreadySubmitted => {
                Ok(Response::new(pb::SubmitApplicationResponseProto {}))
            }
            RmResponse::UnknownApplicationId { .. } => Err(Status::invalid_argument(format!(
                "{id} was not handed out by this cluster; call GetNewApplication first"
            ))),
            other => Err(Status::internal(format!(
                "submitting {id} produced {other:?}"
            ))),
        }
    }

    async fn get_application_report(
        &self,
        request: Request<pb::GetApplicationReportRequestProto>,
    ) -> Result<Response<pb::GetApplicationReportResponseProto>, Status> {
        self.user(&request)?;
        let id_proto = request.into_inner().application_id.ok_or_else(|| {
            Status::invalid_argument("GetApplicationReport: application_id is required")
        })?;
        let id = ApplicationId::try_from(id_proto)
            .map_err(|err| Status::invalid_argument(format!("GetApplicationReport: {err}")))?;
        self.proposer.read_barrier().await?;
        let report = self.state.read(|state| {
            if state.cluster_timestamp_ms != id.cluster_timestamp {
                return None;
            }
            let app = state.applications.get(&id.id)?;
            Some(self.report(state.cluster_timestamp_ms, app))
        });
        let report = report.ok_or_else(|| {
            Status::not_found(format!("Application with id '{id}' doesn't exist in RM."))
        })?;
        Ok(Response::new(pb::GetApplicationReportResponseProto {
            application_report: Some(report),
        }))
    }

    async fn get_applications(
        &self,
        request: Request<pb::GetApplicationsRequestProto>,
    ) -> Result<Response<pb::GetApplicationsResponseProto>, Status> {
        self.user(&request)?;
        let filter = request.into_inner();
        self.proposer.read_barrier().await?;
        let applications = self.state.read(|state| {
            let states: Vec<i32> = filter.application_states.clone();
            let mut reports: Vec<_> = state
                .applications
                .values()
                .rev()
                .filter(|app| {
                    (filter.application_types.is_empty()
                        || filter
                            .application_types
                            .iter()
                            .any(|t| t.eq_ignore_ascii_case(&app.application_type)))
                        && (states.is_empty() || states.contains(&state_proto(app.state).into()))
                        && (filter.users.is_empty() || filter.users.contains(&app.user))
                        && (filter.queues.is_empty() || filter.queues.contains(&app.queue))
                })
                .map(|app| self.report(state.cluster_timestamp_ms, app))
                .collect();
            if let Some(limit) = filter.limit.and_then(|l| usize::try_from(l).ok()) {
                reports.truncate(limit);
            }
            reports
        });
        Ok(Response::new(pb::GetApplicationsResponseProto {
            applications,
        }))
    }

    async fn force_kill_application(
        &self,
        _request: Request<pb::KillApplicationRequestProto>,
    ) -> Result<Response<pb::KillApplicationResponseProto>, Status> {
        Err(pending("ForceKillApplication"))
    }

    async fn get_cluster_metrics(
        &self,
        _request: Request<pb::GetClusterMetricsRequestProto>,
    ) -> Result<Response<pb::GetClusterMetricsResponseProto>, Status> {
        Err(pending("GetClusterMetrics"))
    }

    async fn get_cluster_nodes(
        &self,
        _request: Request<pb::GetClusterNodesRequestProto>,
    ) -> Result<Response<pb::GetClusterNodesResponseProto>, Status> {
        Err(pending("GetClusterNodes"))
    }

    async fn get_queue_info(
        &self,
        request: Request<pb::GetQueueInfoRequestProto>,
    ) -> Result<Response<pb::GetQueueInfoResponseProto>, Status> {
        self.user(&request)?;
        self.proposer.read_barrier().await?;
        let query = request.into_inner();
        let epoch = self.state.read(|state| state.epoch);
        let nodes = self.nodes.with(epoch, |tracker| tracker.schedulable());
        // Verdicts found here are left to the scheduling loop, which re-derives and commits
        // them.
        let (info, _) = self
            .scheduler
            .with_reconciled(epoch, &self.state, &self.queues, &nodes, |leader| {
                queue_info_proto(
                    leader.scheduler(),
                    &query.queue_name,
                    query.include_child_queues,
                    query.recursive,
                )
            })
            .map_err(|err| Status::failed_precondition(err.to_string()))?;
        let info = info.map_err(|err| Status::not_found(err.to_string()))?;
        Ok(Response::new(pb::GetQueueInfoResponseProto {
            queue_info: Some(info),
        }))
    }

    async fn get_queue_user_acls(
        &self,
        _request: Request<pb::GetQueueUserAclsInfoRequestProto>,
    ) -> Result<Response<pb::GetQueueUserAclsInfoResponseProto>, Status> {
        Err(pending("GetQueueUserAcls"))
    }

    async fn move_application_across_queues(
        &self,
        _request: Request<pb::MoveApplicationAcrossQueuesRequestProto>,
    ) -> Result<Response<pb::MoveApplicationAcrossQueuesResponseProto>, Status> {
        Err(pending("MoveApplicationAcrossQueues"))
    }

    async fn get_application_attempts(
        &self,
        _request: Request<pb::GetApplicationAttemptsRequestProto>,
    ) -> Result<Response<pb::GetApplicationAttemptsResponseProto>, Status> {
        Err(pending("GetApplicationAttempts"))
    }

    async fn get_containers(
        &self,
        _request: Request<pb::GetContainersRequestProto>,
    ) -> Result<Response<pb::GetContainersResponseProto>, Status> {
        Err(pending("GetContainers"))
    }

    async fn fail_application_attempt(
        &self,
        _request: Request<pb::FailApplicationAttemptRequestProto>,
    ) -> Result<Response<pb::FailApplicationAttemptResponseProto>, Status> {
        Err(pending("FailApplicationAttempt"))
    }

    async fn update_application_priority(
        &self,
        _request: Request<pb::UpdateApplicationPriorityRequestProto>,
    ) -> Result<Response<pb::UpdateApplicationPriorityResponseProto>, Status> {
        Err(pending("UpdateApplicationPriority"))
    }
}
