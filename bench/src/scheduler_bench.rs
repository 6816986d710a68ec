//! `yarn-ha bench scheduler`: allocation decisions per second of the pure CapacityScheduler.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};
use yarn_scheduler::{
    ActivitiesRecorder, CapacityScheduler, CapacitySchedulerConfiguration, Resource,
    ResourceRequest, SchedulerSettings,
};

/// The shape of one run: a cluster of `nodes` nodes (64 GB, 32 vcores each), `queues` leaf
/// queues under root with equal shares and elasticity up to the whole cluster, and
/// `applications` applications spread over the queues and over ten users, each asking for
/// `containers_per_application` containers of 1 GB and 1 vcore.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SchedulerBenchShape {
    /// Nodes in the cluster.
    pub nodes: usize,
    /// Leaf queues under root.
    pub queues: usize,
    /// Applications, each with one running attempt.
    pub applications: usize,
    /// Containers each application asks for.
    pub containers_per_application: u32,
    /// How the queues are configured.
    pub layout: QueueLayout,
    /// Every pass records every application's activities, as while a reader of the
    /// activities endpoints asks; otherwise nothing is recorded.
    pub activities: bool,
}

/// How the benchmark's queues are configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum QueueLayout {
    /// Leaves under root with equal percentages, fifo, ordered by utilization.
    #[default]
    Percentage,
    /// Flexible queue mode: up to ten parents with absolute capacities (the cluster split
    /// evenly) under a `priority-utilization` root, parent `i` of priority `i % 3`; their leaves
    /// weighted `1w` and ordered `fair`. Effective capacities are resolved again on every node
    /// event, which the run's node-registration time shows.
    Flexible,
}

impl std::str::FromStr for QueueLayout {
    type Err = String;

    /// `percentage` or `flexible`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "percentage" => Ok(Self::Percentage),
            "flexible" => Ok(Self::Flexible),
            other => Err(format!(
                "unknown queue layout {other:?}: percentage or flexible"
            )),
        }
    }
}

impl SchedulerBenchShape {
    /// The leaf names, as applications name their queue, and the `capacity-scheduler.xml`
    /// properties of this shape's layout.
    pub(crate) fn queue_properties(&self) -> (Vec<String>, BTreeMap<String, String>) {
        match self.layout {
            QueueLayout::Percentage => queue_properties(self.queues),
            QueueLayout::Flexible => flexible_queue_properties(self.queues, self.nodes),
        }
    }
}

/// What one run measured.
#[derive(Debug, Clone, Serialize)]
pub struct SchedulerBenchRun {
    /// The run's shape.
    pub shape: SchedulerBenchShape,
    /// Containers allocated, AM containers included.
    pub allocations: usize,
    /// Scheduling passes until nothing more was allocated.
    pub passes: usize,
    /// Time spent inside `schedule()`, all passes together.
    pub elapsed: Duration,
    /// The slowest single pass.
    pub slowest_pass: Duration,
    /// Time to register every node, one at a time (each resolves the queues' effective
    /// capacities again).
    pub node_registration: Duration,
}

impl SchedulerBenchRun {
    /// Allocations per second of scheduling time.
    pub fn allocations_per_second(&self) -> f64 {
        self.allocations as f64 / self.elapsed.as_secs_f64().max(f64::EPSILON)
    }
}

/// Builds the cluster of `shape` and runs scheduling passes until one allocates nothing (at
/// most 1,000 passes), timing only `schedule()` itself. No Raft, no I/O: this is the decision
/// rate of the core; the leader's commits come on top.
///
/// # Errors
///
/// When the generated configuration is refused (for example zero queues).
pub fn scheduler_bench(shape: SchedulerBenchShape) -> anyhow::Result<SchedulerBenchRun> {
    anyhow::ensure!(shape.queues > 0, "bench scheduler needs at least one queue");
    let (names, properties) = shape.queue_properties();
    let config = CapacitySchedulerConfiguration::new(properties, SchedulerSettings::default())
        .context("the generated queue configuration")?;
    let mut scheduler = CapacityScheduler::new(config);
    let registering = Instant::now();
    for i in 0..shape.nodes {
        let node = NodeId::new(format!("node{i}.bench"), 8041);
        scheduler
            .add_node(node, NODE_CAPABILITY)
            .context("adding a node")?;
    }
    let node_registration = registering.elapsed();
    for i in 0..shape.applications {
        let application = ApplicationId::new(1, i32::try_from(i + 1)?);
        let queue = &names[i % shape.queues];
        let user = format!("user{}", i % 10);
        scheduler
            .submit_application(application, queue, &user, &[], None)
            .with_context(|| format!("submitting {application}"))?;
        let attempt = ApplicationAttemptId::new(application, 1);
        scheduler
            .add_attempt(attempt, Resource::new(1024, 1))
            .context("adding an attempt")?;
        scheduler
            .update_asks(attempt, &[bench_ask(shape.containers_per_application)], &[])
            .context("asking for containers")?;
    }
    let mut run = SchedulerBenchRun {
        shape,
        allocations: 0,
        passes: 0,
        elapsed: Duration::ZERO,
        slowest_pass: Duration::ZERO,
        node_registration,
    };
    for _ in 0..1_000 {
        let started = Instant::now();
        if shape.activities {
            scheduler.record_activities(Some(ActivitiesRecorder::new(true, BTreeSet::new())));
        }
        let allocated = scheduler.schedule().len();
        drop(scheduler.take_activities());
        let took = started.elapsed();
        run.passes += 1;
        run.elapsed += took;
        run.slowest_pass = run.slowest_pass.max(took);
        run.allocations += allocated;
        if allocated == 0 {
            break;
        }
    }
    Ok(run)
}

/// The benchmark's queues: `q0..q<queues>` under root with equal shares summing to exactly
/// 100, each elastic up to the whole cluster, with user limits and AM limits that never bind.
/// Returns the leaf names and the `capacity-scheduler.xml` properties.
pub(crate) fn queue_properties(queues: usize) -> (Vec<String>, BTreeMap<String, String>) {
    let mut properties = BTreeMap::new();
    let names: Vec<String> = (0..queues).map(|i| format!("q{i}")).collect();
    properties.insert(
        "yarn.scheduler.capacity.root.queues".to_owned(),
        names.join(","),
    );
    // Shares that sum to exactly 100: the last queue takes the rounding remainder.
    let share = 100.0 / queues as f64;
    for (i, name) in names.iter().enumerate() {
        let capacity = if i + 1 == queues {
            100.0 - share * (queues - 1) as f64
        } else {
            share
        };
        let prefix = format!("yarn.scheduler.capacity.root.{name}");
        properties.insert(format!("{prefix}.capacity"), capacity.to_string());
        properties.insert(format!("{prefix}.maximum-capacity"), "100".to_owned());
        properties.insert(format!("{prefix}.user-limit-factor"), "100".to_owned());
        properties.insert(
            format!("{prefix}.maximum-am-resource-percent"),
            "1".to_owned(),
        );
    }
    (names, properties)
}

/// The flexible layout's queues (see [`QueueLayout::Flexible`]): `queues` leaves `l<i>` spread
/// over up to ten parents `p<j>`, for a cluster of `nodes` benchmark nodes.
fn flexible_queue_properties(
    queues: usize,
    nodes: usize,
) -> (Vec<String>, BTreeMap<String, String>) {
    const PREFIX: &str = "yarn.scheduler.capacity";
    let parents = queues.clamp(1, 10);
    let mut properties = BTreeMap::new();
    let mut set = |key: String, value: String| {
        properties.insert(format!("{PREFIX}.{key}"), value);
    };
    set("legacy-queue-mode.enabled".to_owned(), "false".to_owned());
    set(
        "root.ordering-policy".to_owned(),
        "priority-utilization".to_owned(),
    );
    let parent_names: Vec<String> = (0..parents).map(|j| format!("p{j}")).collect();
    set("root.queues".to_owned(), parent_names.join(","));
    let memory = NODE_CAPABILITY.memory_mb * nodes as u64 / parents as u64;
    let vcores = u64::from(NODE_CAPABILITY.vcores) * nodes as u64 / parents as u64;
    let mut names = Vec::new();
    for (j, parent) in parent_names.iter().enumerate() {
        let path = format!("root.{parent}");
        set(
            format!("{path}.capacity"),
            format!("[memory={memory},vcores={vcores}]"),
        );
        set(format!("{path}.maximum-capacity"), "100".to_owned());
        set(format!("{path}.priority"), (j % 3).to_string());
        // Leaf i goes under parent i % parents, so every parent has at least one.
        let leaves: Vec<String> = (j..queues)
            .step_by(parents)
            .map(|i| format!("l{i}"))
            .collect();
        set(format!("{path}.queues"), leaves.join(","));
        for leaf in &leaves {
            let leaf_path = format!("{path}.{leaf}");
            set(format!("{leaf_path}.capacity"), "1w".to_owned());
            set(format!("{leaf_path}.maximum-capacity"), "100".to_owned());
            set(format!("{leaf_path}.ordering-policy"), "fair".to_owned());
            set(format!("{leaf_path}.user-limit-factor"), "100".to_owned());
            set(
                format!("{leaf_path}.maximum-am-resource-percent"),
                "1".to_owned(),
            );
        }
    }
    names.extend((0..queues).map(|i| format!("l{i}")));
    (names, properties)
}

/// The ask every benchmark application makes: `containers` containers of 1 GB and 1 vcore.
pub(crate) fn bench_ask(containers: u32) -> ResourceRequest {
    ResourceRequest {
        allocation_request_id: 0,
        ..ResourceRequest::any(1, Resource::new(1024, 1), containers)
    }
}

/// The capability of every benchmark node: 64 GB and 32 vcores.
pub(crate) const NODE_CAPABILITY: Resource = Resource::new(64 * 1024, 32);

impl fmt::Display for SchedulerBenchRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:>6} nodes {:>4} queues {:>5} apps ({:?}{}): {:>8} allocations in {:>3} passes, \
             {:>9.1} ms, {:>10.0} allocations/s, slowest pass {:.1} ms; nodes registered in \
             {:.1} ms",
            self.shape.nodes,
            self.shape.queues,
            self.shape.applications,
            self.shape.layout,
            if self.shape.activities {
                ", activities recorded"
            } else {
                ""
            },
            self.allocations,
            self.passes,
            self.elapsed.as_secs_f64() * 1e3,
            self.allocations_per_second(),
            self.slowest_pass.as_secs_f64() * 1e3,
            self.node_registration.as_secs_f64() * 1e3
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_cluster_allocates_every_ask_that_fits() {
        // 4 nodes of 64 GB hold every AM and ask: 8 apps x (1 AM + 10) containers of 1 GB.
        let run = scheduler_bench(SchedulerBenchShape {
            nodes: 4,
            queues: 3,
            applications: 8,
            containers_per_application: 10,
            layout: QueueLayout::Percentage,
            activities: false,
        })
        .unwrap();
        assert_eq!(run.allocations, 8 * 11);
        assert!(run.passes >= 2, "the last pass finds nothing: {run:?}");
    }

    #[test]
    fn a_full_cluster_stops_at_its_capacity() {
        // One node of 64 GB holds 64 containers of 1 GB (the default calculator counts memory
        // only); far more are asked for.
        let run = scheduler_bench(SchedulerBenchShape {
            nodes: 1,
            queues: 2,
            applications: 4,
            containers_per_application: 100,
            layout: QueueLayout::Percentage,
            activities: false,
        })
        .unwrap();
        assert_eq!(run.allocations, 64);
    }

    #[test]
    fn the_flexible_layout_loads_and_fills_the_cluster() {
        // 4 nodes of 64 GB under ten absolute parents; 20 leaves ask for far more.
        let run = scheduler_bench(SchedulerBenchShape {
            nodes: 4,
            queues: 20,
            applications: 40,
            containers_per_application: 100,
            layout: QueueLayout::Flexible,
            activities: false,
        })
        .unwrap();
        assert_eq!(run.allocations, 4 * 64);
        let (names, properties) = flexible_queue_properties(20, 4);
        assert_eq!(names.len(), 20);
        assert_eq!(
            properties["yarn.scheduler.capacity.root.p0.capacity"],
            "[memory=26214,vcores=12]"
        );
    }
}
