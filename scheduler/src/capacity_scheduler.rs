//! [`CapacityScheduler`]: queues, applications, nodes and the scheduling pass.
//!
//! This file holds the type, its construction, the configuration refresh, the small
//! accessors and the queue-tree helpers every part uses (queue resolution, queue resources and
//! limits). The rest is split by concern into child modules, each adding an
//! `impl CapacityScheduler` block, so one concern reads in one file:
//!
//! - [`nodes`]: the registered nodes, their racks, free-resource and host indexes, the
//!   heartbeats that count scheduling opportunities, node search and attempts' blacklists;
//! - [`locality`]: where an ask's next container goes under delay scheduling;
//! - [`applications`]: submission checks, application and attempt add, move and removal, asks
//!   and application limits (`maximum-applications`);
//! - [`activation`]: how waiting attempts become active (`max-parallel-apps`, AM limits);
//! - [`activities`]: recording what passes decide, while someone asks;
//! - [`containers`]: container ids, charging and releasing containers, and recovery;
//! - [`scheduling_pass`]: [`schedule`](CapacityScheduler::schedule) and what it uses;
//! - [`queue_reports`]: application status, headroom and queue reports;
//! - [`promotions`]: OPPORTUNISTIC containers promoted to GUARANTEED;
//! - [`preemption_snapshot`]: the queues and containers as a preemption round sees them;
//! - [`acquisitions`]: containers their AM has not acquired yet, and the asks they give back
//!   if they complete first;
//! - [`partitions`]: node labels: each node's partition, the labelled partitions' resources
//!   and the queues' capacities there, usage charged by partition, label expressions.

use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};

use crate::Resource;
use crate::activities::ActivitiesRecorder;
use crate::allocation::Allocation;
use crate::application::{AppOrder, SchedulerApplication};
use crate::capacity_scheduler_configuration::CapacitySchedulerConfiguration;
use crate::error::SchedulerError;
use crate::node::SchedulerNode;
use crate::node_labels::NodeLabels;
use crate::queue::Queue;
use crate::queue_acl::QueueAcl;
use crate::queue_limits::QueueLimits;
use crate::refresh::validate_refresh;
use crate::reservation::{ReservationQueueSize, default_queue_name, retain_queues_in_use};

use applications::{Accounting, account_application};
pub use nodes::DEFAULT_RACK;
use nodes::FreeKey;

mod acquisitions;
mod activation;
mod activities;
mod applications;
mod containers;
mod locality;
mod nodes;
mod partitions;
mod preemption_snapshot;
mod promotions;
mod queue_reports;
mod resizes;
mod scheduling_pass;
mod serving_entry;

/// The CapacityScheduler: a deterministic, synchronous model of YARN's CapacityScheduler.
///
/// It owns the queue tree built from a [`CapacitySchedulerConfiguration`], the registered
/// nodes, the accepted applications with their current attempt and asks, and every live
/// container. It never reads a clock, draws a random number or does I/O: the same calls in the
/// same order produce the same decisions, which is what lets the RM leader propose a pass's
/// allocations through Raft and a new leader rebuild the state from replicated facts.
///
/// ```text
///   add_node / remove_node / update_node_capability      (NodeManagers)
///   submit_application -> add_attempt -> update_asks     (clients, AMs)
///            |                 |
///            v                 v
///   max-parallel-apps --> AM limits --> active --> schedule() --> Vec<Allocation>
///   (pending: reason)     (pending: reason)          |  queue tree walk, user limits,
///                                                    |  queue maximum capacities, node fit
///   container_completed / remove_application <-------+  (usage charged at once)
/// ```
///
/// Every method that fails returns an error and changes nothing.
#[derive(Debug, Clone)]
pub struct CapacityScheduler {
    conf: CapacitySchedulerConfiguration,
    queues: Vec<Queue>,
    queue_index: BTreeMap<String, usize>,
    nodes: BTreeMap<NodeId, SchedulerNode>,
    nodes_by_free: BTreeSet<FreeKey>,
    nodes_by_host: BTreeMap<String, BTreeSet<NodeId>>,
    /// Heartbeats from nodes with room, ever: the clock of delay scheduling.
    scheduling_opportunities: u64,
    /// The capability of the nodes in the default partition (no label).
    cluster_resource: Resource,
    /// What containers use in the default partition.
    cluster_used: Resource,
    /// The cluster's node labels, and the capability of each labelled partition's nodes.
    node_labels: NodeLabels,
    labelled_resources: BTreeMap<String, Resource>,
    applications: BTreeMap<ApplicationId, SchedulerApplication>,
    containers: BTreeMap<ContainerId, Allocation>,
    /// The reservation queues of each plan queue, as the plan follower last sized them.
    reservation_queues: BTreeMap<String, Vec<ReservationQueueSize>>,
    /// Runnable attempts per user, across queues (`max-parallel-apps` is per user overall).
    user_runnable: BTreeMap<String, usize>,
    /// Attempts held back by `max-parallel-apps`, in submission order.
    not_runnable: BTreeSet<(u64, ApplicationId)>,
    /// Runnable attempts held back by AM limits, per leaf in serving order.
    awaiting_activation: BTreeSet<(usize, AppOrder)>,
    epoch: i64,
    next_submission_order: u64,
    /// What the scheduler decides is recorded here while someone asks (see [`activities`]).
    activities: Option<Box<ActivitiesRecorder>>,
}

impl CapacityScheduler {
    /// A scheduler with no nodes and no applications, at epoch 0.
    pub fn new(conf: CapacitySchedulerConfiguration) -> Self {
        let (queues, queue_index) = build_queues(&conf);
        let mut scheduler = Self {
            conf,
            queues,
            queue_index,
            nodes: BTreeMap::new(),
            nodes_by_free: BTreeSet::new(),
            nodes_by_host: BTreeMap::new(),
            scheduling_opportunities: 0,
            cluster_resource: Resource::ZERO,
            cluster_used: Resource::ZERO,
            node_labels: NodeLabels::default(),
            labelled_resources: BTreeMap::new(),
            applications: BTreeMap::new(),
            containers: BTreeMap::new(),
            reservation_queues: BTreeMap::new(),
            user_runnable: BTreeMap::new(),
            not_runnable: BTreeSet::new(),
            awaiting_activation: BTreeSet::new(),
            epoch: 0,
            next_submission_order: 0,
            activities: None,
        };
        scheduler.update_queue_resources();
        scheduler
    }

    // ------------------------------------------------------------------ accessors

    /// The configuration in effect.
    pub fn configuration(&self) -> &CapacitySchedulerConfiguration {
        &self.conf
    }

    /// The RM epoch placed in new container ids.
    pub fn epoch(&self) -> i64 {
        self.epoch
    }

    /// Sets the RM epoch for container ids allocated from now on.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidEpoch`] outside `0..=ContainerId::MAX_EPOCH`.
    pub fn set_epoch(&mut self, epoch: i64) -> Result<(), SchedulerError> {
        if !(0..=ContainerId::MAX_EPOCH).contains(&epoch) {
            return Err(SchedulerError::InvalidEpoch { epoch });
        }
        self.epoch = epoch;
        Ok(())
    }

    /// Sum of the capabilities of the registered nodes in the default partition (every node
    /// when the cluster has no labels): what queue capacities without a label divide.
    pub fn cluster_resource(&self) -> Resource {
        self.cluster_resource
    }

    /// Sum of the resources of the live containers in the default partition.
    pub fn cluster_used(&self) -> Resource {
        self.cluster_used
    }

    /// A registered node.
    pub fn node(&self, node_id: &NodeId) -> Option<&SchedulerNode> {
        self.nodes.get(node_id)
    }

    /// Every registered node, in id order.
    pub fn nodes(&self) -> impl Iterator<Item = &SchedulerNode> {
        self.nodes.values()
    }

    /// A live container.
    pub fn container(&self, container_id: &ContainerId) -> Option<&Allocation> {
        self.containers.get(container_id)
    }

    /// Every live container, in id order.
    pub fn containers(&self) -> impl Iterator<Item = &Allocation> {
        self.containers.values()
    }

    /// Whether the application was accepted and not removed; cheaper than
    /// [`application_status`](Self::application_status).
    pub fn has_application(&self, application_id: ApplicationId) -> bool {
        self.applications.contains_key(&application_id)
    }

    /// The application's current attempt; `None` if it has none or is unknown.
    pub fn current_attempt_id(
        &self,
        application_id: ApplicationId,
    ) -> Option<ApplicationAttemptId> {
        Some(self.applications.get(&application_id)?.attempt.as_ref()?.id)
    }

    /// The leaf queue path and priority of an accepted application; cheaper than
    /// [`application_status`](Self::application_status).
    pub fn application_placement(&self, application_id: ApplicationId) -> Option<(&str, i32)> {
        let app = self.applications.get(&application_id)?;
        Some((app.queue.as_str(), app.priority))
    }

    /// Whether `user` in `groups` holds `acl` on `queue` (a path or unique name), with
    /// ancestor inheritance and administer-implies-submit; always when ACLs are disabled.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::NoSuchQueue`] for an unknown or ambiguous queue, and
    /// [`SchedulerError::AccessDenied`] naming the user, the right and the queue path.
    pub fn check_access(
        &self,
        queue: &str,
        acl: QueueAcl,
        user: &str,
        groups: &[String],
    ) -> Result<(), SchedulerError> {
        let path = self.resolve_path(queue)?;
        if self.conf.has_access(&path, acl, user, groups) {
            Ok(())
        } else {
            Err(SchedulerError::AccessDenied {
                user: user.to_string(),
                right: acl,
                queue: path,
            })
        }
    }

    // ------------------------------------------------------------------ configuration

    /// Switches to a new configuration, keeping every application, container and usage.
    ///
    /// The change is first checked with [`validate_refresh`] against the current
    /// applications; on error the current configuration stays in effect untouched. Afterwards
    /// the new capacities and limits apply to the next pass; applications already active stay
    /// active, and waiting ones are re-evaluated.
    ///
    /// # Errors
    ///
    /// Those of [`validate_refresh`].
    pub fn reinitialize(
        &mut self,
        conf: CapacitySchedulerConfiguration,
    ) -> Result<(), SchedulerError> {
        let conf = conf.with_reservation_queues(&self.reservation_queues);
        validate_refresh(&self.conf, &conf, &self.applications_per_queue())?;
        self.rebuild_queues(conf)
    }

    /// Sets the reservation queues of every plan queue to `plans` (by plan queue path; see
    /// [`CapacitySchedulerConfiguration::with_reservation_queues`]), keeping every application,
    /// container and usage: the plan follower's step. A reservation queue that is not listed
    /// goes once it is empty: one that still holds applications stays,
    /// [retained](ReservationQueueSize::retained), until they have moved or ended.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::RemovedQueueHasApplications`] should a queue that goes still hold
    /// applications, which retention rules out; nothing changes then.
    pub fn set_reservation_queues(
        &mut self,
        mut plans: BTreeMap<String, Vec<ReservationQueueSize>>,
    ) -> Result<(), SchedulerError> {
        let in_use = self.applications_per_queue();
        retain_queues_in_use(&mut plans, &self.conf, in_use.keys().map(String::as_str));
        if plans == self.reservation_queues {
            return Ok(());
        }
        let conf = self.conf.with_reservation_queues(&plans);
        self.rebuild_queues(conf)?;
        self.reservation_queues = plans;
        Ok(())
    }

    /// The leaf an application submitted to `queue` (a path or unique name) runs in: `queue`
    /// itself, except under a plan queue (a `reservable` one), where it runs in the queue of
    /// `reservation` when given and in the plan's default reservation queue otherwise, as
    /// Hadoop's CapacityScheduler places it.
    ///
    /// # Errors
    ///
    /// Those of queue resolution ([`SchedulerError::UnknownQueue`],
    /// [`SchedulerError::AmbiguousQueue`]), and [`SchedulerError::ReservationNotActive`] when
    /// the reservation has no queue under the plan now (before its window, after it, or a
    /// reservation of another queue), [`SchedulerError::QueueNotReservable`] when a
    /// reservation is given for a queue that is not reservable.
    pub fn placement_queue(
        &self,
        application_id: ApplicationId,
        queue: &str,
        user: &str,
        reservation: Option<&str>,
    ) -> Result<String, SchedulerError> {
        let index = self.resolve_queue(application_id, queue, user)?;
        let conf = &self.queues[index].conf;
        if conf.reservation.is_none() {
            return match reservation {
                None => Ok(conf.path.clone()),
                Some(reservation) => Err(SchedulerError::QueueNotReservable {
                    application: application_id,
                    queue: conf.path.clone(),
                    reservation: reservation.to_string(),
                }),
            };
        }
        let Some(reservation) = reservation else {
            return Ok(format!("{}.{}", conf.path, default_queue_name(&conf.name)));
        };
        let active = self
            .reservation_queues
            .get(&conf.path)
            .into_iter()
            .flatten()
            .any(|size| size.name == reservation && size.active);
        if active {
            Ok(format!("{}.{reservation}", conf.path))
        } else {
            Err(SchedulerError::ReservationNotActive {
                application: application_id,
                queue: conf.path.clone(),
                reservation: reservation.to_string(),
            })
        }
    }

    fn applications_per_queue(&self) -> BTreeMap<String, usize> {
        self.applications
            .values()
            .fold(BTreeMap::new(), |mut counts, app| {
                *counts.entry(app.queue.clone()).or_insert(0) += 1;
                counts
            })
    }

    /// Switches to `conf` (already checked, for a refresh), keeping every application,
    /// container and usage; refuses, changing nothing, when a queue holding applications would
    /// be gone or no longer a leaf.
    fn rebuild_queues(
        &mut self,
        conf: CapacitySchedulerConfiguration,
    ) -> Result<(), SchedulerError> {
        let counts = self.applications_per_queue();
        let (mut queues, queue_index) = build_queues(&conf);
        for (queue, count) in &counts {
            match queue_index.get(queue) {
                Some(&index) if queues[index].is_leaf() => {}
                _ => {
                    return Err(SchedulerError::RemovedQueueHasApplications {
                        queue: queue.clone(),
                        applications: *count,
                    });
                }
            }
        }
        let mut awaiting_activation = BTreeSet::new();
        for app in self.applications.values_mut() {
            let Some(&leaf) = queue_index.get(&app.queue) else {
                continue;
            };
            app.leaf = leaf;
            account_application(&mut queues, app, Accounting::Add);
            if app
                .attempt
                .as_ref()
                .is_some_and(|a| a.runnable && !a.active)
            {
                awaiting_activation.insert((leaf, app.order()));
            }
        }
        self.conf = conf;
        self.queues = queues;
        self.queue_index = queue_index;
        self.awaiting_activation = awaiting_activation;
        self.update_queue_resources();
        self.activate();
        Ok(())
    }

    // ------------------------------------------------------------------ internals

    fn resolve_path(&self, queue: &str) -> Result<String, SchedulerError> {
        self.conf
            .resolve(queue)
            .map(|q| q.path.clone())
            .map_err(|_| SchedulerError::NoSuchQueue {
                queue: queue.to_string(),
            })
    }

    fn resolve_leaf(
        &self,
        application_id: ApplicationId,
        queue: &str,
        user: &str,
    ) -> Result<usize, SchedulerError> {
        let index = self.resolve_queue(application_id, queue, user)?;
        if !self.queues[index].is_leaf() {
            return Err(SchedulerError::NotLeafQueue {
                application: application_id,
                user: user.to_string(),
                queue: self.queues[index].conf.path.clone(),
            });
        }
        Ok(index)
    }

    fn resolve_queue(
        &self,
        application_id: ApplicationId,
        queue: &str,
        user: &str,
    ) -> Result<usize, SchedulerError> {
        let conf = self.conf.resolve(queue).map_err(|candidates| {
            if candidates.is_empty() {
                SchedulerError::UnknownQueue {
                    application: application_id,
                    user: user.to_string(),
                    queue: queue.to_string(),
                }
            } else {
                SchedulerError::AmbiguousQueue {
                    application: application_id,
                    queue: queue.to_string(),
                    candidates: candidates.join(","),
                }
            }
        })?;
        self.queue_index
            .get(&conf.path)
            .copied()
            .ok_or_else(|| SchedulerError::UnknownQueue {
                application: application_id,
                user: user.to_string(),
                queue: queue.to_string(),
            })
    }

    fn application(
        &self,
        application_id: ApplicationId,
    ) -> Result<&SchedulerApplication, SchedulerError> {
        self.applications
            .get(&application_id)
            .ok_or(SchedulerError::UnknownApplication {
                application: application_id,
            })
    }

    fn current_attempt(
        &self,
        attempt_id: ApplicationAttemptId,
    ) -> Result<&SchedulerApplication, SchedulerError> {
        let app = self.application(attempt_id.application_id)?;
        match &app.attempt {
            Some(attempt) if attempt.id == attempt_id => Ok(app),
            _ => Err(SchedulerError::UnknownAttempt {
                attempt: attempt_id,
            }),
        }
    }

    /// Resolves every queue's capacities against the cluster as it is now, and the application
    /// limits that follow from them: on every change of the cluster or the configuration.
    fn update_queue_resources(&mut self) {
        let cluster = self.cluster_resource;
        let mut capacities = self.conf.effective_capacities(cluster);
        // Without every resource type in the cluster, a share that depends on absolute amounts
        // is unknown: as Hadoop does, such a queue then takes the configured global limit.
        let incomplete = cluster.memory_mb == 0 || cluster.vcores == 0;
        let global = self.conf.maximum_applications();
        // A managed parent's leaf takes applications by its template's share whether it holds
        // its capacity or not, as in Hadoop: those of a leaf without it wait for it.
        let template_shares: BTreeMap<String, f64> = self
            .queues
            .iter()
            .filter_map(|queue| {
                let parent = self.conf.queue(queue.conf.parent.as_deref()?)?;
                let settings = parent.managed_parent?;
                let parent_share = capacities.get(&parent.path)?.absolute_capacity;
                Some((
                    queue.conf.path.clone(),
                    parent_share * settings.leaf_capacity / 100.0,
                ))
            })
            .collect();
        for queue in &mut self.queues {
            queue.effective = capacities.remove(&queue.conf.path).unwrap_or_default();
            let share = if incomplete && self.conf.depends_on_amounts(&queue.conf.path) {
                100.0
            } else if let Some(&share) = template_shares.get(&queue.conf.path) {
                share
            } else {
                queue.effective.absolute_capacity
            };
            queue.application_limits = queue.conf.application_limits(global, share);
        }
        self.update_labelled_capacities();
    }

    /// What `index` may use now in `partition`: `child = min(parent - parent_used + child_used,
    /// child_max)` from the root down, rounded down to the minimum allocation (YARN's resource
    /// limits).
    fn current_limit(&self, index: usize, partition: &str) -> Resource {
        let calculator = self.conf.resource_calculator();
        let cluster = self.partition_resource(partition);
        let mut path = vec![index];
        while let Some(parent) = self.queues[path[path.len() - 1]].parent {
            path.push(parent);
        }
        path.reverse();
        let mut limit = self.queues[path[0]].effective_in(partition).maximum;
        for pair in path.windows(2) {
            let (parent, child) = (&self.queues[pair[0]], &self.queues[pair[1]]);
            let available = limit
                .saturating_sub(parent.used_in(partition))
                .saturating_add(child.used_in(partition));
            limit = calculator.min(cluster, available, child.effective_in(partition).maximum);
        }
        calculator.round_down(limit, self.conf.settings().minimum_allocation)
    }

    /// The limits of `leaf` in `partition` (`""`: the default partition).
    fn queue_limits(&self, leaf: usize, partition: &str) -> QueueLimits {
        let queue = &self.queues[leaf];
        let effective = queue.effective_in(partition);
        QueueLimits {
            calculator: self.conf.resource_calculator(),
            cluster: self.partition_resource(partition),
            guaranteed: effective.guaranteed,
            maximum: effective.maximum,
            current_limit: self.current_limit(leaf, partition),
            used: queue.used_in(partition),
            minimum_allocation: self.conf.settings().minimum_allocation,
            minimum_user_limit_percent: queue.conf.minimum_user_limit_percent,
            user_limit_factor: queue.conf.user_limit_factor,
            maximum_am_resource_percent: queue.conf.maximum_am_resource_percent,
        }
    }
}

/// Builds the queue table from a configuration: parents before children (path order), with
/// children in configured order, no usage.
fn build_queues(conf: &CapacitySchedulerConfiguration) -> (Vec<Queue>, BTreeMap<String, usize>) {
    let mut queues: Vec<Queue> = Vec::new();
    let mut index = BTreeMap::new();
    for queue in conf.queues() {
        let parent = queue.parent.as_ref().and_then(|p| index.get(p).copied());
        index.insert(queue.path.clone(), queues.len());
        queues.push(Queue::new(queue.clone(), parent));
    }
    for queue in &mut queues {
        queue.children = queue
            .conf
            .children
            .iter()
            .filter_map(|child| index.get(child).copied())
            .collect();
    }
    (queues, index)
}

/// Applies `f` to `leaf` and each of its ancestors.
fn for_each_up(queues: &mut [Queue], leaf: usize, mut f: impl FnMut(&mut Queue)) {
    let mut next = Some(leaf);
    while let Some(index) = next {
        f(&mut queues[index]);
        next = queues[index].parent;
    }
}
