//! Activation: how an attempt moves from waiting to active. First `max-parallel-apps` (per user
//! overall and per queue path, in submission order) makes it runnable, then the queue's and the
//! user's AM limits (per leaf, in serving order) make it active; until then the attempt carries
//! the reason it waits. Ending an attempt gives its slot and AM charge back.
//!
//! Every change that may free room (a node, a container, an attempt, an application, a
//! refresh) calls [`CapacityScheduler::activate`], so the rules are applied in one place.

use std::cmp::{Ordering, Reverse};
use std::collections::BTreeSet;

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

use super::{CapacityScheduler, for_each_up};
use crate::Resource;
use crate::activities::{ActivityDiagnostic, ActivityState};
use crate::application::AppOrder;
use crate::pending_reason::PendingReason;
use crate::queue_limits::QueueLimits;

impl CapacityScheduler {
    /// Records why the current attempt of `application_id` still waits.
    fn hold(&mut self, application_id: ApplicationId, reason: PendingReason) {
        if self.activities.is_some() {
            let partition = self
                .applications
                .get(&application_id)
                .map(|app| app.am_label.clone())
                .unwrap_or_default();
            let activity = self
                .start_activity(application_id, &partition)
                .map(|mut activity| {
                    let diagnostic = ActivityDiagnostic::NotActivated(reason.clone());
                    activity.pass_over(ActivityState::Skipped, diagnostic);
                    activity
                });
            self.keep_activity(activity);
        }
        if let Some(attempt) = self
            .applications
            .get_mut(&application_id)
            .and_then(|app| app.attempt.as_mut())
        {
            attempt.pending_reason = Some(reason);
        }
    }

    /// Moves waiting attempts forward: first through `max-parallel-apps` (submission order),
    /// then through the AM limits (per leaf, serving order).
    pub(super) fn activate(&mut self) {
        let held: Vec<(u64, ApplicationId)> = self.not_runnable.iter().copied().collect();
        for (_, application_id) in held {
            match self.parallel_block(application_id) {
                Some(reason) => self.hold(application_id, reason),
                None => self.make_runnable(application_id),
            }
        }
        let leaves: BTreeSet<usize> = self.awaiting_activation.iter().map(|(l, _)| *l).collect();
        for leaf in leaves {
            self.activate_leaf(leaf);
        }
    }

    fn parallel_block(&self, application_id: ApplicationId) -> Option<PendingReason> {
        let app = self.applications.get(&application_id)?;
        if let Some(limit) = self.conf.user_max_parallel_apps(&app.user) {
            let running = self.user_runnable.get(&app.user).copied().unwrap_or(0);
            if running >= limit as usize {
                return Some(PendingReason::UserParallelLimit {
                    user: app.user.clone(),
                    limit,
                });
            }
        }
        let mut next = Some(app.leaf);
        while let Some(index) = next {
            let queue = &self.queues[index];
            if let Some(limit) = queue.conf.max_parallel_apps {
                if queue.num_runnable >= limit as usize {
                    return Some(PendingReason::QueueParallelLimit {
                        queue: queue.conf.path.clone(),
                        limit,
                    });
                }
            }
            next = queue.parent;
        }
        None
    }

    fn make_runnable(&mut self, application_id: ApplicationId) {
        let Some(app) = self.applications.get_mut(&application_id) else {
            return;
        };
        let order = app.order();
        let Some(attempt) = app.attempt.as_mut() else {
            return;
        };
        attempt.runnable = true;
        attempt.pending_reason = None;
        let (leaf, user) = (app.leaf, app.user.clone());
        self.not_runnable
            .remove(&(app.submission_order, application_id));
        *self.user_runnable.entry(user).or_insert(0) += 1;
        for_each_up(&mut self.queues, leaf, |q| q.num_runnable += 1);
        self.awaiting_activation.insert((leaf, order));
    }

    fn activate_leaf(&mut self, leaf: usize) {
        let waiting: Vec<AppOrder> = self
            .awaiting_activation
            .range((leaf, first_order())..)
            .take_while(|(l, _)| *l == leaf)
            .map(|(_, order)| *order)
            .collect();
        let calculator = self.conf.resource_calculator();
        let active_users = self.active_users(leaf).len();
        // The AM's limits are those of the partition its container goes to; activating an
        // attempt changes none of them, so the default partition's are worked out once.
        let mut default_limits: Option<(Resource, QueueLimits)> = None;
        for order in waiting {
            let application_id = order.2;
            let Some(app) = self.applications.get(&application_id) else {
                continue;
            };
            let Some(am_resource) = app.attempt.as_ref().map(|a| a.am_resource) else {
                continue;
            };
            let (cluster, limits) = if app.am_label.is_empty() {
                *default_limits
                    .get_or_insert_with(|| (self.cluster_resource, self.queue_limits(leaf, "")))
            } else {
                (
                    self.partition_resource(&app.am_label),
                    self.queue_limits(leaf, &app.am_label),
                )
            };
            let am_limit = limits.am_limit();
            let queue = &self.queues[leaf];
            let am_used = queue.am_used_in(&app.am_label);
            let reason = if cluster.is_zero() {
                Some(PendingReason::ClusterResourceEmpty)
            } else {
                // As YARN, enforcement is skipped while the queue runs no AM at all (in the
                // partition), so a too-small percentage can never block a queue completely.
                let lenient = queue.num_active == 0
                    || calculator.compare(cluster, am_used, Resource::ZERO) != Ordering::Greater;
                let user_am_used = queue
                    .users
                    .get(&app.user)
                    .map_or(Resource::ZERO, |u| u.am_used);
                let user_am_limit =
                    limits.user_am_limit(active_users, queue.conf.user_weight(&app.user));
                if !lenient && !calculator.fits_in(am_used.saturating_add(am_resource), am_limit) {
                    Some(PendingReason::QueueAmLimit {
                        queue: queue.conf.path.clone(),
                        am_resource,
                        am_used,
                        am_limit,
                    })
                } else if !lenient
                    // Users' AM limits hold in the default partition only.
                    && app.am_label.is_empty()
                    && !calculator.fits_in(user_am_used.saturating_add(am_resource), user_am_limit)
                {
                    Some(PendingReason::UserAmLimit {
                        queue: queue.conf.path.clone(),
                        user: app.user.clone(),
                        am_resource,
                        am_used: user_am_used,
                        am_limit: user_am_limit,
                    })
                } else {
                    None
                }
            };
            match reason {
                Some(reason) => self.hold(application_id, reason),
                None => self.mark_active(application_id),
            }
        }
    }

    fn mark_active(&mut self, application_id: ApplicationId) {
        let Some(app) = self.applications.get_mut(&application_id) else {
            return;
        };
        let order = app.order();
        let (leaf, user, am_label) = (app.leaf, app.user.clone(), app.am_label.clone());
        let Some(attempt) = app.attempt.as_mut() else {
            return;
        };
        if attempt.active {
            return;
        }
        attempt.active = true;
        attempt.pending_reason = None;
        let am_resource = attempt.am_resource;
        self.awaiting_activation.remove(&(leaf, order));
        let queue = &mut self.queues[leaf];
        queue.charge_am_in(&am_label, am_resource, true);
        let entry = queue.users.entry(user).or_default();
        if am_label.is_empty() {
            entry.am_used = entry.am_used.saturating_add(am_resource);
        }
        entry.num_active += 1;
        for_each_up(&mut self.queues, leaf, |q| q.num_active += 1);
    }

    pub(super) fn force_active(
        &mut self,
        application_id: ApplicationId,
        attempt_id: ApplicationAttemptId,
    ) {
        let Some(attempt) = self
            .applications
            .get_mut(&application_id)
            .and_then(|app| app.attempt.as_mut())
            .filter(|attempt| attempt.id == attempt_id)
        else {
            return;
        };
        attempt.am_pending = false;
        let runnable = attempt.runnable;
        if !runnable {
            self.make_runnable(application_id);
        }
        self.mark_active(application_id);
    }

    /// Ends the current attempt: frees its `max-parallel-apps` slot and AM charge and drops
    /// its asks. Its containers stay with the application.
    pub(super) fn finish_attempt(&mut self, application_id: ApplicationId) {
        let Some(app) = self.applications.get_mut(&application_id) else {
            return;
        };
        let Some(attempt) = app.attempt.take() else {
            return;
        };
        let (leaf, user, order, submission_order, am_label) = (
            app.leaf,
            app.user.clone(),
            app.order(),
            app.submission_order,
            app.am_label.clone(),
        );
        if attempt.runnable {
            if let Some(count) = self.user_runnable.get_mut(&user) {
                *count -= 1;
                if *count == 0 {
                    self.user_runnable.remove(&user);
                }
            }
            for_each_up(&mut self.queues, leaf, |q| q.num_runnable -= 1);
            self.awaiting_activation.remove(&(leaf, order));
        } else {
            self.not_runnable
                .remove(&(submission_order, application_id));
        }
        if attempt.active {
            let queue = &mut self.queues[leaf];
            queue.charge_am_in(&am_label, attempt.am_resource, false);
            if let Some(entry) = queue.users.get_mut(&user) {
                if am_label.is_empty() {
                    entry.am_used = entry.am_used.saturating_sub(attempt.am_resource);
                }
                entry.num_active -= 1;
            }
            for_each_up(&mut self.queues, leaf, |q| q.num_active -= 1);
        }
    }
}

/// The smallest [`AppOrder`], to start a range scan of one leaf.
fn first_order() -> AppOrder {
    (Reverse(i32::MAX), 0, ApplicationId::new(i64::MIN, i32::MIN))
}
