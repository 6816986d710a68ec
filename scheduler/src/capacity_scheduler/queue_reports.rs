//! Reports: an application's status, an attempt's headroom, and each queue's configuration,
//! state and usage with its users' figures (what `getQueueInfo` and the web services show).
//!
//! They only read the scheduler; keeping them apart from the code that changes it shows that
//! asking for a report never moves anything.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

use super::CapacityScheduler;
use crate::Resource;
use crate::application::SchedulerApplication;
use crate::application_status::ApplicationStatus;
use crate::error::SchedulerError;
use crate::pending_reason::PendingReason;
use crate::queue::LeafUser;
use crate::queue_info::{PartitionInfo, QueueInfo, UserInfo};
use crate::queue_limits::QueueLimits;
use crate::queue_state::QueueState;

impl CapacityScheduler {
    /// An accepted application's status, `None` if unknown.
    pub fn application_status(&self, application_id: ApplicationId) -> Option<ApplicationStatus> {
        let app = self.applications.get(&application_id)?;
        let attempt = app.attempt.as_ref();
        Some(ApplicationStatus {
            application_id,
            queue: app.queue.clone(),
            user: app.user.clone(),
            priority: app.priority,
            attempt: attempt.map(|a| a.id),
            active: attempt.is_some_and(|a| a.active),
            pending_reason: match attempt {
                None => Some(PendingReason::WaitingForAttempt),
                Some(a) if a.active => None,
                Some(a) => a.pending_reason.clone(),
            },
            resources_used: app.used,
            num_containers: app.containers.len(),
        })
    }

    /// What the attempt's user may still get in its queue, as YARN computes the headroom in
    /// allocate responses: the smaller of the user's remaining limit and the queue's
    /// remaining current limit, capped by the cluster's free resources.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownAttempt`].
    pub fn headroom(&self, attempt_id: ApplicationAttemptId) -> Result<Resource, SchedulerError> {
        let app = self.current_attempt(attempt_id)?;
        let (limits, user_limit, user_used) = self.user_standing(app);
        let cluster_free = self.cluster_resource.saturating_sub(self.cluster_used);
        Ok(limits.headroom(user_limit, user_used, cluster_free))
    }

    /// The limits of `app`'s leaf queue, the limit of `app`'s user there, and what that user
    /// uses now. The limit is the one a scheduling pass applies, shared by the active users
    /// (those with pending asks) and `app`'s user, as YARN's `getHeadroom` takes the limit for
    /// active users: users with nothing pending do not shrink anyone's headroom.
    pub(super) fn user_standing(
        &self,
        app: &SchedulerApplication,
    ) -> (QueueLimits, Resource, Resource) {
        let leaf = &self.queues[app.leaf];
        let limits = self.queue_limits(app.leaf, "");
        let (active_used, active_weight) = self.active_share(app.leaf, Some(&app.user));
        let user_limit = limits.weighted_user_limit(
            limits.user_limit(Some(active_used), active_weight),
            leaf.conf.user_weight(&app.user),
        );
        let user_used = leaf.users.get(&app.user).map_or(Resource::ZERO, |u| u.used);
        (limits, user_limit, user_used)
    }

    /// A queue's configuration and usage; `queue` is a path or a unique name.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::NoSuchQueue`].
    pub fn queue_info(&self, queue: &str) -> Result<QueueInfo, SchedulerError> {
        let path = self.resolve_path(queue)?;
        let index = self
            .queue_index
            .get(&path)
            .copied()
            .ok_or(SchedulerError::NoSuchQueue { queue: path })?;
        Ok(self.describe_queue(index))
    }

    /// Every queue, parents before children.
    pub fn queue_infos(&self) -> Vec<QueueInfo> {
        (0..self.queues.len())
            .map(|index| self.describe_queue(index))
            .collect()
    }

    pub(super) fn reported_state(&self, index: usize) -> QueueState {
        let queue = &self.queues[index];
        match queue.conf.state {
            QueueState::Running => QueueState::Running,
            _ if queue.num_applications > 0 => QueueState::Draining,
            _ => QueueState::Stopped,
        }
    }

    fn describe_queue(&self, index: usize) -> QueueInfo {
        let queue = &self.queues[index];
        let conf = &queue.conf;
        let calculator = self.conf.resource_calculator();
        let cluster = self.cluster_resource;
        let percent_of = |whole: Resource| {
            if calculator.compare(cluster, whole, Resource::ZERO) == Ordering::Greater {
                calculator.divide(cluster, queue.used, whole) * 100.0
            } else {
                0.0
            }
        };
        let (am_resource_limit, users, demand) = if queue.is_leaf() {
            let limits = self.queue_limits(index, "");
            let user_limit = self.reported_user_limit(index);
            let demands = self.user_demands(index);
            let users = queue
                .users
                .iter()
                .map(|(user, figures): (&String, &LeafUser)| {
                    let demand = demands.get(user.as_str()).copied().unwrap_or_default();
                    UserInfo {
                        user: user.clone(),
                        resources_used: figures.used,
                        am_resources_used: figures.am_used,
                        num_active_applications: figures.num_active,
                        num_pending_applications: figures.num_applications - figures.num_active,
                        num_containers: demand.containers,
                        pending_resource: demand.pending,
                        pending_containers: demand.pending_containers,
                        user_limit: user_limit(user),
                        weight: conf.user_weight(user),
                    }
                })
                .collect();
            let demand = demands.into_values().fold(Demand::default(), Demand::add);
            (limits.am_limit(), users, demand)
        } else {
            (Resource::ZERO, Vec::new(), self.demand(index))
        };
        QueueInfo {
            queue_name: conf.name.clone(),
            queue_path: conf.path.clone(),
            state: self.reported_state(index),
            capacity: queue.effective.capacity,
            maximum_capacity: queue.effective.maximum_capacity,
            absolute_capacity: queue.effective.absolute_capacity,
            absolute_maximum_capacity: queue.effective.absolute_maximum_capacity,
            configured_capacity: conf.capacity,
            configured_maximum_capacity: conf.maximum_capacity,
            ordering_policy: conf.ordering_policy,
            queue_ordering_policy: conf.queue_ordering_policy,
            priority: conf.priority,
            used_capacity: percent_of(queue.effective.guaranteed),
            absolute_used_capacity: percent_of(cluster),
            resources_used: queue.used,
            guaranteed_resource: queue.effective.guaranteed,
            maximum_resource: queue.effective.maximum,
            num_applications: queue.num_applications,
            num_active_applications: queue.num_active,
            num_pending_applications: queue.num_applications - queue.num_active,
            num_containers: demand.containers,
            pending_resource: demand.pending,
            pending_containers: demand.pending_containers,
            acl_submit_applications: conf
                .acl_submit_applications
                .as_ref()
                .map(ToString::to_string),
            acl_administer_queue: conf.acl_administer_queue.as_ref().map(ToString::to_string),
            default_application_priority: conf.default_application_priority,
            disable_preemption: conf.disable_preemption,
            intra_queue_disable_preemption: conf.disable_preemption
                || conf.intra_queue_disable_preemption,
            shows_reservation_queues: conf
                .reservation
                .is_none_or(|reservation| reservation.show_reservations_as_queues),
            minimum_user_limit_percent: conf.minimum_user_limit_percent,
            user_limit_factor: conf.user_limit_factor,
            maximum_applications: queue.application_limits.queue,
            maximum_applications_per_user: queue.application_limits.per_user,
            max_parallel_apps: conf.max_parallel_apps,
            am_resource_limit,
            am_resource_used: queue.am_used,
            users,
            child_queues: queue
                .children
                .iter()
                .map(|child| self.queues[*child].conf.name.clone())
                .collect(),
            is_leaf: conf.is_leaf(),
            creation_method: conf.creation_method,
            auto_creation_eligibility: match (conf.managed_parent, conf.auto_queue_creation) {
                (Some(_), _) => "legacy",
                (None, Some(_)) => "flexible",
                (None, None) => "off",
            },
            accessible_node_labels: match &conf.node_labels.accessible {
                None => vec!["*".to_owned()],
                Some(labels) => labels.iter().cloned().collect(),
            },
            default_node_label_expression: conf.node_labels.default_expression.clone(),
            partitions: queue
                .labelled
                .iter()
                .filter(|(label, _)| self.node_labels.contains(label))
                .map(|(label, share)| PartitionInfo {
                    label: label.clone(),
                    capacity: share.effective.capacity,
                    maximum_capacity: share.effective.maximum_capacity,
                    absolute_capacity: share.effective.absolute_capacity,
                    absolute_maximum_capacity: share.effective.absolute_maximum_capacity,
                    resources_used: share.used,
                    guaranteed_resource: share.effective.guaranteed,
                    maximum_resource: share.effective.maximum,
                })
                .collect(),
        }
    }

    /// The [`Demand`] of queue `index`: its applications' for a leaf, its children's summed
    /// for a parent.
    fn demand(&self, index: usize) -> Demand {
        let queue = &self.queues[index];
        if queue.is_leaf() {
            self.user_demands(index)
                .into_values()
                .fold(Demand::default(), Demand::add)
        } else {
            queue
                .children
                .iter()
                .map(|child| self.demand(*child))
                .fold(Demand::default(), Demand::add)
        }
    }

    /// A user's limit in `leaf` as `queue -status` reports it: the limit all the leaf's users
    /// share, times the user's weight.
    pub(super) fn reported_user_limit(&self, leaf: usize) -> impl Fn(&str) -> Resource + '_ {
        let queue = &self.queues[leaf];
        let limits = self.queue_limits(leaf, "");
        let weights: f64 = queue
            .users
            .keys()
            .map(|user| queue.conf.user_weight(user))
            .sum();
        let shared = limits.user_limit(None, weights);
        move |user| limits.weighted_user_limit(shared, queue.conf.user_weight(user))
    }

    /// The [`Demand`] of each user's applications in leaf `index`.
    fn user_demands(&self, leaf: usize) -> BTreeMap<&str, Demand> {
        let mut demands: BTreeMap<&str, Demand> = BTreeMap::new();
        for (_, _, application_id) in &self.queues[leaf].apps {
            if let Some(app) = self.applications.get(application_id) {
                let demand = demands.entry(app.user.as_str()).or_default();
                *demand = demand.add(Demand::of(app));
            }
        }
        demands
    }
}

/// What applications hold and still want, as Hadoop's `QueueMetrics` counts it: their live
/// GUARANTEED containers, and the containers their current attempts still ask for with the
/// resources those take.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Demand {
    containers: usize,
    pub(super) pending: Resource,
    pending_containers: u64,
}

impl Demand {
    /// What `app` holds and its current attempt still wants, the AM container if not yet
    /// allocated included.
    pub(super) fn of(app: &SchedulerApplication) -> Self {
        Self::in_partition(app, None)
    }

    /// [`of`](Self::of), the pending part counting only what asks for `partition` when given.
    pub(super) fn in_partition(app: &SchedulerApplication, partition: Option<&str>) -> Self {
        let mut demand = Self {
            containers: app.containers.len(),
            ..Self::default()
        };
        let Some(attempt) = &app.attempt else {
            return demand;
        };
        let wanted = |label: &str| partition.is_none_or(|partition| partition == label);
        if attempt.am_pending && wanted(&app.am_label) {
            demand.pending = attempt.am_resource;
            demand.pending_containers = 1;
        }
        for (_, asks) in attempt
            .asks
            .pending_from(None)
            .filter(|(_, asks)| wanted(asks.partition()))
        {
            let outstanding = asks.outstanding();
            demand.pending = demand
                .pending
                .saturating_add(asks.capability().saturating_mul(outstanding));
            demand.pending_containers += u64::from(outstanding);
        }
        demand
    }

    fn add(self, other: Self) -> Self {
        Self {
            containers: self.containers + other.containers,
            pending: self.pending.saturating_add(other.pending),
            pending_containers: self.pending_containers + other.pending_containers,
        }
    }
}
