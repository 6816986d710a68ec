//! ApplicationClientProtocol on the RM client address.

use tonic::{Request, Response, Status};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_server::ApplicationClientProtocol;
use yarn_scheduler::QueueAcl;
use yarn_security::{Authorizer, Caller, Role};

use super::clock::now_ms;
use super::proposer::Proposer;
use crate::applications::reports::{self, application_report, application_state};
use crate::nodes::NodeRegistry;
use crate::scheduling::{QueueConfigSource, SchedulerCell, queue_info_proto};
use crate::state_machine::{
    ABORTED, ApplicationRecord, ApplicationState, CommandV1, RmCommand, RmResponse, StateView,
};

/// The protocol name quoted in role refusals.
const ENDPOINT: &str = "application client";

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
    /// `yarn.resourcemanager.am.max-attempts`.
    pub(crate) max_attempts: u32,
}

impl ClientService {
    /// Reads `f` of application `id`.
    fn application<R>(
        &self,
        id: ApplicationId,
        f: impl FnOnce(&ApplicationRecord) -> R,
    ) -> Result<R, Status> {
        self.state
            .read(|state| {
                state
                    .applications
                    .get(&id.id)
                    .filter(|_| state.cluster_timestamp_ms == id.cluster_timestamp)
                    .map(f)
            })
            .ok_or_else(|| unknown_application(id))
    }

    /// YARN's MODIFY_APP check: the owner, an administrator, or an administrator of the
    /// application's queue (anyone when `yarn.acl.enable` is false).
    fn check_modify_access(
        &self,
        user: &str,
        owner: &str,
        queue: &str,
        id: ApplicationId,
    ) -> Result<(), Status> {
        if user == owner {
            return Ok(());
        }
        let epoch = self.state.read(|state| state.epoch);
        let allowed = self.scheduler.with(epoch, |leader| {
            let scheduler = leader.scheduler();
            scheduler.configuration().settings().is_admin(user, &[])
                || scheduler
                    .check_access(queue, QueueAcl::AdministerQueue, user, &[])
                    .is_ok()
        });
        match allowed {
            Some(true) => Ok(()),
            Some(false) => Err(Status::permission_denied(format!(
                "User {user} cannot perform operation MODIFY_APP on {id}: it belongs to {owner}, \
                 and {user} administers neither the cluster nor queue {queue}"
            ))),
            None => Err(Status::unavailable(
                "the leader's scheduler is not ready yet; retry shortly",
            )),
        }
    }

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
}

/// YARN's rule: the submission's own limit when it is between 1 and the cluster's
/// `yarn.resourcemanager.am.max-attempts`, otherwise the cluster's.
fn effective_max_attempts(requested: i32, cluster: u32) -> i32 {
    let cluster = i32::try_from(cluster).unwrap_or(i32::MAX);
    if (1..=cluster).contains(&requested) {
        requested
    } else {
        cluster
    }
}

/// Builds the record of a submission, applying YARN's defaults for absent fields.
fn application_record(
    user: String,
    context: &pb::ApplicationSubmissionContextProto,
    sequence: i32,
    submit_time_ms: i64,
    max_attempts: u32,
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
        max_attempts: effective_max_attempts(context.max_app_attempts, max_attempts),
        ..ApplicationRecord::default()
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
        let record = application_record(user, &context, id.id, now_ms(), self.max_attempts);
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
            Some(application_report(state, app))
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
                        && (states.is_empty()
                            || states.contains(&application_state(app.state).into()))
                        && (filter.users.is_empty() || filter.users.contains(&app.user))
                        && (filter.queues.is_empty() || filter.queues.contains(&app.queue))
                })
                .map(|app| application_report(state, app))
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
        request: Request<pb::KillApplicationRequestProto>,
    ) -> Result<Response<pb::KillApplicationResponseProto>, Status> {
        let user = self.user(&request)?;
        let body = request.into_inner();
        let id = application_id(body.application_id, "ForceKillApplication")?;
        self.proposer.read_barrier().await?;
        let (owner, queue) = self.application(id, |app| (app.user.clone(), app.queue.clone()))?;
        self.check_modify_access(&user, &owner, &queue, id)?;
        let diagnostics = if body.diagnostics.is_empty() {
            format!("Application {id} was killed by user {user}")
        } else {
            format!(
                "Application {id} was killed by user {user}: {}",
                body.diagnostics
            )
        };
        let command = RmCommand::V1(CommandV1::KillApplication {
            application_seq: id.id,
            diagnostics,
            now_ms: now_ms(),
        });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationKilled | RmResponse::ApplicationAlreadyFinal { .. } => {
                Ok(Response::new(pb::KillApplicationResponseProto {
                    is_kill_completed: true,
                }))
            }
            RmResponse::UnknownApplication { .. } => Err(unknown_application(id)),
            other => Err(Status::internal(format!("killing {id} produced {other:?}"))),
        }
    }

    async fn get_cluster_metrics(
        &self,
        request: Request<pb::GetClusterMetricsRequestProto>,
    ) -> Result<Response<pb::GetClusterMetricsResponseProto>, Status> {
        self.user(&request)?;
        self.proposer.read_barrier().await?;
        let epoch = self.state.read(|state| state.epoch);
        let metrics = self.nodes.with(epoch, |tracker| {
            self.state
                .read(|state| reports::cluster_metrics(state, tracker))
        });
        Ok(Response::new(pb::GetClusterMetricsResponseProto {
            cluster_metrics: Some(metrics),
        }))
    }

    async fn get_cluster_nodes(
        &self,
        request: Request<pb::GetClusterNodesRequestProto>,
    ) -> Result<Response<pb::GetClusterNodesResponseProto>, Status> {
        self.user(&request)?;
        let states: Vec<pb::NodeStateProto> = request
            .get_ref()
            .node_states
            .iter()
            .filter_map(|state| pb::NodeStateProto::try_from(*state).ok())
            .collect();
        self.proposer.read_barrier().await?;
        let epoch = self.state.read(|state| state.epoch);
        let node_reports = self.nodes.with(epoch, |tracker| {
            self.state
                .read(|state| reports::node_reports(state, tracker, &states))
        });
        Ok(Response::new(pb::GetClusterNodesResponseProto {
            node_reports,
        }))
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
        Err(Status::unimplemented(
            "GetQueueUserAcls is not supported yet; `yarn-ha queue -status` shows a queue's ACLs",
        ))
    }

    async fn move_application_across_queues(
        &self,
        _request: Request<pb::MoveApplicationAcrossQueuesRequestProto>,
    ) -> Result<Response<pb::MoveApplicationAcrossQueuesResponseProto>, Status> {
        Err(Status::unimplemented(
            "MoveApplicationAcrossQueues is not supported yet: the CapacityScheduler cannot move \
             a running application's usage between queues",
        ))
    }

    async fn get_application_attempts(
        &self,
        request: Request<pb::GetApplicationAttemptsRequestProto>,
    ) -> Result<Response<pb::GetApplicationAttemptsResponseProto>, Status> {
        self.user(&request)?;
        let id = application_id(
            request.into_inner().application_id,
            "GetApplicationAttempts",
        )?;
        self.proposer.read_barrier().await?;
        let application_attempts = self.state.read(|state| {
            state
                .applications
                .get(&id.id)
                .filter(|_| state.cluster_timestamp_ms == id.cluster_timestamp)
                .map(|app| reports::attempt_reports(state, app))
        });
        let application_attempts = application_attempts.ok_or_else(|| unknown_application(id))?;
        Ok(Response::new(pb::GetApplicationAttemptsResponseProto {
            application_attempts,
        }))
    }

    async fn get_containers(
        &self,
        request: Request<pb::GetContainersRequestProto>,
    ) -> Result<Response<pb::GetContainersResponseProto>, Status> {
        self.user(&request)?;
        let attempt = attempt_id(request.into_inner().application_attempt_id, "GetContainers")?;
        self.proposer.read_barrier().await?;
        self.application(attempt.application_id, |_| ())?;
        let containers = self
            .state
            .read(|state| reports::container_reports(state, attempt));
        Ok(Response::new(pb::GetContainersResponseProto { containers }))
    }

    async fn fail_application_attempt(
        &self,
        request: Request<pb::FailApplicationAttemptRequestProto>,
    ) -> Result<Response<pb::FailApplicationAttemptResponseProto>, Status> {
        let user = self.user(&request)?;
        let attempt = attempt_id(
            request.into_inner().application_attempt_id,
            "FailApplicationAttempt",
        )?;
        self.proposer.read_barrier().await?;
        let id = attempt.application_id;
        let (owner, queue) = self.application(id, |app| (app.user.clone(), app.queue.clone()))?;
        self.check_modify_access(&user, &owner, &queue, id)?;
        let command = RmCommand::V1(CommandV1::FailApplicationAttempt {
            application_seq: id.id,
            attempt_id: attempt.attempt_id,
            exit_status: ABORTED,
            diagnostics: format!("Attempt failed by user {user}"),
            now_ms: now_ms(),
        });
        match self.proposer.propose(command).await? {
            RmResponse::AttemptFailed { .. } => {
                Ok(Response::new(pb::FailApplicationAttemptResponseProto {}))
            }
            RmResponse::AttemptNotCurrent { current, .. } => {
                Err(Status::failed_precondition(format!(
                    "{attempt} is not the current attempt of its application ({} is)",
                    ApplicationAttemptId::new(id, current)
                )))
            }
            RmResponse::ApplicationAlreadyFinal { state } => Err(Status::failed_precondition(
                format!("{id} is already {state:?}"),
            )),
            RmResponse::UnknownApplication { .. } => Err(unknown_application(id)),
            other => Err(Status::internal(format!(
                "failing {attempt} produced {other:?}"
            ))),
        }
    }

    async fn update_application_priority(
        &self,
        _request: Request<pb::UpdateApplicationPriorityRequestProto>,
    ) -> Result<Response<pb::UpdateApplicationPriorityResponseProto>, Status> {
        Err(Status::unimplemented(
            "UpdateApplicationPriority is not supported yet; set the priority at submission",
        ))
    }
}

fn unknown_application(id: ApplicationId) -> Status {
    Status::not_found(format!("Application with id '{id}' doesn't exist in RM."))
}

fn application_id(
    proto: Option<pb::ApplicationIdProto>,
    rpc: &str,
) -> Result<ApplicationId, Status> {
    let proto = proto
        .ok_or_else(|| Status::invalid_argument(format!("{rpc}: application_id is required")))?;
    ApplicationId::try_from(proto).map_err(|err| Status::invalid_argument(format!("{rpc}: {err}")))
}

fn attempt_id(
    proto: Option<pb::ApplicationAttemptIdProto>,
    rpc: &str,
) -> Result<ApplicationAttemptId, Status> {
    let proto = proto.ok_or_else(|| {
        Status::invalid_argument(format!("{rpc}: application_attempt_id is required"))
    })?;
    ApplicationAttemptId::try_from(proto)
        .map_err(|err| Status::invalid_argument(format!("{rpc}: {err}")))
}
