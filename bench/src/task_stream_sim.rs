//! [`TaskStreamSim`]: a deterministic discrete-event simulation of an ApplicationMaster that
//! runs a stream of short tasks on a busy cluster, driven by the real decision cores.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use yarn_conf::{Configuration, keys};
use yarn_minicluster::SplitMix64;
use yarn_nodemanager::container_scheduler::{
    ContainerRequest, ContainerScheduler, ExecutionType, Resources, SchedulerAction,
    SchedulingState,
};
use yarn_opportunistic::{NodeLoad, NodeQueueLoadMonitor, OpportunisticAsk};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_rm_ha::scheduling::{OpportunisticScheduling, OpportunisticSettings};
use yarn_scheduler::{
    CapacityScheduler, CapacitySchedulerConfiguration, Resource, ResourceRequest, SchedulerSettings,
};

use crate::scheduler_bench::queue_properties;
use crate::task_stream::TaskStream;
use crate::task_stream_run::TaskStreamRun;

/// Containers each simulated node runs at once: 8 slots of [`SLOT_MB`].
pub const SLOTS_PER_NODE: u32 = 8;

/// The size of every task's container: 1 GB (and one vcore).
pub const SLOT_MB: u64 = 1024;

/// How long every task runs once started, in simulated milliseconds.
pub const TASK_MS: u64 = 1000;

/// The simulated seconds at the start of a run that are not counted: the cluster fills up.
pub const WARMUP_SECONDS: u64 = 10;

/// How often the ApplicationMaster heartbeats (YARN's `AMRMClientAsync` default), in
/// simulated milliseconds.
pub const AM_HEARTBEAT_MS: u64 = 1000;

/// `yarn.nodemanager.opportunistic-containers-max-queue-length` on every simulated node: 10,
/// as the minicluster lays it out and as YARN's documentation suggests to start with.
pub const NM_QUEUE_LENGTH: u32 = 10;

/// Tasks the ApplicationMaster keeps asked for, per slot of the cluster: twice what fits, so
/// the backlog always exceeds capacity.
pub const BACKLOG_PER_SLOT: u32 = 2;

/// The longest a container the ApplicationMaster starts takes to reach its NodeManager (the
/// `startContainers` call and the launch), in simulated milliseconds; each draws its delay
/// from 0 to this. Without it every start would fall on the AM's heartbeat tick and every
/// 1-second task would end on one, so ties, not the protocols, would decide the races.
pub const START_DELAY_MAX_MS: u64 = 100;

/// The seed of the start delays: fixed, so a shape always gives the same figures.
pub const SIM_SEED: u64 = 1;

/// The size of a simulated cluster and its workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskStreamShape {
    /// NodeManagers, each with [`SLOTS_PER_NODE`] slots.
    pub nodes: usize,
    /// Simulated seconds, [`WARMUP_SECONDS`] of them unmeasured.
    pub seconds: u64,
    /// The share of the backlog asked for as OPPORTUNISTIC, 0 to 100.
    pub opportunistic_percent: u32,
}

/// Runs the simulation of `shape` and returns its figures. Deterministic: the same shape
/// always gives the same figures.
///
/// # Errors
///
/// When the shape has no node, runs no longer than the warm-up, or asks for more than 100
/// percent; when a core refuses an event, which would be a bug in the simulation.
pub fn simulate_task_stream(shape: TaskStreamShape) -> anyhow::Result<TaskStreamRun> {
    TaskStreamSim::new(shape)?.run()
}

/// One simulated event; at equal times events run in the order they were scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// The ApplicationMaster's allocate heartbeat.
    AmAllocate,
    /// Node `index`'s heartbeat to the RM.
    NodeHeartbeat(usize),
    /// A container the AM started reaches its node.
    ContainerArrives {
        node: usize,
        container: ContainerId,
        opportunistic: bool,
    },
    /// A task's run ends (unless its container was killed meanwhile).
    TaskEnds { node: usize, container: ContainerId },
}

/// One simulated NodeManager: its container scheduler, and what it has to tell the RM.
#[derive(Debug)]
struct SimNode {
    id: NodeId,
    containers: ContainerScheduler,
    /// GUARANTEED containers ended since the last heartbeat: the RM frees them at the next.
    finished_guaranteed: Vec<ContainerId>,
}

/// The simulation: a ResourceManager, `nodes` NodeManagers and one ApplicationMaster with a
/// backlog of 1-second tasks that always exceeds the cluster, in simulated time.
///
/// The decisions are the real cores': the RM's [`CapacityScheduler`] places GUARANTEED
/// containers, the RM leader's [`OpportunisticScheduling`] (YARN's opportunistic allocator
/// per attempt) places OPPORTUNISTIC ones on the [`NodeQueueLoadMonitor`]'s least-loaded nodes
/// with the RM's default settings ([`OpportunisticSettings`]), and each node's
/// [`ContainerScheduler`] starts, queues, refuses, sheds and kills. The simulation supplies
/// only the timing, as YARN's protocols impose it:
///
/// - every node heartbeats every `yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`
///   (1 s), at staggered offsets; only then does the RM learn of ended GUARANTEED containers
///   (and free them), of the node's queue, and does the node get the RM's queue limit;
/// - the RM runs a scheduling pass after each event that gives it something new (a heartbeat,
///   the AM's asks), standing for yarn-ha's asynchronous passes every 5 ms; OPPORTUNISTIC
///   placements are counted as queued on their node until it reports again, as the leader does;
/// - the ApplicationMaster heartbeats every [`AM_HEARTBEAT_MS`]; each allocate re-sends its
///   asks (the whole backlog, [`BACKLOG_PER_SLOT`] per slot, split by the OPPORTUNISTIC
///   share) and brings what the RM allocated since the previous one, which it starts on
///   their nodes at once (container launch takes no time here);
/// - a task runs [`TASK_MS`]; its node's scheduler learns of its end at once, so a queued
///   OPPORTUNISTIC container starts the moment a slot frees; a kill takes effect at once.
///
/// No ApplicationMaster container is simulated (the attempt needs none), and nodes never fail.
#[derive(Debug)]
pub struct TaskStreamSim {
    heartbeat_ms: u64,
    sorting_ms: u64,
    nodes_used: usize,
    max_per_pass: Option<u32>,
    now: u64,
    end: u64,
    warmup: u64,
    sequence: u64,
    events: BinaryHeap<Reverse<(u64, u64, Event)>>,
    scheduler: CapacityScheduler,
    opportunistic: OpportunisticScheduling,
    monitor: NodeQueueLoadMonitor,
    last_sort: Option<u64>,
    attempt: ApplicationAttemptId,
    nodes: Vec<SimNode>,
    node_index: BTreeMap<String, usize>,
    /// Containers the RM allocated since the AM's last allocate: (node, container, type).
    undelivered: Vec<(usize, ContainerId, ExecutionType)>,
    stream: TaskStream,
    /// How many waiting tasks the AM asks containers for.
    window: usize,
    start_delays: SplitMix64,
    /// Memory held by running containers times milliseconds, within the measured window.
    busy_mb_ms: u128,
    last_accounted: u64,
    run: TaskStreamRun,
}

impl TaskStreamSim {
    /// Builds the cluster of `shape` with every node registered and empty.
    ///
    /// # Errors
    ///
    /// As [`simulate_task_stream`].
    pub fn new(shape: TaskStreamShape) -> anyhow::Result<Self> {
        anyhow::ensure!(shape.nodes > 0, "the simulated cluster needs a node");
        anyhow::ensure!(
            shape.seconds > WARMUP_SECONDS,
            "a simulation of {} s leaves nothing after its {WARMUP_SECONDS} s warm-up",
            shape.seconds
        );
        anyhow::ensure!(
            shape.opportunistic_percent <= 100,
            "the OPPORTUNISTIC share is {} percent; at most 100",
            shape.opportunistic_percent
        );
        // The RM's settings as the minicluster configures them: YARN's defaults, with the
        // opportunistic allocator on.
        let mut conf = Configuration::new();
        conf.set(
            &keys::RM_OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED.name,
            "true",
        );
        let settings =
            OpportunisticSettings::from_conf(&conf).context("the RM's opportunistic settings")?;
        let monitor = settings
            .load_monitor()
            .context("the opportunistic allocator is enabled, so there is a load monitor")?;
        let heartbeat = conf.get_duration(&keys::RM_NM_HEARTBEAT_INTERVAL_MS)?;

        let (queues, properties) = queue_properties(1);
        let config = CapacitySchedulerConfiguration::new(properties, SchedulerSettings::default())
            .context("the simulated cluster's queue configuration")?;
        let mut scheduler = CapacityScheduler::new(config);
        let application = ApplicationId::new(1, 1);
        scheduler
            .submit_application(application, &queues[0], "bench", &[], None)
            .context("submitting the simulated application")?;
        let attempt = ApplicationAttemptId::new(application, 1);
        scheduler
            .add_attempt_without_am(attempt)
            .context("starting its attempt")?;
        let mut nodes = Vec::with_capacity(shape.nodes);
        let mut node_index = BTreeMap::new();
        let node_memory = u64::from(SLOTS_PER_NODE) * SLOT_MB;
        for index in 0..shape.nodes {
            let id = NodeId::new(format!("sim{index}.bench"), 8041);
            scheduler
                .add_node(id.clone(), Resource::new(node_memory, SLOTS_PER_NODE))
                .context("registering a simulated node")?;
            node_index.insert(id.to_string(), index);
            nodes.push(SimNode {
                id,
                containers: ContainerScheduler::new(
                    Resources::new(node_memory, SLOTS_PER_NODE),
                    NM_QUEUE_LENGTH,
                ),
                finished_guaranteed: Vec::new(),
            });
        }
        let window = usize::try_from(SLOTS_PER_NODE * BACKLOG_PER_SLOT)
            .ok()
            .and_then(|per_node| per_node.checked_mul(shape.nodes))
            .context("the simulated cluster has too many nodes")?;
        Ok(Self {
            heartbeat_ms: millis_of(heartbeat),
            sorting_ms: millis_of(settings.sorting_interval),
            nodes_used: settings.nodes_used,
            max_per_pass: settings.max_allocations_per_heartbeat,
            now: 0,
            end: shape.seconds * 1000,
            warmup: WARMUP_SECONDS * 1000,
            sequence: 0,
            events: BinaryHeap::new(),
            scheduler,
            opportunistic: OpportunisticScheduling::default(),
            monitor,
            last_sort: None,
            attempt,
            nodes,
            node_index,
            undelivered: Vec::new(),
            stream: TaskStream::new(shape.opportunistic_percent),
            window,
            start_delays: SplitMix64::new(SIM_SEED),
            busy_mb_ms: 0,
            last_accounted: 0,
            run: TaskStreamRun {
                opportunistic_percent: shape.opportunistic_percent,
                tasks_per_second: 0.0,
                utilization: 0.0,
                completed_guaranteed: 0,
                completed_opportunistic: 0,
                killed_opportunistic: 0,
                rejected_opportunistic: 0,
                shed_opportunistic: 0,
            },
        })
    }

    /// Runs the simulation to its end and returns the figures of the measured window.
    ///
    /// # Errors
    ///
    /// When a core refuses an event, which would be a bug in the simulation.
    pub fn run(mut self) -> anyhow::Result<TaskStreamRun> {
        self.schedule(0, Event::AmAllocate);
        let count = self.nodes.len() as u64;
        for index in 0..self.nodes.len() {
            // Staggered over the interval, none at the AM's own instant.
            let offset = (index as u64 + 1) * self.heartbeat_ms / (count + 1);
            self.schedule(offset, Event::NodeHeartbeat(index));
        }
        while let Some(Reverse((time, _, event))) = self.events.pop() {
            if time > self.end {
                break;
            }
            self.account_until(time);
            self.now = time;
            match event {
                Event::AmAllocate => self.am_allocate()?,
                Event::NodeHeartbeat(node) => self.node_heartbeat(node)?,
                Event::ContainerArrives {
                    node,
                    container,
                    opportunistic,
                } => self.container_arrives(node, container, opportunistic)?,
                Event::TaskEnds { node, container } => self.task_ends(node, container)?,
            }
        }
        self.account_until(self.end);
        let window_ms = self.end - self.warmup;
        let capacity_mb =
            self.nodes.len() as u128 * u128::from(SLOTS_PER_NODE) * u128::from(SLOT_MB);
        self.run.tasks_per_second = self.run.completed() as f64 * 1000.0 / window_ms as f64;
        self.run.utilization =
            self.busy_mb_ms as f64 / (capacity_mb * u128::from(window_ms)) as f64;
        Ok(self.run)
    }

    fn schedule(&mut self, time: u64, event: Event) {
        self.events.push(Reverse((time, self.sequence, event)));
        self.sequence += 1;
    }

    fn measuring(&self) -> bool {
        self.now >= self.warmup
    }

    /// Adds the memory held since the last event, over the part of it inside the window.
    fn account_until(&mut self, time: u64) {
        let from = self.last_accounted.max(self.warmup);
        let to = time.min(self.end);
        if to > from {
            let held: u64 = self
                .nodes
                .iter()
                .map(|node| node.containers.allocated().memory_mb)
                .sum();
            self.busy_mb_ms += u128::from(held) * u128::from(to - from);
        }
        self.last_accounted = self.last_accounted.max(time);
    }

    /// The AM's heartbeat: gives what it got to waiting tasks and starts them, re-sends its
    /// asks for the next waiting tasks, and the RM schedules.
    fn am_allocate(&mut self) -> anyhow::Result<()> {
        self.schedule(self.now + AM_HEARTBEAT_MS, Event::AmAllocate);
        for (node, container, kind) in std::mem::take(&mut self.undelivered) {
            if self.stream.take(kind) {
                let delay = self.start_delays.between(0, START_DELAY_MAX_MS);
                self.schedule(
                    self.now + delay,
                    Event::ContainerArrives {
                        node,
                        container,
                        opportunistic: kind == ExecutionType::Opportunistic,
                    },
                );
            } else if kind == ExecutionType::Guaranteed {
                // Released with this allocate; OPPORTUNISTIC ones hold nothing at the RM.
                self.scheduler.container_completed(&container);
            }
        }
        let (guaranteed, opportunistic) = self.stream.window_counts(self.window);
        let guaranteed = ResourceRequest {
            allocation_request_id: 0,
            ..ResourceRequest::any(1, Resource::new(SLOT_MB, 1), guaranteed)
        };
        self.scheduler
            .update_asks(self.attempt, &[guaranteed], &[])
            .context("the GUARANTEED ask")?;
        let opportunistic = OpportunisticAsk::new(
            1,
            OpportunisticAsk::ANY,
            yarn_opportunistic::Resource::new(SLOT_MB, 1),
            opportunistic,
        );
        self.opportunistic
            .update_asks(self.attempt, vec![opportunistic], self.max_per_pass)
            .map_err(|reason| anyhow::anyhow!("the OPPORTUNISTIC ask: {reason}"))?;
        self.rm_pass()
    }

    /// A container the AM started reaches its node's container scheduler.
    fn container_arrives(
        &mut self,
        node: usize,
        container: ContainerId,
        opportunistic: bool,
    ) -> anyhow::Result<()> {
        let kind = if opportunistic {
            ExecutionType::Opportunistic
        } else {
            ExecutionType::Guaranteed
        };
        let request = ContainerRequest::new(container, kind, Resources::new(SLOT_MB, 1));
        let actions = self.nodes[node].containers.schedule(request)?;
        self.carry_out(node, actions)
    }

    /// A node's heartbeat: the RM frees its ended GUARANTEED containers and records its
    /// queue, the node takes the RM's queue limit, and the RM schedules.
    fn node_heartbeat(&mut self, index: usize) -> anyhow::Result<()> {
        self.schedule(self.now + self.heartbeat_ms, Event::NodeHeartbeat(index));
        let node = &mut self.nodes[index];
        for container in node.finished_guaranteed.drain(..) {
            self.scheduler.container_completed(&container);
        }
        let status = node.containers.opportunistic_status();
        self.monitor.update_node(NodeLoad {
            node_id: node.id.to_string(),
            host: node.id.host.clone(),
            rack: "/default-rack".to_owned(),
            queue_length: i32::try_from(status.wait_queue_length).unwrap_or(i32::MAX),
            estimated_queue_wait_time_ms: None,
            queue_capacity: i32::try_from(status.queue_capacity).unwrap_or(i32::MAX),
            decommissioning: false,
        });
        self.sort_if_due();
        let limit = self.monitor.queue_limit();
        let actions = self.nodes[index].containers.set_queuing_limit(limit);
        self.carry_out(index, actions)?;
        self.rm_pass()
    }

    /// A task's end, unless its container was killed before.
    fn task_ends(&mut self, index: usize, container: ContainerId) -> anyhow::Result<()> {
        let node = &mut self.nodes[index];
        if node.containers.state(&container) != Some(SchedulingState::Running) {
            return Ok(());
        }
        let execution_type = node
            .containers
            .container(&container)
            .map(|request| request.execution_type)
            .context("a running container is known to its node")?;
        let actions = node.containers.container_completed(container)?;
        match execution_type {
            ExecutionType::Guaranteed => node.finished_guaranteed.push(container),
            ExecutionType::Opportunistic => {}
        }
        if self.measuring() {
            match execution_type {
                ExecutionType::Guaranteed => self.run.completed_guaranteed += 1,
                ExecutionType::Opportunistic => self.run.completed_opportunistic += 1,
            }
        }
        self.carry_out(index, actions)
    }

    /// One RM scheduling pass: GUARANTEED containers from the CapacityScheduler, then
    /// OPPORTUNISTIC ones on the least-loaded nodes, all for the AM's next allocate.
    fn rm_pass(&mut self) -> anyhow::Result<()> {
        for allocation in self.scheduler.schedule() {
            let node = self.index_of(&allocation.node_id.to_string())?;
            self.undelivered
                .push((node, allocation.container_id, ExecutionType::Guaranteed));
        }
        if self.opportunistic.outstanding(self.attempt) == 0 {
            return Ok(());
        }
        self.sort_if_due();
        let candidates = self.monitor.least_loaded_nodes(self.nodes_used);
        let placed = self
            .opportunistic
            .schedule(&candidates, |_| BTreeSet::new());
        let mut placements = Vec::with_capacity(placed.len());
        for (attempt, placement) in placed {
            let container = self.scheduler.issue_container_id(attempt)?;
            let node = self.index_of(&placement.node_id)?;
            self.undelivered
                .push((node, container, ExecutionType::Opportunistic));
            placements.push(placement);
        }
        self.monitor.record_placements(&placements);
        Ok(())
    }

    /// Re-ranks the nodes once the sorting interval has passed since the last ranking, as the
    /// leader does when it asks for the least-loaded nodes or the queue limit.
    fn sort_if_due(&mut self) {
        let due = self
            .last_sort
            .is_none_or(|last| self.now.saturating_sub(last) >= self.sorting_ms);
        if due {
            self.monitor.sort_nodes();
            self.last_sort = Some(self.now);
        }
    }

    /// Carries out a node's container-scheduler actions: a start schedules the task's end, a
    /// kill ends the container at once (which may start others), refusals are counted.
    fn carry_out(&mut self, index: usize, actions: Vec<SchedulerAction>) -> anyhow::Result<()> {
        let mut pending = VecDeque::from(actions);
        while let Some(action) = pending.pop_front() {
            let measuring = self.measuring();
            match action {
                SchedulerAction::Start { id } => self.schedule(
                    self.now + TASK_MS,
                    Event::TaskEnds {
                        node: index,
                        container: id,
                    },
                ),
                // Only OPPORTUNISTIC containers are killed, refused or shed; their tasks wait
                // for another container.
                SchedulerAction::Kill { id, .. } => {
                    if measuring {
                        self.run.killed_opportunistic += 1;
                    }
                    self.stream.retry(ExecutionType::Opportunistic);
                    pending.extend(self.nodes[index].containers.container_completed(id)?);
                }
                SchedulerAction::Reject { .. } => {
                    if measuring {
                        self.run.rejected_opportunistic += 1;
                    }
                    self.stream.retry(ExecutionType::Opportunistic);
                }
                SchedulerAction::Shed { .. } => {
                    if measuring {
                        self.run.shed_opportunistic += 1;
                    }
                    self.stream.retry(ExecutionType::Opportunistic);
                }
                // Queued containers start later through a Start; nothing is ever stopped or
                // resized.
                SchedulerAction::Queue { .. }
                | SchedulerAction::RemoveFromQueue { .. }
                | SchedulerAction::Resize { .. } => {}
            }
        }
        Ok(())
    }

    fn index_of(&self, node_id: &str) -> anyhow::Result<usize> {
        self.node_index
            .get(node_id)
            .copied()
            .with_context(|| format!("a placement on {node_id}, which is not a simulated node"))
    }
}

/// A duration in whole milliseconds, saturating.
fn millis_of(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(opportunistic_percent: u32) -> TaskStreamShape {
        TaskStreamShape {
            nodes: 4,
            seconds: 40,
            opportunistic_percent,
        }
    }

    #[test]
    fn the_same_shape_gives_the_same_figures() {
        for percent in [0, 50, 100] {
            let first = simulate_task_stream(shape(percent)).unwrap();
            let second = simulate_task_stream(shape(percent)).unwrap();
            assert_eq!(first, second);
        }
    }

    #[test]
    fn guaranteed_only_waits_for_heartbeats_and_leaves_slots_idle() {
        let run = simulate_task_stream(shape(0)).unwrap();
        assert_eq!(run.completed_opportunistic, 0);
        assert_eq!(
            (
                run.killed_opportunistic,
                run.rejected_opportunistic,
                run.shed_opportunistic
            ),
            (0, 0, 0)
        );
        // A slot is busy for the task's second, then idle until its node reports the end and
        // the AM's next heartbeat brings the next container: well below full, well above none.
        assert!(run.utilization > 0.3 && run.utilization < 0.8, "{run:?}");
        assert!(run.tasks_per_second > 0.0, "{run:?}");
    }

    #[test]
    fn opportunistic_only_runs_no_guaranteed_task() {
        let run = simulate_task_stream(shape(100)).unwrap();
        assert_eq!((run.completed_guaranteed, run.killed_opportunistic), (0, 0));
        assert!(run.completed_opportunistic > 0, "{run:?}");
    }

    #[test]
    fn queueing_at_the_nodes_uses_a_busy_cluster_at_least_as_well() {
        let guaranteed = simulate_task_stream(shape(0)).unwrap();
        let opportunistic = simulate_task_stream(shape(100)).unwrap();
        assert!(
            opportunistic.utilization >= guaranteed.utilization,
            "{opportunistic:?} against {guaranteed:?}"
        );
        assert!(
            opportunistic.tasks_per_second >= guaranteed.tasks_per_second,
            "{opportunistic:?} against {guaranteed:?}"
        );
    }

    #[test]
    fn nothing_exceeds_the_cluster() {
        for percent in [0, 50, 100] {
            let run = simulate_task_stream(shape(percent)).unwrap();
            let slots = 4.0 * f64::from(SLOTS_PER_NODE);
            assert!(run.utilization <= 1.0, "{run:?}");
            assert!(
                run.tasks_per_second <= slots * 1000.0 / TASK_MS as f64,
                "{run:?}"
            );
        }
    }

    #[test]
    fn impossible_shapes_are_refused() {
        let refuse = |shape: TaskStreamShape, detail: &str| {
            let err = simulate_task_stream(shape).unwrap_err().to_string();
            assert!(err.contains(detail), "{err}");
        };
        refuse(
            TaskStreamShape {
                nodes: 0,
                ..shape(0)
            },
            "needs a node",
        );
        refuse(
            TaskStreamShape {
                seconds: WARMUP_SECONDS,
                ..shape(0)
            },
            "warm-up",
        );
        refuse(shape(101), "at most 100");
    }
}
