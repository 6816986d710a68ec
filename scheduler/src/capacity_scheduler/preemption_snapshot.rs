//! The queues and running containers as a preemption round sees them.

use std::collections::BTreeMap;

use super::CapacityScheduler;
use super::queue_reports::Demand;
use crate::Resource;
use crate::application::SchedulerApplication;
use crate::preemption::{
    LeafContainers, PreemptionQueue, PreemptionSnapshot, RunningApplication, RunningContainer,
};

impl CapacityScheduler {
    /// The queue tree with every queue's guarantee, maximum, usage and demand, and each leaf's
    /// applications with their GUARANTEED containers, for one preemption round.
    ///
    /// A leaf's demand is what its active applications ask for and do not hold yet (an
    /// attempt's AM container included until it is placed), each user's only up to the room
    /// left under its user limit, as Hadoop's `getTotalPendingResourcesConsideringUserLimit`
    /// counts it (the user limit here is the one `queue -status` reports, shared by all the
    /// leaf's users); a leaf's AM limit for preemption is its guarantee times
    /// `maximum-am-resource-percent`, as Hadoop's selector takes it.
    pub fn preemption_snapshot(&self) -> PreemptionSnapshot {
        // The queue table starts with the root (`build_queues` puts parents first).
        let root = self.preemption_queue(0);
        let leaves = (0..self.queues.len())
            .filter(|&index| self.queues[index].is_leaf())
            .map(|leaf| {
                (
                    self.queues[leaf].conf.path.clone(),
                    self.leaf_containers(leaf),
                )
            })
            .collect();
        PreemptionSnapshot {
            root,
            leaves,
            cluster: self.cluster_resource,
            calculator: self.conf.resource_calculator(),
        }
    }

    fn preemption_queue(&self, index: usize) -> PreemptionQueue {
        let queue = &self.queues[index];
        let conf = &queue.conf;
        if queue.is_leaf() {
            PreemptionQueue::leaf(
                conf.path.clone(),
                queue.effective.guaranteed,
                queue.effective.maximum,
                queue.used,
                self.pending_within_user_limits(index),
                conf.disable_preemption,
            )
        } else {
            let respects_priority = conf.queue_ordering_policy.respects_priority();
            let children = queue
                .children
                .iter()
                .map(|&child| {
                    let snapshot = self.preemption_queue(child);
                    if respects_priority {
                        snapshot.with_relative_priority(self.queues[child].conf.priority)
                    } else {
                        snapshot
                    }
                })
                .collect();
            PreemptionQueue::parent(
                conf.path.clone(),
                queue.effective.guaranteed,
                queue.effective.maximum,
                conf.disable_preemption,
                children,
            )
        }
    }

    /// What the active applications of `leaf` ask for, each user's only up to the room left
    /// under its user limit. Attempts still waiting for activation (AM limits,
    /// `max-parallel-apps`) are left out, as in Hadoop: taking containers from other queues
    /// would not let them start.
    fn pending_within_user_limits(&self, leaf: usize) -> Resource {
        let queue = &self.queues[leaf];
        let mut by_user: BTreeMap<&str, Resource> = BTreeMap::new();
        for (_, _, application_id) in &queue.apps {
            let Some(app) = self.applications.get(application_id) else {
                continue;
            };
            let pending = by_user.entry(app.user.as_str()).or_default();
            *pending = pending.saturating_add(active_pending(app));
        }
        let user_limit = self.reported_user_limit(leaf);
        by_user
            .into_iter()
            .fold(Resource::ZERO, |total, (user, pending)| {
                let limit = user_limit(user);
                let used = queue.users.get(user).map_or(Resource::ZERO, |u| u.used);
                total.saturating_add(pending.component_min(limit.saturating_sub(used)))
            })
    }

    fn leaf_containers(&self, leaf: usize) -> LeafContainers {
        let applications: Vec<RunningApplication> = self.queues[leaf]
            .apps
            .iter()
            .filter_map(|(_, _, application_id)| self.applications.get(application_id))
            .map(|app| RunningApplication {
                id: app.id,
                priority: app.priority,
                user: app.user.clone(),
                pending: active_pending(app),
                // The default partition's only: labelled partitions are not preempted.
                containers: app
                    .containers
                    .iter()
                    .filter_map(|id| self.containers.get(id))
                    .filter(|allocation| self.node_partition(&allocation.node_id).is_empty())
                    .map(|allocation| RunningContainer {
                        id: allocation.container_id,
                        priority: allocation.priority,
                        resource: allocation.resource,
                        is_am: allocation.is_am,
                    })
                    .collect(),
            })
            .collect();
        // Hadoop's selector spares AMs up to the guarantee's AM share, not the AM limit that
        // activation uses (which grows with the queue's current limit).
        let queue = &self.queues[leaf];
        let user_limit = self.reported_user_limit(leaf);
        let user_limits = applications
            .iter()
            .map(|app| (app.user.clone(), user_limit(&app.user)))
            .collect();
        LeafContainers {
            applications,
            am_limit: queue
                .effective
                .guaranteed
                .multiply_and_round_down(queue.conf.maximum_am_resource_percent),
            user_limits,
            intra_queue_preemption_disabled: queue.conf.disable_preemption
                || queue.conf.intra_queue_disable_preemption,
            ordering_policy: queue.conf.ordering_policy,
        }
    }
}

/// What `app` asks for in the default partition and does not hold yet, when its attempt is
/// active; nothing while the attempt waits for activation.
fn active_pending(app: &SchedulerApplication) -> Resource {
    if app.attempt.as_ref().is_some_and(|attempt| attempt.active) {
        Demand::in_partition(app, Some("")).pending
    } else {
        Resource::ZERO
    }
}
