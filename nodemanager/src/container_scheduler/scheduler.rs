//! [`ContainerScheduler`]: which containers start, wait or are killed on this node.

use std::collections::VecDeque;

use yarn_opportunistic::ContainerQueuingLimit;
use yarn_proto::ids::ContainerId;

use crate::Error;
use crate::container_scheduler::{
    ContainerRequest, DEQUEUED_DIAGNOSTIC, ExecutionType, KILLED_BY_CONTAINER_SCHEDULER,
    KILLED_FOR_GUARANTEED_DIAGNOSTIC, OpportunisticContainersStatus, QUEUE_FULL_DIAGNOSTIC,
    Resources, SchedulerAction,
};

/// Where a container stands in the container scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulingState {
    /// Waiting in the guaranteed or the opportunistic queue; not charged to the node.
    Queued,
    /// Started and charged to the node.
    Running,
    /// Told to die (killed for a guaranteed container, or stopped); still charged to the node
    /// until its completion is reported.
    Killing,
}

/// The NodeManager's container scheduler, a pure core after YARN's `ContainerScheduler`.
///
/// It holds the node's capacity, the running containers in start order, a FIFO queue of
/// guaranteed containers waiting for room and a FIFO queue of opportunistic containers. Each
/// method takes one event and returns the [`SchedulerAction`]s for the async shell to carry out,
/// in order; it never does I/O, reads no clock and spawns nothing. Resources are accounted by
/// allocation, not by measured use, as YARN's allocation-based utilization tracker does.
///
/// The rules, as in YARN:
///
/// - A GUARANTEED container starts at once when it fits. Otherwise it waits at the tail of the
///   guaranteed queue and the scheduler kills running OPPORTUNISTIC containers, most recently
///   started first, only as many as the queued guaranteed containers need beyond what kills
///   already under way will free. It starts on the [`container_completed`](Self::container_completed)
///   that frees enough room. If killing every opportunistic container is not enough (guaranteed
///   work alone overcommits the node), it waits for guaranteed containers to finish.
/// - With a maximum queue length of 0 opportunistic containers are not allowed on the node: each
///   one is rejected with [`QUEUE_FULL_DIAGNOSTIC`], and guaranteed containers start at once
///   without looking at resources, as YARN's newer `ContainerScheduler` does (it enqueues every
///   container before starting it, and force-starts guaranteed ones when the opportunistic queue
///   length is at most 0).
/// - An OPPORTUNISTIC container joins the opportunistic queue if it holds fewer than the maximum
///   queue length (so the queue holds exactly that many at most), else it is rejected. Queued
///   containers start FIFO while they fit: guaranteed ones first, and opportunistic ones only
///   when no guaranteed container waits. A head that does not fit blocks the ones behind it.
///
/// Invariant, restored before every method returns: nothing queued could start, and the kills
/// under way cover what the queued guaranteed containers need (when enough opportunistic
/// containers exist). The one exception is between [`recover_running`](Self::recover_running) /
/// [`recover_queued`](Self::recover_queued) and [`recovery_completed`](Self::recovery_completed).
#[derive(Debug, Clone)]
pub struct ContainerScheduler {
    capacity: Resources,
    max_queue_length: u32,
    allocated: Resources,
    // Oldest start first, so kills walk it backwards. Linear searches are fine: a node runs at
    // most a few hundred containers.
    running: Vec<RunningContainer>,
    queued_guaranteed: VecDeque<ContainerRequest>,
    queued_opportunistic: VecDeque<ContainerRequest>,
}

#[derive(Debug, Clone)]
struct RunningContainer {
    request: ContainerRequest,
    killing: bool,
}

enum Location {
    Running(usize),
    QueuedGuaranteed(usize),
    QueuedOpportunistic(usize),
}

impl ContainerScheduler {
    /// An empty scheduler for a node offering `capacity`, with
    /// `yarn.nodemanager.opportunistic-containers-max-queue-length` = `max_queue_length`.
    pub fn new(capacity: Resources, max_queue_length: u32) -> Self {
        Self {
            capacity,
            max_queue_length,
            allocated: Resources::ZERO,
            running: Vec::new(),
            queued_guaranteed: VecDeque::new(),
            queued_opportunistic: VecDeque::new(),
        }
    }

    /// What the node offers in total.
    pub fn capacity(&self) -> Resources {
        self.capacity
    }

    /// The most opportunistic containers the queue holds; 0 means none are allowed.
    pub fn max_queue_length(&self) -> u32 {
        self.max_queue_length
    }

    /// What running containers hold, those being killed included.
    pub fn allocated(&self) -> Resources {
        self.allocated
    }

    /// Where `id` stands, or `None` when the scheduler neither queues nor runs it.
    pub fn state(&self, id: &ContainerId) -> Option<SchedulingState> {
        match self.locate(id)? {
            Location::Running(index) if self.running[index].killing => {
                Some(SchedulingState::Killing)
            }
            Location::Running(_) => Some(SchedulingState::Running),
            Location::QueuedGuaranteed(_) | Location::QueuedOpportunistic(_) => {
                Some(SchedulingState::Queued)
            }
        }
    }

    /// The container as the scheduler knows it now (current execution type and token version),
    /// or `None` when it neither queues nor runs it.
    pub fn container(&self, id: &ContainerId) -> Option<&ContainerRequest> {
        self.locate(id).map(|location| self.request_at(&location))
    }

    /// Running containers, those being killed included, oldest start first.
    pub fn running(&self) -> impl Iterator<Item = &ContainerRequest> {
        self.running.iter().map(|container| &container.request)
    }

    /// Queued containers in the order they would start: guaranteed ones, then opportunistic ones.
    pub fn queued(&self) -> impl Iterator<Item = &ContainerRequest> {
        self.queued_guaranteed
            .iter()
            .chain(self.queued_opportunistic.iter())
    }

    /// Takes a new container: starts it, queues it, rejects it, or queues it and kills
    /// opportunistic containers to make room (see the type's rules).
    ///
    /// A container that waits gets [`SchedulerAction::Queue`] first; kills and the starts of
    /// other containers may follow.
    ///
    /// # Errors
    ///
    /// [`Error::DuplicateContainer`] when the id is already queued or running, and
    /// [`Error::ExceedsNodeCapacity`] when the container could never fit on this node. Either
    /// way nothing changes.
    pub fn schedule(&mut self, request: ContainerRequest) -> Result<Vec<SchedulerAction>, Error> {
        self.check_admissible(&request)?;
        let id = request.id;
        let mut actions = Vec::new();
        match request.execution_type {
            ExecutionType::Guaranteed => {
                self.queued_guaranteed.push_back(request);
                self.reconcile(&mut actions);
                if self.state(&id) == Some(SchedulingState::Queued) {
                    actions.insert(0, SchedulerAction::Queue { id });
                }
            }
            ExecutionType::Opportunistic => {
                // Starting what fits first frees queue slots before the full-queue check, as
                // YARN does; after a method that kept the invariant this finds nothing.
                self.reconcile(&mut actions);
                if self.queued_opportunistic.len() >= self.max_queue_length as usize {
                    actions.push(SchedulerAction::Reject {
                        id,
                        exit_status: KILLED_BY_CONTAINER_SCHEDULER,
                        diagnostic: QUEUE_FULL_DIAGNOSTIC.to_owned(),
                    });
                } else {
                    self.queued_opportunistic.push_back(request);
                    self.reconcile(&mut actions);
                    if self.state(&id) == Some(SchedulingState::Queued) {
                        actions.push(SchedulerAction::Queue { id });
                    }
                }
            }
        }
        Ok(actions)
    }

    /// Records that a container finished (exited, was killed, or was lost), releases what it
    /// held and starts queued containers that now fit, guaranteed ones first.
    ///
    /// A queued container that completes, for example because its application finished, simply
    /// leaves the queue.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownContainer`] when the scheduler neither queues nor runs `id`, for example
    /// on a second completion of the same container.
    pub fn container_completed(&mut self, id: ContainerId) -> Result<Vec<SchedulerAction>, Error> {
        match self.locate(&id).ok_or(Error::UnknownContainer { id })? {
            Location::Running(index) => {
                let finished = self.running.remove(index);
                self.allocated = self.allocated.saturating_sub(finished.request.resources);
            }
            Location::QueuedGuaranteed(index) => {
                self.queued_guaranteed.remove(index);
            }
            Location::QueuedOpportunistic(index) => {
                self.queued_opportunistic.remove(index);
            }
        }
        let mut actions = Vec::new();
        self.reconcile(&mut actions);
        Ok(actions)
    }

    /// Stops a container at the application's or the RM's request.
    ///
    /// A queued container leaves the queue at once ([`SchedulerAction::RemoveFromQueue`] with the
    /// given exit status and diagnostic), which may let others start. A running one gets
    /// [`SchedulerAction::Kill`] and stays charged to the node until
    /// [`container_completed`](Self::container_completed); its resources count as being freed,
    /// so no other opportunistic container is killed for room it will release. Stopping a
    /// container that is already being killed returns no action: one kill is under way.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownContainer`] when the scheduler neither queues nor runs `id`.
    pub fn stop(
        &mut self,
        id: ContainerId,
        exit_status: i32,
        diagnostic: &str,
    ) -> Result<Vec<SchedulerAction>, Error> {
        let mut actions = Vec::new();
        match self.locate(&id).ok_or(Error::UnknownContainer { id })? {
            Location::Running(index) => {
                let container = &mut self.running[index];
                if !container.killing {
                    container.killing = true;
                    actions.push(SchedulerAction::Kill {
                        id,
                        exit_status,
                        diagnostic: diagnostic.to_owned(),
                    });
                }
            }
            Location::QueuedGuaranteed(index) => {
                self.queued_guaranteed.remove(index);
                actions.push(Self::removed_from_queue(id, exit_status, diagnostic));
            }
            Location::QueuedOpportunistic(index) => {
                self.queued_opportunistic.remove(index);
                actions.push(Self::removed_from_queue(id, exit_status, diagnostic));
            }
        }
        // A removed guaranteed container may have been all that held opportunistic ones back.
        self.reconcile(&mut actions);
        Ok(actions)
    }

    /// Applies the queuing limit the RM sent in a heartbeat response: when it bounds the queue
    /// length (`max_queue_length` > -1) below the number of queued opportunistic containers, the
    /// first `max_queue_length` stay and the rest are shed, in queue order, with
    /// [`DEQUEUED_DIAGNOSTIC`].
    ///
    /// As in YARN the limit only sheds what is queued now; it does not lower the configured
    /// maximum for later arrivals, and a wait-time limit is not enforced.
    pub fn set_queuing_limit(&mut self, limit: ContainerQueuingLimit) -> Vec<SchedulerAction> {
        let Ok(keep) = usize::try_from(limit.max_queue_length) else {
            return Vec::new();
        };
        if keep >= self.queued_opportunistic.len() {
            return Vec::new();
        }
        self.queued_opportunistic
            .split_off(keep)
            .into_iter()
            .map(|request| SchedulerAction::Shed {
                id: request.id,
                exit_status: KILLED_BY_CONTAINER_SCHEDULER,
                diagnostic: DEQUEUED_DIAGNOSTIC.to_owned(),
            })
            .collect()
    }

    /// Changes a container's execution type and size under a newer container token
    /// (promotion, demotion, increase, decrease), and records the token's version.
    ///
    /// - A queued opportunistic container that is promoted moves to the tail of the guaranteed
    ///   queue and is handled as a new guaranteed container: it starts if it fits, otherwise
    ///   opportunistic containers are killed to make room for it.
    /// - A queued guaranteed container that is demoted moves to the tail of the opportunistic
    ///   queue, even when that makes the queue longer than its maximum, as in YARN.
    /// - A running container is reclassified (a promoted one can no longer be killed for room,
    ///   a demoted one can be) and charged at its new size at once, announced by
    ///   [`SchedulerAction::Resize`]: before the starts a decrease makes room for, after the
    ///   kills an increase of its memory that overcommits the node orders (running opportunistic
    ///   containers, most recently started first, until it fits again, as for a queued
    ///   guaranteed container).
    /// - A queued container keeps its place when its execution type stays.
    /// - An update that changes neither only records the version.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownContainer`] when the scheduler neither queues nor runs `id`,
    /// [`Error::StaleContainerVersion`] when `version` is not newer than the container's current
    /// one, [`Error::ContainerBeingKilled`] for a container already told to die, and
    /// [`Error::ExceedsNodeCapacity`] for growth beyond the node's size. Nothing changes on
    /// error.
    pub fn update(
        &mut self,
        id: ContainerId,
        execution_type: ExecutionType,
        resources: Resources,
        version: i32,
    ) -> Result<Vec<SchedulerAction>, Error> {
        let location = self.locate(&id).ok_or(Error::UnknownContainer { id })?;
        let current = self.request_at(&location).version;
        if version <= current {
            return Err(Error::StaleContainerVersion {
                id,
                current,
                offered: version,
            });
        }
        // Only growth is checked: a container recovered larger than a node that shrank
        // across a restart must still be able to shrink or be demoted.
        let before = self.request_at(&location).resources;
        let grows = resources.memory_mb > before.memory_mb || resources.vcores > before.vcores;
        if grows && !resources.fits_within(&self.capacity) {
            return Err(Error::ExceedsNodeCapacity {
                id,
                requested: resources,
                capacity: self.capacity,
            });
        }
        let mut resize = None;
        match location {
            Location::Running(index) => {
                let container = &mut self.running[index];
                if container.killing {
                    return Err(Error::ContainerBeingKilled { id });
                }
                if container.request.resources != resources {
                    self.allocated = self
                        .allocated
                        .saturating_sub(container.request.resources)
                        .saturating_add(resources);
                    resize = Some(SchedulerAction::Resize { id, resources });
                }
                container.request.execution_type = execution_type;
                container.request.resources = resources;
                container.request.version = version;
            }
            Location::QueuedGuaranteed(index) => {
                if let Some(mut request) = self.queued_guaranteed.remove(index) {
                    request.resources = resources;
                    self.requeue(request, index, execution_type, version);
                }
            }
            Location::QueuedOpportunistic(index) => {
                if let Some(mut request) = self.queued_opportunistic.remove(index) {
                    request.resources = resources;
                    self.requeue(request, index, execution_type, version);
                }
            }
        }
        let mut actions = Vec::new();
        // Memory is the limit the process gets: a container whose memory does not grow is
        // bound before what it freed starts, one whose memory grows only after the kills that
        // make room for it were ordered.
        if resources.memory_mb <= before.memory_mb {
            actions.extend(resize.take());
        }
        self.reconcile(&mut actions);
        // Only a container that grew is made room for: an overcommit the node had before (a
        // force-started guaranteed container, a capacity that shrank) is not this update's.
        if grows && !self.allocated.fits_within(&self.capacity) {
            self.reclaim_opportunistic(&mut actions);
        }
        actions.extend(resize);
        Ok(actions)
    }

    /// The load this node reports in every heartbeat. Opportunistic containers being killed
    /// still count as running: they hold their resources until they exit.
    pub fn opportunistic_status(&self) -> OpportunisticContainersStatus {
        let mut status = OpportunisticContainersStatus {
            queued_opportunistic_containers: count(self.queued_opportunistic.len()),
            wait_queue_length: count(
                self.queued_guaranteed.len() + self.queued_opportunistic.len(),
            ),
            queue_capacity: self.max_queue_length,
            ..OpportunisticContainersStatus::default()
        };
        for container in &self.running {
            if container.request.execution_type == ExecutionType::Opportunistic {
                let resources = container.request.resources;
                status.running_opportunistic_containers += 1;
                status.opportunistic_memory_used_mb = status
                    .opportunistic_memory_used_mb
                    .saturating_add(resources.memory_mb);
                status.opportunistic_vcores_used = status
                    .opportunistic_vcores_used
                    .saturating_add(resources.vcores);
            }
        }
        status
    }

    /// Restores, after an NM restart, a container that was already running. Call it in the
    /// containers' original start order, oldest first, so kills still pick the most recently
    /// started; it starts nothing until [`recovery_completed`](Self::recovery_completed).
    ///
    /// The container is charged even if the node is now overcommitted: it runs already.
    ///
    /// # Errors
    ///
    /// [`Error::DuplicateContainer`] when the id is already known.
    pub fn recover_running(&mut self, request: ContainerRequest) -> Result<(), Error> {
        if self.locate(&request.id).is_some() {
            return Err(Error::DuplicateContainer { id: request.id });
        }
        self.allocated = self.allocated.saturating_add(request.resources);
        self.running.push(RunningContainer {
            request,
            killing: false,
        });
        Ok(())
    }

    /// Restores, after an NM restart, a container that was queued, at the tail of the queue of
    /// its execution type. Call it in the original queue order. Restored containers may make the
    /// opportunistic queue longer than its maximum: they were admitted before the restart.
    ///
    /// # Errors
    ///
    /// [`Error::DuplicateContainer`] when the id is already known, and
    /// [`Error::ExceedsNodeCapacity`] when the container could never fit on this node (its
    /// capacity may have shrunk across the restart).
    pub fn recover_queued(&mut self, request: ContainerRequest) -> Result<(), Error> {
        self.check_admissible(&request)?;
        match request.execution_type {
            ExecutionType::Guaranteed => self.queued_guaranteed.push_back(request),
            ExecutionType::Opportunistic => self.queued_opportunistic.push_back(request),
        }
        Ok(())
    }

    /// Ends recovery: starts the restored queued containers that fit and kills opportunistic
    /// containers for restored guaranteed ones that do not, by the usual rules.
    pub fn recovery_completed(&mut self) -> Vec<SchedulerAction> {
        let mut actions = Vec::new();
        self.reconcile(&mut actions);
        actions
    }

    fn check_admissible(&self, request: &ContainerRequest) -> Result<(), Error> {
        let id = request.id;
        if self.locate(&id).is_some() {
            return Err(Error::DuplicateContainer { id });
        }
        if !request.resources.fits_within(&self.capacity) {
            return Err(Error::ExceedsNodeCapacity {
                id,
                requested: request.resources,
                capacity: self.capacity,
            });
        }
        Ok(())
    }

    fn locate(&self, id: &ContainerId) -> Option<Location> {
        if let Some(index) = self.running.iter().position(|c| c.request.id == *id) {
            return Some(Location::Running(index));
        }
        if let Some(index) = self.queued_guaranteed.iter().position(|r| r.id == *id) {
            return Some(Location::QueuedGuaranteed(index));
        }
        self.queued_opportunistic
            .iter()
            .position(|r| r.id == *id)
            .map(Location::QueuedOpportunistic)
    }

    fn request_at(&self, location: &Location) -> &ContainerRequest {
        match *location {
            Location::Running(index) => &self.running[index].request,
            Location::QueuedGuaranteed(index) => &self.queued_guaranteed[index],
            Location::QueuedOpportunistic(index) => &self.queued_opportunistic[index],
        }
    }

    /// Puts a queued container taken from position `index` of its queue back: at the same place
    /// when its execution type stays, at the tail of the other queue when it changes.
    fn requeue(
        &mut self,
        mut request: ContainerRequest,
        index: usize,
        execution_type: ExecutionType,
        version: i32,
    ) {
        let changed = request.execution_type != execution_type;
        request.execution_type = execution_type;
        request.version = version;
        let queue = match execution_type {
            ExecutionType::Guaranteed => &mut self.queued_guaranteed,
            ExecutionType::Opportunistic => &mut self.queued_opportunistic,
        };
        if changed {
            queue.push_back(request);
        } else {
            queue.insert(index, request);
        }
    }

    fn removed_from_queue(id: ContainerId, exit_status: i32, diagnostic: &str) -> SchedulerAction {
        SchedulerAction::RemoveFromQueue {
            id,
            exit_status,
            diagnostic: diagnostic.to_owned(),
        }
    }

    /// Restores the invariant: starts what fits, then kills for guaranteed containers still
    /// waiting.
    fn reconcile(&mut self, actions: &mut Vec<SchedulerAction>) {
        self.start_pending(actions);
        if !self.queued_guaranteed.is_empty() {
            self.reclaim_opportunistic(actions);
        }
    }

    fn start_pending(&mut self, actions: &mut Vec<SchedulerAction>) {
        let force_guaranteed = self.max_queue_length == 0;
        while let Some(request) = self.queued_guaranteed.pop_front() {
            if !force_guaranteed && !self.has_room_for(&request) {
                self.queued_guaranteed.push_front(request);
                return;
            }
            self.start(request, actions);
        }
        while let Some(request) = self.queued_opportunistic.pop_front() {
            if !self.has_room_for(&request) {
                self.queued_opportunistic.push_front(request);
                return;
            }
            self.start(request, actions);
        }
    }

    fn has_room_for(&self, request: &ContainerRequest) -> bool {
        self.allocated
            .saturating_add(request.resources)
            .fits_within(&self.capacity)
    }

    fn start(&mut self, request: ContainerRequest, actions: &mut Vec<SchedulerAction>) {
        self.allocated = self.allocated.saturating_add(request.resources);
        actions.push(SchedulerAction::Start { id: request.id });
        self.running.push(RunningContainer {
            request,
            killing: false,
        });
    }

    /// Kills running opportunistic containers, most recently started first, until what is
    /// allocated plus every queued guaranteed container fits within the capacity plus what
    /// containers already being killed will free. This is YARN's `resourcesToFreeUp` for the
    /// last queued guaranteed container, which covers all the ones ahead of it.
    fn reclaim_opportunistic(&mut self, actions: &mut Vec<SchedulerAction>) {
        let needed = self
            .queued_guaranteed
            .iter()
            .fold(self.allocated, |sum, request| {
                sum.saturating_add(request.resources)
            });
        let mut freeable = self
            .running
            .iter()
            .filter(|container| container.killing)
            .fold(self.capacity, |sum, container| {
                sum.saturating_add(container.request.resources)
            });
        for container in self.running.iter_mut().rev() {
            if needed.fits_within(&freeable) {
                return;
            }
            if container.killing || container.request.execution_type != ExecutionType::Opportunistic
            {
                continue;
            }
            container.killing = true;
            freeable = freeable.saturating_add(container.request.resources);
            actions.push(SchedulerAction::Kill {
                id: container.request.id,
                exit_status: KILLED_BY_CONTAINER_SCHEDULER,
                diagnostic: KILLED_FOR_GUARANTEED_DIAGNOSTIC.to_owned(),
            });
        }
    }
}

/// Queue lengths as the status's `u32` counts; a node never queues four billion containers.
fn count(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}
