//! Applications and their attempts: the checks at submission (queue resolution, queue state,
//! ACLs, `maximum-applications`), accepting, recovering, moving, re-prioritizing and removing
//! applications, starting attempts and replacing their asks.
//!
//! These are the entry points clients and AMs drive; how an attempt then becomes active lives in
//! [`activation`](super::activation), and what happens to its containers in
//! [`containers`](super::containers).

use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

use super::{CapacityScheduler, for_each_up};
use crate::Resource;
use crate::allocation::Allocation;
use crate::application::{Attempt, SchedulerApplication};
use crate::application_lifetime::ApplicationLifetime;
use crate::application_status::AcceptedApplication;
use crate::error::SchedulerError;
use crate::queue::{Queue, change};
use crate::queue_acl::QueueAcl;
use crate::queue_state::QueueState;
use crate::resource_request::ResourceRequest;

impl CapacityScheduler {
    /// Accepts an application into `queue` (a full path, or a leaf name that is unique), as
    /// YARN does at submission.
    ///
    /// Checked in this order: the queue exists and is not ambiguous, it is a leaf, it and its
    /// ancestors are RUNNING, the user may submit (`acl_submit_applications` or
    /// `acl_administer_queue` on the queue or an ancestor, when `yarn.acl.enable` is true),
    /// the queue is below `maximum-applications` and the user below its per-user share. The
    /// priority is the requested one or the queue's `default-application-priority`, lowered to
    /// `yarn.cluster.max-application-priority`. An accepted application waits for
    /// [`add_attempt`](Self::add_attempt) before it can become active.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::DuplicateApplication`], [`SchedulerError::UnknownQueue`],
    /// [`SchedulerError::AmbiguousQueue`], [`SchedulerError::NotLeafQueue`],
    /// [`SchedulerError::QueueNotRunning`], [`SchedulerError::AccessDenied`],
    /// [`SchedulerError::QueueApplicationLimit`], [`SchedulerError::UserApplicationLimit`],
    /// and [`SchedulerError::InvalidLabelRequest`] when the queue's
    /// `default-node-label-expression` names a label it cannot be given.
    pub fn submit_application(
        &mut self,
        application_id: ApplicationId,
        queue: &str,
        user: &str,
        groups: &[String],
        priority: Option<i32>,
    ) -> Result<AcceptedApplication, SchedulerError> {
        if self.applications.contains_key(&application_id) {
            return Err(SchedulerError::DuplicateApplication {
                application: application_id,
            });
        }
        let leaf = self.resolve_leaf(application_id, queue, user)?;
        self.check_queue_running(application_id, leaf)?;
        self.check_submission(application_id, queue, user, groups, None)?;
        self.check_application_limits(application_id, leaf, user)?;
        // The queue's default label must be usable, or its applications could never start.
        let default_label = self.resolve_label(
            ApplicationAttemptId::new(application_id, 1),
            leaf,
            "",
            &self.queues[leaf].conf.node_labels.default_expression,
        )?;
        let leaf_queue = &self.queues[leaf];
        let priority = priority
            .unwrap_or(leaf_queue.conf.default_application_priority)
            .min(self.conf.settings().max_application_priority);
        Ok(self.insert_application(application_id, leaf, user, priority, default_label))
    }

    /// Checks that the accepted application could move to `queue` (a path or unique name): a
    /// leaf whose path is RUNNING, below its application limits for the application's user; a
    /// plan queue stands for its default reservation queue, as in Hadoop.
    /// Returns the target's path; moving to the queue the application is in passes. Changes
    /// nothing: the caller commits the move, then applies it with
    /// [`move_application`](Self::move_application). Rights on the target queue are the
    /// caller's to check ([`check_access`](Self::check_access)), as they concern whoever
    /// asks for the move.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownQueue`],
    /// [`SchedulerError::AmbiguousQueue`], [`SchedulerError::NotLeafQueue`],
    /// [`SchedulerError::QueueNotRunning`], [`SchedulerError::QueueApplicationLimit`],
    /// [`SchedulerError::UserApplicationLimit`], and [`SchedulerError::InvalidLabelRequest`]
    /// when the target may not use the application's partition.
    pub fn check_move(
        &self,
        application_id: ApplicationId,
        queue: &str,
    ) -> Result<String, SchedulerError> {
        let app = self.application(application_id)?;
        let target = self.placement_queue(application_id, queue, &app.user, None)?;
        let leaf = self.resolve_leaf(application_id, &target, &app.user)?;
        if leaf != app.leaf {
            self.check_queue_running(application_id, leaf)?;
            self.check_application_limits(application_id, leaf, &app.user)?;
            // As Hadoop's checkQueuePartition: the target must serve the partitions the
            // application runs and asks in.
            let attempt = ApplicationAttemptId::new(application_id, 1);
            for label in [&app.default_label, &app.am_label] {
                self.resolve_label(attempt, leaf, "", label)?;
            }
        }
        Ok(self.queues[leaf].conf.path.clone())
    }

    /// Moves an accepted application, with its attempt, asks, containers and usage, to the
    /// leaf `queue`, as YARN's `moveApplication` detaches every live container from the source
    /// queue and attaches it to the target. Only the queue's existence is checked (a committed
    /// move is a fact, like a recovered application); nodes and the cluster are untouched.
    /// The source may then activate waiting applications; the target's limits apply to the
    /// application's next containers.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownQueue`],
    /// [`SchedulerError::AmbiguousQueue`], [`SchedulerError::NotLeafQueue`].
    pub fn move_application(
        &mut self,
        application_id: ApplicationId,
        queue: &str,
    ) -> Result<(), SchedulerError> {
        let app = self.application(application_id)?;
        let target = self.resolve_leaf(application_id, queue, &app.user)?;
        let source = app.leaf;
        if target == source {
            return Ok(());
        }
        let app = app.clone();
        let awaiting = self.awaiting_activation.remove(&(source, app.order()));
        account_application(&mut self.queues, &app, Accounting::Remove);
        let moved = SchedulerApplication {
            leaf: target,
            queue: self.queues[target].conf.path.clone(),
            ..app
        };
        account_application(&mut self.queues, &moved, Accounting::Add);
        if awaiting {
            self.awaiting_activation.insert((target, moved.order()));
        }
        self.applications.insert(application_id, moved);
        self.activate();
        Ok(())
    }

    /// Gives an accepted application a new priority, lowered to
    /// `yarn.cluster.max-application-priority`, and returns the priority it got. Its place in
    /// its queue's serving order follows at once; containers it holds stay.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`].
    pub fn update_application_priority(
        &mut self,
        application_id: ApplicationId,
        priority: i32,
    ) -> Result<i32, SchedulerError> {
        let app = self.application(application_id)?;
        let priority = priority.min(self.conf.settings().max_application_priority);
        if app.priority == priority {
            return Ok(priority);
        }
        let (leaf, order) = (app.leaf, app.order());
        let awaiting = self.awaiting_activation.remove(&(leaf, order));
        self.queues[leaf].apps.remove(&order);
        if let Some(app) = self.applications.get_mut(&application_id) {
            app.priority = priority;
            let order = app.order();
            self.queues[leaf].apps.insert(order);
            if awaiting {
                self.awaiting_activation.insert((leaf, order));
            }
        }
        self.activate();
        Ok(priority)
    }

    /// `capability` as the current attempt would get it: refused above its queue's maximum
    /// allocation, otherwise rounded up to multiples of the minimum allocation.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownAttempt`],
    /// [`SchedulerError::InvalidResourceRequest`].
    pub fn normalize(
        &self,
        attempt_id: ApplicationAttemptId,
        capability: Resource,
        priority: i32,
    ) -> Result<Resource, SchedulerError> {
        let leaf = self.current_attempt(attempt_id)?.leaf;
        self.normalize_ask(attempt_id, leaf, capability, priority)
    }

    /// The checks YARN makes while the client waits, before a submission is stored: the queue
    /// resolves to a leaf, `user` may submit to it, and the AM container (`am_resource`, `None`
    /// for an unmanaged AM) fits its maximum allocation. Changes nothing; the queue's state and
    /// application limits are checked at admission ([`submit_application`](Self::submit_application)).
    /// Returns the application lifetimes of the leaf, which the submission's lifetime is
    /// resolved against.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownQueue`], [`SchedulerError::AmbiguousQueue`],
    /// [`SchedulerError::NotLeafQueue`], [`SchedulerError::AccessDenied`],
    /// [`SchedulerError::InvalidResourceRequest`].
    pub fn check_submission(
        &self,
        application_id: ApplicationId,
        queue: &str,
        user: &str,
        groups: &[String],
        am_resource: Option<Resource>,
    ) -> Result<ApplicationLifetime, SchedulerError> {
        let leaf = self.resolve_leaf(application_id, queue, user)?;
        let path = &self.queues[leaf].conf.path;
        if !self
            .conf
            .has_access(path, QueueAcl::SubmitApplications, user, groups)
        {
            return Err(SchedulerError::AccessDenied {
                user: user.to_string(),
                right: QueueAcl::SubmitApplications,
                queue: path.clone(),
            });
        }
        if let Some(am_resource) = am_resource {
            self.normalize_ask(
                ApplicationAttemptId::new(application_id, 1),
                leaf,
                am_resource,
                0,
            )?;
        }
        Ok(self.queues[leaf].conf.application_lifetime)
    }

    /// Re-creates an application a new leader finds in the replicated state: the queue must
    /// exist and be a leaf, but state, ACLs and application limits are not checked again, and
    /// the priority is taken as recorded.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::DuplicateApplication`], [`SchedulerError::UnknownQueue`],
    /// [`SchedulerError::AmbiguousQueue`], [`SchedulerError::NotLeafQueue`].
    pub fn recover_application(
        &mut self,
        application_id: ApplicationId,
        queue: &str,
        user: &str,
        priority: i32,
    ) -> Result<AcceptedApplication, SchedulerError> {
        if self.applications.contains_key(&application_id) {
            return Err(SchedulerError::DuplicateApplication {
                application: application_id,
            });
        }
        let leaf = self.resolve_leaf(application_id, queue, user)?;
        // A default label no longer usable leaves the application in the default partition:
        // it was admitted, and must keep running.
        let default_label = self
            .resolve_label(
                ApplicationAttemptId::new(application_id, 1),
                leaf,
                "",
                &self.queues[leaf].conf.node_labels.default_expression,
            )
            .unwrap_or_default();
        Ok(self.insert_application(application_id, leaf, user, priority, default_label))
    }

    /// Starts an attempt whose AM container needs `am_resource`. The AM container becomes the
    /// attempt's first ask; a previous attempt ends (its asks are dropped, its containers
    /// stay with the application). The attempt then goes through `max-parallel-apps` and the
    /// AM limits; [`application_status`](Self::application_status) tells whether it is active
    /// and why not. Adding the current attempt again changes nothing.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], and [`SchedulerError::InvalidResourceRequest`]
    /// when the AM resource exceeds the queue's maximum allocation.
    pub fn add_attempt(
        &mut self,
        attempt_id: ApplicationAttemptId,
        am_resource: Resource,
    ) -> Result<(), SchedulerError> {
        let app = self.application(attempt_id.application_id)?;
        if app.attempt.as_ref().is_some_and(|a| a.id == attempt_id) {
            return Ok(());
        }
        let am_resource = self.normalize_ask(attempt_id, app.leaf, am_resource, 0)?;
        self.start_attempt(attempt_id, am_resource, true);
        Ok(())
    }

    /// Starts an attempt that needs no AM container from this scheduler: an unmanaged AM
    /// running outside the cluster, or an attempt whose AM container was already allocated
    /// and has completed, which waits for its successor. Otherwise as
    /// [`add_attempt`](Self::add_attempt), with nothing charged against AM limits.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`].
    pub fn add_attempt_without_am(
        &mut self,
        attempt_id: ApplicationAttemptId,
    ) -> Result<(), SchedulerError> {
        let app = self.application(attempt_id.application_id)?;
        if app.attempt.as_ref().is_some_and(|a| a.id == attempt_id) {
            return Ok(());
        }
        self.start_attempt(attempt_id, Resource::default(), false);
        Ok(())
    }

    fn start_attempt(
        &mut self,
        attempt_id: ApplicationAttemptId,
        am_resource: Resource,
        am_pending: bool,
    ) {
        let application_id = attempt_id.application_id;
        self.finish_attempt(application_id);
        if let Some(app) = self.applications.get_mut(&application_id) {
            app.attempt = Some(Attempt {
                id: attempt_id,
                am_resource,
                am_pending,
                runnable: false,
                active: false,
                pending_reason: None,
                asks: Default::default(),
                blacklist: BTreeSet::new(),
                promotions: BTreeMap::new(),
                increases: BTreeMap::new(),
                unacquired: BTreeMap::new(),
            });
            self.not_runnable
                .insert((app.submission_order, application_id));
        }
        self.activate();
    }

    /// Replaces asks of the current attempt (same priority, allocation request id and
    /// resource name) and releases containers it no longer needs, returning the released ones.
    /// Asks are normalized: each dimension rounded up to a multiple of the minimum allocation.
    /// Unknown (already finished) containers in `releases` are ignored.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownAttempt`],
    /// [`SchedulerError::InvalidResourceRequest`] naming the ask and the queue's maximum
    /// allocation, and [`SchedulerError::ContainerNotOwned`]; nothing is applied then.
    pub fn update_asks(
        &mut self,
        attempt_id: ApplicationAttemptId,
        asks: &[ResourceRequest],
        releases: &[ContainerId],
    ) -> Result<Vec<Allocation>, SchedulerError> {
        let app = self.current_attempt(attempt_id)?;
        let leaf = app.leaf;
        let mut normalized = Vec::with_capacity(asks.len());
        for ask in asks {
            let capability = self.normalize_ask(attempt_id, leaf, ask.capability, ask.priority)?;
            // As Hadoop, only the off-switch ask may name a label: a key's containers go to
            // one partition, and its host and rack asks stand in the application's.
            let node_label_expression = if ask.is_any() {
                self.resolve_label(
                    attempt_id,
                    leaf,
                    &ask.node_label_expression,
                    &app.default_label,
                )?
            } else if ask.node_label_expression.trim().is_empty() {
                app.default_label.clone()
            } else {
                return Err(SchedulerError::InvalidLabelRequest {
                    attempt: attempt_id,
                    expression: ask.node_label_expression.clone(),
                    reason: format!(
                        "is set on the ask for {}: only the ask for any node (*) may name a label",
                        ask.resource_name
                    ),
                });
            };
            normalized.push(ResourceRequest {
                capability,
                node_label_expression,
                ..ask.clone()
            });
        }
        for container in releases {
            if let Some(allocation) = self.containers.get(container) {
                if allocation.application_attempt_id.application_id != attempt_id.application_id {
                    return Err(SchedulerError::ContainerNotOwned {
                        container: *container,
                        application: attempt_id.application_id,
                    });
                }
            }
        }
        if let Some(attempt) = self
            .applications
            .get_mut(&attempt_id.application_id)
            .and_then(|app| app.attempt.as_mut())
        {
            for ask in normalized {
                attempt.asks.update(ask);
            }
        }
        let released: Vec<Allocation> = releases
            .iter()
            .filter_map(|container| self.release_container(container))
            .collect();
        if released.iter().any(|allocation| allocation.is_am) {
            self.activate();
        }
        Ok(released)
    }

    /// Removes a finished or killed application: releases its containers (returned in id
    /// order), ends its attempt and lets waiting applications activate.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`].
    pub fn remove_application(
        &mut self,
        application_id: ApplicationId,
    ) -> Result<Vec<Allocation>, SchedulerError> {
        let app = self.application(application_id)?;
        let owned: Vec<ContainerId> = app.containers.iter().copied().collect();
        let released = owned
            .iter()
            .filter_map(|container| self.release_container(container))
            .collect();
        self.finish_attempt(application_id);
        if let Some(app) = self.applications.remove(&application_id) {
            let leaf = app.leaf;
            self.queues[leaf].apps.remove(&app.order());
            for_each_up(&mut self.queues, leaf, |q| q.num_applications -= 1);
            if let Some(user) = self.queues[leaf].users.get_mut(&app.user) {
                user.num_applications -= 1;
                if user.num_applications == 0 {
                    self.queues[leaf].users.remove(&app.user);
                }
            }
        }
        self.activate();
        Ok(released)
    }

    /// Refuses a leaf whose path holds a queue that is not RUNNING.
    fn check_queue_running(
        &self,
        application_id: ApplicationId,
        leaf: usize,
    ) -> Result<(), SchedulerError> {
        let path = &self.queues[leaf].conf.path;
        match self
            .conf
            .ancestry(path)
            .into_iter()
            .find(|queue| queue.state != QueueState::Running)
        {
            Some(stopped) => Err(SchedulerError::QueueNotRunning {
                application: application_id,
                queue: path.clone(),
                state: self.reported_state(leaf),
                stopped_queue: stopped.path.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Refuses a leaf at its `maximum-applications`, or at `user`'s share of it.
    fn check_application_limits(
        &self,
        application_id: ApplicationId,
        leaf: usize,
        user: &str,
    ) -> Result<(), SchedulerError> {
        let leaf_queue = &self.queues[leaf];
        let path = &leaf_queue.conf.path;
        if leaf_queue.num_applications >= leaf_queue.application_limits.queue as usize {
            return Err(SchedulerError::QueueApplicationLimit {
                application: application_id,
                queue: path.clone(),
                current: leaf_queue.num_applications,
                limit: leaf_queue.application_limits.queue,
            });
        }
        let user_applications = leaf_queue.users.get(user).map_or(0, |u| u.num_applications);
        if user_applications >= leaf_queue.application_limits.per_user as usize {
            return Err(SchedulerError::UserApplicationLimit {
                application: application_id,
                queue: path.clone(),
                user: user.to_string(),
                current: user_applications,
                limit: leaf_queue.application_limits.per_user,
            });
        }
        Ok(())
    }

    fn insert_application(
        &mut self,
        application_id: ApplicationId,
        leaf: usize,
        user: &str,
        priority: i32,
        default_label: String,
    ) -> AcceptedApplication {
        let submission_order = self.next_submission_order;
        self.next_submission_order += 1;
        let app = SchedulerApplication {
            id: application_id,
            user: user.to_string(),
            queue: self.queues[leaf].conf.path.clone(),
            leaf,
            priority,
            submission_order,
            attempt: None,
            used: Resource::ZERO,
            labelled_used: BTreeMap::new(),
            am_label: default_label.clone(),
            default_label,
            containers: BTreeSet::new(),
            next_sequence: 1,
        };
        self.queues[leaf].apps.insert(app.order());
        for_each_up(&mut self.queues, leaf, |q| q.num_applications += 1);
        self.queues[leaf]
            .users
            .entry(user.to_string())
            .or_default()
            .num_applications += 1;
        let accepted = AcceptedApplication {
            application_id,
            queue: app.queue.clone(),
            priority,
        };
        self.applications.insert(application_id, app);
        accepted
    }

    /// Rejects an ask above the queue's maximum allocation (in any dimension, whatever the
    /// calculator, as YARN validates) and normalizes it.
    fn normalize_ask(
        &self,
        attempt_id: ApplicationAttemptId,
        leaf: usize,
        capability: Resource,
        priority: i32,
    ) -> Result<Resource, SchedulerError> {
        let queue = &self.queues[leaf].conf;
        let maximum = queue.maximum_allocation;
        if !capability.fits_in_every_dimension(&maximum) {
            return Err(SchedulerError::InvalidResourceRequest {
                attempt: attempt_id,
                requested: capability,
                priority,
                maximum,
                queue: queue.path.clone(),
            });
        }
        let minimum = self.conf.settings().minimum_allocation;
        Ok(self
            .conf
            .resource_calculator()
            .normalize(capability, minimum, maximum, minimum))
    }
}

/// Whether [`account_application`] adds an application to its queues or takes it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Accounting {
    Add,
    Remove,
}

impl Accounting {
    fn count(self, value: usize, by: usize) -> usize {
        match self {
            Self::Add => value.saturating_add(by),
            Self::Remove => value.saturating_sub(by),
        }
    }

    fn charge(self, mut value: Resource, by: Resource) -> Resource {
        change(&mut value, by, self == Self::Add);
        value
    }
}

/// Adds an application's counts and usage to its leaf and the leaf's ancestors (a freshly
/// built queue table, or the target of a move), or takes them out (the source of a move).
pub(super) fn account_application(
    queues: &mut [Queue],
    app: &SchedulerApplication,
    accounting: Accounting,
) {
    let leaf = app.leaf;
    let runnable = usize::from(app.attempt.as_ref().is_some_and(|a| a.runnable));
    let active = app
        .attempt
        .as_ref()
        .filter(|a| a.active)
        .map(|a| a.am_resource);
    let num_active = usize::from(active.is_some());
    let am_resource = active.unwrap_or(Resource::ZERO);
    let count = |value: usize, by: usize| accounting.count(value, by);
    let charge = |value: Resource, by: Resource| accounting.charge(value, by);
    match accounting {
        Accounting::Add => queues[leaf].apps.insert(app.order()),
        Accounting::Remove => queues[leaf].apps.remove(&app.order()),
    };
    let default_used = app.default_used();
    let user = queues[leaf].users.entry(app.user.clone()).or_default();
    user.num_applications = count(user.num_applications, 1);
    user.used = charge(user.used, default_used);
    if app.am_label.is_empty() {
        user.am_used = charge(user.am_used, am_resource);
    }
    user.num_active = count(user.num_active, num_active);
    if user.num_applications == 0 {
        queues[leaf].users.remove(&app.user);
    }
    queues[leaf].charge_am_in(&app.am_label, am_resource, accounting == Accounting::Add);
    for_each_up(queues, leaf, |q| {
        q.num_applications = count(q.num_applications, 1);
        q.used = charge(q.used, default_used);
        for (label, used) in &app.labelled_used {
            q.charge_in(label, *used, accounting == Accounting::Add);
        }
        q.num_runnable = count(q.num_runnable, runnable);
        q.num_active = count(q.num_active, num_active);
    });
}
