//! [`CapacityScheduler`]: queues, applications, nodes and the scheduling pass.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};

use crate::allocation::Allocation;
use crate::application::{AppOrder, Attempt, SchedulerApplication};
use crate::application_status::{AcceptedApplication, ApplicationStatus};
use crate::ask_table::AskKey;
use crate::capacity_scheduler_configuration::CapacitySchedulerConfiguration;
use crate::error::SchedulerError;
use crate::node::SchedulerNode;
use crate::pending_reason::PendingReason;
use crate::queue::{LeafUser, Queue};
use crate::queue_acl::QueueAcl;
use crate::queue_info::{QueueInfo, UserInfo};
use crate::queue_limits::QueueLimits;
use crate::queue_state::QueueState;
use crate::refresh::validate_refresh;
use crate::resource::Resource;
use crate::resource_request::ResourceRequest;

mod promotions;

/// Orders nodes for off-switch placement: most free memory first, then most free cores, then
/// node id, so a pass spreads containers and stays deterministic.
type FreeKey = (Reverse<u64>, Reverse<u32>, NodeId);

/// The rack of every node: YARN's default when no topology script is configured.
const DEFAULT_RACK: &str = "/default-rack";

/// How many distinct unplaceable container sizes a pass remembers (see [`SchedulingPass`]).
const UNPLACEABLE_MEMORY: usize = 32;

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
    cluster_resource: Resource,
    cluster_used: Resource,
    applications: BTreeMap<ApplicationId, SchedulerApplication>,
    containers: BTreeMap<ContainerId, Allocation>,
    /// Runnable attempts per user, across queues (`max-parallel-apps` is per user overall).
    user_runnable: BTreeMap<String, usize>,
    /// Attempts held back by `max-parallel-apps`, in submission order.
    not_runnable: BTreeSet<(u64, ApplicationId)>,
    /// Runnable attempts held back by AM limits, per leaf in serving order.
    awaiting_activation: BTreeSet<(usize, AppOrder)>,
    epoch: i64,
    next_submission_order: u64,
}

impl CapacityScheduler {
    /// A scheduler with no nodes and no applications, at epoch 0.
    pub fn new(conf: CapacitySchedulerConfiguration) -> Self {
        let (queues, queue_index) = build_queues(&conf);
        Self {
            conf,
            queues,
            queue_index,
            nodes: BTreeMap::new(),
            nodes_by_free: BTreeSet::new(),
            nodes_by_host: BTreeMap::new(),
            cluster_resource: Resource::ZERO,
            cluster_used: Resource::ZERO,
            applications: BTreeMap::new(),
            containers: BTreeMap::new(),
            user_runnable: BTreeMap::new(),
            not_runnable: BTreeSet::new(),
            awaiting_activation: BTreeSet::new(),
            epoch: 0,
            next_submission_order: 0,
        }
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

    /// Sum of the registered nodes' capabilities.
    pub fn cluster_resource(&self) -> Resource {
        self.cluster_resource
    }

    /// Sum of the live containers' resources.
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

    // ------------------------------------------------------------------ nodes

    /// Registers a node offering `capability`.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::DuplicateNode`] if the node is already registered.
    pub fn add_node(
        &mut self,
        node_id: NodeId,
        capability: Resource,
    ) -> Result<(), SchedulerError> {
        if self.nodes.contains_key(&node_id) {
            return Err(SchedulerError::DuplicateNode { node: node_id });
        }
        let node = SchedulerNode::new(node_id.clone(), capability);
        self.nodes_by_free.insert(free_key(&node));
        self.nodes_by_host
            .entry(node_id.host.clone())
            .or_default()
            .insert(node_id.clone());
        self.nodes.insert(node_id, node);
        self.cluster_resource = self.cluster_resource.saturating_add(capability);
        self.update_queue_resources();
        self.activate();
        Ok(())
    }

    /// Removes a node and releases every container on it, returning them in id order (an AM
    /// container among them ends its attempt).
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownNode`].
    pub fn remove_node(&mut self, node_id: &NodeId) -> Result<Vec<Allocation>, SchedulerError> {
        let node = self
            .nodes
            .get(node_id)
            .ok_or_else(|| SchedulerError::UnknownNode {
                node: node_id.clone(),
            })?;
        let on_node: Vec<ContainerId> = node.containers().iter().copied().collect();
        let released = on_node
            .iter()
            .filter_map(|container| self.release_container(container))
            .collect();
        if let Some(node) = self.nodes.remove(node_id) {
            self.nodes_by_free.remove(&free_key(&node));
            if let Some(hosts) = self.nodes_by_host.get_mut(&node_id.host) {
                hosts.remove(node_id);
                if hosts.is_empty() {
                    self.nodes_by_host.remove(&node_id.host);
                }
            }
            self.cluster_resource = self.cluster_resource.saturating_sub(node.capability());
        }
        self.update_queue_resources();
        self.activate();
        Ok(released)
    }

    /// Changes a node's capability. Containers already there stay, even if they no longer
    /// fit; nothing new is placed until they do.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownNode`].
    pub fn update_node_capability(
        &mut self,
        node_id: &NodeId,
        capability: Resource,
    ) -> Result<(), SchedulerError> {
        let old = self
            .with_node(node_id, |node| {
                let old = node.capability();
                node.set_capability(capability);
                old
            })
            .ok_or_else(|| SchedulerError::UnknownNode {
                node: node_id.clone(),
            })?;
        self.cluster_resource = self
            .cluster_resource
            .saturating_sub(old)
            .saturating_add(capability);
        self.update_queue_resources();
        self.activate();
        Ok(())
    }

    // ------------------------------------------------------------------ applications

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
    /// [`SchedulerError::QueueApplicationLimit`], [`SchedulerError::UserApplicationLimit`].
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
        let leaf_queue = &self.queues[leaf];
        let priority = priority
            .unwrap_or(leaf_queue.conf.default_application_priority)
            .min(self.conf.settings().max_application_priority);
        Ok(self.insert_application(application_id, leaf, user, priority))
    }

    /// Checks that the accepted application could move to `queue` (a path or unique name): a
    /// leaf whose path is RUNNING, below its application limits for the application's user.
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
    /// [`SchedulerError::UserApplicationLimit`].
    pub fn check_move(
        &self,
        application_id: ApplicationId,
        queue: &str,
    ) -> Result<String, SchedulerError> {
        let app = self.application(application_id)?;
        let leaf = self.resolve_leaf(application_id, queue, &app.user)?;
        if leaf != app.leaf {
            self.check_queue_running(application_id, leaf)?;
            self.check_application_limits(application_id, leaf, &app.user)?;
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

    /// The leaf queue path and priority of an accepted application; cheaper than
    /// [`application_status`](Self::application_status).
    pub fn application_placement(&self, application_id: ApplicationId) -> Option<(&str, i32)> {
        let app = self.applications.get(&application_id)?;
        Some((app.queue.as_str(), app.priority))
    }

    /// Numbers a container placed for the current attempt outside this scheduler (an
    /// OPPORTUNISTIC one), from the same sequence as the containers it allocates, so no id is
    /// issued twice. The container is not charged: opportunistic containers use no queue
    /// capacity.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownAttempt`],
    /// [`SchedulerError::ContainerIdsExhausted`].
    pub fn issue_container_id(
        &mut self,
        attempt_id: ApplicationAttemptId,
    ) -> Result<ContainerId, SchedulerError> {
        self.current_attempt(attempt_id)?;
        let epoch = self.epoch;
        let app = self
            .applications
            .get_mut(&attempt_id.application_id)
            .ok_or(SchedulerError::UnknownApplication {
                application: attempt_id.application_id,
            })?;
        let id = ContainerId::new(attempt_id, epoch, app.next_sequence).map_err(|_| {
            SchedulerError::ContainerIdsExhausted {
                application: attempt_id.application_id,
            }
        })?;
        app.next_sequence += 1;
        Ok(id)
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

    /// Adds and removes blacklisted places (host or rack names) of the current attempt: no
    /// container of its asks is placed on a node whose host or rack is blacklisted. The list
    /// lives with the attempt; a new attempt starts with none, as in YARN.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownAttempt`].
    pub fn update_blacklist(
        &mut self,
        attempt_id: ApplicationAttemptId,
        additions: &[String],
        removals: &[String],
    ) -> Result<(), SchedulerError> {
        self.current_attempt(attempt_id)?;
        if let Some(attempt) = self
            .applications
            .get_mut(&attempt_id.application_id)
            .and_then(|app| app.attempt.as_mut())
        {
            attempt.blacklist.extend(additions.iter().cloned());
            for place in removals {
                attempt.blacklist.remove(place);
            }
        }
        Ok(())
    }

    /// The current attempt's blacklisted places, in name order; empty for an unknown attempt.
    pub fn blacklist(&self, attempt_id: ApplicationAttemptId) -> Vec<String> {
        self.current_attempt(attempt_id)
            .ok()
            .and_then(|app| app.attempt.as_ref())
            .map(|attempt| attempt.blacklist.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The checks YARN makes while the client waits, before a submission is stored: the queue
    /// resolves to a leaf, `user` may submit to it, and the AM container (`am_resource`, `None`
    /// for an unmanaged AM) fits its maximum allocation. Changes nothing; the queue's state and
    /// application limits are checked at admission ([`submit_application`](Self::submit_application)).
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
    ) -> Result<(), SchedulerError> {
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
        Ok(())
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
        Ok(self.insert_application(application_id, leaf, user, priority))
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
        let leaf = self.current_attempt(attempt_id)?.leaf;
        let mut normalized = Vec::with_capacity(asks.len());
        for ask in asks {
            let capability = self.normalize_ask(attempt_id, leaf, ask.capability, ask.priority)?;
            normalized.push(ResourceRequest {
                capability,
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

    /// Frees a finished container and returns it; `None` when it is unknown (already
    /// released), so repeated NodeManager reports are harmless. When it is the current
    /// attempt's AM container, the attempt ends and waiting applications may activate.
    pub fn container_completed(&mut self, container_id: &ContainerId) -> Option<Allocation> {
        let released = self.release_container(container_id)?;
        if released.is_am {
            self.activate();
        }
        Some(released)
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

    /// Records that `container_id` was issued to its application (it may have completed
    /// since), so that the application's next container is numbered above it. Unknown
    /// applications are ignored.
    pub fn container_id_issued(&mut self, container_id: ContainerId) {
        let application_id = container_id.application_attempt_id().application_id;
        if let Some(app) = self.applications.get_mut(&application_id) {
            app.next_sequence = app.next_sequence.max(container_id.sequence() + 1);
        }
    }

    /// Re-charges a container a new leader finds in the replicated state, to its node, queue,
    /// user and application, without checking limits. The application's container sequence
    /// moves past it. An AM container of the current attempt satisfies the pending AM ask and
    /// makes the attempt active regardless of limits, as the application was running. A
    /// container of an application the scheduler does not hold (one whose queue no longer
    /// exists) is charged to its node only: it still occupies it.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::DuplicateContainer`], [`SchedulerError::UnknownNode`].
    pub fn recover_container(&mut self, allocation: Allocation) -> Result<(), SchedulerError> {
        self.recover(allocation, true)
    }

    /// [`recover_container`](Self::recover_container), moving the application's container
    /// sequence past the container only when `issued_here` (its id came from that sequence).
    fn recover(&mut self, allocation: Allocation, issued_here: bool) -> Result<(), SchedulerError> {
        let container_id = allocation.container_id;
        let application_id = allocation.application_attempt_id.application_id;
        if self.containers.contains_key(&container_id) {
            return Err(SchedulerError::DuplicateContainer {
                container: container_id,
            });
        }
        if !self.nodes.contains_key(&allocation.node_id) {
            return Err(SchedulerError::UnknownNode {
                node: allocation.node_id,
            });
        }
        self.charge_container(&allocation);
        if let Some(app) = self
            .applications
            .get_mut(&application_id)
            .filter(|_| issued_here)
        {
            app.next_sequence = app.next_sequence.max(container_id.sequence() + 1);
        }
        if allocation.is_am {
            self.force_active(application_id, allocation.application_attempt_id);
        }
        self.containers.insert(container_id, allocation);
        Ok(())
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
    fn user_standing(&self, app: &SchedulerApplication) -> (QueueLimits, Resource, Resource) {
        let leaf = &self.queues[app.leaf];
        let limits = self.queue_limits(app.leaf);
        let (active_used, active_weight) = self.active_share(app.leaf, Some(&app.user));
        let user_limit = limits.weighted_user_limit(
            limits.user_limit(Some(active_used), active_weight),
            leaf.conf.user_weight(&app.user),
        );
        let user_used = leaf.users.get(&app.user).map_or(Resource::ZERO, |u| u.used);
        (limits, user_limit, user_used)
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
        let counts: BTreeMap<String, usize> =
            self.applications
                .values()
                .fold(BTreeMap::new(), |mut counts, app| {
                    *counts.entry(app.queue.clone()).or_insert(0) += 1;
                    counts
                });
        validate_refresh(&self.conf, &conf, &counts)?;
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

    // ------------------------------------------------------------------ scheduling

    /// Runs one scheduling pass over all nodes and returns the containers it placed, already
    /// charged everywhere (a later pass never double-books them).
    ///
    /// Waiting applications are re-evaluated first. Then, one container at a time: from
    /// `root`, descend to the child furthest below its guarantee (lowest used/guaranteed, ties
    /// by name) that still has demand; in the leaf, offer to active applications by
    /// application priority (higher first), then submission order; in an application, the AM
    /// container first, then asks by container priority (lower first) and allocation request
    /// id. A container is placed only if its user is not over the user limit (a user may go
    /// one container past it: the check uses usage before the container), it fits within the
    /// maximum capacity of the leaf and of every ancestor, and it fits a node's free resources
    /// (named hosts first, then the node with the most free memory). What cannot be placed is
    /// skipped for the rest of the pass and retried in the next one.
    pub fn schedule(&mut self) -> Vec<Allocation> {
        self.activate();
        let mut allocations = Vec::new();
        if self.nodes.is_empty() {
            return allocations;
        }
        let mut pass = SchedulingPass::new(self);
        while let Some(leaf) = self.pick_leaf(&pass.done) {
            match self.allocate_in_leaf(leaf, &mut pass) {
                Some(allocation) => allocations.push(allocation),
                None => pass.mark_done(leaf, &self.queues),
            }
        }
        allocations
    }

    // ------------------------------------------------------------------ internals

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
        if leaf_queue.num_applications >= leaf_queue.conf.maximum_applications as usize {
            return Err(SchedulerError::QueueApplicationLimit {
                application: application_id,
                queue: path.clone(),
                current: leaf_queue.num_applications,
                limit: leaf_queue.conf.maximum_applications,
            });
        }
        let user_applications = leaf_queue.users.get(user).map_or(0, |u| u.num_applications);
        if user_applications >= leaf_queue.conf.maximum_applications_per_user as usize {
            return Err(SchedulerError::UserApplicationLimit {
                application: application_id,
                queue: path.clone(),
                user: user.to_string(),
                current: user_applications,
                limit: leaf_queue.conf.maximum_applications_per_user,
            });
        }
        Ok(())
    }

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
        let index = self.queue_index.get(&conf.path).copied().ok_or_else(|| {
            SchedulerError::UnknownQueue {
                application: application_id,
                user: user.to_string(),
                queue: queue.to_string(),
            }
        })?;
        if !self.queues[index].is_leaf() {
            return Err(SchedulerError::NotLeafQueue {
                application: application_id,
                user: user.to_string(),
                queue: conf.path.clone(),
            });
        }
        Ok(index)
    }

    fn insert_application(
        &mut self,
        application_id: ApplicationId,
        leaf: usize,
        user: &str,
        priority: i32,
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

    fn reported_state(&self, index: usize) -> QueueState {
        let queue = &self.queues[index];
        match queue.conf.state {
            QueueState::Running => QueueState::Running,
            _ if queue.num_applications > 0 => QueueState::Draining,
            _ => QueueState::Stopped,
        }
    }

    fn update_queue_resources(&mut self) {
        let cluster = self.cluster_resource;
        for queue in &mut self.queues {
            queue.guaranteed =
                cluster.multiply_and_round_down(queue.conf.absolute_capacity / 100.0);
            queue.maximum =
                cluster.multiply_and_round_down(queue.conf.absolute_maximum_capacity / 100.0);
        }
    }

    /// What `index` may use now: `child = min(parent - parent_used + child_used, child_max)`
    /// from the root down, rounded down to the minimum allocation (YARN's resource limits).
    fn current_limit(&self, index: usize) -> Resource {
        let calculator = self.conf.resource_calculator();
        let mut path = vec![index];
        while let Some(parent) = self.queues[path[path.len() - 1]].parent {
            path.push(parent);
        }
        path.reverse();
        let mut limit = self.queues[path[0]].maximum;
        for pair in path.windows(2) {
            let (parent, child) = (&self.queues[pair[0]], &self.queues[pair[1]]);
            let available = limit.saturating_sub(parent.used).saturating_add(child.used);
            limit = calculator.min(self.cluster_resource, available, child.maximum);
        }
        calculator.round_down(limit, self.conf.settings().minimum_allocation)
    }

    fn queue_limits(&self, leaf: usize) -> QueueLimits {
        let queue = &self.queues[leaf];
        QueueLimits {
            calculator: self.conf.resource_calculator(),
            cluster: self.cluster_resource,
            guaranteed: queue.guaranteed,
            maximum: queue.maximum,
            current_limit: self.current_limit(leaf),
            used: queue.used,
            minimum_allocation: self.conf.settings().minimum_allocation,
            minimum_user_limit_percent: queue.conf.minimum_user_limit_percent,
            user_limit_factor: queue.conf.user_limit_factor,
            maximum_am_resource_percent: queue.conf.maximum_am_resource_percent,
        }
    }

    /// Records why the current attempt of `application_id` still waits.
    fn hold(&mut self, application_id: ApplicationId, reason: PendingReason) {
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
    fn activate(&mut self) {
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
        let cluster = self.cluster_resource;
        let limits = self.queue_limits(leaf);
        let am_limit = limits.am_limit();
        let active_users = self.active_users(leaf).len();
        for order in waiting {
            let application_id = order.2;
            let Some(app) = self.applications.get(&application_id) else {
                continue;
            };
            let Some(am_resource) = app.attempt.as_ref().map(|a| a.am_resource) else {
                continue;
            };
            let queue = &self.queues[leaf];
            let reason = if cluster.is_zero() {
                Some(PendingReason::ClusterResourceEmpty)
            } else {
                // As YARN, enforcement is skipped while the queue runs no AM at all, so a
                // too-small percentage can never block a queue completely.
                let lenient = queue.num_active == 0
                    || calculator.compare(cluster, queue.am_used, Resource::ZERO)
                        != Ordering::Greater;
                let user_am_used = queue
                    .users
                    .get(&app.user)
                    .map_or(Resource::ZERO, |u| u.am_used);
                let user_am_limit =
                    limits.user_am_limit(active_users, queue.conf.user_weight(&app.user));
                if !lenient
                    && !calculator.fits_in(queue.am_used.saturating_add(am_resource), am_limit)
                {
                    Some(PendingReason::QueueAmLimit {
                        queue: queue.conf.path.clone(),
                        am_resource,
                        am_used: queue.am_used,
                        am_limit,
                    })
                } else if !lenient
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
        let (leaf, user) = (app.leaf, app.user.clone());
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
        queue.am_used = queue.am_used.saturating_add(am_resource);
        let entry = queue.users.entry(user).or_default();
        entry.am_used = entry.am_used.saturating_add(am_resource);
        entry.num_active += 1;
        for_each_up(&mut self.queues, leaf, |q| q.num_active += 1);
    }

    fn force_active(&mut self, application_id: ApplicationId, attempt_id: ApplicationAttemptId) {
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
    fn finish_attempt(&mut self, application_id: ApplicationId) {
        let Some(app) = self.applications.get_mut(&application_id) else {
            return;
        };
        let Some(attempt) = app.attempt.take() else {
            return;
        };
        let (leaf, user, order, submission_order) = (
            app.leaf,
            app.user.clone(),
            app.order(),
            app.submission_order,
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
            queue.am_used = queue.am_used.saturating_sub(attempt.am_resource);
            if let Some(entry) = queue.users.get_mut(&user) {
                entry.am_used = entry.am_used.saturating_sub(attempt.am_resource);
                entry.num_active -= 1;
            }
            for_each_up(&mut self.queues, leaf, |q| q.num_active -= 1);
        }
    }

    /// Users of `leaf` with an active application that wants containers.
    fn active_users(&self, leaf: usize) -> BTreeSet<&str> {
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
    fn active_share(&self, leaf: usize, also: Option<&str>) -> (Resource, f64) {
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

    /// Adds a container's resources to its node, the cluster, its application, queue path and
    /// user.
    fn charge_container(&mut self, allocation: &Allocation) {
        let resource = allocation.resource;
        self.with_node(&allocation.node_id, |node| {
            node.add_container(allocation.container_id, resource)
        });
        self.cluster_used = self.cluster_used.saturating_add(resource);
        let Some(app) = self
            .applications
            .get_mut(&allocation.application_attempt_id.application_id)
        else {
            return;
        };
        app.used = app.used.saturating_add(resource);
        app.containers.insert(allocation.container_id);
        let (leaf, user) = (app.leaf, app.user.clone());
        for_each_up(&mut self.queues, leaf, |q| {
            q.used = q.used.saturating_add(resource)
        });
        let entry = self.queues[leaf].users.entry(user).or_default();
        entry.used = entry.used.saturating_add(resource);
    }

    /// Frees a container everywhere; ends the attempt if it was the current AM. Does not
    /// re-run activation.
    fn release_container(&mut self, container_id: &ContainerId) -> Option<Allocation> {
        let allocation = self.containers.remove(container_id)?;
        let resource = allocation.resource;
        self.with_node(&allocation.node_id, |node| {
            node.remove_container(container_id, resource)
        });
        self.cluster_used = self.cluster_used.saturating_sub(resource);
        let application_id = allocation.application_attempt_id.application_id;
        if let Some(app) = self.applications.get_mut(&application_id) {
            app.used = app.used.saturating_sub(resource);
            app.containers.remove(container_id);
            let (leaf, user) = (app.leaf, app.user.clone());
            let ends_attempt = allocation.is_am
                && app
                    .attempt
                    .as_ref()
                    .is_some_and(|a| a.id == allocation.application_attempt_id);
            for_each_up(&mut self.queues, leaf, |q| {
                q.used = q.used.saturating_sub(resource)
            });
            if let Some(entry) = self.queues[leaf].users.get_mut(&user) {
                entry.used = entry.used.saturating_sub(resource);
            }
            if ends_attempt {
                self.finish_attempt(application_id);
            }
        }
        Some(allocation)
    }

    /// Runs `f` on a node and keeps the free-resource index in step.
    fn with_node<T>(
        &mut self,
        node_id: &NodeId,
        f: impl FnOnce(&mut SchedulerNode) -> T,
    ) -> Option<T> {
        let node = self.nodes.get_mut(node_id)?;
        self.nodes_by_free.remove(&free_key(node));
        let result = f(node);
        self.nodes_by_free.insert(free_key(node));
        Some(result)
    }

    /// Descends from the root to the leaf that should be offered the next container.
    fn pick_leaf(&self, done: &[bool]) -> Option<usize> {
        if done.first().copied().unwrap_or(true) {
            return None;
        }
        let calculator = self.conf.resource_calculator();
        let cluster = self.cluster_resource;
        let mut index = 0;
        loop {
            let queue = &self.queues[index];
            if queue.is_leaf() {
                return Some(index);
            }
            let utilization = |q: &Queue| calculator.divide(cluster, q.used, q.guaranteed);
            index = queue
                .children
                .iter()
                .copied()
                .filter(|child| !done[*child])
                .min_by(|a, b| {
                    let (qa, qb) = (&self.queues[*a], &self.queues[*b]);
                    utilization(qa)
                        .total_cmp(&utilization(qb))
                        .then_with(|| qa.conf.name.cmp(&qb.conf.name))
                })?;
        }
    }

    fn allocate_in_leaf(&mut self, leaf: usize, pass: &mut SchedulingPass) -> Option<Allocation> {
        let SchedulingPass {
            leaves,
            unplaceable,
            first_ask,
            ..
        } = pass;
        let state = leaves.get_mut(&leaf)?;
        while let Some(&application_id) = state.apps.get(state.cursor) {
            if let Some(allocation) = self.allocate_for_application(
                leaf,
                application_id,
                state.active_used,
                state.active_weight,
                unplaceable,
                first_ask,
            ) {
                state.active_used = state.active_used.saturating_add(allocation.resource);
                return Some(allocation);
            }
            state.cursor += 1;
        }
        None
    }

    /// Places one container for the application, or `None` when it is over its user limit or
    /// none of its asks fits the queue limits and a node.
    fn allocate_for_application(
        &mut self,
        leaf: usize,
        application_id: ApplicationId,
        active_used: Resource,
        active_weight: f64,
        unplaceable: &mut Vec<Resource>,
        first_ask: &mut BTreeMap<ApplicationId, AskKey>,
    ) -> Option<Allocation> {
        let calculator = self.conf.resource_calculator();
        let cluster = self.cluster_resource;
        let app = self.applications.get(&application_id)?;
        let attempt = app.attempt.as_ref().filter(|a| a.active)?;
        let queue = &self.queues[leaf];
        let limits = self.queue_limits(leaf);
        let user_limit = limits.weighted_user_limit(
            limits.user_limit(Some(active_used), active_weight),
            queue.conf.user_weight(&app.user),
        );
        let user_used = queue
            .users
            .get(&app.user)
            .map_or(Resource::ZERO, |u| u.used);
        if calculator.compare(cluster, user_used, user_limit) == Ordering::Greater {
            return None;
        }
        let mut choice: Option<(Option<AskKey>, Resource, NodeId)> = None;
        if attempt.am_pending {
            if self.fits_queue_limits(leaf, attempt.am_resource) {
                if let Some(node) = self.find_any_node(attempt.am_resource, unplaceable) {
                    choice = Some((None, attempt.am_resource, node));
                }
            }
        } else {
            let from = first_ask.get(&application_id).copied();
            for (key, asks) in attempt.asks.pending_from(from) {
                // Reached only once every key before this one found no room in this pass.
                first_ask.insert(application_id, key);
                let capability = asks.capability();
                if !self.fits_queue_limits(leaf, capability) {
                    continue;
                }
                let blacklist = &attempt.blacklist;
                let local = asks
                    .preferred_hosts()
                    .filter(|host| !is_blacklisted(blacklist, host))
                    .find_map(|host| {
                        self.nodes_by_host.get(host)?.iter().find(|node_id| {
                            self.nodes
                                .get(*node_id)
                                .is_some_and(|node| calculator.fits_in(capability, node.free()))
                        })
                    });
                let node = match local {
                    Some(node) => Some(node.clone()),
                    None if asks.may_go_anywhere() && blacklist.is_empty() => {
                        self.find_any_node(capability, unplaceable)
                    }
                    None if asks.may_go_anywhere() => self.find_node_outside(capability, blacklist),
                    None => None,
                };
                if let Some(node) = node {
                    choice = Some((Some(key), capability, node));
                    break;
                }
            }
        }
        let (key, resource, node_id) = choice?;
        self.commit(application_id, key, resource, node_id)
    }

    fn fits_queue_limits(&self, leaf: usize, resource: Resource) -> bool {
        let calculator = self.conf.resource_calculator();
        let mut next = Some(leaf);
        while let Some(index) = next {
            let queue = &self.queues[index];
            if !calculator.fits_in(queue.used.saturating_add(resource), queue.maximum) {
                return false;
            }
            next = queue.parent;
        }
        true
    }

    /// The node with the most free memory that fits `resource`. Free resources only shrink
    /// during a pass, so a size that found no node is remembered and anything at least as
    /// large is refused at once.
    fn find_any_node(&self, resource: Resource, unplaceable: &mut Vec<Resource>) -> Option<NodeId> {
        let calculator = self.conf.resource_calculator();
        if unplaceable
            .iter()
            .any(|known| calculator.fits_in(*known, resource))
        {
            return None;
        }
        for (Reverse(free_memory), _, node_id) in &self.nodes_by_free {
            if *free_memory < resource.memory_mb {
                break;
            }
            let fits = self
                .nodes
                .get(node_id)
                .is_some_and(|node| calculator.fits_in(resource, node.free()));
            if fits {
                return Some(node_id.clone());
            }
        }
        if unplaceable.len() < UNPLACEABLE_MEMORY {
            unplaceable.push(resource);
        }
        None
    }

    /// The node with the most free memory that fits `resource` and is not blacklisted. Not
    /// remembered as unplaceable when none is found: another attempt may use the nodes this
    /// one refuses.
    fn find_node_outside(
        &self,
        resource: Resource,
        blacklist: &BTreeSet<String>,
    ) -> Option<NodeId> {
        let calculator = self.conf.resource_calculator();
        self.nodes_by_free
            .iter()
            .take_while(|(Reverse(free_memory), _, _)| *free_memory >= resource.memory_mb)
            .map(|(_, _, node_id)| node_id)
            .filter(|node_id| !is_blacklisted(blacklist, &node_id.host))
            .find(|node_id| {
                self.nodes
                    .get(*node_id)
                    .is_some_and(|node| calculator.fits_in(resource, node.free()))
            })
            .cloned()
    }

    /// Charges a container chosen by the pass and builds its allocation.
    fn commit(
        &mut self,
        application_id: ApplicationId,
        key: Option<AskKey>,
        resource: Resource,
        node_id: NodeId,
    ) -> Option<Allocation> {
        let epoch = self.epoch;
        let app = self.applications.get_mut(&application_id)?;
        let attempt = app.attempt.as_mut()?;
        // A sequence beyond ContainerId::MAX_SEQUENCE (2^40) cannot be encoded; the
        // application then simply gets nothing more.
        let container_id = ContainerId::new(attempt.id, epoch, app.next_sequence).ok()?;
        app.next_sequence += 1;
        let (priority, allocation_request_id) = match key {
            Some(key) => {
                attempt.asks.record_allocation(key, &node_id.host);
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
        let (am_resource_limit, users) = if queue.is_leaf() {
            let limits = self.queue_limits(index);
            let weights: f64 = queue.users.keys().map(|user| conf.user_weight(user)).sum();
            let shared = limits.user_limit(None, weights);
            let users = queue
                .users
                .iter()
                .map(|(user, figures): (&String, &LeafUser)| UserInfo {
                    user: user.clone(),
                    resources_used: figures.used,
                    am_resources_used: figures.am_used,
                    num_active_applications: figures.num_active,
                    num_pending_applications: figures.num_applications - figures.num_active,
                    user_limit: limits.weighted_user_limit(shared, conf.user_weight(user)),
                    weight: conf.user_weight(user),
                })
                .collect();
            (limits.am_limit(), users)
        } else {
            (Resource::ZERO, Vec::new())
        };
        QueueInfo {
            queue_name: conf.name.clone(),
            queue_path: conf.path.clone(),
            state: self.reported_state(index),
            capacity: conf.capacity.percent(),
            maximum_capacity: conf.maximum_capacity.percent(),
            absolute_capacity: conf.absolute_capacity,
            absolute_maximum_capacity: conf.absolute_maximum_capacity,
            used_capacity: percent_of(queue.guaranteed),
            absolute_used_capacity: percent_of(cluster),
            resources_used: queue.used,
            guaranteed_resource: queue.guaranteed,
            maximum_resource: queue.maximum,
            num_applications: queue.num_applications,
            num_active_applications: queue.num_active,
            num_pending_applications: queue.num_applications - queue.num_active,
            acl_submit_applications: conf
                .acl_submit_applications
                .as_ref()
                .map(ToString::to_string),
            acl_administer_queue: conf.acl_administer_queue.as_ref().map(ToString::to_string),
            default_application_priority: conf.default_application_priority,
            minimum_user_limit_percent: conf.minimum_user_limit_percent,
            user_limit_factor: conf.user_limit_factor,
            maximum_applications: conf.maximum_applications,
            maximum_applications_per_user: conf.maximum_applications_per_user,
            max_parallel_apps: conf.max_parallel_apps,
            am_resource_limit,
            am_resource_used: queue.am_used,
            users,
            child_queues: queue
                .children
                .iter()
                .map(|child| self.queues[*child].conf.name.clone())
                .collect(),
        }
    }
}

/// Per-pass bookkeeping: which queues have nothing more to place, each leaf's cursor over its
/// applications, and container sizes known not to fit any node.
struct SchedulingPass {
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
    apps: Vec<ApplicationId>,
    cursor: usize,
    active_used: Resource,
    active_weight: f64,
}

impl SchedulingPass {
    fn new(scheduler: &CapacityScheduler) -> Self {
        let queues = &scheduler.queues;
        let mut done = vec![true; queues.len()];
        let mut leaves = BTreeMap::new();
        for (index, queue) in queues.iter().enumerate() {
            if !queue.is_leaf() {
                continue;
            }
            let apps: Vec<ApplicationId> = queue
                .apps
                .iter()
                .filter(|order| {
                    scheduler
                        .applications
                        .get(&order.2)
                        .is_some_and(SchedulerApplication::has_demand)
                })
                .map(|order| order.2)
                .collect();
            if apps.is_empty() {
                continue;
            }
            let (active_used, active_weight) = scheduler.active_share(index, None);
            done[index] = false;
            leaves.insert(
                index,
                LeafPass {
                    apps,
                    cursor: 0,
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

/// Whether [`account_application`] adds an application to its queues or takes it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Accounting {
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

    fn charge(self, value: Resource, by: Resource) -> Resource {
        match self {
            Self::Add => value.saturating_add(by),
            Self::Remove => value.saturating_sub(by),
        }
    }
}

/// Adds an application's counts and usage to its leaf and the leaf's ancestors (a freshly
/// built queue table, or the target of a move), or takes them out (the source of a move).
fn account_application(queues: &mut [Queue], app: &SchedulerApplication, accounting: Accounting) {
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
    let user = queues[leaf].users.entry(app.user.clone()).or_default();
    user.num_applications = count(user.num_applications, 1);
    user.used = charge(user.used, app.used);
    user.am_used = charge(user.am_used, am_resource);
    user.num_active = count(user.num_active, num_active);
    if user.num_applications == 0 {
        queues[leaf].users.remove(&app.user);
    }
    queues[leaf].am_used = charge(queues[leaf].am_used, am_resource);
    for_each_up(queues, leaf, |q| {
        q.num_applications = count(q.num_applications, 1);
        q.used = charge(q.used, app.used);
        q.num_runnable = count(q.num_runnable, runnable);
        q.num_active = count(q.num_active, num_active);
    });
}

/// Whether an attempt's blacklist rules out a node on `host`. Nodes carry no topology here, so
/// every node is on YARN's default rack, and blacklisting that rack rules out every node, as it
/// does in YARN.
fn is_blacklisted(blacklist: &BTreeSet<String>, host: &str) -> bool {
    !blacklist.is_empty() && (blacklist.contains(host) || blacklist.contains(DEFAULT_RACK))
}

/// Applies `f` to `leaf` and each of its ancestors.
fn for_each_up(queues: &mut [Queue], leaf: usize, mut f: impl FnMut(&mut Queue)) {
    let mut next = Some(leaf);
    while let Some(index) = next {
        f(&mut queues[index]);
        next = queues[index].parent;
    }
}

fn free_key(node: &SchedulerNode) -> FreeKey {
    let free = node.free();
    (
        Reverse(free.memory_mb),
        Reverse(free.vcores),
        node.node_id().clone(),
    )
}

/// The smallest [`AppOrder`], to start a range scan of one leaf.
fn first_order() -> AppOrder {
    (Reverse(i32::MAX), 0, ApplicationId::new(i64::MIN, i32::MIN))
}
