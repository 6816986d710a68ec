//! Resizing GUARANTEED containers: an increase is the difference asked for on the container's
//! own node, granted only within node room and queue limits; a decrease is charged at once.

use yarn_proto::ids::ContainerId;
use yarn_scheduler::{Allocation, CapacityScheduler, Resource, SchedulerError};

use crate::mock::*;

/// One 4 GiB node and the whole cluster for `default`; application 1 holds its AM and two
/// 1 GiB tasks, 1 GiB is free. Returns the tasks.
fn node_with_room() -> (CapacityScheduler, Vec<Allocation>) {
    let conf = must_conf(&[("root.queues", "default"), ("root.default.capacity", "100")]);
    let mut scheduler = must_scheduler(conf, 1, 4, 8);
    must_start(&mut scheduler, 1, "default", "alice", 2);
    let placed = schedule_until_idle(&mut scheduler);
    let tasks: Vec<Allocation> = placed.into_iter().filter(|a| !a.is_am).collect();
    assert_eq!(tasks.len(), 2);
    (scheduler, tasks)
}

fn node_used_gib(scheduler: &CapacityScheduler) -> u64 {
    scheduler
        .node(&node(0))
        .expect("the node")
        .allocated()
        .memory_mb
        / GIB
}

#[test]
fn an_increase_waits_for_the_difference_on_its_node_and_is_then_charged_everywhere() {
    let (mut scheduler, tasks) = node_with_room();
    let task = &tasks[0];
    scheduler
        .request_increase(task.container_id, gib(3))
        .unwrap();
    assert!(
        scheduler.schedule_increases().is_empty(),
        "2 GiB more do not fit in the 1 GiB free"
    );
    assert_eq!(scheduler.pending_increases().count(), 1);
    assert_eq!(node_used_gib(&scheduler), 3);

    scheduler.container_completed(&tasks[1].container_id);
    let granted = scheduler.schedule_increases();
    assert_eq!(granted.len(), 1);
    assert_eq!(granted[0].resource, gib(3));
    assert_eq!(scheduler.container(&task.container_id), Some(&granted[0]));
    assert_eq!(node_used_gib(&scheduler), 4);
    assert_eq!(app_gib(&scheduler, 1), 4);
    assert_eq!(queue_gib(&scheduler, "default"), 4);
    assert_eq!(scheduler.cluster_used().memory_mb, 4 * GIB);
    assert!(scheduler.schedule_increases().is_empty(), "granted once");

    // Its completion frees the new size.
    scheduler.container_completed(&task.container_id);
    assert_eq!(scheduler.cluster_used().memory_mb, GIB);
    assert_eq!(queue_gib(&scheduler, "default"), 1);
}

#[test]
fn an_increase_stays_within_the_queue_maximum_capacity() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.a.maximum-capacity", "50"),
        ("root.b.capacity", "50"),
        ("maximum-am-resource-percent", "1.0"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 8, 8);
    must_start(&mut scheduler, 1, "a", "alice", 3);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "a"), 4, "a is at its maximum");
    let tasks: Vec<&Allocation> = placed.iter().filter(|a| !a.is_am).collect();
    scheduler
        .request_increase(tasks[0].container_id, gib(2))
        .unwrap();
    assert!(
        scheduler.schedule_increases().is_empty(),
        "the node has room but root.a does not"
    );
    scheduler.container_completed(&tasks[1].container_id);
    assert_eq!(scheduler.schedule_increases().len(), 1);
    assert_eq!(queue_gib(&scheduler, "a"), 4);
}

#[test]
fn a_resize_charges_the_new_size_at_once_and_requests_end_with_their_container() {
    let (mut scheduler, tasks) = node_with_room();
    let half = Resource::new(GIB / 2, 1);
    let shrunk = scheduler
        .resize_container(&tasks[0].container_id, half)
        .expect("held");
    assert_eq!(shrunk.resource, half);
    assert_eq!(scheduler.cluster_used().memory_mb, 2 * GIB + GIB / 2);
    assert_eq!(
        scheduler
            .queue_info("default")
            .unwrap()
            .resources_used
            .memory_mb,
        2 * GIB + GIB / 2
    );
    assert!(
        scheduler
            .resize_container(&ContainerId::new(attempt(1), 0, 99).unwrap(), half)
            .is_none()
    );
    assert!(matches!(
        scheduler.request_increase(ContainerId::new(attempt(1), 0, 99).unwrap(), gib(2)),
        Err(SchedulerError::UnknownContainer { .. })
    ));

    scheduler
        .request_increase(tasks[1].container_id, gib(4))
        .unwrap();
    scheduler.container_completed(&tasks[1].container_id);
    assert!(scheduler.schedule_increases().is_empty());
    assert_eq!(
        scheduler.pending_increases().count(),
        0,
        "a request whose container ended is dropped"
    );
}
