//! [`AmOperations`]: what ApplicationMasters (and the AMRMProxies acting for them) do through
//! ApplicationMasterProtocol; DistributedSchedulingAMProtocol's part is in
//! `distributed_scheduling`.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use yarn_proto::ids::{ApplicationAttemptId, ContainerId};
use yarn_proto::pb;
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, PresentedToken};
use yarn_scheduler::{Resource, SchedulerError};

use super::RmError;
use crate::applications::allocate_response::SplitAsks;
use crate::applications::container_updates::{UpdateDecisions, decide_updates, rejection_error};
use crate::applications::{
    AmSession, DiagnosticsLimit, ResponseIdCheck, TokenIssuer, allocate_response,
};
use crate::replica::{Leadership, Proposer};
use crate::scheduling::{LeaderScheduler, OpportunisticSettings, QueueConfigSource};
use crate::state_machine::{
    ABORTED, CommandV1, ContainerCompletion, ContainerKey, FinalStatus, RmCommand, RmResponse,
    RmState, StateView,
};
use yarn_security::now_ms;

/// What the leader records for a container its AM released.
const RELEASED_DIAGNOSTIC: &str = "Container released by the application";

/// The scheduler operations of one replica, those of ApplicationMasterProtocol and (for
/// AMRMProxies) of DistributedSchedulingAMProtocol: application masters register, heartbeat
/// their asks and container updates, and unregister.
///
/// Guarantees:
/// - every call is authenticated by its AMRMToken, verified against the replicated AMRM keys,
///   and acts only on the attempt the token names; a token of another application cannot
///   touch this one;
/// - containers reach an AM only after their allocation is committed, each once per session;
///   so do container updates, with a container token of the new version;
/// - registration and finish are Raft commands, idempotent per attempt, except that once an AM
///   has allocated with this leader another registration of its attempt is refused ("already
///   registered", as Hadoop refuses it), so a second holder of its token cannot take over its
///   exchange; allocate is deduped by
///   `response_id` and needs a registration made with this leader (a new leader answers "not
///   registered", and the AM re-registers and re-sends its asks and pending updates).
pub(crate) struct AmOperations {
    pub(crate) proposer: Proposer,
    pub(crate) state: StateView,
    pub(crate) queues: QueueConfigSource,
    /// `yarn.resourcemanager.rm.container-allocation.expiry-interval-ms`: how long a container
    /// token stays valid for the start of its container.
    pub(crate) container_token_expiry: Duration,
    /// Where OPPORTUNISTIC asks go: to the opportunistic allocator when enabled, otherwise to
    /// the CapacityScheduler as GUARANTEED ones; whether AMRMProxies may schedule.
    pub(crate) opportunistic: OpportunisticSettings,
    /// `yarn.resourcemanager.scheduler.max-asks-per-allocate`.
    pub(crate) max_asks_per_allocate: usize,
    /// How much of an AM's diagnostics is kept.
    pub(crate) diagnostics_limit: DiagnosticsLimit,
    /// Whether leaders commit preemption rounds, so AMs are told of the latest one's choices.
    pub(crate) preemption_messages: bool,
}

/// The authenticated caller of one call: the attempt its AMRMToken names.
pub(crate) struct AmCaller {
    /// The leadership the call is served by.
    pub(super) leadership: Arc<Leadership>,
    pub(super) attempt: ApplicationAttemptId,
    /// The AMRM key id the caller's token is signed with.
    token_key_id: i32,
    /// Whether the AM's client forgets the containers it was given when it registers again
    /// (Hadoop's AMRMClient, over Hadoop IPC): its session must then never hand out again a
    /// container an earlier session may have given it. yarn-ha's own client drops repeats.
    forgets_on_registration: bool,
}

impl AmOperations {
    /// Checks that this replica leads and verifies the AMRMToken the caller presented (in
    /// gRPC, the `AMRM_TOKEN_METADATA_KEY` metadata); returns the attempt the token names.
    pub(crate) fn authenticate(&self, token: PresentedToken) -> Result<AmCaller, RmError> {
        let leadership = self.proposer.gate.require_leader()?;
        let token = match token {
            PresentedToken::Token(token) => token,
            PresentedToken::Missing => {
                return Err(RmError::Unauthenticated {
                    message: format!(
                        "ApplicationMasterProtocol calls must carry the attempt's AMRMToken in \
                         the {AMRM_TOKEN_METADATA_KEY} metadata; none was presented"
                    ),
                });
            }
            PresentedToken::Malformed { reason } => {
                return Err(RmError::Unauthenticated {
                    message: format!(
                        "the {AMRM_TOKEN_METADATA_KEY} metadata is unusable: {reason}"
                    ),
                });
            }
        };
        let (attempt, token_key_id) = self.state.read(|state| {
            let (attempt, token_key_id) =
                issuer(state)?
                    .verify_amrm(token)
                    .map_err(|refusal| RmError::Unauthenticated {
                        message: refusal.to_string(),
                    })?;
            known_attempt(state, attempt)?;
            Ok::<_, RmError>((attempt, token_key_id))
        })?;
        Ok(AmCaller {
            leadership,
            attempt,
            token_key_id,
            forgets_on_registration: false,
        })
    }

    /// The password of the AMRMToken whose encoded identifier is `identifier`, and the user a
    /// connection proving it runs as (the attempt's id, as in Hadoop), for Hadoop IPC's SASL
    /// DIGEST-MD5 exchange. Any replica answers from its replicated keys, so that an AM
    /// connected to a follower learns from its first call that it must fail over.
    ///
    /// # Errors
    ///
    /// [`RmError::Unauthenticated`] for an identifier that is not an AMRMToken's of a held
    /// key, [`RmError::NotFound`] for an application this cluster does not know; on a
    /// follower, [`RmError::NotLeader`] instead of either.
    pub(crate) fn amrm_secret(&self, identifier: &[u8]) -> Result<(String, Vec<u8>), RmError> {
        match self.proven_attempt(identifier) {
            Ok((attempt, _, password)) => Ok((attempt.to_string(), password)),
            // A follower behind the leader may not know the application yet: what it says is
            // that it does not lead, so that the client tries the next ResourceManager.
            Err(err) => {
                self.proposer.gate.require_leader()?;
                Err(err)
            }
        }
    }

    /// The caller of a Hadoop IPC connection whose SASL exchange proved the AMRMToken with
    /// encoded identifier `identifier`: Hadoop's AMRMClient, which forgets its containers when
    /// it registers again.
    ///
    /// # Errors
    ///
    /// [`RmError::NotLeader`] on a follower, [`RmError::Unauthenticated`] for an identifier
    /// that names no attempt, [`RmError::NotFound`] for an application this cluster does not
    /// know.
    pub(crate) fn authenticate_proven(&self, identifier: &[u8]) -> Result<AmCaller, RmError> {
        let leadership = self.proposer.gate.require_leader()?;
        // The connection proved the token when it opened; its key may have been retired since
        // (the AM then gets its new token in this allocate's answer).
        let (attempt, token_key_id) = self.state.read(|state| {
            let identified = TokenIssuer::amrm_identified(identifier).map_err(|refusal| {
                RmError::Unauthenticated {
                    message: refusal.to_string(),
                }
            })?;
            known_attempt(state, identified.0)?;
            Ok::<_, RmError>(identified)
        })?;
        Ok(AmCaller {
            leadership,
            attempt,
            token_key_id,
            forgets_on_registration: true,
        })
    }

    fn proven_attempt(
        &self,
        identifier: &[u8],
    ) -> Result<(ApplicationAttemptId, i32, Vec<u8>), RmError> {
        self.state.read(|state| {
            let proven = issuer(state)?
                .amrm_password(identifier)
                .map_err(|refusal| RmError::Unauthenticated {
                    message: refusal.to_string(),
                })?;
            known_attempt(state, proven.0)?;
            Ok(proven)
        })
    }

    /// Passes asks (GUARANTEED ones to the CapacityScheduler, OPPORTUNISTIC ones to the
    /// opportunistic allocator), releases, blacklist changes and accepted promotions to the
    /// leader's scheduler; returns the attempt's headroom and what became of the updates.
    async fn schedule(
        &self,
        caller: &AmCaller,
        asks: &SplitAsks,
        releases: &[ContainerId],
        blacklist: &pb::ResourceBlacklistRequestProto,
        updates: &[pb::UpdateContainerRequestProto],
    ) -> Result<(Resource, UpdateDecisions), RmError> {
        let nodes = caller.leadership.nodes(|tracker| tracker.schedulable());
        let outcome = caller
            .leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                self.settle_acquisitions(caller, leader);
                let scheduler = leader.scheduler_mut();
                let refused = |field| move |err| scheduler_refusal(caller.attempt, field, &err);
                scheduler
                    .update_asks(caller.attempt, &asks.guaranteed, releases)
                    .map_err(refused("ask"))?;
                scheduler
                    .update_blacklist(
                        caller.attempt,
                        &blacklist.blacklist_additions,
                        &blacklist.blacklist_removals,
                    )
                    .map_err(refused("blacklist_request"))?;
                let headroom = scheduler.headroom(caller.attempt).map_err(refused("ask"))?;
                let newly_asked = leader
                    .update_opportunistic_asks(
                        caller.attempt,
                        &asks.opportunistic,
                        self.opportunistic.max_allocations_per_heartbeat,
                    )
                    .map_err(|reason| {
                        RmError::invalid(
                            "ask",
                            format!("allocate for {}: {reason}", caller.attempt),
                        )
                    })?;
                // The cell is locked before the state is read, as everywhere.
                let decisions = self.state.read(|state| {
                    let attempt = caller.attempt;
                    let decisions = decide_updates(
                        state,
                        attempt,
                        updates,
                        |key| leader.has_pending_update(key),
                        |size, priority| leader.scheduler().normalize(attempt, size, priority).ok(),
                    );
                    for (update, record) in &decisions.promotions {
                        leader.request_promotion(
                            state.cluster_timestamp_ms,
                            update.clone(),
                            record,
                        );
                    }
                    for resize in &decisions.increases {
                        leader.request_increase(state.cluster_timestamp_ms, resize.clone());
                    }
                    let shrinking = decisions.decreases.iter().map(|resize| resize.key);
                    for key in shrinking.chain(decisions.demotions.iter().map(|d| d.key)) {
                        leader.cancel_increase(&key);
                    }
                    decisions
                });
                Ok::<_, RmError>((headroom, newly_asked, decisions))
            })
            .await
            .map_err(|err| RmError::precondition(err.to_string()))?;
        let (headroom, newly_asked, decisions) = outcome?;
        if newly_asked > 0 {
            caller.leadership.count(|counts| {
                counts.requested_centrally += newly_asked;
            });
        }
        Ok((headroom, decisions))
    }

    /// Tells the leader's scheduler which of the attempt's unacquired containers its AM has
    /// been handed, and which will never reach it, so that those give their asks back (YARN's
    /// `recoverResourceRequestForContainer`). Runs before the AM's asks are applied, so an ask
    /// it sends now replaces what was given back.
    ///
    /// The state is read before the sessions: a container seen completed can no longer be
    /// handed out, and a response that handed it out live while it ran has finished doing so
    /// once the sessions' lock is ours (responses are built under it), so no container counts
    /// as both.
    fn settle_acquisitions(&self, caller: &AmCaller, leader: &mut LeaderScheduler) {
        let attempt = caller.attempt;
        let unacquired = leader.scheduler().unacquired(attempt);
        if unacquired.is_empty() {
            return;
        }
        let gone: BTreeSet<ContainerId> = self.state.read(|state| {
            unacquired
                .iter()
                .filter(|id| never_reaches_the_am(state, id))
                .copied()
                .collect()
        });
        let handed_out: BTreeSet<ContainerId> = caller.leadership.sessions(|sessions| {
            let session = sessions.get(&attempt);
            unacquired
                .into_iter()
                .filter(|id| session.is_some_and(|s| s.handed_out(id.container_id())))
                .collect()
        });
        let recovered = leader.settle_acquisitions(&handed_out, &gone);
        if !recovered.is_empty() {
            tracing::info!(
                %attempt,
                containers = ?recovered,
                "containers ended before the AM acquired them; their asks are given back"
            );
        }
    }

    /// Commits demotions and decreases at once (they need no room) and returns the errors for
    /// those the state refused meanwhile.
    async fn commit_immediate_updates(
        &self,
        decisions: &UpdateDecisions,
        requests: &[pb::UpdateContainerRequestProto],
    ) -> Result<Vec<pb::UpdateContainerErrorProto>, RmError> {
        let mut errors = Vec::new();
        let commands = [
            (!decisions.demotions.is_empty()).then(|| CommandV1::UpdateContainers {
                updates: decisions.demotions.clone(),
            }),
            (!decisions.decreases.is_empty()).then(|| CommandV1::ResizeContainers {
                resizes: decisions.decreases.clone(),
            }),
        ];
        for command in commands.into_iter().flatten() {
            match self.proposer.propose(RmCommand::V1(command)).await? {
                RmResponse::ContainersUpdated { rejected, .. } => errors.extend(
                    rejected
                        .iter()
                        .filter_map(|rejection| rejection_error(rejection, requests)),
                ),
                other => {
                    return Err(RmError::internal(format!(
                        "updating containers produced {other:?}"
                    )));
                }
            }
        }
        Ok(errors)
    }

    /// Commits the completion of released containers the state still holds live. The state,
    /// not the scheduler, decides: a new leader's scheduler may not have recovered a container
    /// yet, and the next reconcile frees whatever the state completed.
    async fn commit_releases(&self, released: &[ContainerId]) -> Result<(), RmError> {
        let completions: Vec<ContainerCompletion> = self.state.read(|state| {
            released
                .iter()
                .map(|id| ContainerKey {
                    application_seq: id.application_attempt_id().application_id.id,
                    container_id: id.container_id(),
                })
                .filter(|key| state.containers.get(key).is_some_and(|r| r.is_live()))
                .map(|key| ContainerCompletion {
                    key,
                    exit_status: ABORTED,
                    diagnostics: RELEASED_DIAGNOSTIC.to_owned(),
                })
                .collect()
        });
        if completions.is_empty() {
            return Ok(());
        }
        self.proposer
            .propose(RmCommand::V1(CommandV1::CompleteContainers {
                completions,
                now_ms: now_ms(),
            }))
            .await?;
        Ok(())
    }
}

impl AmOperations {
    /// Registers `caller`'s attempt (a Raft command, idempotent per attempt) and opens its
    /// session with this leader.
    pub(crate) async fn register(
        &self,
        caller: &AmCaller,
        body: pb::RegisterApplicationMasterRequestProto,
    ) -> Result<pb::RegisterApplicationMasterResponseProto, RmError> {
        let attempt = caller.attempt;
        // As Hadoop: once the AM's exchange with this leader has begun, a registration is not
        // a retry but another holder of the AM's token, which would reset the real AM's
        // response ids and take over its application. A new leader has no session, so the
        // re-registration a failover asks for is not refused.
        let begun = caller.leadership.sessions(|sessions| {
            sessions
                .get(&attempt)
                .is_some_and(AmSession::exchange_begun)
        });
        if begun {
            return Err(RmError::precondition(format!(
                "Application Master is already registered : {}",
                attempt.application_id
            )));
        }
        let command = RmCommand::V1(CommandV1::RegisterApplicationMaster {
            application_seq: attempt.application_id.id,
            attempt_id: attempt.attempt_id,
            host: body.host,
            rpc_port: body.rpc_port,
            tracking_url: body.tracking_url,
        });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationMasterRegistered { .. } => {}
            other => return Err(refusal(attempt, other)),
        }
        let now = Instant::now();
        // Containers of the attempt allocated before this registration, by an earlier leader.
        let held: Vec<i64> = if caller.forgets_on_registration {
            self.state.read(|state| live_containers(state, attempt))
        } else {
            Vec::new()
        };
        caller.leadership.sessions(|sessions| {
            sessions
                .entry(attempt)
                .and_modify(|session| session.heard(now))
                .or_insert_with(|| AmSession::holding(now, held));
        });
        let queue = self.state.read(|state| {
            state
                .applications
                .get(&attempt.application_id.id)
                .map(|app| app.queue.clone())
                .unwrap_or_default()
        });
        let maximum = caller
            .leadership
            .scheduler()
            .with(|leader| {
                leader
                    .scheduler()
                    .configuration()
                    .settings()
                    .maximum_allocation
            })
            .await
            .unwrap_or_default();
        tracing::info!(%attempt, "application master registered");
        Ok(pb::RegisterApplicationMasterResponseProto {
            maximum_capability: Some(resource_proto(maximum)),
            queue,
            scheduler_resource_types: vec![
                pb::SchedulerResourceTypesProto::Memory.into(),
                pb::SchedulerResourceTypesProto::Cpu.into(),
            ],
            ..Default::default()
        })
    }

    /// One heartbeat of `caller`'s AM (YARN's `allocate`): see
    /// [`allocate_current`](Self::allocate_current); an AM whose attempt is over is told to
    /// shut down instead.
    pub(crate) async fn allocate(
        &self,
        caller: &AmCaller,
        body: pb::AllocateRequestProto,
    ) -> Result<pb::AllocateResponseProto, RmError> {
        if !self.is_current(caller.attempt) {
            return Ok(Self::shutdown_response(body.response_id));
        }
        self.allocate_current(caller, body).await
    }

    /// Whether `attempt` is its live application's current attempt; an AM whose attempt is
    /// over is told to shut down instead of being served.
    pub(super) fn is_current(&self, attempt: ApplicationAttemptId) -> bool {
        self.state.read(|state| {
            state
                .applications
                .get(&attempt.application_id.id)
                .is_some_and(|app| {
                    !app.state.is_final() && app.current_attempt == attempt.attempt_id
                })
        })
    }

    /// YARN's answer to an AM whose attempt is over: stop.
    pub(super) fn shutdown_response(response_id: i32) -> pb::AllocateResponseProto {
        pb::AllocateResponseProto {
            a_m_command: pb::AmCommandProto::AmShutdown.into(),
            response_id: response_id.wrapping_add(1),
            ..Default::default()
        }
    }

    /// One allocate of `caller`'s current attempt: the response-id check, asks, releases,
    /// blacklist and updates, then the response built from the committed state.
    pub(super) async fn allocate_current(
        &self,
        caller: &AmCaller,
        body: pb::AllocateRequestProto,
    ) -> Result<pb::AllocateResponseProto, RmError> {
        let attempt = caller.attempt;
        let now = Instant::now();
        let check = caller.leadership.sessions(|sessions| {
            sessions.get_mut(&attempt).map(|session| {
                session.heard(now);
                session.check(body.response_id)
            })
        });
        match check {
            None => {
                return Err(RmError::NotRegistered {
                    message: format!(
                        "{attempt} is not registered with this ResourceManager leader; \
                         register again and re-send every outstanding ask"
                    ),
                });
            }
            Some(ResponseIdCheck::Duplicate(last)) => return Ok(*last),
            Some(ResponseIdCheck::Invalid { expected }) => {
                return Err(RmError::invalid(
                    "response_id",
                    format!(
                        "allocate for {attempt}: response_id {} does not follow the last \
                         response (expected {expected}, or {} for a resend)",
                        body.response_id,
                        expected.wrapping_sub(1)
                    ),
                ));
            }
            Some(ResponseIdCheck::Fresh) => {}
        }
        if body.ask.len() > self.max_asks_per_allocate {
            return Err(RmError::invalid(
                "ask",
                format!(
                    "allocate for {attempt}: {} asks, more than the {} \
                     yarn.resourcemanager.scheduler.max-asks-per-allocate allows; send them \
                     over several heartbeats",
                    body.ask.len(),
                    self.max_asks_per_allocate
                ),
            ));
        }
        let asks = allocate_response::split_asks(&body.ask, self.opportunistic.enabled).map_err(
            |reason| RmError::invalid("ask", format!("allocate for {attempt}: {reason}")),
        )?;
        let releases = allocate_response::releases(attempt, &body.release).map_err(|reason| {
            RmError::invalid("release", format!("allocate for {attempt}: {reason}"))
        })?;
        let blacklist = body.blacklist_request.clone().unwrap_or_default();
        if blacklist
            .blacklist_additions
            .iter()
            .any(|place| place == yarn_proto::ANY)
        {
            return Err(RmError::invalid(
                "blacklist_request",
                format!("allocate for {attempt}: cannot add ANY (\"*\") to the blacklist"),
            ));
        }
        let (headroom, decisions) = self
            .schedule(caller, &asks, &releases, &blacklist, &body.update_requests)
            .await?;
        // Known to the session before anything can apply, so each update is reported.
        caller.leadership.sessions(|sessions| {
            if let Some(session) = sessions.get_mut(&attempt) {
                for (key, version, update_type) in decisions.accepted() {
                    session.expect_update(key.container_id, version, update_type);
                }
                for (key, update_type) in &decisions.resent {
                    session.resend_update(key.container_id, *update_type);
                }
            }
        });
        self.commit_releases(&releases).await?;
        let mut update_errors = self
            .commit_immediate_updates(&decisions, &body.update_requests)
            .await?;
        update_errors.splice(0..0, decisions.errors);

        let num_cluster_nodes = caller.leadership.nodes(|tracker| tracker.nodes().count());
        let now_ms = now_ms();
        let expiry_ms = now_ms.saturating_add(
            i64::try_from(self.container_token_expiry.as_millis()).unwrap_or(i64::MAX),
        );
        let response = caller.leadership.sessions(|sessions| {
            let session = sessions.get_mut(&attempt)?;
            let mut response = self.state.read(|state| {
                allocate_response::build(
                    state,
                    session,
                    allocate_response::Context {
                        attempt,
                        token_key_id: caller.token_key_id,
                        response_id: body.response_id.wrapping_add(1),
                        headroom,
                        num_cluster_nodes,
                        now_ms,
                        expiry_ms,
                        preemption_messages: self.preemption_messages,
                    },
                )
            })?;
            response.update_errors = update_errors;
            session.answered(response.clone());
            Some(response)
        });
        response.ok_or_else(|| RmError::NotRegistered {
            message: format!("{attempt} is no longer registered with this ResourceManager leader"),
        })
    }

    /// Unregisters the calling attempt (a Raft command; a repeat succeeds again): the
    /// `FinishApplicationMaster` of both scheduler protocols.
    pub(crate) async fn finish(
        &self,
        caller: &AmCaller,
        body: pb::FinishApplicationMasterRequestProto,
    ) -> Result<pb::FinishApplicationMasterResponseProto, RmError> {
        let attempt = caller.attempt;
        let final_status = match body.final_application_status() {
            pb::FinalApplicationStatusProto::AppSucceeded => FinalStatus::Succeeded,
            pb::FinalApplicationStatusProto::AppFailed => FinalStatus::Failed,
            pb::FinalApplicationStatusProto::AppKilled => FinalStatus::Killed,
            _ => FinalStatus::Undefined,
        };
        let command = RmCommand::V1(CommandV1::FinishApplicationMaster {
            application_seq: attempt.application_id.id,
            attempt_id: attempt.attempt_id,
            final_status,
            diagnostics: self.diagnostics_limit.bound(body.diagnostics),
            tracking_url: body.tracking_url,
            now_ms: now_ms(),
        });
        match self.proposer.propose(command).await? {
            RmResponse::ApplicationMasterUnregistered { .. }
            | RmResponse::ApplicationAlreadyFinal { .. } => {
                caller.leadership.sessions(|sessions| {
                    sessions.remove(&attempt);
                });
                tracing::info!(%attempt, ?final_status, "application master unregistered");
                Ok(pb::FinishApplicationMasterResponseProto {
                    is_unregistered: true,
                })
            }
            RmResponse::AttemptNotRegistered { .. } => Err(RmError::NotRegistered {
                message: format!("{attempt} never registered, so it cannot unregister"),
            }),
            other => Err(refusal(attempt, other)),
        }
    }
}

/// A scheduler resource as the wire carries it.
pub(super) fn resource_proto(resource: Resource) -> pb::ResourceProto {
    pb::ResourceProto {
        memory: i64::try_from(resource.memory_mb).unwrap_or(i64::MAX),
        virtual_cores: i32::try_from(resource.vcores).unwrap_or(i32::MAX),
        ..Default::default()
    }
}

/// The error for the scheduler's refusal of `attempt`'s allocate, about the request's `field`.
///
/// An attempt (or application) the leader's scheduler does not know although the replicated
/// state calls it current is one the scheduler has not recovered yet, as right after a failover
/// while admissions are committed again: the AM is asked to retry (an allocate is deduplicated
/// by its response id), not told its request is invalid, which would end its application.
fn scheduler_refusal(
    attempt: ApplicationAttemptId,
    field: &'static str,
    err: &SchedulerError,
) -> RmError {
    match err {
        SchedulerError::UnknownApplication { .. } | SchedulerError::UnknownAttempt { .. } => {
            RmError::unavailable(format!(
                "allocate for {attempt}: {err}; the leader's scheduler has not recovered the \
                 attempt yet, retry"
            ))
        }
        _ => RmError::invalid(field, format!("allocate for {attempt}: {err}")),
    }
}

/// The error for a registration or finish the state machine refused.
fn refusal(attempt: ApplicationAttemptId, response: RmResponse) -> RmError {
    match response {
        RmResponse::UnknownApplication { .. } => RmError::NotFound {
            message: format!("the application of {attempt} does not exist in this cluster"),
        },
        RmResponse::ApplicationAlreadyFinal { state } => {
            RmError::precondition(format!("the application of {attempt} is already {state:?}"))
        }
        RmResponse::AttemptNotCurrent { current, .. } => {
            let current = ApplicationAttemptId::new(attempt.application_id, current);
            RmError::precondition(format!(
                "{attempt} is not the application's current attempt ({current} is)"
            ))
        }
        other => RmError::internal(format!("{attempt}: unexpected outcome {other:?}")),
    }
}

/// The ids of `attempt`'s live containers, its AM container aside.
/// Whether container `id`, allocated by a scheduling pass, can no longer reach its AM: the state
/// holds it completed, or holds none of that id though a later container of its application is
/// recorded (its allocation's commit failed or was refused; entries apply in log order, so it
/// can never be recorded now).
fn never_reaches_the_am(state: &RmState, id: &ContainerId) -> bool {
    let key = ContainerKey {
        application_seq: id.application_id().id,
        container_id: id.container_id(),
    };
    match state.containers.get(&key) {
        Some(record) => !record.is_live(),
        None => state
            .containers
            .last_issued(key.application_seq)
            .is_some_and(|last| last >= key.container_id),
    }
}

fn live_containers(state: &RmState, attempt: ApplicationAttemptId) -> Vec<i64> {
    state
        .containers
        .of_application(attempt.application_id.id)
        .filter(|record| {
            !record.is_am && record.attempt_id == attempt.attempt_id && record.is_live()
        })
        .map(|record| record.key.container_id)
        .collect()
}

/// The token issuer of `state`'s keys.
fn issuer(state: &RmState) -> Result<TokenIssuer, RmError> {
    TokenIssuer::from_state(state)
        .ok_or_else(|| RmError::unavailable("the ResourceManager has no token keys yet"))
}

/// Refuses an AMRMToken for an application this cluster does not know.
fn known_attempt(state: &RmState, attempt: ApplicationAttemptId) -> Result<(), RmError> {
    let known = attempt.application_id.cluster_timestamp == state.cluster_timestamp_ms
        && state.applications.contains_key(&attempt.application_id.id);
    if known {
        Ok(())
    } else {
        Err(RmError::NotFound {
            message: format!(
                "the AMRMToken names {attempt}, whose application this cluster does not know"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;

    use super::*;

    /// A container a pass allocated cannot reach its AM once the state holds it completed, or
    /// holds a later container of its application but not it; a live one, or one whose
    /// commit may still come, can.
    #[test]
    fn a_completed_or_never_recorded_allocation_never_reaches_the_am() {
        use crate::state_machine::test_fixtures::{container, running_application};
        let state = running_application(&[(2, "n1:1"), (4, "n1:1"), (5, "n1:1")], &[5]);
        assert!(!never_reaches_the_am(&state, &container(2)), "live");
        assert!(never_reaches_the_am(&state, &container(5)), "completed");
        assert!(
            never_reaches_the_am(&state, &container(3)),
            "4 and 5 are recorded after it"
        );
        assert!(
            !never_reaches_the_am(&state, &container(6)),
            "its commit may still apply"
        );
    }

    /// A scheduler that has not recovered the attempt yet asks the AM to retry; a request it
    /// cannot take is invalid, naming the field.
    #[test]
    fn an_attempt_the_scheduler_has_not_recovered_is_retried_not_refused() {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(5, 1), 1);
        let not_recovered =
            scheduler_refusal(attempt, "ask", &SchedulerError::UnknownAttempt { attempt });
        assert!(
            matches!(not_recovered, RmError::Unavailable { .. }),
            "{not_recovered:?}"
        );
        let unknown_application = scheduler_refusal(
            attempt,
            "ask",
            &SchedulerError::UnknownApplication {
                application: attempt.application_id,
            },
        );
        assert!(
            matches!(unknown_application, RmError::Unavailable { .. }),
            "{unknown_application:?}"
        );
        let invalid = scheduler_refusal(
            attempt,
            "blacklist_request",
            &SchedulerError::NoSuchQueue {
                queue: "q".to_owned(),
            },
        );
        assert!(
            matches!(
                invalid,
                RmError::InvalidRequest {
                    field: "blacklist_request",
                    ..
                }
            ),
            "{invalid:?}"
        );
    }
}
