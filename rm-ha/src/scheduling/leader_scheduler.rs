//! [`LeaderScheduler`]: the leader's CapacityScheduler, kept equal to the replicated state.

use std::collections::{BTreeMap, BTreeSet};

use prost::Message;
use yarn_opportunistic::{OpportunisticAsk, OpportunisticPlacement, RemoteNode};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_scheduler::{
    Allocation, ApplicationLifetime, CapacityScheduler, CapacitySchedulerConfiguration,
    CreatedQueues, EARLIER_COMMIT, Resource, ResourceRequest, SchedulerError, created_queues,
};
use yarn_security::Groups;

use super::reservation_queues::{reservation_queue_name, reservation_queue_sizes};
use super::{OpportunisticScheduling, PendingIncreases, QueueConfigSource};
use crate::Error;
use crate::nodes::SchedulableNode;
use crate::state_machine::{
    Admission, ApplicationRecord, ApplicationState, ContainerKey, ContainerRecord, ContainerResize,
    ContainerState, ContainerUpdate, ExecutionType, RmState,
};

/// What one scheduling pass produced, for the caller to commit and report.
#[derive(Debug, Default)]
pub struct PassOutcome {
    /// New containers, to commit as one `AllocateContainers` entry: the CapacityScheduler's
    /// GUARANTEED ones, then the OPPORTUNISTIC ones.
    pub allocations: Vec<ContainerRecord>,
    /// Where the OPPORTUNISTIC ones went, for the load monitor.
    pub placements: Vec<OpportunisticPlacement>,
    /// Promotions granted and not yet seen applied, to commit as one `UpdateContainers` entry.
    pub promotions: Vec<ContainerUpdate>,
    /// Increases granted and not yet seen applied, to commit as one `ResizeContainers` entry.
    pub increases: Vec<ContainerResize>,
}

/// A promotion the leader accepted from an AM and keeps until the state shows it applied.
#[derive(Debug, Clone)]
struct PendingPromotion {
    /// The update to commit once granted.
    update: ContainerUpdate,
    /// The container, as the scheduler is asked to charge it.
    allocation: Allocation,
    /// Whether the scheduler granted it (and holds its charge) and the commit is not yet seen.
    granted: bool,
}

/// The CapacityScheduler of one leadership and the replicated state it was last reconciled
/// with.
///
/// The replicated state is the truth; the scheduler is a cache of it plus the soft state Raft
/// does not hold (outstanding asks). [`reconcile`](Self::reconcile) brings the scheduler back
/// in line with the state and the registered nodes, whatever happened in between (commits by
/// RPC handlers, an allocation batch whose commit could not be confirmed, a refresh), so the
/// scheduler never offers resources the state holds nor withholds ones it freed. Pure: no
/// clock, no I/O.
#[derive(Debug)]
pub struct LeaderScheduler {
    scheduler: CapacityScheduler,
    /// The queue-configuration version the scheduler runs with.
    config_version: u64,
    /// The auto-created queues the scheduler runs with.
    dynamic_queues: CreatedQueues,
    /// A newer version, or set of auto-created queues, that does not parse here, reported
    /// once.
    unusable_config: Option<(u64, CreatedQueues)>,
    /// Outstanding OPPORTUNISTIC asks, placed outside the CapacityScheduler.
    opportunistic: OpportunisticScheduling,
    /// Promotions accepted from AMs, by container.
    promotions: BTreeMap<ContainerKey, PendingPromotion>,
    /// Increases accepted from AMs.
    increases: PendingIncreases,
}

impl LeaderScheduler {
    /// A scheduler holding exactly what `state` holds, on the nodes the leader knows
    /// (`nodes`: id and capacity). Submitted applications are admitted or rejected as by
    /// [`reconcile`](Self::reconcile); the verdicts are returned for the caller to commit.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidQueueConfiguration`] when the committed configuration does not parse with
    /// this replica's `yarn-site.xml` settings.
    pub fn rebuild(
        state: &RmState,
        source: &QueueConfigSource,
        nodes: &[SchedulableNode],
    ) -> Result<(Self, Vec<Admission>), Error> {
        let config = if state.queue_config_version == 0 {
            source.load()?.config
        } else {
            let config = source.parse_committed(state)?;
            log_ignored_keys(state.queue_config_version, &config);
            config
        };
        let mut scheduler = CapacityScheduler::new(config);
        // Epochs beyond the id range cannot be reached: a leader cannot begin one.
        let _ = scheduler.set_epoch(i64::try_from(state.epoch).unwrap_or(i64::MAX));
        let mut leader = Self {
            scheduler,
            config_version: state.queue_config_version,
            dynamic_queues: state.dynamic_queues.clone(),
            unusable_config: None,
            opportunistic: OpportunisticScheduling::default(),
            promotions: BTreeMap::new(),
            increases: PendingIncreases::default(),
        };
        let admissions = leader.reconcile(state, source, nodes);
        Ok((leader, admissions))
    }

    /// The scheduler, for reports.
    pub fn scheduler(&self) -> &CapacityScheduler {
        &self.scheduler
    }

    /// The scheduler, for the AM protocol's asks and releases.
    pub fn scheduler_mut(&mut self) -> &mut CapacityScheduler {
        &mut self.scheduler
    }

    /// Brings the scheduler in line with `state` and the running nodes `nodes`, and returns the
    /// verdicts on `Submitted` applications for the caller to commit.
    ///
    /// - A new queue-configuration version, or a change of the auto-created queues, is
    ///   applied with
    ///   [`CapacityScheduler::reinitialize`]; if the running applications do not fit it (the
    ///   leader validated it against them, so only an application admitted meanwhile can
    ///   cause this), the scheduler starts afresh from the state under the new configuration,
    ///   and outstanding asks are lost, as after a failover.
    /// - Nodes are added, removed (their containers leave the scheduler; the state completes
    ///   them when the node is declared LOST) or resized, and put in the partitions the
    ///   committed node labels give them.
    /// - A `Submitted` application goes through the scheduler's admission checks (queue, state,
    ///   ACL, application limits, AM size against the maximum allocation) and gets
    ///   [`Admission::Accepted`] with attempt 1, or [`Admission::Rejected`] with the reason.
    ///   One admitted earlier whose verdict is not committed yet gets the same verdict again.
    /// - Applications past `Submitted` are recovered into their queue with their current
    ///   attempt, and follow committed moves and priority changes; an attempt asks for an AM container unless it is an unmanaged AM or its AM
    ///   container was already allocated. Final applications leave the scheduler.
    /// - Live guaranteed containers of the state are charged at the size it records (or, for a
    ///   granted increase whose commit is not seen, at the size granted); containers the
    ///   scheduler holds that the state does not hold live and GUARANTEED (or, for a granted
    ///   promotion, live and at the version the promotion names) are freed.
    /// - Accepted promotions and increases the state shows applied, or whose container
    ///   completed or moved on to another version, are forgotten; the others are (again)
    ///   pending in the scheduler.
    ///
    /// A configuration version that does not parse with this replica's `yarn-site.xml`
    /// settings is reported once and the scheduler keeps the one it has; everything else is
    /// reconciled regardless.
    pub fn reconcile(
        &mut self,
        state: &RmState,
        source: &QueueConfigSource,
        nodes: &[SchedulableNode],
    ) -> Vec<Admission> {
        self.reconcile_configuration(state, source);
        self.reconcile_reservation_queues(state);
        self.reconcile_nodes(nodes);
        // With labels disabled the scheduler keeps every node in the default partition.
        let labels_enabled = self
            .scheduler
            .configuration()
            .settings()
            .node_labels_enabled;
        if labels_enabled && self.scheduler.node_labels() != &state.node_labels {
            self.scheduler.set_node_labels(state.node_labels.clone());
        }
        let admissions = self.reconcile_applications(state, &source.groups);
        // Again, now that moves and ends are applied: a reservation queue they emptied goes.
        self.reconcile_reservation_queues(state);
        // Increases first: one no longer wanted must not keep its granted charge below.
        self.increases.reconcile(state, &mut self.scheduler);
        self.reconcile_containers(state);
        self.reconcile_promotions(state);
        let scheduler = &self.scheduler;
        self.opportunistic.retain(|attempt| {
            scheduler.current_attempt_id(attempt.application_id) == Some(attempt)
        });
        admissions
    }

    /// YARN's checks made while the submitting client waits (see
    /// [`CapacityScheduler::check_submission`]) for `application`, not yet stored, as its owner,
    /// a member of `groups`, would submit it; returns the lifetimes of the leaf it would run
    /// in.
    ///
    /// # Errors
    ///
    /// Those of [`CapacityScheduler::check_submission`].
    pub fn check_submission(
        &self,
        id: ApplicationId,
        application: &ApplicationRecord,
        groups: &[String],
    ) -> Result<ApplicationLifetime, SchedulerError> {
        check_submission_in(&self.scheduler, id, application, groups)
    }

    /// [`check_submission`](Self::check_submission) in the leaf `created` ends with, under the
    /// queues in force and those `created` (auto-created queues, parents first), as their
    /// parents' templates configure them.
    ///
    /// # Errors
    ///
    /// Those of [`check_submission`](Self::check_submission), and of
    /// [`CapacitySchedulerConfiguration::with_dynamic_queues`] should the templates configure
    /// a queue the rules refuse.
    pub fn check_submission_creating(
        &self,
        id: ApplicationId,
        application: &ApplicationRecord,
        groups: &[String],
        created: &[String],
    ) -> Result<ApplicationLifetime, SchedulerError> {
        let conf = self.scheduler.configuration();
        let mut dynamic = conf.dynamic_queues().clone();
        for (path, kind) in created_queues(created) {
            dynamic.entry(path).or_insert(kind);
        }
        let grown = CapacityScheduler::new(conf.with_dynamic_queues(dynamic)?);
        check_submission_in(&grown, id, application, groups)
    }

    /// Takes the current attempt's OPPORTUNISTIC asks (replacing those of the same key and
    /// resource name), sized as the attempt's queue sizes asks; it gets at most `max_per_pass`
    /// of them per pass. Returns how many containers are newly asked for (see
    /// [`OpportunisticScheduling::update_asks`]).
    ///
    /// # Errors
    ///
    /// The scheduler's refusal (unknown attempt, an ask above the maximum allocation) or the
    /// allocator's (a key without a `"*"` ask, mismatched sizes); nothing is taken then.
    pub fn update_opportunistic_asks(
        &mut self,
        attempt: ApplicationAttemptId,
        asks: &[ResourceRequest],
        max_per_pass: Option<u32>,
    ) -> Result<u64, String> {
        let mut normalized = Vec::with_capacity(asks.len());
        for ask in asks {
            let capability = self
                .scheduler
                .normalize(attempt, ask.capability, ask.priority)
                .map_err(|err| err.to_string())?;
            normalized.push(OpportunisticAsk {
                priority: ask.priority,
                allocation_request_id: ask.allocation_request_id,
                resource_name: ask.resource_name.clone(),
                num_containers: ask.num_containers,
                capability: yarn_opportunistic::Resource::new(
                    capability.memory_mb,
                    capability.vcores,
                ),
                relax_locality: ask.relax_locality,
            });
        }
        self.opportunistic
            .update_asks(attempt, normalized, max_per_pass)
    }

    /// Takes a promotion the leader accepted from an AM: `update`, to GUARANTEED at the
    /// container's current version, of the live OPPORTUNISTIC container `record` of the
    /// application with cluster timestamp `cluster_timestamp_ms`. The scheduler holds it as a
    /// guaranteed ask pinned to the container's node until a pass grants it. It is kept across
    /// failed commits (granted again, or re-proposed) until [`reconcile`](Self::reconcile)
    /// sees it applied or the container gone; while the container's node is not registered
    /// (after a failover, until its NodeManager re-registers) it just waits.
    pub fn request_promotion(
        &mut self,
        cluster_timestamp_ms: i64,
        update: ContainerUpdate,
        record: &ContainerRecord,
    ) {
        let Some(allocation) = allocation_of(cluster_timestamp_ms, record) else {
            return;
        };
        if let Err(err) = self.scheduler.request_promotion(allocation.clone()) {
            tracing::debug!(container = %allocation.container_id, %err, "promotion waits");
        }
        self.promotions.insert(
            update.key,
            PendingPromotion {
                update,
                allocation,
                granted: false,
            },
        );
    }

    /// Takes an increase the leader accepted from an AM: `resize`, of a live GUARANTEED
    /// container of the application with cluster timestamp `cluster_timestamp_ms`, which
    /// waits for room on the container's node (see [`PendingIncreases`]).
    pub fn request_increase(&mut self, cluster_timestamp_ms: i64, resize: ContainerResize) {
        self.increases
            .request(&mut self.scheduler, cluster_timestamp_ms, resize);
    }

    /// Whether an update of `key` is under way that another may not overtake: a promotion
    /// accepted and not yet seen applied, or an increase granted whose commit is not seen. An
    /// increase still waiting for room is not: a new increase replaces it, and a decrease or a
    /// demotion withdraws it ([`cancel_increase`](Self::cancel_increase)).
    pub fn has_pending_update(&self, key: &ContainerKey) -> bool {
        self.promotions.contains_key(key) || self.increases.is_granted(key)
    }

    /// Withdraws the increase of `key` still waiting for room, if there is one.
    pub fn cancel_increase(&mut self, key: &ContainerKey) {
        self.increases.cancel(&mut self.scheduler, key);
    }

    /// Runs one scheduling pass at `now_ms`, after counting the scheduling opportunities of the
    /// node `heartbeats` accepted since the last pass (see
    /// [`CapacityScheduler::node_heartbeats`]): first the promotions and increases that fit
    /// now (charged at once), then the CapacityScheduler's GUARANTEED containers (already charged; those the
    /// state does not record, after a refused or failed commit, are freed by the next
    /// [`reconcile`](Self::reconcile)), then OPPORTUNISTIC ones placed on `least_loaded`
    /// (uncharged, numbered from the same sequence), with their placements for the caller's
    /// load monitor. The promotions and increases returned include those granted earlier whose
    /// commit is not seen yet: applying one twice is refused by its version, so re-proposing
    /// is safe.
    pub fn schedule(
        &mut self,
        now_ms: i64,
        least_loaded: &[RemoteNode],
        heartbeats: &[NodeId],
    ) -> PassOutcome {
        self.scheduler.node_heartbeats(heartbeats);
        for granted in self.scheduler.schedule_promotions() {
            let key = ContainerKey {
                application_seq: granted.application_attempt_id.application_id.id,
                container_id: granted.container_id.container_id(),
            };
            if let Some(promotion) = self.promotions.get_mut(&key) {
                promotion.granted = true;
            }
        }
        let promotions = self
            .promotions
            .values()
            .filter(|promotion| promotion.granted)
            .map(|promotion| promotion.update.clone())
            .collect();
        let increases = self.increases.schedule(&mut self.scheduler);
        let mut records: Vec<ContainerRecord> = self
            .scheduler
            .schedule()
            .into_iter()
            .map(|allocation| container_record(&allocation, now_ms))
            .collect();
        let scheduler = &self.scheduler;
        let placed = self.opportunistic.schedule(least_loaded, |attempt| {
            scheduler.blacklist(attempt).into_iter().collect()
        });
        let mut placements = Vec::with_capacity(placed.len());
        for (attempt, placement) in placed {
            let Ok(container_id) = self.scheduler.issue_container_id(attempt) else {
                continue;
            };
            records.push(ContainerRecord {
                key: ContainerKey {
                    application_seq: attempt.application_id.id,
                    container_id: container_id.container_id(),
                },
                attempt_id: attempt.attempt_id,
                node: placement.node_id.clone(),
                memory_mb: placement.capability.memory_mb,
                vcores: placement.capability.vcores,
                execution_type: ExecutionType::Opportunistic,
                is_am: false,
                priority: placement.priority,
                allocation_request_id: placement.allocation_request_id,
                allocated_at_ms: now_ms,
                state: ContainerState::Allocated,
            });
            placements.push(placement);
        }
        PassOutcome {
            allocations: records,
            placements,
            promotions,
            increases,
        }
    }

    /// Settles containers this leadership allocated that their AM had not acquired: those in
    /// `handed_out` the AM now holds, and they are forgotten; the others in `gone` (completed,
    /// or never to be recorded) will never reach it, and their asks are given back (see
    /// [`CapacityScheduler::recover_asks`]). Returns the containers whose asks were given back.
    pub fn settle_acquisitions(
        &mut self,
        handed_out: &BTreeSet<ContainerId>,
        gone: &BTreeSet<ContainerId>,
    ) -> Vec<ContainerId> {
        for container in handed_out {
            self.scheduler.container_acquired(container);
        }
        gone.difference(handed_out)
            .filter(|container| self.scheduler.recover_asks(container))
            .copied()
            .collect()
    }

    /// Containers the attempt still wants as OPPORTUNISTIC ones.
    pub fn outstanding_opportunistic(&self, attempt: ApplicationAttemptId) -> u32 {
        self.opportunistic.outstanding(attempt)
    }

    fn reconcile_configuration(&mut self, state: &RmState, source: &QueueConfigSource) {
        let version = state.queue_config_version;
        if version == self.config_version && state.dynamic_queues == self.dynamic_queues {
            return;
        }
        if self
            .unusable_config
            .as_ref()
            .is_some_and(|(unusable, dynamic)| {
                *unusable == version && *dynamic == state.dynamic_queues
            })
        {
            return;
        }
        let config = match source.parse_committed(state) {
            Ok(config) => {
                log_ignored_keys(version, &config);
                config
            }
            Err(err) => {
                tracing::error!(
                    version,
                    %err,
                    "the committed queue configuration does not apply on this replica; \
                     scheduling continues with the previous one"
                );
                self.unusable_config = Some((version, state.dynamic_queues.clone()));
                return;
            }
        };
        if let Err(err) = self.scheduler.reinitialize(config.clone()) {
            tracing::warn!(version, %err, "queue configuration applied by starting afresh");
            let epoch = self.scheduler.epoch();
            self.scheduler = CapacityScheduler::new(config);
            // The epoch was accepted before.
            let _ = self.scheduler.set_epoch(epoch);
        }
        self.config_version = version;
        self.dynamic_queues.clone_from(&state.dynamic_queues);
    }

    /// Gives the plan queues the reservation queues of `state` (see
    /// [`reservation_queue_sizes`]).
    fn reconcile_reservation_queues(&mut self, state: &RmState) {
        // Reconciling follows every commit: without a plan queue there is nothing to size or
        // retain, and no pass over the applications is needed.
        let conf = self.scheduler.configuration();
        if !conf.queues().any(|queue| queue.reservation.is_some()) {
            return;
        }
        let plans = reservation_queue_sizes(state, self.scheduler.configuration());
        if let Err(err) = self.scheduler.set_reservation_queues(plans) {
            tracing::warn!(%err, "reservation queues not resized");
        }
    }

    fn reconcile_nodes(&mut self, nodes: &[SchedulableNode]) {
        let wanted: BTreeMap<&NodeId, &SchedulableNode> =
            nodes.iter().map(|node| (&node.id, node)).collect();
        let current: BTreeMap<NodeId, (Resource, String)> = self
            .scheduler
            .nodes()
            .map(|node| {
                let known = (node.capability(), node.rack().to_owned());
                (node.node_id().clone(), known)
            })
            .collect();
        for node in current.keys().filter(|node| !wanted.contains_key(node)) {
            // Known to be present: it was just listed.
            let _ = self.scheduler.remove_node(node);
        }
        for (id, node) in wanted {
            let Some((capability, rack)) = current.get(id) else {
                let added =
                    self.scheduler
                        .add_node_on_rack(id.clone(), node.rack.clone(), node.capability);
                if let Err(err) = added {
                    tracing::warn!(node = %id, %err, "node left out of the scheduler");
                }
                continue;
            };
            // Both known to be present: the node was just listed.
            if *rack != node.rack {
                let _ = self.scheduler.update_node_rack(id, node.rack.clone());
            }
            if *capability != node.capability {
                let _ = self.scheduler.update_node_capability(id, node.capability);
            }
        }
    }

    fn reconcile_applications(&mut self, state: &RmState, groups: &Groups) -> Vec<Admission> {
        let mut admissions = Vec::new();
        for application in state.applications.values() {
            let id = ApplicationId::new(state.cluster_timestamp_ms, application.sequence);
            // Called for every application after every commit: a lookup, not a status report.
            let known = self.scheduler.has_application(id);
            match application.state {
                ApplicationState::Finished
                | ApplicationState::Failed
                | ApplicationState::Killed => {
                    if known {
                        let _ = self.scheduler.remove_application(id);
                    }
                }
                ApplicationState::Submitted => {
                    let admitted = self.scheduler.application_status(id);
                    let admission = match admitted {
                        Some(status) => Admission::Accepted {
                            application_seq: application.sequence,
                            queue: status.queue,
                            priority: status.priority,
                        },
                        None => self.admit(id, application, groups),
                    };
                    admissions.push(admission);
                }
                ApplicationState::Accepted | ApplicationState::Running => {
                    if !known && !self.recover_application(state, id, application) {
                        continue;
                    }
                    self.follow_placement(id, application);
                    self.recover_attempt(state, id, application);
                }
            }
        }
        admissions
    }

    /// YARN's admission of a new application, then its first attempt. The submitting user's
    /// groups are looked up here, on the leader, as YARN's scheduler does; only the verdict is
    /// replicated, so every replica agrees on it whatever its own host knows of the user.
    fn admit(
        &mut self,
        id: ApplicationId,
        application: &ApplicationRecord,
        groups: &Groups,
    ) -> Admission {
        let application_seq = application.sequence;
        let context = submission_context(application);
        let requested_priority = context.priority.map(|priority| priority.priority);
        let [default_label, am_label] = label_expressions(&context);
        let accepted = match placement_queue(&self.scheduler, id, application, &context)
            .and_then(|queue| {
                self.scheduler.submit_application(
                    id,
                    &queue,
                    &application.user,
                    &groups.groups_of(&application.user),
                    requested_priority,
                )
            })
            .and_then(|accepted| {
                self.scheduler
                    .set_application_labels(id, default_label, am_label)
                    .inspect_err(|_| {
                        let _ = self.scheduler.remove_application(id);
                    })
                    .map(|()| accepted)
            }) {
            Ok(accepted) => accepted,
            Err(err) => {
                return Admission::Rejected {
                    application_seq,
                    diagnostics: err.to_string(),
                };
            }
        };
        let attempt = ApplicationAttemptId::new(id, 1);
        let started = if context.unmanaged_am {
            self.scheduler.add_attempt_without_am(attempt)
        } else {
            self.scheduler.add_attempt(attempt, am_resource(&context))
        };
        match started {
            Ok(()) => Admission::Accepted {
                application_seq,
                queue: accepted.queue,
                priority: accepted.priority,
            },
            Err(err) => {
                let _ = self.scheduler.remove_application(id);
                Admission::Rejected {
                    application_seq,
                    diagnostics: err.to_string(),
                }
            }
        }
    }

    /// Re-creates an application past admission; false when it cannot be (its queue is gone).
    fn recover_application(
        &mut self,
        state: &RmState,
        id: ApplicationId,
        app: &ApplicationRecord,
    ) -> bool {
        if let Err(err) =
            self.scheduler
                .recover_application(id, &app.queue, &app.user, app.priority)
        {
            tracing::warn!(application = %id, %err, "application left out of the scheduler");
            return false;
        }
        let context = submission_context(app);
        let [default_label, am_label] = label_expressions(&context);
        if let Err(err) = self
            .scheduler
            .set_application_labels(id, default_label, am_label)
        {
            // A label removed since admission: the application runs in its queue's default.
            tracing::warn!(application = %id, %err, "application labels not recovered");
        }
        // Ids of completed containers are not recovered but must not be issued again.
        let last_issued = state.containers.last_issued(app.sequence).and_then(|raw| {
            ContainerId::from_raw(ApplicationAttemptId::new(id, app.current_attempt), raw).ok()
        });
        if let Some(container) = last_issued {
            self.scheduler.container_id_issued(container);
        }
        true
    }

    /// Applies a committed move or priority change the scheduler has not seen yet.
    fn follow_placement(&mut self, id: ApplicationId, app: &ApplicationRecord) {
        let Some((queue, priority)) = self.scheduler.application_placement(id) else {
            return;
        };
        let (moved, reprioritized) = (queue != app.queue, priority != app.priority);
        if moved {
            if let Err(err) = self.scheduler.move_application(id, &app.queue) {
                tracing::warn!(application = %id, %err, "committed move not applied");
            }
        }
        if reprioritized {
            // Known to the scheduler: it was just found.
            let _ = self.scheduler.update_application_priority(id, app.priority);
        }
    }

    fn recover_attempt(&mut self, state: &RmState, id: ApplicationId, app: &ApplicationRecord) {
        if app.current_attempt <= 0 {
            return;
        }
        let attempt = ApplicationAttemptId::new(id, app.current_attempt);
        if self.scheduler.current_attempt_id(id) == Some(attempt) {
            return;
        }
        let context = submission_context(app);
        // A live AM container is recovered below and satisfies the AM ask; a completed one
        // means the attempt is over and waits for its successor, which must not get a second
        // AM container under the same attempt.
        let am_completed = state.containers.of_application(app.sequence).any(|record| {
            record.is_am && record.attempt_id == app.current_attempt && !record.is_live()
        });
        let outcome = if context.unmanaged_am || am_completed {
            self.scheduler.add_attempt_without_am(attempt)
        } else {
            self.scheduler.add_attempt(attempt, am_resource(&context))
        };
        if let Err(err) = outcome {
            tracing::warn!(%attempt, %err, "attempt left out of the scheduler");
        }
    }

    fn reconcile_containers(&mut self, state: &RmState) {
        let promotions = &self.promotions;
        let mut stale = Vec::new();
        let mut resized = Vec::new();
        for allocation in self.scheduler.containers() {
            let key = ContainerKey {
                application_seq: allocation.application_attempt_id.application_id.id,
                container_id: allocation.container_id.container_id(),
            };
            let Some(record) = state.containers.get(&key).filter(|r| r.is_live()) else {
                stale.push(allocation.container_id);
                continue;
            };
            // A granted promotion holds its charge until its commit is seen.
            let awaiting_commit = promotions.get(&key).is_some_and(|promotion| {
                promotion.granted && state.containers.version(&key) == promotion.update.version
            });
            if record.execution_type != ExecutionType::Guaranteed && !awaiting_commit {
                stale.push(allocation.container_id);
                continue;
            }
            // So does a granted increase; otherwise the recorded size is charged.
            let recorded = Resource::new(record.memory_mb, record.vcores);
            if allocation.resource != recorded && !self.increases.awaiting_commit(&key, state) {
                resized.push((allocation.container_id, recorded));
            }
        }
        for container in stale {
            self.scheduler.container_completed(&container);
        }
        for (container, size) in resized {
            self.scheduler.resize_container(&container, size);
        }
        // Opportunistic containers do not count against queue capacity.
        let guaranteed = state.containers.iter().filter(|record| {
            record.is_live() && record.execution_type == ExecutionType::Guaranteed
        });
        for record in guaranteed {
            let Some(allocation) = allocation_of(state.cluster_timestamp_ms, record) else {
                continue;
            };
            if self.scheduler.container(&allocation.container_id).is_some()
                || self.scheduler.node(&allocation.node_id).is_none()
            {
                continue;
            }
            let container = allocation.container_id;
            // A promoted container an AMRMProxy placed carries an id from the proxy's count,
            // which must not move the application's own sequence.
            let recovered = if state.containers.is_remotely_allocated(&record.key) {
                self.scheduler.recover_promoted_container(allocation)
            } else {
                self.scheduler.recover_container(allocation)
            };
            if let Err(err) = recovered {
                tracing::warn!(%container, %err, "container left out of the scheduler");
            }
        }
    }

    fn reconcile_promotions(&mut self, state: &RmState) {
        let waiting: std::collections::BTreeSet<ContainerId> = self
            .scheduler
            .pending_promotions()
            .map(|allocation| allocation.container_id)
            .collect();
        let scheduler = &mut self.scheduler;
        self.promotions.retain(|key, promotion| {
            let container = promotion.allocation.container_id;
            let update = &promotion.update;
            let still_wanted = state
                .updatable_container(key, update.attempt_id, update.version)
                .is_some_and(|record| record.execution_type == ExecutionType::Opportunistic);
            if !still_wanted {
                scheduler.cancel_promotion(&container);
                return false;
            }
            if promotion.granted && scheduler.container(&container).is_none() {
                // The scheduler lost the charge (it started afresh): ask again.
                promotion.granted = false;
            }
            if !promotion.granted && !waiting.contains(&container) {
                if let Err(err) = scheduler.request_promotion(promotion.allocation.clone()) {
                    tracing::debug!(%container, %err, "promotion waits");
                }
            }
            true
        });
    }
}

/// The submission context the client sent; an undecodable one (never stored by this
/// replica's client service) reads as empty.
fn submission_context(app: &ApplicationRecord) -> pb::ApplicationSubmissionContextProto {
    pb::ApplicationSubmissionContextProto::decode(app.submission_context.as_slice())
        .unwrap_or_default()
}

/// The AM container's size: the AM resource request's ([`am_request`]) when given, as YARN
/// prefers it, else the context's `resource`. Negative figures count as 0 and are raised to
/// the minimum allocation by normalization.
fn am_resource(context: &pb::ApplicationSubmissionContextProto) -> Resource {
    let proto = am_request(context)
        .and_then(|request| request.capability.as_ref())
        .or(context.resource.as_ref());
    proto.map_or_else(Resource::default, Resource::from)
}

/// The AM resource request YARN reads: the one for any node (`*`), else the first.
fn am_request(
    context: &pb::ApplicationSubmissionContextProto,
) -> Option<&pb::ResourceRequestProto> {
    let requests = &context.am_container_resource_request;
    requests
        .iter()
        .find(|request| {
            request.resource_name.is_empty() || request.resource_name == yarn_proto::ANY
        })
        .or(requests.first())
}

/// The application's label expressions: the context's, for its asks that name none, and the
/// AM resource request's ([`am_request`]), for its AM container (blank: the application's).
fn label_expressions(context: &pb::ApplicationSubmissionContextProto) -> [&str; 2] {
    let am = am_request(context).map_or("", |request| request.node_label_expression.as_str());
    [context.node_label_expression.as_str(), am]
}

/// The scheduler's view of a replicated container; `None` for ids or node names this binary
/// cannot read back (never written by it).
fn allocation_of(cluster_timestamp_ms: i64, record: &ContainerRecord) -> Option<Allocation> {
    let application_id = ApplicationId::new(cluster_timestamp_ms, record.key.application_seq);
    let attempt = ApplicationAttemptId::new(application_id, record.attempt_id);
    Some(Allocation {
        container_id: ContainerId::from_raw(attempt, record.key.container_id).ok()?,
        application_attempt_id: attempt,
        node_id: record.node.parse().ok()?,
        resource: Resource::new(record.memory_mb, record.vcores),
        priority: record.priority,
        allocation_request_id: record.allocation_request_id,
        is_am: record.is_am,
    })
}

fn container_record(allocation: &Allocation, now_ms: i64) -> ContainerRecord {
    ContainerRecord {
        key: ContainerKey {
            application_seq: allocation.application_attempt_id.application_id.id,
            container_id: allocation.container_id.container_id(),
        },
        attempt_id: allocation.application_attempt_id.attempt_id,
        node: allocation.node_id.to_string(),
        memory_mb: allocation.resource.memory_mb,
        vcores: allocation.resource.vcores,
        execution_type: ExecutionType::Guaranteed,
        is_am: allocation.is_am,
        priority: allocation.priority,
        allocation_request_id: allocation.allocation_request_id,
        allocated_at_ms: now_ms,
        state: ContainerState::Allocated,
    }
}

/// Logs each key the committed queue configuration `version` holds that an earlier version
/// committed and this one refuses (kept as a warning so that the queues in force keep
/// scheduling); the other warnings were logged when the file was read.
fn log_ignored_keys(version: u64, config: &CapacitySchedulerConfiguration) {
    for warning in config
        .warnings()
        .iter()
        .filter(|warning| warning.contains(EARLIER_COMMIT))
    {
        tracing::warn!(version, "committed queue configuration: {warning}");
    }
}

/// The leaf `application` runs in: its queue, or under a plan queue its reservation's queue or
/// the plan's default reservation queue.
fn placement_queue(
    scheduler: &CapacityScheduler,
    id: ApplicationId,
    application: &ApplicationRecord,
    context: &pb::ApplicationSubmissionContextProto,
) -> Result<String, SchedulerError> {
    scheduler.placement_queue(
        id,
        &application.queue,
        &application.user,
        reservation_queue_name(context).as_deref(),
    )
}

/// The checks of [`LeaderScheduler::check_submission`], made by `scheduler`.
fn check_submission_in(
    scheduler: &CapacityScheduler,
    id: ApplicationId,
    application: &ApplicationRecord,
    groups: &[String],
) -> Result<ApplicationLifetime, SchedulerError> {
    let context = submission_context(application);
    let am_resource = (!context.unmanaged_am).then(|| am_resource(&context));
    let queue = placement_queue(scheduler, id, application, &context)?;
    let [default_label, am_label] = label_expressions(&context);
    scheduler.check_application_labels(id, &queue, &application.user, default_label, am_label)?;
    scheduler.check_submission(id, &queue, &application.user, groups, am_resource)
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;
    use crate::scheduling::capacity_properties as properties;
    use crate::scheduling::test_fixtures::{NOW, apply, nodes, source, state, submit};
    use crate::state_machine::{CommandV1, ContainerCompletion, RmResponse};

    /// `root.a` (open to alice and group a-team) and `root.b` (in `b_state`), 50% each.
    fn two_queues(b_state: &str) -> BTreeMap<String, String> {
        properties(&[
            ("root.queues", "a,b"),
            ("maximum-am-resource-percent", "0.5"),
            ("root.a.capacity", "50"),
            ("root.b.capacity", "50"),
            ("root.b.state", b_state),
            ("root.acl_submit_applications", " "),
            ("root.acl_administer_queue", " "),
            ("root.a.acl_submit_applications", "alice a-team"),
            ("root.b.acl_submit_applications", "*"),
        ])
    }

    /// Reconciles, commits the verdicts, runs a pass and commits it, as the leader loop does.
    fn pass(
        leader: &mut LeaderScheduler,
        state: &mut RmState,
        nodes: &[SchedulableNode],
    ) -> Vec<ContainerRecord> {
        let admissions = leader.reconcile(state, &source(), nodes);
        if !admissions.is_empty() {
            apply(
                state,
                CommandV1::AdmitApplications {
                    admissions,
                    now_ms: 1,
                },
            );
        }
        let allocations = leader.schedule(NOW, &[], &[]).allocations;
        if !allocations.is_empty() {
            let response = apply(
                state,
                CommandV1::AllocateContainers {
                    allocations: allocations.clone(),
                },
            );
            assert!(
                matches!(response, RmResponse::ContainersAllocated { ref rejected, .. } if rejected.is_empty()),
                "{response:?}"
            );
        }
        allocations
    }

    fn verdict(admissions: &[Admission], application_seq: i32) -> &Admission {
        admissions
            .iter()
            .find(|admission| admission.application_seq() == application_seq)
            .unwrap()
    }

    #[test]
    fn admission_accepts_into_the_resolved_leaf_and_allocates_the_am_once() {
        let mut state = state(two_queues("RUNNING"));
        let app = submit(&mut state, "alice", "a", 2048);
        let (mut leader, admissions) =
            LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        assert_eq!(
            admissions,
            [Admission::Accepted {
                application_seq: app,
                queue: "root.a".to_owned(),
                priority: 0
            }]
        );
        // The verdict is not committed yet: the next reconcile proposes it again.
        assert_eq!(leader.reconcile(&state, &source(), &nodes(1)), admissions);
        apply(
            &mut state,
            CommandV1::AdmitApplications {
                admissions,
                now_ms: 1,
            },
        );
        let record = &state.applications[&app];
        assert_eq!(
            (record.state, record.current_attempt),
            (ApplicationState::Accepted, 1)
        );

        let allocated = pass(&mut leader, &mut state, &nodes(1));
        assert_eq!(allocated.len(), 1);
        let am = &allocated[0];
        assert!(am.is_am);
        assert_eq!(
            (am.attempt_id, am.memory_mb, am.node.as_str()),
            (1, 2048, "nm1:8041")
        );
        assert!(
            pass(&mut leader, &mut state, &nodes(1)).is_empty(),
            "one AM container per attempt"
        );

        // A new leader rebuilt from the state charges the AM container and asks for no other.
        let (mut successor, admissions) =
            LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        assert!(admissions.is_empty());
        assert_eq!(successor.scheduler().cluster_used(), Resource::new(2048, 1));
        assert!(successor.schedule(NOW, &[], &[]).allocations.is_empty());
    }

    #[test]
    fn admission_lets_in_a_member_of_a_group_the_queue_acl_names() {
        let mut state = state(two_queues("RUNNING"));
        let member = submit(&mut state, "dora", "a", 1024);
        let (_, admissions) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        assert!(
            matches!(verdict(&admissions, member), Admission::Accepted { queue, .. } if queue == "root.a"),
            "dora is in a-team: {admissions:?}"
        );
    }

    #[test]
    fn admission_rejects_with_the_scheduler_reason() {
        let mut state = state(two_queues("STOPPED"));
        let stopped = submit(&mut state, "alice", "b", 1024);
        let denied = submit(&mut state, "bob", "a", 1024);
        let too_big = submit(&mut state, "alice", "a", 9000);
        let unknown = submit(&mut state, "alice", "nope", 1024);
        let (leader, admissions) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        for (app, expected) in [
            (stopped, "STOPPED"),
            (denied, "bob"),
            (too_big, "8192"),
            (unknown, "nope"),
        ] {
            let Admission::Rejected { diagnostics, .. } = verdict(&admissions, app) else {
                panic!("application {app} must be rejected: {admissions:?}");
            };
            assert!(diagnostics.contains(expected), "{app}: {diagnostics}");
        }
        assert!(
            leader
                .scheduler()
                .application_status(ApplicationId::new(NOW, too_big))
                .is_none(),
            "a rejected application leaves nothing behind"
        );
        apply(
            &mut state,
            CommandV1::AdmitApplications {
                admissions,
                now_ms: 1,
            },
        );
        let failed = &state.applications[&denied];
        assert_eq!(failed.state, ApplicationState::Failed);
        assert!(
            failed.diagnostics.contains("SUBMIT_APPLICATIONS"),
            "{}",
            failed.diagnostics
        );
    }

    #[test]
    fn an_unrecorded_pass_is_freed_and_ids_move_on() {
        let mut state = state(two_queues("RUNNING"));
        let app = submit(&mut state, "alice", "a", 8192);
        let (mut leader, admissions) =
            LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        apply(
            &mut state,
            CommandV1::AdmitApplications {
                admissions,
                now_ms: 1,
            },
        );
        leader.reconcile(&state, &source(), &nodes(1));
        let lost = leader.schedule(NOW, &[], &[]).allocations;
        assert_eq!(lost.len(), 1, "the AM fills the node");
        // The commit failed: the node is full in the scheduler but free in the state.
        assert!(leader.schedule(NOW, &[], &[]).allocations.is_empty());
        leader.reconcile(&state, &source(), &nodes(1));
        assert_eq!(leader.scheduler().cluster_used(), Resource::default());
        // The AM ask was consumed by the lost allocation; a restarted attempt brings it back.
        // Meanwhile an id once proposed is never proposed again.
        let mut successor = LeaderScheduler::rebuild(&state, &source(), &nodes(1))
            .unwrap()
            .0;
        let retried = successor.schedule(NOW, &[], &[]).allocations;
        assert_eq!(retried.len(), 1);
        apply(
            &mut state,
            CommandV1::AllocateContainers {
                allocations: retried.clone(),
            },
        );
        assert_eq!(state.containers.of_application(app).count(), 1);
        // Reconciling after the commit keeps the charge: it is recorded now.
        successor.reconcile(&state, &source(), &nodes(1));
        assert_eq!(successor.scheduler().cluster_used(), Resource::new(8192, 1));
    }

    #[test]
    fn completions_lost_nodes_and_finished_applications_free_resources() {
        let mut state = state(two_queues("RUNNING"));
        let app = submit(&mut state, "alice", "a", 1024);
        let other = submit(&mut state, "alice", "a", 1024);
        let (mut leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(2)).unwrap();
        let allocated = pass(&mut leader, &mut state, &nodes(2));
        assert_eq!(allocated.len(), 2);
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(2048, 2));

        let am = allocated
            .iter()
            .find(|r| r.key.application_seq == app)
            .unwrap();
        apply(
            &mut state,
            CommandV1::CompleteContainers {
                now_ms: 1,
                completions: vec![ContainerCompletion {
                    key: am.key,
                    exit_status: 1,
                    diagnostics: "exited".to_owned(),
                }],
            },
        );
        assert!(
            pass(&mut leader, &mut state, &nodes(2)).is_empty(),
            "no second AM for attempt 1"
        );
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(1024, 1));
        // Rebuilt, the attempt whose AM completed does not ask for another either.
        let mut successor = LeaderScheduler::rebuild(&state, &source(), &nodes(2))
            .unwrap()
            .0;
        assert!(successor.schedule(NOW, &[], &[]).allocations.is_empty());

        let other_am = allocated
            .iter()
            .find(|r| r.key.application_seq == other)
            .unwrap();
        let node = other_am.node.clone();
        let remaining: Vec<_> = nodes(2)
            .into_iter()
            .filter(|n| n.id.to_string() != node)
            .collect();
        leader.reconcile(&state, &source(), &remaining);
        assert_eq!(
            leader.scheduler().cluster_used(),
            Resource::default(),
            "the node left"
        );
        leader.reconcile(&state, &source(), &nodes(2));
        assert_eq!(
            leader.scheduler().cluster_used(),
            Resource::new(1024, 1),
            "it came back with its container"
        );

        state.applications.get_mut(&other).unwrap().state = ApplicationState::Killed;
        leader.reconcile(&state, &source(), &nodes(2));
        assert!(
            leader
                .scheduler()
                .application_status(ApplicationId::new(NOW, other))
                .is_none()
        );
    }

    #[test]
    fn a_task_completed_before_its_am_was_handed_it_is_asked_for_again_once() {
        let mut state = state(two_queues("RUNNING"));
        let app = submit(&mut state, "alice", "a", 1024);
        let (mut leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        assert_eq!(pass(&mut leader, &mut state, &nodes(1)).len(), 1, "the AM");
        let attempt = ApplicationAttemptId::new(ApplicationId::new(NOW, app), 1);
        let ask = ResourceRequest::any(1, Resource::new(1024, 1), 3);
        leader
            .scheduler_mut()
            .update_asks(attempt, &[ask], &[])
            .unwrap();
        let tasks = pass(&mut leader, &mut state, &nodes(1));
        assert_eq!(tasks.len(), 3);
        let id = |record: &ContainerRecord| {
            ContainerId::from_raw(attempt, record.key.container_id).unwrap()
        };
        let (handed, lost, waiting) = (id(&tasks[0]), &tasks[1], id(&tasks[2]));
        apply(
            &mut state,
            CommandV1::CompleteContainers {
                now_ms: 1,
                completions: vec![ContainerCompletion {
                    key: lost.key,
                    exit_status: -100,
                    diagnostics: "lost".to_owned(),
                }],
            },
        );
        leader.reconcile(&state, &source(), &nodes(1));
        let gone = BTreeSet::from([id(lost)]);
        let recovered = leader.settle_acquisitions(&BTreeSet::from([handed]), &gone);
        assert_eq!(recovered, [id(lost)]);
        assert_eq!(leader.scheduler().unacquired(attempt), [waiting]);
        assert!(
            leader
                .settle_acquisitions(&BTreeSet::new(), &gone)
                .is_empty(),
            "given back once"
        );
        let again = pass(&mut leader, &mut state, &nodes(1));
        assert_eq!(again.len(), 1, "{again:?}");
        assert!((again[0].priority, again[0].memory_mb) == (1, 1024) && !again[0].is_am);
    }

    /// A live 1 GiB OPPORTUNISTIC task of `app`'s first attempt on `nm1:8041`, numbered `raw`.
    fn opportunistic_task(app: i32, raw: i64) -> ContainerRecord {
        ContainerRecord {
            key: ContainerKey {
                application_seq: app,
                container_id: raw,
            },
            attempt_id: 1,
            node: "nm1:8041".to_owned(),
            memory_mb: 1024,
            vcores: 1,
            execution_type: ExecutionType::Opportunistic,
            is_am: false,
            priority: 1,
            allocation_request_id: 0,
            allocated_at_ms: NOW,
            state: ContainerState::Allocated,
        }
    }

    fn promotion(record: &ContainerRecord, version: i32) -> ContainerUpdate {
        ContainerUpdate {
            key: record.key,
            attempt_id: 1,
            version,
            execution_type: ExecutionType::Guaranteed,
        }
    }

    #[test]
    fn a_promotion_is_proposed_until_its_commit_is_seen_and_then_stays_charged() {
        let mut state = state(two_queues("RUNNING"));
        let app = submit(&mut state, "alice", "a", 1024);
        let (mut leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        assert_eq!(pass(&mut leader, &mut state, &nodes(1)).len(), 1, "the AM");
        let task = opportunistic_task(app, (1 << 40) | 10);
        apply(
            &mut state,
            CommandV1::AllocateContainers {
                allocations: vec![task.clone()],
            },
        );
        leader.reconcile(&state, &source(), &nodes(1));
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(1024, 1));

        let update = promotion(&task, 0);
        leader.request_promotion(NOW, update.clone(), &task);
        assert!(leader.has_pending_update(&task.key));
        assert_eq!(
            leader.schedule(NOW, &[], &[]).promotions,
            vec![update.clone()]
        );
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(2048, 2));
        // The commit is not seen yet: the charge stays and the next pass proposes it again.
        leader.reconcile(&state, &source(), &nodes(1));
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(2048, 2));
        assert_eq!(
            leader.schedule(NOW, &[], &[]).promotions,
            vec![update.clone()]
        );

        apply(
            &mut state,
            CommandV1::UpdateContainers {
                updates: vec![update],
            },
        );
        leader.reconcile(&state, &source(), &nodes(1));
        assert!(!leader.has_pending_update(&task.key));
        assert!(leader.schedule(NOW, &[], &[]).promotions.is_empty());
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(2048, 2));
        let a = leader.scheduler().queue_info("root.a").unwrap();
        assert_eq!(a.resources_used, Resource::new(2048, 2));
    }

    #[test]
    fn an_increase_is_proposed_until_its_commit_is_seen_and_the_recorded_size_is_charged() {
        let mut state = state(two_queues("RUNNING"));
        let app = submit(&mut state, "alice", "a", 1024);
        let (mut leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        assert_eq!(pass(&mut leader, &mut state, &nodes(1)).len(), 1, "the AM");
        let task = ContainerRecord {
            execution_type: ExecutionType::Guaranteed,
            ..opportunistic_task(app, (1 << 40) | 10)
        };
        apply(
            &mut state,
            CommandV1::AllocateContainers {
                allocations: vec![task.clone()],
            },
        );
        leader.reconcile(&state, &source(), &nodes(1));
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(2048, 2));

        let grow = leader_resize(&task, 0, 3072);
        // One that cannot fit waits, and another request replaces or withdraws it.
        leader.request_increase(NOW, leader_resize(&task, 0, 65536));
        assert!(leader.schedule(NOW, &[], &[]).increases.is_empty());
        assert!(
            !leader.has_pending_update(&task.key),
            "a waiting increase gives way"
        );
        leader.cancel_increase(&task.key);
        assert_eq!(leader.scheduler().pending_increases().count(), 0);

        leader.request_increase(NOW, grow.clone());
        assert_eq!(leader.schedule(NOW, &[], &[]).increases, vec![grow.clone()]);
        assert!(
            leader.has_pending_update(&task.key),
            "a granted one does not"
        );
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(4096, 2));
        // The commit is not seen yet: the charge stays and the next pass proposes it again.
        leader.reconcile(&state, &source(), &nodes(1));
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(4096, 2));
        assert_eq!(leader.schedule(NOW, &[], &[]).increases, vec![grow.clone()]);

        apply(
            &mut state,
            CommandV1::ResizeContainers {
                resizes: vec![grow],
            },
        );
        leader.reconcile(&state, &source(), &nodes(1));
        assert!(!leader.has_pending_update(&task.key));
        assert!(leader.schedule(NOW, &[], &[]).increases.is_empty());
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(4096, 2));

        // A decrease committed by an RPC handler is charged at the next reconcile; a granted
        // increase the state then refuses (its version moved on) is dropped and uncharged.
        let stale = leader_resize(&task, 1, 4096);
        leader.request_increase(NOW, stale.clone());
        assert_eq!(leader.schedule(NOW, &[], &[]).increases, vec![stale]);
        apply(
            &mut state,
            CommandV1::ResizeContainers {
                resizes: vec![leader_resize(&task, 1, 512)],
            },
        );
        leader.reconcile(&state, &source(), &nodes(1));
        assert!(!leader.has_pending_update(&task.key));
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(1536, 2));
        let a = leader.scheduler().queue_info("root.a").unwrap();
        assert_eq!(a.resources_used, Resource::new(1536, 2));
    }

    /// A resize of `record` from `version` to `memory_mb` and 1 vcore.
    fn leader_resize(record: &ContainerRecord, version: i32, memory_mb: u64) -> ContainerResize {
        ContainerResize {
            key: record.key,
            attempt_id: 1,
            version,
            memory_mb,
            vcores: 1,
        }
    }

    #[test]
    fn a_promotion_without_room_waits_and_one_whose_container_ends_is_dropped() {
        let mut state = state(two_queues("RUNNING"));
        let app = submit(&mut state, "alice", "a", 1024);
        let small = vec![SchedulableNode {
            capability: Resource::new(1024, 8),
            ..nodes(1).remove(0)
        }];
        let (mut leader, _) = LeaderScheduler::rebuild(&state, &source(), &small).unwrap();
        assert_eq!(
            pass(&mut leader, &mut state, &small).len(),
            1,
            "the AM fills the node"
        );
        let task = opportunistic_task(app, (1 << 40) | 10);
        apply(
            &mut state,
            CommandV1::AllocateContainers {
                allocations: vec![task.clone()],
            },
        );
        leader.reconcile(&state, &source(), &small);
        leader.request_promotion(NOW, promotion(&task, 0), &task);
        assert!(leader.schedule(NOW, &[], &[]).promotions.is_empty());
        assert!(leader.has_pending_update(&task.key), "it waits");
        apply(
            &mut state,
            CommandV1::CompleteContainers {
                completions: vec![ContainerCompletion {
                    key: task.key,
                    exit_status: 0,
                    diagnostics: String::new(),
                }],
                now_ms: NOW,
            },
        );
        leader.reconcile(&state, &source(), &small);
        assert!(!leader.has_pending_update(&task.key));
        assert_eq!(leader.scheduler().pending_promotions().count(), 0);
    }

    #[test]
    fn a_promoted_container_of_an_amrmproxy_is_recovered_without_moving_the_id_sequence() {
        let mut state = state(two_queues("RUNNING"));
        let app = submit(&mut state, "alice", "a", 1024);
        let (mut leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        pass(&mut leader, &mut state, &nodes(1));
        let placed = opportunistic_task(app, (1 << 40) - 1);
        apply(
            &mut state,
            CommandV1::RecordRemoteContainers {
                containers: vec![placed.clone()],
            },
        );
        apply(
            &mut state,
            CommandV1::UpdateContainers {
                updates: vec![promotion(&placed, 0)],
            },
        );
        let (mut successor, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        assert_eq!(successor.scheduler().cluster_used(), Resource::new(2048, 2));
        let attempt = ApplicationAttemptId::new(ApplicationId::new(NOW, app), 1);
        successor
            .scheduler_mut()
            .update_asks(
                attempt,
                &[ResourceRequest::any(1, Resource::new(1024, 1), 1)],
                &[],
            )
            .unwrap();
        let next = successor.schedule(NOW, &[], &[]).allocations;
        assert_eq!(next.len(), 1);
        assert_eq!(
            next[0].key.container_id,
            (1 << 40) | 2,
            "after the AM, not after the proxy's id"
        );
    }

    #[test]
    fn a_new_configuration_version_is_applied() {
        let mut state = state(two_queues("RUNNING"));
        let (mut leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        let mut changed = two_queues("RUNNING");
        changed.insert(
            "yarn.scheduler.capacity.root.a.capacity".to_owned(),
            "30".to_owned(),
        );
        changed.insert(
            "yarn.scheduler.capacity.root.b.capacity".to_owned(),
            "70".to_owned(),
        );
        apply(
            &mut state,
            CommandV1::SetQueueConfiguration {
                expected: 1,
                properties: changed,
            },
        );
        leader.reconcile(&state, &source(), &nodes(1));
        let a = leader.scheduler().queue_info("root.a").unwrap();
        assert!((a.capacity - 30.0).abs() < 1e-9, "{}", a.capacity);
        // Unmanaged AMs are admitted without an AM container.
        let mut unmanaged = state.clone();
        let app = submit(&mut unmanaged, "alice", "a", 1024);
        let mut record = unmanaged.applications[&app].clone();
        let mut context = submission_context(&record);
        context.unmanaged_am = true;
        record.submission_context = context.encode_to_vec();
        unmanaged.applications.insert(app, record);
        assert!(pass(&mut leader, &mut unmanaged, &nodes(1)).is_empty());
        assert_eq!(
            unmanaged.applications[&app].state,
            ApplicationState::Accepted
        );
    }

    #[test]
    fn a_configuration_the_applications_do_not_fit_starts_the_scheduler_afresh() {
        let mut state = state(two_queues("RUNNING"));
        let running = submit(&mut state, "alice", "a", 1024);
        let (mut leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        let first = pass(&mut leader, &mut state, &nodes(1));
        assert_eq!(first.len(), 1);
        // Committed without the leader's validation: root.a is gone while it has an
        // application, and root.b became root.c.
        apply(
            &mut state,
            CommandV1::SetQueueConfiguration {
                expected: 1,
                properties: properties(&[("root.queues", "c"), ("root.c.capacity", "100")]),
            },
        );
        let later = submit(&mut state, "alice", "c", 1024);
        let allocated = pass(&mut leader, &mut state, &nodes(1));
        assert_eq!(state.applications[&later].state, ApplicationState::Accepted);
        assert_eq!(allocated.len(), 1, "{allocated:?}");
        assert_eq!(allocated[0].key.application_seq, later);
        assert!(
            leader
                .scheduler()
                .application_status(ApplicationId::new(NOW, running))
                .is_none(),
            "an application whose queue is gone is left out"
        );
        // Its AM still holds the node: it stays charged.
        assert_eq!(leader.scheduler().cluster_used(), Resource::new(2048, 2));
    }
}
