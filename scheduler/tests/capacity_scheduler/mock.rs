//! Builders shared by the scenarios. Helpers that panic start with `must_`.

use std::collections::BTreeMap;

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};
use yarn_scheduler::{
    Allocation, CapacityScheduler, CapacitySchedulerConfiguration, Resource, ResourceRequest,
    SchedulerSettings,
};

pub const GIB: u64 = 1024;

/// Properties with the `yarn.scheduler.capacity.` prefix added to each key.
pub fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(key, value)| (format!("yarn.scheduler.capacity.{key}"), value.to_string()))
        .collect()
}

pub fn must_conf(pairs: &[(&str, &str)]) -> CapacitySchedulerConfiguration {
    must_conf_with(pairs, SchedulerSettings::default())
}

pub fn must_conf_with(
    pairs: &[(&str, &str)],
    settings: SchedulerSettings,
) -> CapacitySchedulerConfiguration {
    CapacitySchedulerConfiguration::new(props(pairs), settings).expect("valid configuration")
}

pub fn app(n: i32) -> ApplicationId {
    ApplicationId::new(1_700_000_000_000, n)
}

pub fn attempt(n: i32) -> ApplicationAttemptId {
    ApplicationAttemptId::new(app(n), 1)
}

pub fn node(i: usize) -> NodeId {
    NodeId::new(format!("host{i}"), 8041)
}

pub fn gib(n: u64) -> Resource {
    Resource::new(n * GIB, 1)
}

/// A scheduler with `nodes` nodes of `memory_gib` GiB and `vcores` cores each.
pub fn must_scheduler(
    conf: CapacitySchedulerConfiguration,
    nodes: usize,
    memory_gib: u64,
    vcores: u32,
) -> CapacityScheduler {
    let mut scheduler = CapacityScheduler::new(conf);
    for i in 0..nodes {
        scheduler
            .add_node(node(i), Resource::new(memory_gib * GIB, vcores))
            .expect("new node");
    }
    scheduler
}

/// Submits application `n` for `user` to `queue` with a 1 GiB AM and asks for `tasks` 1 GiB
/// containers at priority 1.
pub fn must_start(scheduler: &mut CapacityScheduler, n: i32, queue: &str, user: &str, tasks: u32) {
    must_start_with(scheduler, n, queue, user, None, tasks);
}

pub fn must_start_with(
    scheduler: &mut CapacityScheduler,
    n: i32,
    queue: &str,
    user: &str,
    priority: Option<i32>,
    tasks: u32,
) {
    scheduler
        .submit_application(app(n), queue, user, &[], priority)
        .expect("accepted");
    scheduler.add_attempt(attempt(n), gib(1)).expect("attempt");
    if tasks > 0 {
        must_ask(scheduler, n, ResourceRequest::any(1, gib(1), tasks));
    }
}

pub fn must_ask(scheduler: &mut CapacityScheduler, n: i32, ask: ResourceRequest) {
    scheduler
        .update_asks(attempt(n), &[ask], &[])
        .expect("valid ask");
}

/// Memory used by application `n`, in GiB.
pub fn app_gib(scheduler: &CapacityScheduler, n: i32) -> u64 {
    scheduler
        .application_status(app(n))
        .expect("known application")
        .resources_used
        .memory_mb
        / GIB
}

/// Memory used by a queue, in GiB.
pub fn queue_gib(scheduler: &CapacityScheduler, queue: &str) -> u64 {
    scheduler
        .queue_info(queue)
        .expect("known queue")
        .resources_used
        .memory_mb
        / GIB
}

/// Runs passes until one places nothing, returning everything placed.
pub fn schedule_until_idle(scheduler: &mut CapacityScheduler) -> Vec<Allocation> {
    let mut all = Vec::new();
    loop {
        let placed = scheduler.schedule();
        if placed.is_empty() {
            return all;
        }
        all.extend(placed);
    }
}

/// Every node heartbeats once and a pass runs, `rounds` times; returns everything placed.
pub fn schedule_over_heartbeats(
    scheduler: &mut CapacityScheduler,
    rounds: usize,
) -> Vec<Allocation> {
    let mut all = Vec::new();
    for _ in 0..rounds {
        let nodes: Vec<NodeId> = scheduler.nodes().map(|n| n.node_id().clone()).collect();
        scheduler.node_heartbeats(&nodes);
        all.extend(schedule_until_idle(scheduler));
    }
    all
}
