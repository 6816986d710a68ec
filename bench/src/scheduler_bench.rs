//! `yarn-ha bench scheduler`: allocation decisions per second of the pure CapacityScheduler.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};
use yarn_scheduler::{
    CapacityScheduler, CapacitySchedulerConfiguration, Resource, ResourceRequest, SchedulerSettings,
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
    let (names, properties) = queue_properties(shape.queues);
    let config = CapacitySchedulerConfiguration::new(properties, SchedulerSettings::default())
        .context("the generated queue configuration")?;
    let mut scheduler = CapacityScheduler::new(config);
    for i in 0..shape.nodes {
        let node = NodeId::new(format!("node{i}.bench"), 8041);
        scheduler
            .add_node(node, NODE_CAPABILITY)
            .context("adding a node")?;
    }
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
    };
    for _ in 0..1_000 {
        let started = Instant::now();
        let allocated = scheduler.schedule().len();
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

/// The ask every benchmark application makes: `containers` containers of 1 GB and 1 vcore.
pub(crate) fn bench_ask(containers: u32) -> ResourceRequest {
    ResourceRequest {
        priority: 1,
        allocation_request_id: 0,
        resource_name: "*".to_owned(),
        capability: Resource::new(1024, 1),
        num_containers: containers,
        relax_locality: true,
    }
}

/// The capability of every benchmark node: 64 GB and 32 vcores.
pub(crate) const NODE_CAPABILITY: Resource = Resource::new(64 * 1024, 32);

impl fmt::Display for SchedulerBenchRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:>6} nodes {:>4} queues {:>5} apps: {:>8} allocations in {:>3} passes, {:>9.1} ms, \
             {:>10.0} allocations/s, slowest pass {:.1} ms",
            self.shape.nodes,
            self.shape.queues,
            self.shape.applications,
            self.allocations,
            self.passes,
            self.elapsed.as_secs_f64() * 1e3,
            self.allocations_per_second(),
            self.slowest_pass.as_secs_f64() * 1e3
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
        })
        .unwrap();
        assert_eq!(run.allocations, 64);
    }
}
