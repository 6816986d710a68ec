//! `yarn-ha bench locality`: the locality delay scheduling achieves for asks that name hosts,
//! on a busy cluster, with the real CapacityScheduler and simulated heartbeats.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use anyhow::Context;
use serde::Serialize;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_scheduler::{
    Allocation, CapacityScheduler, CapacitySchedulerConfiguration, NODE_LOCALITY_DELAY_KEY,
    RACK_LOCALITY_ADDITIONAL_DELAY_KEY, Resource, ResourceRequest, SchedulerSettings,
};

/// How often each node heartbeats in one round, split in this many groups: a pass follows each
/// group, so opportunities accumulate within a round as they do between heartbeats.
const HEARTBEAT_GROUPS: usize = 10;
/// The most rounds a run may take before it is reported unfinished.
const MAX_ROUNDS: u64 = 100_000;

/// The shape of one run: `nodes` nodes of `slots` 1 GB containers each, `rack_size` to a rack,
/// and `applications` applications in one queue, each with `tasks_per_application` tasks. A
/// task's input has three replicas placed as HDFS places them (a random node, then two nodes of
/// one other rack); it asks, as MapReduce does, for those hosts, their racks and `*`, under one
/// scheduler key per application, and runs 2 to 6 heartbeat rounds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LocalityBenchShape {
    /// Nodes in the cluster.
    pub nodes: usize,
    /// Nodes per rack.
    pub rack_size: usize,
    /// 1 GB containers per node.
    pub slots: u64,
    /// Applications, submitted together.
    pub applications: usize,
    /// Tasks per application, all pending at the start.
    pub tasks_per_application: usize,
}

/// Delay scheduling as one run sets it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LocalitySetting {
    /// What the row is called.
    pub name: &'static str,
    /// `node-locality-delay`.
    pub node_locality_delay: i64,
    /// `rack-locality-additional-delay`.
    pub rack_locality_additional_delay: i64,
}

/// The settings compared: no delay at all, Hadoop's defaults, and Hadoop's defaults with the
/// rack delay as long again.
pub const LOCALITY_SETTINGS: [LocalitySetting; 3] = [
    LocalitySetting {
        name: "no delay (-1, 0)",
        node_locality_delay: -1,
        rack_locality_additional_delay: 0,
    },
    LocalitySetting {
        name: "Hadoop defaults (40, -1)",
        node_locality_delay: 40,
        rack_locality_additional_delay: -1,
    },
    LocalitySetting {
        name: "(40, 40)",
        node_locality_delay: 40,
        rack_locality_additional_delay: 40,
    },
];

/// What one setting achieved.
#[derive(Debug, Clone, Serialize)]
pub struct LocalityBenchRow {
    /// The setting.
    pub setting: LocalitySetting,
    /// Tasks that ran on a node holding their input.
    pub node_local: usize,
    /// Tasks that ran on a rack holding it, not on such a node.
    pub rack_local: usize,
    /// Tasks that ran elsewhere.
    pub off_switch: usize,
    /// Mean heartbeat rounds from the start to a task's container.
    pub mean_wait_rounds: f64,
    /// Heartbeat rounds until every task finished.
    pub makespan_rounds: u64,
}

/// Every setting's row, for one shape.
#[derive(Debug, Clone, Serialize)]
pub struct LocalityBenchRun {
    /// The shape.
    pub shape: LocalityBenchShape,
    /// One row per [`LOCALITY_SETTINGS`] entry.
    pub rows: Vec<LocalityBenchRow>,
}

/// Runs `shape` under each of [`LOCALITY_SETTINGS`], from the same tasks.
///
/// # Errors
///
/// A shape without nodes, slots, tasks or a rack of at least three nodes on two racks; a run
/// that does not finish within [`MAX_ROUNDS`] rounds.
pub fn locality_bench(shape: LocalityBenchShape) -> anyhow::Result<LocalityBenchRun> {
    anyhow::ensure!(
        shape.slots > 0 && shape.applications > 0 && shape.tasks_per_application > 0,
        "bench locality needs slots, applications and tasks"
    );
    anyhow::ensure!(
        shape.rack_size >= 2 && shape.nodes >= 2 * shape.rack_size,
        "bench locality needs at least two racks of at least two nodes"
    );
    let rows = LOCALITY_SETTINGS
        .iter()
        .map(|setting| run(shape, *setting))
        .collect::<anyhow::Result<_>>()?;
    Ok(LocalityBenchRun { shape, rows })
}

/// One pending or running task of the simulated AM.
#[derive(Debug, Clone)]
struct Task {
    /// Nodes holding its input.
    replicas: [usize; 3],
    /// Heartbeat rounds it runs.
    length: u64,
}

/// The simulated AM of one application: its tasks waiting for a container (with the round
/// each began waiting), and the places its last asks named.
struct BenchAm {
    pending: VecDeque<(Task, u64)>,
    named: BTreeMap<String, u32>,
}

/// A small deterministic generator (SplitMix64), so every setting sees the same tasks.
struct Draws(u64);

impl Draws {
    fn below(&mut self, bound: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        usize::try_from(z % u64::try_from(bound).unwrap_or(u64::MAX)).unwrap_or(0)
    }
}

fn tasks(shape: LocalityBenchShape) -> Vec<Vec<Task>> {
    let mut draws = Draws(24);
    let racks = shape.nodes / shape.rack_size;
    (0..shape.applications)
        .map(|_| {
            (0..shape.tasks_per_application)
                .map(|_| {
                    let first = draws.below(racks * shape.rack_size);
                    let other_rack = (first / shape.rack_size + 1 + draws.below(racks - 1)) % racks;
                    let second = other_rack * shape.rack_size + draws.below(shape.rack_size);
                    let offset = 1 + draws.below(shape.rack_size - 1);
                    let third = other_rack * shape.rack_size
                        + (second % shape.rack_size + offset) % shape.rack_size;
                    Task {
                        replicas: [first, second, third],
                        length: 2 + u64::try_from(draws.below(5)).unwrap_or(0),
                    }
                })
                .collect()
        })
        .collect()
}

fn host(node: usize) -> String {
    format!("node{node}.bench")
}

fn rack(shape: LocalityBenchShape, node: usize) -> String {
    format!("/rack{}", node / shape.rack_size)
}

/// The asks an AM holding `pending` sends: every host and rack its tasks name, with the count
/// of tasks naming it, zero for those `before` named and no task names now, and `*`.
fn asks(
    shape: LocalityBenchShape,
    pending: &VecDeque<(Task, u64)>,
    before: &BTreeMap<String, u32>,
) -> (Vec<ResourceRequest>, BTreeMap<String, u32>) {
    let mut counts: BTreeMap<String, u32> = before.keys().map(|name| (name.clone(), 0)).collect();
    for (task, _) in pending {
        let mut racks: Vec<String> = task.replicas.iter().map(|n| rack(shape, *n)).collect();
        racks.dedup();
        for name in task.replicas.iter().map(|n| host(*n)).chain(racks) {
            *counts.entry(name).or_default() += 1;
        }
    }
    let total = u32::try_from(pending.len()).unwrap_or(u32::MAX);
    let mut requests: Vec<ResourceRequest> = counts
        .iter()
        .map(|(name, count)| ResourceRequest {
            resource_name: name.clone(),
            num_containers: *count,
            ..ResourceRequest::any(1, Resource::new(1024, 1), 0)
        })
        .collect();
    requests.push(ResourceRequest::any(1, Resource::new(1024, 1), total));
    counts.retain(|_, count| *count > 0);
    (requests, counts)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Locality {
    Node,
    Rack,
    OffSwitch,
}

/// Takes the task a container on `node` serves best: one with input there, else on its rack,
/// else the oldest, as MapReduce's AM assigns them.
fn take_task(
    shape: LocalityBenchShape,
    pending: &mut VecDeque<(Task, u64)>,
    node: usize,
) -> Option<(Task, u64, Locality)> {
    let on_rack = |task: &Task| {
        task.replicas
            .iter()
            .any(|r| r / shape.rack_size == node / shape.rack_size)
    };
    let (index, locality) = pending
        .iter()
        .position(|(task, _)| task.replicas.contains(&node))
        .map(|i| (i, Locality::Node))
        .or_else(|| {
            pending
                .iter()
                .position(|(task, _)| on_rack(task))
                .map(|i| (i, Locality::Rack))
        })
        .or_else(|| (!pending.is_empty()).then_some((0, Locality::OffSwitch)))?;
    let (task, since) = pending.remove(index)?;
    Some((task, since, locality))
}

fn run(shape: LocalityBenchShape, setting: LocalitySetting) -> anyhow::Result<LocalityBenchRow> {
    let properties: BTreeMap<String, String> = [
        ("yarn.scheduler.capacity.root.queues", "default".to_owned()),
        (
            "yarn.scheduler.capacity.root.default.capacity",
            "100".to_owned(),
        ),
        (
            "yarn.scheduler.capacity.root.default.user-limit-factor",
            "100".to_owned(),
        ),
        (
            "yarn.scheduler.capacity.maximum-am-resource-percent",
            "1.0".to_owned(),
        ),
        (
            NODE_LOCALITY_DELAY_KEY,
            setting.node_locality_delay.to_string(),
        ),
        (
            RACK_LOCALITY_ADDITIONAL_DELAY_KEY,
            setting.rack_locality_additional_delay.to_string(),
        ),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_owned(), value))
    .collect();
    let config = CapacitySchedulerConfiguration::new(properties, SchedulerSettings::default())
        .context("the benchmark's queue configuration")?;
    let mut scheduler = CapacityScheduler::new(config);
    let node_ids: Vec<NodeId> = (0..shape.nodes)
        .map(|n| NodeId::new(host(n), 8041))
        .collect();
    for (n, id) in node_ids.iter().enumerate() {
        let capability = Resource::new(shape.slots * 1024, u32::try_from(shape.slots)?);
        scheduler
            .add_node_on_rack(id.clone(), rack(shape, n), capability)
            .context("adding a node")?;
    }
    let node_index: BTreeMap<&NodeId, usize> =
        node_ids.iter().enumerate().map(|(n, id)| (id, n)).collect();
    let mut apps: BTreeMap<ApplicationAttemptId, BenchAm> = BTreeMap::new();
    for (i, app_tasks) in tasks(shape).into_iter().enumerate() {
        let application = ApplicationId::new(1, i32::try_from(i + 1)?);
        scheduler
            .submit_application(application, "default", "bench", &[], None)
            .context("submitting")?;
        let attempt = ApplicationAttemptId::new(application, 1);
        scheduler
            .add_attempt(attempt, Resource::new(1024, 1))
            .context("adding an attempt")?;
        let am = BenchAm {
            pending: app_tasks.into_iter().map(|t| (t, 0)).collect(),
            named: BTreeMap::new(),
        };
        apps.insert(attempt, am);
    }
    let total_tasks = shape.applications * shape.tasks_per_application;
    let mut running: BTreeMap<u64, Vec<ContainerId>> = BTreeMap::new();
    let (mut node_local, mut rack_local, mut off_switch) = (0usize, 0usize, 0usize);
    let (mut waited, mut finished) = (0u64, 0usize);
    let group = shape.nodes.div_ceil(HEARTBEAT_GROUPS);
    let mut round = 0u64;
    while finished < total_tasks {
        round += 1;
        anyhow::ensure!(
            round <= MAX_ROUNDS,
            "setting {} did not finish in {MAX_ROUNDS} rounds",
            setting.name
        );
        for container in running.remove(&round).unwrap_or_default() {
            scheduler.container_completed(&container);
            finished += 1;
        }
        for (attempt, am) in &mut apps {
            let (requests, named) = asks(shape, &am.pending, &am.named);
            am.named = named;
            scheduler
                .update_asks(*attempt, &requests, &[])
                .context("asking for containers")?;
        }
        for nodes in node_ids.chunks(group) {
            scheduler.node_heartbeats(nodes);
            let placed: Vec<Allocation> = scheduler.schedule();
            for allocation in placed.iter().filter(|a| !a.is_am) {
                let node = node_index[&allocation.node_id];
                let Some(am) = apps.get_mut(&allocation.application_attempt_id) else {
                    continue;
                };
                let Some((task, since, locality)) = take_task(shape, &mut am.pending, node) else {
                    // More containers than tasks: the AM gives it back.
                    scheduler.container_completed(&allocation.container_id);
                    continue;
                };
                match locality {
                    Locality::Node => node_local += 1,
                    Locality::Rack => rack_local += 1,
                    Locality::OffSwitch => off_switch += 1,
                }
                waited += round - since;
                running
                    .entry(round + task.length)
                    .or_default()
                    .push(allocation.container_id);
            }
        }
    }
    #[expect(clippy::cast_precision_loss, reason = "a mean for a report")]
    let mean_wait_rounds = waited as f64 / total_tasks as f64;
    Ok(LocalityBenchRow {
        setting,
        node_local,
        rack_local,
        off_switch,
        mean_wait_rounds,
        makespan_rounds: round,
    })
}

impl fmt::Display for LocalityBenchRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = self.shape;
        writeln!(
            f,
            "{} nodes ({} per rack, {} slots each), {} applications x {} tasks, 3 replicas each",
            shape.nodes,
            shape.rack_size,
            shape.slots,
            shape.applications,
            shape.tasks_per_application
        )?;
        writeln!(
            f,
            "{:<26} {:>11} {:>11} {:>11} {:>10} {:>9}",
            "setting", "node-local", "rack-local", "off-switch", "mean wait", "makespan"
        )?;
        for row in &self.rows {
            let total = (row.node_local + row.rack_local + row.off_switch).max(1);
            #[expect(clippy::cast_precision_loss, reason = "percentages for a report")]
            let share = |count: usize| 100.0 * count as f64 / total as f64;
            writeln!(
                f,
                "{:<26} {:>10.1}% {:>10.1}% {:>10.1}% {:>10.2} {:>9}",
                row.setting.name,
                share(row.node_local),
                share(row.rack_local),
                share(row.off_switch),
                row.mean_wait_rounds,
                row.makespan_rounds
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_scheduling_raises_node_locality_over_no_delay() {
        let run = locality_bench(LocalityBenchShape {
            nodes: 40,
            rack_size: 10,
            slots: 2,
            applications: 40,
            tasks_per_application: 6,
        })
        .unwrap();
        let local = |row: &LocalityBenchRow| row.node_local;
        let [none, defaults, _] = run.rows.as_slice() else {
            panic!("three rows");
        };
        for row in &run.rows {
            assert_eq!(row.node_local + row.rack_local + row.off_switch, 240);
        }
        assert!(local(defaults) > local(none), "{run}");
    }
}
