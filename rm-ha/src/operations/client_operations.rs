//! [`ClientOperations`]: what users do through ApplicationClientProtocol.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};
use yarn_proto::pb;
use yarn_scheduler::{
    ApplicationLifetime, CapacityScheduler, CreationMethod, CreationRefused, Placement, QueueAcl,
    QueueInfo, SchedulerError, Submission, queues_to_create,
};
use yarn_security::Caller;

use super::RmError;
use super::am_operations::resource_proto;
use super::client_lifetimes::{
    TIMEOUTS_FIELD, granted_lifetime, requested_lifetime, submission_command,
};
use crate::applications::reports::{self, application_report, application_state};
use crate::applications::{
    AM_TOKENS_FIELD, ApplicationAccess, ApplicationAccessType, CallerRights, ClusterOverview,
    DiagnosticsLimit, QueueApplications, QueuePreemptions, SubmissionLimits,
    recorded_application_type, submitted_credentials,
};
use crate::replica::{Leadership, Proposer};
use crate::scheduling::{PreemptionReport, QueueConfigSource, queue_info_proto};
use crate::state_machine::{
    ABORTED, ApplicationRecord, ApplicationState, CommandV1, RmCommand, RmResponse, StateView,
};
use crate::telemetry::{LeaderFigures, QueueFigures};
use yarn_security::now_ms;

/// The client operations of one replica: users create and submit applications, kill, move
/// and reprioritize them, and read reports of applications, attempts, containers, nodes and
/// queues. Each takes the caller's authenticated identity (its certificate's user, or the
/// anonymous caller of a plaintext cluster, `dr.who` as in Hadoop) and the protocol's request.
///
/// Every operation is leader-only: writes go through [`Proposer::propose`], reads wait on
/// [`Proposer::read_barrier`] first, so a report never misses an acknowledged submission even
/// right after a failover.
pub(crate) struct ClientOperations {
    pub(crate) proposer: Proposer,
    pub(crate) state: StateView,
    /// How to interpret the replicated queue configuration.
    pub(crate) queues: QueueConfigSource,
    /// `yarn.resourcemanager.am.max-attempts`.
    pub(crate) max_attempts: u32,
    /// What one submission may carry.
    pub(crate) submission_limits: SubmissionLimits,
    /// How much of a kill's diagnostics is kept.
    pub(crate) diagnostics_limit: DiagnosticsLimit,
    /// The scheme of the NodeManagers' web pages (`https`, or `http` with
    /// `yarn.tls.enabled=false`), for the container log links of container reports.
    pub(crate) node_web_scheme: &'static str,
    /// When this replica started, in ms since the epoch (Hadoop's `startedOn`).
    pub(crate) started_on_ms: i64,
    /// `yarn.resourcemanager.scheduler.monitor.enable`: whether leaders preempt containers.
    pub(crate) preemption_enabled: bool,
    /// `...preemption.intra-queue-preemption.enabled` with the monitor on: whether they also
    /// preempt within queues.
    pub(crate) intra_queue_preemption_enabled: bool,
    /// The ReservationSystem's settings and admission lock.
    pub(crate) reservations: super::ReservationDesk,
}

impl ClientOperations {
    /// Reads `f` of application `id`.
    pub(super) fn application<R>(
        &self,
        id: ApplicationId,
        f: impl FnOnce(&ApplicationRecord) -> R,
    ) -> Result<R, RmError> {
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

    /// `user`'s rights outside any queue: its groups and whether it administers the cluster.
    async fn caller_rights(&self, user: &str) -> CallerRights {
        CallerRights::new(
            user,
            self.queues.groups.lookup(user).await,
            &self.queues.settings,
        )
    }

    /// `rights` with the queues the caller administers, from the leader's scheduler.
    async fn gather_queue_rights(&self, rights: CallerRights) -> Result<CallerRights, RmError> {
        let leadership = self.proposer.gate.require_leader()?;
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                rights.with_queue_rights(leader.scheduler())
            })
            .await
            .map_err(|err| RmError::precondition(err.to_string()))
    }

    /// Application `id`'s access rules and `user`'s rights, enough to decide whether `user`
    /// holds `access` on it: the scheduler's queue ACLs are consulted only when nothing else
    /// grants it, so an owner or an administrator never waits for the scheduler.
    async fn rights_over(
        &self,
        user: &str,
        access: ApplicationAccessType,
        id: ApplicationId,
    ) -> Result<(ApplicationAccess, CallerRights), RmError> {
        let application = self.application(id, ApplicationAccess::of)?;
        let rights = self.caller_rights(user).await;
        if application.allows(access, &rights) {
            return Ok((application, rights));
        }
        let rights = self.gather_queue_rights(rights).await?;
        Ok((application, rights))
    }

    /// Whether `user` holds VIEW_APP access on application `id`.
    async fn holds_view_access(&self, user: &str, id: ApplicationId) -> Result<bool, RmError> {
        let access = ApplicationAccessType::ViewApp;
        let (application, rights) = self.rights_over(user, access, id).await?;
        Ok(application.allows(access, &rights))
    }

    /// YARN's VIEW_APP check of `user` reading application `id`'s attempts or containers.
    pub(super) async fn check_view_access(
        &self,
        user: &str,
        id: ApplicationId,
    ) -> Result<(), RmError> {
        if self.holds_view_access(user, id).await? {
            return Ok(());
        }
        Err(RmError::AccessDenied {
            user: user.to_owned(),
            right: ApplicationAccessType::ViewApp.to_string(),
            message: format!("User {user} does not have privilege to see this application {id}"),
        })
    }

    /// YARN's MODIFY_APP check of `user` performing `operation` on application `id`.
    pub(super) async fn check_modify_access(
        &self,
        user: &str,
        operation: &str,
        id: ApplicationId,
    ) -> Result<(), RmError> {
        let (application, rights) = self
            .rights_over(user, ApplicationAccessType::ModifyApp, id)
            .await?;
        application
            .check_modify(&rights, operation, &id.to_string())
            .map_err(|message| RmError::AccessDenied {
                user: user.to_owned(),
                right: operation.to_owned(),
                message,
            })
    }

    /// Refuses, before anything is stored, a submission whose user may not submit to its queue
    /// or whose AM container exceeds the queue's maximum allocation, as YARN does while the
    /// client waits. Everything else (unknown or stopped queue, application limits) is left to
    /// admission, which records the rejection in the application's diagnostics, as in YARN. A
    /// resubmission of a stored or retired application is not checked again: it is acknowledged
    /// as is.
    /// Before those checks the placement rules ([`yarn_scheduler::PlacementRules`]) may move the
    /// submission to another queue, which `record` then names, with the rule in its
    /// diagnostics: the decision is made once, here, and stored with the submission. A
    /// submission `for_reservation` is not placed: it runs in its reservation's plan queue.
    /// A leaf missing under a parent with flexible auto-creation, named by the rule that placed
    /// the submission or by the submission itself as a full path, is checked as its parent's
    /// templates would configure it, and returned with its missing parents to be created with
    /// the submission.
    /// Returns the lifetimes of the leaf the application would run in, `None` when the queue
    /// is not known (admission will reject it unless a refresh creates it first) or the
    /// application is stored already.
    ///
    /// # Errors
    ///
    /// Besides the refusals above, [`RmError::InvalidRequest`] when a placement rule matched
    /// and neither its queue nor `root.default` can take the application, or when its queue
    /// cannot be created (a limit of its parent, its templates).
    async fn check_submission(
        &self,
        id: ApplicationId,
        record: &mut ApplicationRecord,
        for_reservation: bool,
    ) -> Result<CheckedSubmission, RmError> {
        // No read barrier: these checks only ever refuse, the proposal that follows is what
        // needs the leadership, and a barrier would add a way for a sound submission to fail
        // while a new leader settles.
        let retired = self.state.read(|state| {
            id.cluster_timestamp == state.cluster_timestamp_ms && state.retired.contains(id.id)
        });
        if retired || self.application(id, |_| ()).is_ok() {
            return Ok(CheckedSubmission::default());
        }
        let groups = self.queues.groups.lookup(&record.user).await;
        let leadership = self.proposer.gate.require_leader()?;
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        let checked = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                let conf = leader.scheduler().configuration();
                let submission = Submission {
                    user: &record.user,
                    groups: &groups,
                    application_name: &record.name,
                    queue: &record.queue,
                };
                // A submission for a reservation runs in its reservation's plan queue.
                let placement = if for_reservation {
                    Placement::AsSubmitted
                } else {
                    conf.placement_rules().place(conf, &submission)?
                };
                let mut placed = record.clone();
                let mut created = Vec::new();
                match &placement {
                    Placement::Placed {
                        queue,
                        created: by_rule,
                        ..
                    } => {
                        placed.queue.clone_from(queue);
                        created.clone_from(by_rule);
                    }
                    Placement::Fallback { queue, .. } => placed.queue.clone_from(queue),
                    // A full path under a parent that creates queues is created as named;
                    // a managed parent's leaves only by a mapping, as in Hadoop.
                    Placement::AsSubmitted if !for_reservation => {
                        let queue = placed.queue.trim();
                        if under_managed_parent(conf, queue) {
                            return Err(format!(
                                "Application {id} submission by user {} to queue {queue} is \
                                 refused: its parent is a managed parent \
                                 (auto-create-child-queue.enabled), whose leaves only a queue \
                                 mapping (yarn.scheduler.capacity.queue-mappings) or a \
                                 placement rule with create (mapping-rule-json) creates",
                                placed.user
                            ));
                        }
                        match queues_to_create(conf, queue) {
                            Ok(named) => created = named,
                            Err(CreationRefused::NotDynamic) => {}
                            Err(CreationRefused::Refused(reason)) => return Err(reason),
                        }
                    }
                    Placement::AsSubmitted => {}
                }
                if let Some(leaf) = created.last() {
                    placed.queue.clone_from(leaf);
                }
                let creates = !created.is_empty();
                // A created leaf already there is named again, with its created parents, so
                // that a removal committed before the submission cannot strand it.
                if let (false, Ok(leaf)) = (creates, conf.resolve(placed.queue.trim())) {
                    // A managed parent's leaf is named by its full path, which the queue
                    // management policy counts its applications by.
                    if leaf.creation_method == CreationMethod::DynamicLegacy {
                        placed.queue.clone_from(&leaf.path);
                    }
                    if leaf.creation_method == CreationMethod::DynamicFlexible && leaf.is_leaf() {
                        placed.queue.clone_from(&leaf.path);
                        created = conf
                            .ancestry(&leaf.path)
                            .into_iter()
                            .filter(|queue| {
                                queue.creation_method == CreationMethod::DynamicFlexible
                            })
                            .map(|queue| queue.path.clone())
                            .collect();
                    }
                }
                let checked = if creates {
                    tracing::info!(
                        "Auto-creating queues {} for application {id}",
                        created.join(", ")
                    );
                    leader.check_submission_creating(id, &placed, &groups, &created)
                } else {
                    leader.check_submission(id, &placed, &groups)
                };
                Ok::<_, String>((placement, placed.queue, (created, creates), checked))
            })
            .await;
        let checked = match checked {
            Ok(Ok((placement, queue, created, checked))) => {
                log_placement(id, &record.queue, &placement);
                if let Some(note) = placement_note(&placement) {
                    record.diagnostics = note;
                }
                record.queue = queue;
                Ok((checked, created))
            }
            Ok(Err(rejection)) => {
                return Err(RmError::invalid(
                    "application_submission_context.queue",
                    format!("SubmitApplication of {id}: {rejection}"),
                ));
            }
            Err(err) => Err(err),
        };
        let (checked, (created, creates)) = match checked {
            Ok((checked, created)) => (Ok(checked), created),
            Err(err) => (Err(err), (Vec::new(), false)),
        };
        let lifetime = match checked {
            Ok(Err(err @ SchedulerError::AccessDenied { .. })) => Err(RmError::AccessDenied {
                user: record.user.clone(),
                right: QueueAcl::SubmitApplications.to_string(),
                message: format!(
                    "User {} cannot submit {id} to queue {}: {err}",
                    record.user, record.queue
                ),
            }),
            Ok(Err(err @ SchedulerError::InvalidResourceRequest { .. })) => Err(RmError::invalid(
                "application_submission_context.resource",
                format!("SubmitApplication of {id}: {err}"),
            )),
            Ok(Err(err @ SchedulerError::InvalidLabelRequest { .. })) => Err(RmError::invalid(
                "application_submission_context.node_label_expression",
                format!("SubmitApplication of {id}: {err}"),
            )),
            Ok(Ok(lifetime)) => Ok(Some(lifetime)),
            Ok(Err(err)) if creates => Err(RmError::invalid(
                "application_submission_context.queue",
                format!(
                    "SubmitApplication of {id}: queue {} cannot be auto-created: {err}",
                    record.queue
                ),
            )),
            Ok(Err(_)) => Ok(None),
            // Its lifetime cannot be resolved, and it could not be admitted either.
            Err(err) => Err(RmError::unavailable(format!(
                "SubmitApplication of {id}: the leader cannot check it, its queue configuration \
                 does not load: {err}"
            ))),
        }?;
        Ok(CheckedSubmission { lifetime, created })
    }
}

/// What [`ClientOperations::check_submission`] found.
#[derive(Debug, Default)]
struct CheckedSubmission {
    /// The lifetimes of the leaf the application would run in; `None` when not known.
    lifetime: Option<ApplicationLifetime>,
    /// The queues the submission creates, parents first.
    created: Vec<String>,
}

/// Whether `queue` is a missing leaf a managed parent of `conf` would create.
fn under_managed_parent(
    conf: &yarn_scheduler::CapacitySchedulerConfiguration,
    queue: &str,
) -> bool {
    conf.queue(queue).is_none()
        && queue
            .rsplit_once('.')
            .and_then(|(parent, _)| conf.queue(parent))
            .is_some_and(|parent| parent.managed_parent.is_some())
}

/// What the application's diagnostics say of a rule's placement, stored with the submission so
/// that its report names the queue and the rule until later diagnostics (a rejection, the
/// application's end) replace it.
fn placement_note(placement: &Placement) -> Option<String> {
    match placement {
        Placement::AsSubmitted => None,
        Placement::Placed { queue, rule, .. } => {
            Some(format!("Placed in queue {queue} (placement rule: {rule})"))
        }
        Placement::Fallback {
            queue,
            rule,
            reason,
        } => Some(format!(
            "Placed in queue {queue} (placement rule: {rule}; its queue is unusable, so its \
             fallback placed it: {reason})"
        )),
    }
}

/// Logs where the placement rules sent `id`, submitted to `submitted`, in Hadoop's words.
fn log_placement(id: ApplicationId, submitted: &str, placement: &Placement) {
    match placement {
        Placement::AsSubmitted => {}
        Placement::Placed { queue, rule, .. } => tracing::info!(
            %rule,
            "Placed application with ID {id} in queue: {queue}, original submission queue was: \
             {submitted}"
        ),
        Placement::Fallback {
            queue,
            rule,
            reason,
        } => tracing::info!(
            %rule,
            "Cannot place to queue returned by mapping rule. Reason: '{reason}' Fallback \
             operation: placed application with ID {id} in queue: {queue}, original submission \
             queue was: {submitted}"
        ),
    }
}

/// The calling user's name; `dr.who` over plaintext, Hadoop's name for an anonymous user.
pub(super) fn user_name(caller: &Caller) -> String {
    match caller {
        Caller::Peer(identity) => identity.name.clone(),
        Caller::Anonymous => "dr.who".to_owned(),
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

impl ClientOperations {
    /// Hands out a new application id (YARN's `getNewApplication`), a Raft write so that no id
    /// is handed out twice across failovers, with the largest container the scheduler grants
    /// (`yarn.scheduler.maximum-allocation-*`).
    pub(crate) async fn get_new_application(
        &self,
    ) -> Result<pb::GetNewApplicationResponseProto, RmError> {
        let command = RmCommand::V1(CommandV1::AllocateApplicationIds { count: 1 });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationIdsAllocated { first, .. } => {
                let cluster_timestamp = self.state.read(|s| s.cluster_timestamp_ms);
                Ok(pb::GetNewApplicationResponseProto {
                    application_id: Some(ApplicationId::new(cluster_timestamp, first).into()),
                    maximum_capability: Some(resource_proto(
                        self.queues.settings.maximum_allocation,
                    )),
                })
            }
            RmResponse::ApplicationIdsExhausted { .. } => Err(RmError::Exhausted {
                message: "this cluster has handed out every application id (2^31 - 1)".to_owned(),
            }),
            other => Err(RmError::internal(format!(
                "allocating an application id produced {other:?}"
            ))),
        }
    }

    /// Submits an application (YARN's `submitApplication`) after checking the submission's
    /// limits, the user's right to submit to its queue and the AM container's size; a
    /// resubmission of a stored application is acknowledged as is.
    pub(crate) async fn submit_application(
        &self,
        caller: &Caller,
        request: pb::SubmitApplicationRequestProto,
    ) -> Result<pb::SubmitApplicationResponseProto, RmError> {
        let user = user_name(caller);
        let context = request.application_submission_context.ok_or_else(|| {
            RmError::invalid(
                "application_submission_context",
                "SubmitApplication: application_submission_context is required",
            )
        })?;
        const ID_FIELD: &str = "application_submission_context.application_id";
        let id_proto = context.application_id.ok_or_else(|| {
            RmError::invalid(
                ID_FIELD,
                format!("SubmitApplication: {ID_FIELD} is required"),
            )
        })?;
        let id = ApplicationId::try_from(id_proto)
            .map_err(|err| RmError::invalid(ID_FIELD, format!("SubmitApplication: {err}")))?;
        self.submission_limits.check(&context).map_err(|refusal| {
            RmError::invalid(
                "application_submission_context",
                format!("SubmitApplication of {id}: {refusal}"),
            )
        })?;
        // Refused now rather than at launch, where the AM would fail on every attempt.
        let am_tokens = context.am_container_spec.as_ref().map(|spec| &spec.tokens);
        submitted_credentials(am_tokens.map_or(&[][..], Vec::as_slice)).map_err(|err| {
            RmError::invalid(
                AM_TOKENS_FIELD,
                format!(
                    "SubmitApplication of {id}: {AM_TOKENS_FIELD} must be empty or a Hadoop \
                     credentials file (HDTS version 0 or 1), and it is {err}"
                ),
            )
        })?;
        let requested_lifetime = requested_lifetime(&context).map_err(|message| {
            RmError::invalid(
                TIMEOUTS_FIELD,
                format!("SubmitApplication of {id}: {message}"),
            )
        })?;
        let record = application_record(user, &context, id.id, now_ms(), self.max_attempts);
        let mut record = record;
        let for_reservation = context.reservation_id.is_some();
        let checked = self
            .check_submission(id, &mut record, for_reservation)
            .await?;
        let lifetime_secs = granted_lifetime(checked.lifetime, requested_lifetime);
        let command = submission_command(id, record, lifetime_secs, checked.created);
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationSubmitted | RmResponse::ApplicationAlreadySubmitted => {
                Ok(pb::SubmitApplicationResponseProto {})
            }
            RmResponse::AutoCreatedQueueConflict { queue } => Err(RmError::unavailable(format!(
                "SubmitApplication of {id}: queue {queue} was auto-created as another kind, or \
                 its managed parent's limits were reached, by a submission committed meanwhile; \
                 submit again"
            ))),
            RmResponse::UnknownApplicationId { .. } => Err(RmError::invalid(
                ID_FIELD,
                format!("{id} was not handed out by this cluster; call GetNewApplication first"),
            )),
            other => Err(RmError::internal(format!(
                "submitting {id} produced {other:?}"
            ))),
        }
    }

    /// The report of one application (YARN's `getApplicationReport`), as `caller` may see it.
    pub(crate) async fn get_application_report(
        &self,
        caller: &Caller,
        request: pb::GetApplicationReportRequestProto,
    ) -> Result<pb::GetApplicationReportResponseProto, RmError> {
        let user = user_name(caller);
        let id = application_id(request.application_id, "GetApplicationReport")?;
        self.proposer.read_barrier().await?;
        let view_access = self.holds_view_access(&user, id).await?;
        let report = self.state.read(|state| {
            if state.cluster_timestamp_ms != id.cluster_timestamp {
                return None;
            }
            let app = state.applications.get(&id.id)?;
            Some(application_report(state, app, &user, view_access, now_ms()))
        });
        let report = report.ok_or(RmError::ApplicationNotFound { id })?;
        Ok(pb::GetApplicationReportResponseProto {
            application_report: Some(report),
        })
    }

    /// Reports of the applications the filters select, newest first (YARN's
    /// `getApplications`).
    pub(crate) async fn get_applications(
        &self,
        caller: &Caller,
        request: pb::GetApplicationsRequestProto,
    ) -> Result<pb::GetApplicationsResponseProto, RmError> {
        let user = user_name(caller);
        let filter = request;
        self.proposer.read_barrier().await?;
        let mut rights = self.caller_rights(&user).await;
        if !rights.administers_cluster() {
            rights = self.gather_queue_rights(rights).await?;
        }
        let now = now_ms();
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
                .map(|app| {
                    let view_access =
                        ApplicationAccess::of(app).allows(ApplicationAccessType::ViewApp, &rights);
                    application_report(state, app, &user, view_access, now)
                })
                .collect();
            if let Some(limit) = filter.limit.and_then(|l| usize::try_from(l).ok()) {
                reports.truncate(limit);
            }
            reports
        });
        Ok(pb::GetApplicationsResponseProto { applications })
    }

    /// The state of every application whose type is one of `types` (any type when empty, case
    /// ignored), for counting: no report is built. Counts reveal nothing VIEW_APP guards.
    pub(crate) async fn application_states(
        &self,
        types: &[String],
    ) -> Result<Vec<pb::YarnApplicationStateProto>, RmError> {
        self.proposer.read_barrier().await?;
        Ok(self.state.read(|state| {
            state
                .applications
                .values()
                .filter(|app| {
                    types.is_empty()
                        || types
                            .iter()
                            .any(|t| t.eq_ignore_ascii_case(&app.application_type))
                })
                .map(|app| application_state(app.state))
                .collect()
        }))
    }

    /// Kills an application (YARN's `forceKillApplication`) if `caller` may modify it; killing
    /// one that already ended succeeds.
    pub(crate) async fn force_kill_application(
        &self,
        caller: &Caller,
        request: pb::KillApplicationRequestProto,
    ) -> Result<pb::KillApplicationResponseProto, RmError> {
        let user = user_name(caller);
        let id = application_id(request.application_id, "ForceKillApplication")?;
        self.proposer.read_barrier().await?;
        self.check_modify_access(&user, "MODIFY_APP", id).await?;
        let diagnostics = if request.diagnostics.is_empty() {
            format!("Application {id} was killed by user {user}")
        } else {
            format!(
                "Application {id} was killed by user {user}: {}",
                self.diagnostics_limit.bound(request.diagnostics)
            )
        };
        let command = RmCommand::V1(CommandV1::KillApplication {
            application_seq: id.id,
            diagnostics,
            now_ms: now_ms(),
        });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationKilled | RmResponse::ApplicationAlreadyFinal { .. } => {
                Ok(pb::KillApplicationResponseProto {
                    is_kill_completed: true,
                })
            }
            RmResponse::UnknownApplication { .. } => Err(unknown_application(id)),
            other => Err(RmError::internal(format!(
                "killing {id} produced {other:?}"
            ))),
        }
    }

    /// The cluster's node and application counts, this leadership's opportunistic counts and
    /// when this replica started (YARN's `getClusterMetrics`).
    pub(crate) async fn get_cluster_metrics(
        &self,
    ) -> Result<pb::GetClusterMetricsResponseProto, RmError> {
        let leadership = self.proposer.read_barrier().await?;

        let metrics = reports::cluster_metrics(&self.overview(&leadership), leadership.counts());
        Ok(pb::GetClusterMetricsResponseProto {
            cluster_metrics: Some(pb::YarnClusterMetricsProto {
                rm_started_on_ms: self.started_on_ms,
                ..metrics
            }),
        })
    }

    /// The cluster's figures as Hadoop's `ClusterMetrics` has them (applications by state,
    /// resources in use and available, nodes by state), read after a read barrier.
    pub(crate) async fn cluster_overview(&self) -> Result<ClusterOverview, RmError> {
        let leadership = self.proposer.read_barrier().await?;
        Ok(self.overview(&leadership))
    }

    fn overview(&self, leadership: &Leadership) -> ClusterOverview {
        leadership.nodes(|tracker| self.state.read(|state| ClusterOverview::of(state, tracker)))
    }

    /// Everything the leader's `/metrics` page shows of the cluster, read after one read
    /// barrier: the cluster's figures, the leadership's opportunistic counts, and every queue
    /// with the applications the state holds per queue and user.
    pub(crate) async fn leader_figures(&self) -> Result<LeaderFigures, RmError> {
        let leadership = self.proposer.read_barrier().await?;
        let queues = self.all_queue_infos(&leadership).await?;
        Ok(LeaderFigures {
            overview: self.overview(&leadership),
            counts: leadership.counts(),
            queues: QueueFigures {
                queues,
                applications: self.state.read(QueueApplications::of),
                preemptions: self.queue_preemptions(),
            },
        })
    }

    /// Reports of the nodes in the requested states (YARN's `getClusterNodes`).
    pub(crate) async fn get_cluster_nodes(
        &self,
        request: pb::GetClusterNodesRequestProto,
    ) -> Result<pb::GetClusterNodesResponseProto, RmError> {
        let states: Vec<pb::NodeStateProto> = request
            .node_states
            .iter()
            .filter_map(|state| pb::NodeStateProto::try_from(*state).ok())
            .collect();
        let leadership = self.proposer.read_barrier().await?;

        let node_reports = leadership.nodes(|tracker| {
            self.state
                .read(|state| reports::node_reports(state, tracker, &states))
        });
        Ok(pb::GetClusterNodesResponseProto { node_reports })
    }

    /// One queue, and its children if asked (YARN's `getQueueInfo`).
    pub(crate) async fn get_queue_info(
        &self,
        request: pb::GetQueueInfoRequestProto,
    ) -> Result<pb::GetQueueInfoResponseProto, RmError> {
        let leadership = self.proposer.read_barrier().await?;

        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        let figures = self.queue_preemptions();
        let preemption = self.preemption_report(&figures);
        // Verdicts found here stay in the cell until the scheduling loop commits them.
        let info = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                queue_info_proto(
                    leader.scheduler(),
                    &request.queue_name,
                    request.include_child_queues,
                    request.recursive,
                    preemption,
                )
            })
            .await
            .map_err(|err| RmError::precondition(err.to_string()))?;
        let info = info.map_err(|err| RmError::NotFound {
            message: err.to_string(),
        })?;
        Ok(pb::GetQueueInfoResponseProto {
            queue_info: Some(info),
        })
    }

    /// Every queue of the scheduler with its configuration and usage, for the REST API's
    /// scheduler page; the scheduler is held only while the snapshot is taken.
    pub(crate) async fn queue_infos(&self) -> Result<Vec<QueueInfo>, RmError> {
        let leadership = self.proposer.read_barrier().await?;
        self.all_queue_infos(&leadership).await
    }

    /// What preemption is taking and has taken from each queue, read from the state this
    /// replica applied (after a [`queue_infos`](Self::queue_infos), the leader's).
    pub(crate) fn queue_preemptions(&self) -> QueuePreemptions {
        self.state
            .read(|state| QueuePreemptions::of(state, self.preemption_enabled))
    }

    /// What queue reports say of preemption: whether leaders preempt, across and within
    /// queues, and `figures`.
    pub(crate) fn preemption_report<'a>(
        &self,
        figures: &'a QueuePreemptions,
    ) -> PreemptionReport<'a> {
        PreemptionReport {
            enabled: self.preemption_enabled,
            intra_queue_enabled: self.intra_queue_preemption_enabled,
            figures,
        }
    }

    async fn all_queue_infos(&self, leadership: &Leadership) -> Result<Vec<QueueInfo>, RmError> {
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                leader.scheduler().queue_infos()
            })
            .await
            .map_err(|err| RmError::precondition(err.to_string()))
    }

    /// The rights `caller` holds on every queue (YARN's `getQueueUserAcls`).
    pub(crate) async fn get_queue_user_acls(
        &self,
        caller: &Caller,
    ) -> Result<pb::GetQueueUserAclsInfoResponseProto, RmError> {
        let user = user_name(caller);
        let leadership = self.proposer.read_barrier().await?;
        let groups = self.queues.groups.lookup(&user).await;

        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        let queue_user_acls = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                queue_user_acls(leader.scheduler(), &user, &groups)
            })
            .await
            .map_err(|err| RmError::precondition(err.to_string()))?;
        Ok(pb::GetQueueUserAclsInfoResponseProto { queue_user_acls })
    }

    /// Moves a running application to another leaf queue (YARN's
    /// `moveApplicationAcrossQueues`) if `caller` may modify it and submit to the target.
    pub(crate) async fn move_application_across_queues(
        &self,
        caller: &Caller,
        request: pb::MoveApplicationAcrossQueuesRequestProto,
    ) -> Result<pb::MoveApplicationAcrossQueuesResponseProto, RmError> {
        const RPC: &str = "MoveApplicationAcrossQueues";
        let user = user_name(caller);
        let id = application_id(request.application_id, RPC)?;
        if request.target_queue.trim().is_empty() {
            return Err(RmError::invalid(
                "target_queue",
                format!("{RPC}: target_queue is required"),
            ));
        }
        self.proposer.read_barrier().await?;
        let state = self.application(id, |app| app.state)?;
        if state.is_final() || state == ApplicationState::Submitted {
            return Err(RmError::precondition(format!(
                "App in {} state cannot be moved.",
                application_state(state).as_str_name()
            )));
        }
        self.check_modify_access(&user, "MOVE_APPLICATION_ACROSS_QUEUES", id)
            .await?;
        let groups = self.queues.groups.lookup(&user).await;
        let leadership = self.proposer.gate.require_leader()?;
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        let checked = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                let scheduler = leader.scheduler();
                let path = scheduler.check_move(id, &request.target_queue)?;
                scheduler.check_access(&path, QueueAcl::SubmitApplications, &user, &groups)?;
                Ok::<_, SchedulerError>(path)
            })
            .await
            .map_err(|err| RmError::precondition(err.to_string()))?;
        let path = checked.map_err(|err| move_refusal(RPC, &user, &err))?;
        let command = RmCommand::V1(CommandV1::MoveApplication {
            application_seq: id.id,
            queue: path.clone(),
        });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationMoved => {
                tracing::info!(application = %id, queue = %path, %user, "application moved");
                Ok(pb::MoveApplicationAcrossQueuesResponseProto {})
            }
            RmResponse::ApplicationAlreadyFinal { state } => Err(RmError::precondition(format!(
                "App in {} state cannot be moved.",
                application_state(state).as_str_name()
            ))),
            RmResponse::UnknownApplication { .. } => Err(unknown_application(id)),
            other => Err(RmError::internal(format!("moving {id} produced {other:?}"))),
        }
    }

    /// Reports of an application's attempts (YARN's `getApplicationAttempts`) if `caller` may
    /// view the application.
    pub(crate) async fn get_application_attempts(
        &self,
        caller: &Caller,
        request: pb::GetApplicationAttemptsRequestProto,
    ) -> Result<pb::GetApplicationAttemptsResponseProto, RmError> {
        let id = application_id(request.application_id, "GetApplicationAttempts")?;
        self.proposer.read_barrier().await?;
        self.check_view_access(&user_name(caller), id).await?;
        let application_attempts = self.state.read(|state| {
            state
                .applications
                .get(&id.id)
                .filter(|_| state.cluster_timestamp_ms == id.cluster_timestamp)
                .map(|app| reports::attempt_reports(state, app))
        });
        let application_attempts = application_attempts.ok_or_else(|| unknown_application(id))?;
        Ok(pb::GetApplicationAttemptsResponseProto {
            application_attempts,
        })
    }

    /// Reports of an attempt's containers (YARN's `getContainers`) if `caller` may view the
    /// application.
    pub(crate) async fn get_containers(
        &self,
        caller: &Caller,
        request: pb::GetContainersRequestProto,
    ) -> Result<pb::GetContainersResponseProto, RmError> {
        let attempt = attempt_id(request.application_attempt_id, "GetContainers")?;
        let leadership = self.proposer.read_barrier().await?;
        self.check_view_access(&user_name(caller), attempt.application_id)
            .await?;
        let user = self.application(attempt.application_id, |app| app.user.clone())?;
        let mut containers = self
            .state
            .read(|state| reports::container_reports(state, attempt));
        leadership.nodes(|tracker| {
            reports::locate_containers(&mut containers, tracker, &user, self.node_web_scheme);
        });
        Ok(pb::GetContainersResponseProto { containers })
    }

    /// Fails an application's current attempt (YARN's `failApplicationAttempt`) if `caller` may
    /// modify the application; the RM starts another if attempts remain.
    pub(crate) async fn fail_application_attempt(
        &self,
        caller: &Caller,
        request: pb::FailApplicationAttemptRequestProto,
    ) -> Result<pb::FailApplicationAttemptResponseProto, RmError> {
        let user = user_name(caller);
        let attempt = attempt_id(request.application_attempt_id, "FailApplicationAttempt")?;
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
            RmResponse::AttemptFailed { .. } => Ok(pb::FailApplicationAttemptResponseProto {}),
            RmResponse::AttemptNotCurrent { current, .. } => Err(RmError::precondition(format!(
                "{attempt} is not the current attempt of its application ({} is)",
                ApplicationAttemptId::new(id, current)
            ))),
            RmResponse::ApplicationAlreadyFinal { state } => {
                Err(RmError::precondition(format!("{id} is already {state:?}")))
            }
            RmResponse::UnknownApplication { .. } => Err(unknown_application(id)),
            other => Err(RmError::internal(format!(
                "failing {attempt} produced {other:?}"
            ))),
        }
    }

    /// Changes an application's priority (YARN's `updateApplicationPriority`), capped at
    /// `yarn.cluster.max-application-priority`; a finished application answers with the
    /// priority it ended with.
    pub(crate) async fn update_application_priority(
        &self,
        caller: &Caller,
        request: pb::UpdateApplicationPriorityRequestProto,
    ) -> Result<pb::UpdateApplicationPriorityResponseProto, RmError> {
        const RPC: &str = "UpdateApplicationPriority";
        let user = user_name(caller);
        let id = application_id(request.application_id, RPC)?;
        let requested = request
            .application_priority
            .ok_or_else(|| {
                RmError::invalid(
                    "application_priority",
                    format!("{RPC}: application_priority is required"),
                )
            })?
            .priority;
        self.proposer.read_barrier().await?;
        let (state, current) = self.application(id, |app| (app.state, app.priority))?;
        if state.is_final() {
            // YARN answers a finished application with the priority it ended with.
            return Ok(priority_response(current));
        }
        if state == ApplicationState::Submitted {
            return Err(RmError::precondition(format!(
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
            other => Err(RmError::internal(format!(
                "changing the priority of {id} produced {other:?}"
            ))),
        }
    }
}

fn priority_response(priority: i32) -> pb::UpdateApplicationPriorityResponseProto {
    pb::UpdateApplicationPriorityResponseProto {
        application_priority: Some(pb::PriorityProto { priority }),
    }
}

pub(super) fn scheduler_not_ready() -> RmError {
    RmError::unavailable("the leader's scheduler is not ready yet; retry shortly")
}

/// A scheduler refusal of moving to `target_queue` as an error a client can act on: missing
/// rights are an access refusal, a queue that does not exist or cannot hold applications an
/// invalid `target_queue`, a queue that cannot take one now a failed precondition.
fn move_refusal(rpc: &str, user: &str, err: &SchedulerError) -> RmError {
    let message = format!("{rpc}: {err}");
    match err {
        SchedulerError::AccessDenied { .. } => RmError::AccessDenied {
            user: user.to_owned(),
            right: QueueAcl::SubmitApplications.to_string(),
            message,
        },
        SchedulerError::UnknownQueue { .. }
        | SchedulerError::AmbiguousQueue { .. }
        | SchedulerError::NotLeafQueue { .. }
        | SchedulerError::NoSuchQueue { .. } => RmError::invalid("target_queue", message),
        SchedulerError::UnknownApplication { .. } => RmError::NotFound { message },
        _ => RmError::precondition(message),
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

fn unknown_application(id: ApplicationId) -> RmError {
    RmError::ApplicationNotFound { id }
}

pub(super) fn application_id(
    proto: Option<pb::ApplicationIdProto>,
    rpc: &str,
) -> Result<ApplicationId, RmError> {
    const FIELD: &str = "application_id";
    let proto =
        proto.ok_or_else(|| RmError::invalid(FIELD, format!("{rpc}: {FIELD} is required")))?;
    ApplicationId::try_from(proto).map_err(|err| RmError::invalid(FIELD, format!("{rpc}: {err}")))
}

fn attempt_id(
    proto: Option<pb::ApplicationAttemptIdProto>,
    rpc: &str,
) -> Result<ApplicationAttemptId, RmError> {
    const FIELD: &str = "application_attempt_id";
    let proto =
        proto.ok_or_else(|| RmError::invalid(FIELD, format!("{rpc}: {FIELD} is required")))?;
    ApplicationAttemptId::try_from(proto)
        .map_err(|err| RmError::invalid(FIELD, format!("{rpc}: {err}")))
}
