//! The scheduling pass: [`CapacityScheduler::schedule`] walks the queue tree to the leaf its
//! parents' ordering policies put first, offers it to the leaf's active applications in serving
//! order, checks the user limit and the queue maximum capacities, finds a node and commits the
//! container.
//!
//! [`SchedulingPass`] and [`LeafPass`] hold what one pass learns (exhausted queues, each leaf's
//! cursor, sizes no node fits, asks found without room) so a pass never repeats fruitless work.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::{ApplicationId, ContainerId, NodeId};

use super::CapacityScheduler;
use super::locality::AskPlacement;
use super::queue_reports::Demand;
use super::serving_entry::ServingEntry;
use crate::Resource;
use crate::activities::{ActivityDiagnostic, ActivityState};
use crate::allocation::Allocation;
use crate::ask_table::AskKey;
use crate::locality_delay::NodeType;
use crate::ordering_policy::OrderingPolicy;
use crate::queue::Queue;
use crate::queue_capacity::QueueCapacity;
use crate::queue_ordering_policy::ChildStanding;

impl CapacityScheduler {
    /// Runs one scheduling pass over all nodes and returns the containers it placed, already
    /// charged everywhere (a later pass never double-books them).
    ///
    /// Waiting applications are re-evaluated first. Then, one container at a time: from
    /// `root`, descend to the child that still has demand which its parent's
    /// [`QueueOrderingPolicy`](crate::QueueOrderingPolicy) puts first (under `utilization` a
    /// child with a guarantee first, then the lowest used over its guarantee, counted as at
    /// least one minimum allocation); in the leaf, offer to active applications by application
    /// priority (higher first), then submission order, or under the `fair` ordering policy the
    /// least memory used (see [`OrderingPolicy`]); in an application, the AM
    /// container first, then asks by container priority (lower first) and allocation request
    /// id. A container is placed only if its user is not over the user limit (a user may go
    /// one container past it: the check uses usage before the container), it fits within the
    /// maximum capacity of the leaf and of every ancestor, and it fits a node's free resources
    /// (named hosts first, then the node with the most free memory). What cannot be placed is
    /// skipped for the rest of the pass and retried in the next one.
    ///
    /// With node labels, the default partition goes first, then each labelled partition in
    /// label order, offering its nodes to the asks for its label from the queues that may use
    /// it, within the queues' capacities in that partition (user limits apply in the default
    /// partition only). A non-exclusive partition then lends what is left idle to the default
    /// partition's asks still unplaced after the default partition's pass, AM containers
    /// aside, as Hadoop's non-exclusive allocation does: neither the queues' capacities nor
    /// the user limit bound that loan (an ask held back in the default partition by either may
    /// take it), and the containers count as the partition's usage.
    pub fn schedule(&mut self) -> Vec<Allocation> {
        self.activate();
        let mut allocations = Vec::new();
        if self.nodes.is_empty() {
            return allocations;
        }
        self.schedule_partition(PassPartition::own(""), &mut allocations);
        let labels: Vec<_> = self
            .node_labels
            .labels()
            .filter(|label| !self.partition_resource(&label.name).is_zero())
            .collect();
        for label in labels {
            self.schedule_partition(PassPartition::own(&label.name), &mut allocations);
            if !label.exclusive {
                self.schedule_partition(PassPartition::lent(&label.name), &mut allocations);
            }
        }
        allocations
    }

    fn schedule_partition(&mut self, partition: PassPartition, allocations: &mut Vec<Allocation>) {
        let mut pass = SchedulingPass::new(self, partition);
        while let Some(leaf) = self.pick_leaf(&pass.done, &pass.partition.nodes) {
            match self.allocate_in_leaf(leaf, &mut pass) {
                Some(allocation) => allocations.push(allocation),
                None => pass.mark_done(leaf, &self.queues),
            }
        }
    }

    /// Users of `leaf` with an active application that wants containers.
    pub(super) fn active_users(&self, leaf: usize) -> BTreeSet<&str> {
        self.queues[leaf]
            .apps
            .iter()
            .filter_map(|order| self.applications.get(&order.2))
            .filter(|app| app.has_demand())
            .map(|app| app.user.as_str())
            .collect()
    }

    /// What the active users of `leaf` (with `also`, when given, counted among them) use
    /// together, and their summed weights: the share the user limit divides.
    pub(super) fn active_share(&self, leaf: usize, also: Option<&str>) -> (Resource, f64) {
        let queue = &self.queues[leaf];
        let mut users = self.active_users(leaf);
        users.extend(also);
        let used = users
            .iter()
            .filter_map(|user| queue.users.get(*user))
            .fold(Resource::ZERO, |sum, u| sum.saturating_add(u.used));
        let weight = users.iter().map(|user| queue.conf.user_weight(user)).sum();
        (used, weight)
    }

    /// Descends from the root to the leaf that should be offered the next container of
    /// `partition`'s nodes, comparing the children's standing in that partition.
    fn pick_leaf(&self, done: &[bool], partition: &str) -> Option<usize> {
        if done.first().copied().unwrap_or(true) {
            return None;
        }
        let calculator = self.conf.resource_calculator();
        let cluster = self.partition_resource(partition);
        let mut index = 0;
        loop {
            let queue = &self.queues[index];
            if queue.is_leaf() {
                return Some(index);
            }
            // As Hadoop, against at least one minimum allocation, so that a guarantee rounded
            // down to nothing does not make its queue infinitely used.
            let minimum = self.conf.settings().minimum_allocation;
            let standing = |q: &Queue| {
                let (effective, used) = (q.effective_in(partition), q.used_in(partition));
                ChildStanding {
                    absolute_capacity: effective.absolute_capacity,
                    used_capacity: calculator.divide(
                        cluster,
                        used,
                        calculator.max(cluster, effective.guaranteed, minimum),
                    ),
                    absolute_used_capacity: calculator.divide(cluster, used, cluster),
                    priority: q.conf.priority,
                    configured_minimum: match q.conf.capacity {
                        QueueCapacity::Absolute(minimum) if partition.is_empty() => minimum,
                        _ => Resource::ZERO,
                    },
                }
            };
            let policy = queue.conf.queue_ordering_policy;
            // The first of equals, in configuration order.
            index = queue
                .children
                .iter()
                .copied()
                .filter(|child| !done[*child])
                .map(|child| (child, standing(&self.queues[child])))
                .min_by(|(_, a), (_, b)| policy.compare(a, b))
                .map(|(child, _)| child)?;
        }
    }

    fn allocate_in_leaf(&mut self, leaf: usize, pass: &mut SchedulingPass) -> Option<Allocation> {
        let SchedulingPass {
            partition,
            leaves,
            unplaceable,
            first_ask,
            ..
        } = pass;
        let state = leaves.get_mut(&leaf)?;
        loop {
            let (application_id, fair) = match &mut state.fair {
                // The entry leaves the set while its application is tried; it goes back, with the
                // container counted, only if one was placed.
                Some(order) => {
                    let entry = order.pop_first()?;
                    (entry.id, Some(entry))
                }
                None => (*state.apps.get(state.cursor)?, None),
            };
            if let Some(allocation) = self.allocate_for_application(
                leaf,
                application_id,
                partition,
                (state.active_used, state.active_weight),
                unplaceable,
                first_ask,
            ) {
                state.active_used = state.active_used.saturating_add(allocation.resource);
                if let (Some(order), Some(entry)) = (&mut state.fair, fair) {
                    order.insert(entry.with_more(allocation.resource));
                }
                return Some(allocation);
            }
            if state.fair.is_none() {
                state.cursor += 1;
            }
        }
    }

    /// Places one container for the application on `partition`'s nodes, or `None` when it is
    /// over its user limit or none of its asks for the partition fits the queue limits and a
    /// node. `active` is what the leaf's active users use together and their summed weights.
    /// While the application is recorded, what was decided and why goes to the activities.
    fn allocate_for_application(
        &mut self,
        leaf: usize,
        application_id: ApplicationId,
        partition: &PassPartition,
        (active_used, active_weight): (Resource, f64),
        unplaceable: &mut Vec<Resource>,
        first_ask: &mut BTreeMap<ApplicationId, AskKey>,
    ) -> Option<Allocation> {
        let calculator = self.conf.resource_calculator();
        let cluster = self.cluster_resource;
        let app = self.applications.get(&application_id)?;
        let attempt = app.attempt.as_ref().filter(|a| a.active)?;
        let mut activity = self.start_activity(application_id, &partition.nodes);
        let queue = &self.queues[leaf];
        if partition.nodes.is_empty() {
            let limits = self.queue_limits(leaf, "");
            let user_limit = limits.weighted_user_limit(
                limits.user_limit(Some(active_used), active_weight),
                queue.conf.user_weight(&app.user),
            );
            let user_used = queue
                .users
                .get(&app.user)
                .map_or(Resource::ZERO, |u| u.used);
            if calculator.compare(cluster, user_used, user_limit) == Ordering::Greater {
                if let Some(activity) = activity.as_mut() {
                    let diagnostic = ActivityDiagnostic::UserLimit {
                        user: app.user.clone(),
                        used: user_used,
                        limit: user_limit,
                    };
                    activity.pass_over(ActivityState::Rejected, diagnostic);
                }
                self.keep_activity(activity);
                return None;
            }
        }
        // The queue (the leaf or an ancestor) that one more container of a size would take
        // over its maximum capacity.
        let queue_block = |resource| {
            if partition.is_lent() {
                return None;
            }
            self.queue_limit_block(leaf, resource, &partition.nodes)
        };
        let queue_max = |index: usize, resource| ActivityDiagnostic::QueueMaxCapacity {
            queue: self.queues[index].conf.path.clone(),
            resource,
        };
        // The diagnostic is built only while the application is recorded.
        let mut skip = |request, diagnostic: &dyn Fn() -> ActivityDiagnostic| {
            if let Some(activity) = activity.as_mut() {
                activity.skip(request, diagnostic);
            }
        };
        let mut choice: Option<(Option<AskKey>, Resource, NodeId, NodeType)> = None;
        let mut waiting = Vec::new();
        if attempt.am_pending {
            let resource = attempt.am_resource;
            if !partition.serves_am(&app.am_label) {
                skip(AM_REQUEST, &|| ActivityDiagnostic::OtherPartition {
                    requested: app.am_label.clone(),
                    offered: partition.nodes.clone(),
                });
            } else if let Some(index) = queue_block(resource) {
                skip(AM_REQUEST, &|| queue_max(index, resource));
            } else if let Some(node) = self.find_any_node(resource, &partition.nodes, unplaceable) {
                choice = Some((None, resource, node, NodeType::OffSwitch));
            } else {
                skip(AM_REQUEST, &|| ActivityDiagnostic::NoNodeWithRoom {
                    resource,
                });
            }
        } else {
            let from = first_ask.get(&application_id).copied();
            for (key, asks) in attempt.asks.pending_from(from) {
                // Reached only once every key before this one found no room in this pass (or
                // must wait, which it does until a heartbeat, after the pass).
                first_ask.insert(application_id, key);
                if !Self::same_partition(asks.partition(), &partition.asks) {
                    skip(key, &|| ActivityDiagnostic::OtherPartition {
                        requested: asks.partition().to_owned(),
                        offered: partition.nodes.clone(),
                    });
                    continue;
                }
                let capability = asks.capability();
                if let Some(index) = queue_block(capability) {
                    skip(key, &|| queue_max(index, capability));
                    continue;
                }
                match self.place_ask(
                    asks,
                    capability,
                    &partition.nodes,
                    &attempt.blacklist,
                    unplaceable,
                ) {
                    AskPlacement::Placed(node, node_type) => {
                        choice = Some((Some(key), capability, node, node_type));
                        break;
                    }
                    AskPlacement::Waiting { anywhere } => {
                        waiting.push(key);
                        skip(key, &|| ActivityDiagnostic::LocalityDelay {
                            off_switch: anywhere,
                        });
                        // As Hadoop, a key waiting to go anywhere skips the rest of its
                        // application; one waiting for its racks only skips itself.
                        if anywhere {
                            break;
                        }
                    }
                    AskPlacement::Unplaced => {
                        let resource = capability;
                        skip(key, &|| ActivityDiagnostic::NoNodeWithRoom { resource });
                    }
                }
            }
        }
        let now = self.scheduling_opportunities;
        if let Some(attempt) = self
            .applications
            .get_mut(&application_id)
            .and_then(|app| app.attempt.as_mut())
        {
            for key in waiting {
                attempt.asks.start_waiting(key, now);
            }
        }
        let Some((key, resource, node_id, node_type)) = choice else {
            self.keep_activity(activity);
            return None;
        };
        let allocation = self.commit(application_id, key, resource, node_id, node_type);
        if let (Some(activity), Some(allocation)) = (activity.as_mut(), &allocation) {
            activity.allocate(
                key.unwrap_or(AM_REQUEST),
                allocation.node_id.clone(),
                allocation.container_id,
            );
        }
        self.keep_activity(activity);
        allocation
    }

    /// Whether `resource` more in `partition` keeps `leaf` and every ancestor within their
    /// maximum capacity there.
    pub(super) fn fits_queue_limits(
        &self,
        leaf: usize,
        resource: Resource,
        partition: &str,
    ) -> bool {
        self.queue_limit_block(leaf, resource, partition).is_none()
    }

    /// The first queue from `leaf` up that `resource` more in `partition` would take over its
    /// maximum capacity there.
    fn queue_limit_block(&self, leaf: usize, resource: Resource, partition: &str) -> Option<usize> {
        let calculator = self.conf.resource_calculator();
        let mut next = Some(leaf);
        while let Some(index) = next {
            let queue = &self.queues[index];
            let used = queue.used_in(partition).saturating_add(resource);
            if !calculator.fits_in(used, queue.effective_in(partition).maximum) {
                return Some(index);
            }
            next = queue.parent;
        }
        None
    }

    /// Charges a container chosen by the pass and builds its allocation.
    fn commit(
        &mut self,
        application_id: ApplicationId,
        key: Option<AskKey>,
        resource: Resource,
        node_id: NodeId,
        node_type: NodeType,
    ) -> Option<Allocation> {
        let epoch = self.epoch;
        let reset = self.conf.locality_delay().resets_after(node_type);
        let node = self.nodes.get_mut(&node_id)?;
        node.record_assignment(node_type == NodeType::OffSwitch);
        let rack = node.rack().to_owned();
        let app = self.applications.get_mut(&application_id)?;
        let attempt = app.attempt.as_mut()?;
        // A sequence beyond ContainerId::MAX_SEQUENCE (2^40) cannot be encoded; the
        // application then simply gets nothing more.
        let container_id = ContainerId::new(attempt.id, epoch, app.next_sequence).ok()?;
        app.next_sequence += 1;
        let (priority, allocation_request_id) = match key {
            Some(key) => {
                let taken = attempt
                    .asks
                    .record_allocation(key, &node_id.host, &rack, reset);
                attempt.unacquired.insert(container_id, taken);
                key
            }
            None => {
                attempt.am_pending = false;
                (0, -1)
            }
        };
        let allocation = Allocation {
            container_id,
            application_attempt_id: attempt.id,
            node_id,
            resource,
            priority,
            allocation_request_id,
            is_am: key.is_none(),
        };
        self.charge_container(&allocation);
        self.containers.insert(container_id, allocation.clone());
        Some(allocation)
    }
}

/// The request key activities give the AM container: priority 0, allocation request id -1, as
/// the AM's allocation carries.
const AM_REQUEST: AskKey = (0, -1);

/// How many distinct unplaceable container sizes a pass remembers (see [`SchedulingPass`]).
pub(super) const UNPLACEABLE_MEMORY: usize = 32;

/// The nodes a pass places containers on and the asks it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PassPartition {
    /// The partition of the nodes (`""`: the default partition).
    nodes: String,
    /// The partition the asks name: `nodes`, or the default partition when a non-exclusive
    /// partition lends its idle nodes.
    asks: String,
    /// Whether the nodes are lent to another partition's asks.
    lent: bool,
}

impl PassPartition {
    /// A partition's nodes for its own asks.
    fn own(label: &str) -> Self {
        Self {
            nodes: label.to_owned(),
            asks: label.to_owned(),
            lent: false,
        }
    }

    /// A non-exclusive partition's nodes for the default partition's asks.
    fn lent(label: &str) -> Self {
        Self {
            nodes: label.to_owned(),
            asks: String::new(),
            lent: true,
        }
    }

    fn is_lent(&self) -> bool {
        self.lent
    }

    /// Whether an AM container for `label` goes on these nodes: never on a loan, as Hadoop.
    fn serves_am(&self, label: &str) -> bool {
        !self.lent && CapacityScheduler::same_partition(label, &self.asks)
    }
}

/// Per-pass bookkeeping: which queues have nothing more to place, each leaf's cursor over its
/// applications, and container sizes known not to fit any node.
struct SchedulingPass {
    partition: PassPartition,
    done: Vec<bool>,
    leaves: BTreeMap<usize, LeafPass>,
    unplaceable: Vec<Resource>,
    /// Per application, the first ask key still worth trying: keys before it found no room
    /// earlier in this pass, and room only shrinks during a pass, so they never will. Without
    /// it each container walked every ask from the first, and an AM with 150,000 asks for
    /// hosts that never fit held the scheduler for a minute.
    first_ask: BTreeMap<ApplicationId, AskKey>,
}

/// A leaf's applications with demand, in serving order, and its active users' usage.
struct LeafPass {
    /// Under fifo, the applications in serving order and the first not yet found without room.
    apps: Vec<ApplicationId>,
    cursor: usize,
    /// Under another policy, the applications not yet found without room, in serving order.
    fair: Option<BTreeSet<ServingEntry>>,
    active_used: Resource,
    active_weight: f64,
}

impl SchedulingPass {
    fn new(scheduler: &CapacityScheduler, partition: PassPartition) -> Self {
        let queues = &scheduler.queues;
        let mut done = vec![true; queues.len()];
        let mut leaves = BTreeMap::new();
        for (index, queue) in queues.iter().enumerate() {
            if !queue.is_leaf() {
                continue;
            }
            if !partition.is_lent() && !queue.conf.node_labels.can_access(&partition.nodes) {
                continue;
            }
            let apps: Vec<ApplicationId> = queue
                .apps
                .iter()
                .filter(|order| {
                    scheduler
                        .applications
                        .get(&order.2)
                        .is_some_and(|app| app.has_demand_in(&partition.asks, !partition.is_lent()))
                })
                .map(|order| order.2)
                .collect();
            if apps.is_empty() {
                continue;
            }
            let (active_used, active_weight) = scheduler.active_share(index, None);
            let policy = queue.conf.ordering_policy;
            let fair = (policy != OrderingPolicy::Fifo).then(|| {
                apps.iter()
                    .filter_map(|id| scheduler.applications.get(id))
                    .map(|app| {
                        let size_based = policy
                            == OrderingPolicy::Fair {
                                size_based_weight: true,
                            };
                        // Walking every ask is only worth it when the order weighs demand.
                        let demand = if size_based {
                            app.used.saturating_add(Demand::of(app).pending)
                        } else {
                            app.used
                        };
                        ServingEntry::new(
                            app.id,
                            app.priority,
                            app.submission_order,
                            app.used,
                            demand,
                            policy,
                        )
                    })
                    .collect()
            });
            done[index] = false;
            leaves.insert(
                index,
                LeafPass {
                    apps,
                    cursor: 0,
                    fair,
                    active_used,
                    active_weight,
                },
            );
        }
        // Parents come before their children in the table, so a reverse sweep settles
        // every parent after its children.
        for index in (0..queues.len()).rev() {
            if !queues[index].is_leaf() {
                done[index] = queues[index].children.iter().all(|child| done[*child]);
            }
        }
        Self {
            partition,
            done,
            leaves,
            unplaceable: Vec::new(),
            first_ask: BTreeMap::new(),
        }
    }

    /// Marks a leaf exhausted, and every ancestor whose children are all exhausted.
    fn mark_done(&mut self, leaf: usize, queues: &[Queue]) {
        self.done[leaf] = true;
        let mut next = queues[leaf].parent;
        while let Some(index) = next {
            if !queues[index].children.iter().all(|child| self.done[*child]) {
                break;
            }
            self.done[index] = true;
            next = queues[index].parent;
        }
    }
}
