//! ApplicationClientProtocol on the RM client address.

use tonic::{Request, Response, Status};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_server::ApplicationClientProtocol;
use yarn_scheduler::{CapacityScheduler, QueueAcl, SchedulerError};
use yarn_security::{Authorizer, Caller, Role};

use super::clock::now_ms;
use super::proposer::Proposer;
use crate::applications::reports::{self, application_report, application_state};
use crate::applications::{
    ApplicationAccess, DiagnosticsLimit, SubmissionLimits, recorded_application_type,
};
use crate::scheduling::{QueueConfigSource, queue_info_proto};
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
    /// How to interpret the replicated queue configuration.
    pub(crate) queues: QueueConfigSource,
    /// `yarn.resourcemanager.am.max-attempts`.
    pub(crate) max_attempts: u32,
    /// What one submission may carry.
    pub(crate) submission_limits: SubmissionLimits,
    /// How much of a kill's diagnostics is kept.
    pub(crate) diagnostics_limit: DiagnosticsLimit,
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

    /// YARN's MODIFY_APP check of `user` performing `operation` on application `id`; returns
    /// the application's access rules.
    async fn check_modify_access(
        &self,
        user: &str,
        operation: &str,
        id: ApplicationId,
    ) -> Result<ApplicationAccess, Status> {
        let access = self.application(id, ApplicationAccess::of)?;
        let groups = self.groups_of(user).await;
        let leadership = self.proposer.gate.require_leader()?;
        let verdict = leadership
            .scheduler()
            .with(|leader| {
                access.check_modify(
                    user,
                    &groups,
                    operation,
                    &id.to_string(),
                    leader.scheduler(),
                )
            })
            .await;
        match verdict {
            Some(Ok(())) => Ok(access),
            Some(Err(refusal)) => Err(Status::permission_denied(refusal)),
            None => Err(scheduler_not_ready()),
        }
    }

    /// Refuses, before anything is stored, a submission whose user may not submit to its queue
    /// or whose AM container exceeds the queue's maximum allocation, as YARN does while the
    /// client waits. Everything else (unknown or stopped queue, application limits) is left to
    /// admission, which records the rejection in the application's diagnostics, as in YARN. A
    /// resubmission of a stored application is not checked again: it is acknowledged as is.
    async fn check_submission(
        &self,
        id: ApplicationId,
        record: &ApplicationRecord,
    ) -> Result<(), Status> {
        // No read barrier: these checks only ever refuse, the proposal that follows is what
        // needs the leadership, and a barrier would add a way for a sound submission to fail
        // while a new leader settles.
        if self.application(id, |_| ()).is_ok() {
            return Ok(());
        }
        let groups = self.groups_of(&record.user).await;
        let leadership = self.proposer.gate.require_leader()?;
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        let checked = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                leader.check_submission(id, record, &groups)
            })
            .await;
        match checked {
            Ok(Err(err @ SchedulerError::AccessDenied { .. })) => {
                Err(Status::permission_denied(format!(
                    "User {} cannot submit {id} to queue {}: {err}",
                    record.user, record.queue
                )))
            }
            Ok(Err(err @ SchedulerError::InvalidResourceRequest { .. })) => Err(
                Status::invalid_argument(format!("SubmitApplication of {id}: {err}")),
            ),
            _ => Ok(()),
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

    /// The groups of `user` for ACL checks, looked up off the async workers because the host's
    /// name service may block. A lookup that panicked counts as no groups: ACLs fail closed.
    async fn groups_of(&self, user: &str) -> Vec<String> {
        let groups = self.queues.groups.clone();
        let user = user.to_owned();
        tokio::task::spawn_blocking(move || groups.groups_of(&user))
            .await
            .unwrap_or_default()
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
            .as_deref()
            .map_or_else(|| "YARN".to_owned(), recorded_application_type),
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
        self.submission_limits.check(&context).map_err(|refusal| {
            Status::invalid_argument(format!("SubmitApplication of {id}: {refusal}"))
        })?;
        let record = application_record(user, &context, id.id, now_ms(), self.max_attempts);
        self.check_submission(id, &record).await?;
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
        let user = self.user(&request)?;
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
            Some(application_report(state, app, &user))
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
        let user = self.user(&request)?;
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
                .map(|app| application_report(state, app, &user))
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
        self.check_modify_access(&user, "MODIFY_APP", id).await?;
        let diagnostics = if body.diagnostics.is_empty() {
            format!("Application {id} was killed by user {user}")
        } else {
            format!(
                "Application {id} was killed by user {user}: {}",
                self.diagnostics_limit.bound(body.diagnostics)
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
        let leadership = self.proposer.gate.require_leader()?;
        let counts = leadership.counts();
        let metrics = leadership.nodes(|tracker| {
            self.state
                .read(|state| reports::cluster_metrics(state, tracker, counts))
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
        let leadership = self.proposer.gate.require_leader()?;
        let node_reports = leadership.nodes(|tracker| {
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
        let leadership = self.proposer.gate.require_leader()?;
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        // Verdicts found here stay in the cell until the scheduling loop commits them.
        let info = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                queue_info_proto(
                    leader.scheduler(),
                    &query.queue_name,
                    query.include_child_queues,
                    query.recursive,
                )
            })
            .await
            .map_err(|err| Status::failed_precondition(err.to_string()))?;
        let info = info.map_err(|err| Status::not_found(err.to_string()))?;
        Ok(Response::new(pb::GetQueueInfoResponseProto {
            queue_info: Some(info),
        }))
    }

    async fn get_queue_user_acls(
        &self,
        request: Request<pb::GetQueueUserAclsInfoRequestProto>,
    ) -> Result<Response<pb::GetQueueUserAclsInfoResponseProto>, Status> {
        let user = self.user(&request)?;
        self.proposer.read_barrier().await?;
        let groups = self.groups_of(&user).await;
        let leadership = self.proposer.gate.require_leader()?;
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        let queue_user_acls = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                queue_user_acls(leader.scheduler(), &user, &groups)
            })
            .await
            .map_err(|err| Status::failed_precondition(err.to_string()))?;
        Ok(Response::new(pb::GetQueueUserAclsInfoResponseProto {
            queue_user_acls,
        }))
    }

    async fn move_application_across_queues(
        &self,
        request: Request<pb::MoveApplicationAcrossQueuesRequestProto>,
    ) -> Result<Response<pb::MoveApplicationAcrossQueuesResponseProto>, Status> {
        const RPC: &str = "MoveApplicationAcrossQueues";
        let user = self.user(&request)?;
        let body = request.into_inner();
        let id = application_id(body.application_id, RPC)?;
        if body.target_queue.trim().is_empty() {
            return Err(Status::invalid_argument(format!(
                "{RPC}: target_queue is required"
            )));
        }
        self.proposer.read_barrier().await?;
        let state = self.application(id, |app| app.state)?;
        if state.is_final() || state == ApplicationState::Submitted {
            return Err(Status::failed_precondition(format!(
                "App in {} state cannot be moved.",
                application_state(state).as_str_name()
            )));
        }
        self.check_modify_access(&user, "MOVE_APPLICATION_ACROSS_QUEUES", id)
            .await?;
        let groups = self.groups_of(&user).await;
        let leadership = self.proposer.gate.require_leader()?;
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        let checked = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                let scheduler = leader.scheduler();
                let path = scheduler.check_move(id, &body.target_queue)?;
                scheduler.check_access(&path, QueueAcl::SubmitApplications, &user, &groups)?;
                Ok::<_, SchedulerError>(path)
            })
            .await
            .map_err(|err| Status::failed_precondition(err.to_string()))?;
        let path = checked.map_err(|err| scheduler_refusal(RPC, &err))?;
        let command = RmCommand::V1(CommandV1::MoveApplication {
            application_seq: id.id,
            queue: path.clone(),
        });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationMoved => {
                tracing::info!(application = %id, queue = %path, %user, "application moved");
                Ok(Response::new(
                    pb::MoveApplicationAcrossQueuesResponseProto {},
                ))
            }
            RmResponse::ApplicationAlreadyFinal { state } => {
                Err(Status::failed_precondition(format!(
                    "App in {} state cannot be moved.",
                    application_state(state).as_str_name()
                )))
            }
            RmResponse::UnknownApplication { .. } => Err(unknown_application(id)),
            other => Err(Status::internal(format!("moving {id} produced {other:?}"))),
        }
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
        self.check_modify_access(&user, "MODIFY_APP", id).await?;
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
        request: Request<pb::UpdateApplicationPriorityRequestProto>,
    ) -> Result<Response<pb::UpdateApplicationPriorityResponseProto>, Status> {
        const RPC: &str = "UpdateApplicationPriority";
        let user = self.user(&request)?;
        let body = request.into_inner();
        let id = application_id(body.application_id, RPC)?;
        let requested = body
            .application_priority
            .ok_or_else(|| {
                Status::invalid_argument(format!("{RPC}: application_priority is required"))
            })?
            .priority;
        self.proposer.read_barrier().await?;
        let (state, current) = self.application(id, |app| (app.state, app.priority))?;
        if state.is_final() {
            // YARN answers a finished application with the priority it ended with.
            return Ok(priority_response(current));
        }
        if state == ApplicationState::Submitted {
            return Err(Status::failed_precondition(format!(
                "Application in {} state cannot update priority.",
                application_state(state).as_str_name()
            )));
        }
        self.check_modify_access(&user, "UPDATE_APPLICATION_PRIORITY", id)
            .await?;
        let leadership = self.proposer.gate.require_leader()?;
        let maximum = leadership
            .scheduler()
            .with(|leader| {
                leader
                    .scheduler()
                    .configuration()
                    .settings()
                    .max_application_priority
            })
            .await
            .ok_or_else(scheduler_not_ready)?;
        let priority = requested.min(maximum);
        let command = RmCommand::V1(CommandV1::UpdateApplicationPriority {
            application_seq: id.id,
            priority,
        });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationPriorityUpdated => Ok(priority_response(priority)),
            RmResponse::ApplicationAlreadyFinal { .. } => {
                let current = self.application(id, |app| app.priority)?;
                Ok(priority_response(current))
            }
            RmResponse::UnknownApplication { .. } => Err(unknown_application(id)),
            other => Err(Status::internal(format!(
                "changing the priority of {id} produced {other:?}"
            ))),
        }
    }
}

fn priority_response(priority: i32) -> Response<pb::UpdateApplicationPriorityResponseProto> {
    Response::new(pb::UpdateApplicationPriorityResponseProto {
        application_priority: Some(pb::PriorityProto { priority }),
    })
}

fn scheduler_not_ready() -> Status {
    Status::unavailable("the leader's scheduler is not ready yet; retry shortly")
}

/// A scheduler refusal of `rpc` as the status a client can act on: missing rights are
/// PERMISSION_DENIED, a queue that does not exist or cannot hold applications is
/// INVALID_ARGUMENT, a queue that cannot take one now is FAILED_PRECONDITION.
fn scheduler_refusal(rpc: &str, err: &SchedulerError) -> Status {
    let message = format!("{rpc}: {err}");
    match err {
        SchedulerError::AccessDenied { .. } => Status::permission_denied(message),
        SchedulerError::UnknownQueue { .. }
        | SchedulerError::AmbiguousQueue { .. }
        | SchedulerError::NotLeafQueue { .. }
        | SchedulerError::NoSuchQueue { .. } => Status::invalid_argument(message),
        SchedulerError::UnknownApplication { .. } => Status::not_found(message),
        _ => Status::failed_precondition(message),
    }
}

/// The rights `user`, a member of `groups`, holds on every queue, parents first, as YARN's
/// `getQueueUserAcls`.
fn queue_user_acls(
    scheduler: &CapacityScheduler,
    user: &str,
    groups: &[String],
) -> Vec<pb::QueueUserAclInfoProto> {
    scheduler
        .queue_infos()
        .into_iter()
        .map(|queue| {
            let user_acls = [
                (
                    QueueAcl::SubmitApplications,
                    pb::QueueAclProto::QaclSubmitApplications,
                ),
                (
                    QueueAcl::AdministerQueue,
                    pb::QueueAclProto::QaclAdministerQueue,
                ),
            ]
            .into_iter()
            .filter(|(acl, _)| {
                scheduler
                    .check_access(&queue.queue_path, *acl, user, groups)
                    .is_ok()
            })
            .map(|(_, proto)| proto.into())
            .collect();
            pb::QueueUserAclInfoProto {
                queue_name: queue.queue_name,
                user_acls,
            }
        })
        .collect()
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
