//! Capacities, elasticity and the order queues are offered resources in (TestParentQueue).

use yarn_scheduler::{QueueState, Resource};

use crate::mock::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn queue_info_reports_capacities_down_a_three_level_tree() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "40"),
        ("root.a.maximum-capacity", "80"),
        ("root.b.capacity", "60"),
        ("root.a.queues", "a1,a2"),
        ("root.a.a1.capacity", "30"),
        ("root.a.a2.capacity", "70"),
        ("root.a.a2.maximum-capacity", "80"),
    ]);
    let scheduler = must_scheduler(conf, 10, 10, 10);
    let a2 = scheduler.queue_info("a2").unwrap();
    assert_eq!(a2.queue_path, "root.a.a2");
    assert!(close(a2.capacity, 70.0) && close(a2.maximum_capacity, 80.0));
    assert!(
        close(a2.absolute_capacity, 28.0),
        "{}",
        a2.absolute_capacity
    );
    assert!(close(a2.absolute_maximum_capacity, 64.0));
    assert_eq!(a2.guaranteed_resource.memory_mb, 28 * 1024);
    assert_eq!(a2.maximum_resource.memory_mb, 64 * 1024);
    let a1 = scheduler.queue_info("root.a.a1").unwrap();
    assert!(close(a1.absolute_capacity, 12.0));
    assert!(close(a1.absolute_maximum_capacity, 80.0));
    let root = scheduler.queue_info("root").unwrap();
    assert_eq!(root.child_queues, vec!["a", "b"]);
    assert_eq!(root.state, QueueState::Running);
    assert_eq!(scheduler.queue_infos().len(), 5);
}

/// An idle sibling's guarantee is used up to the queue's maximum capacity, never beyond; the
/// sibling then gets what is left.
#[test]
fn elasticity_reaches_maximum_capacity_and_stops_there() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "30"),
        ("root.a.maximum-capacity", "60"),
        ("root.a.user-limit-factor", "10"),
        ("root.b.capacity", "70"),
        ("root.b.user-limit-factor", "10"),
    ]);
    let mut scheduler = must_scheduler(conf, 10, 10, 10);
    must_start(&mut scheduler, 1, "a", "alice", 100);
    schedule_until_idle(&mut scheduler);
    let a = scheduler.queue_info("a").unwrap();
    assert_eq!(
        a.resources_used.memory_mb / GIB,
        60,
        "a stops at 60% of 100 GiB"
    );
    assert!(close(a.absolute_used_capacity, 60.0));
    assert!(close(a.used_capacity, 200.0), "{}", a.used_capacity);

    must_start(&mut scheduler, 2, "b", "bob", 100);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "b"), 40, "b gets the rest");
    assert_eq!(queue_gib(&scheduler, "a"), 60);
    assert_eq!(scheduler.cluster_used().memory_mb / GIB, 100);
}

/// Freed resources go to the queue furthest below its guarantee, even when a queue that sorts
/// first by name wants more.
#[test]
fn free_resources_go_first_to_the_queue_furthest_below_its_guarantee() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.a.user-limit-factor", "10"),
        ("root.b.capacity", "50"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    must_start(&mut scheduler, 1, "a", "alice", 100);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "a"), 10);
    for allocation in placed.iter().filter(|a| !a.is_am).take(2) {
        scheduler.container_completed(&allocation.container_id);
    }
    must_start(&mut scheduler, 2, "b", "bob", 5);
    let placed = scheduler.schedule();
    assert_eq!(placed.len(), 2);
    assert!(
        placed
            .iter()
            .all(|a| a.application_attempt_id == attempt(2)),
        "b (0% of its guarantee) beats a (160%): {placed:?}"
    );
    assert!(placed[0].is_am && !placed[1].is_am);
}

/// Among equally empty queues the tree is walked by utilization: a parent's children share
/// its resources before a sibling parent gets more than its own guarantee.
#[test]
fn siblings_alternate_by_utilization_within_their_parent() {
    let conf = must_conf(&[
        ("root.queues", "x,y"),
        ("root.x.capacity", "50"),
        ("root.y.capacity", "50"),
        ("root.x.queues", "x1,x2"),
        ("root.x.x1.capacity", "50"),
        ("root.x.x2.capacity", "50"),
        ("root.x.x1.user-limit-factor", "10"),
        ("root.x.x2.user-limit-factor", "10"),
        ("root.y.user-limit-factor", "10"),
        ("maximum-am-resource-percent", "1.0"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 8, 8);
    must_start(&mut scheduler, 1, "x1", "u1", 20);
    must_start(&mut scheduler, 2, "x2", "u2", 20);
    must_start(&mut scheduler, 3, "y", "u3", 20);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "x1"), 2);
    assert_eq!(queue_gib(&scheduler, "x2"), 2);
    assert_eq!(queue_gib(&scheduler, "y"), 4);
}

/// A queue reports the containers its applications hold and what they still ask for, per user
/// in the leaf and summed up the tree, the AM container included until it is allocated.
#[test]
fn queue_info_counts_held_and_pending_containers_per_queue_and_user() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.a.queues", "a1"),
        ("root.a.a1.capacity", "100"),
        ("maximum-am-resource-percent", "1.0"),
    ]);
    // alice's limit in a1 (its 2 GiB guarantee, one container past) holds tasks back.
    let mut scheduler = must_scheduler(conf, 1, 4, 8);
    must_start(&mut scheduler, 1, "a1", "alice", 3);
    let a1 = scheduler.queue_info("a1").unwrap();
    assert_eq!(a1.num_containers, 0);
    assert_eq!(a1.pending_containers, 4, "the AM and three tasks");
    assert_eq!(a1.pending_resource, Resource::new(4 * GIB, 4));

    schedule_until_idle(&mut scheduler);
    let a1 = scheduler.queue_info("a1").unwrap();
    let held = a1.num_containers as u64;
    assert!((2..4).contains(&held), "the AM, a task, not all: {a1:?}");
    assert_eq!(a1.pending_containers, 4 - held, "{a1:?}");
    assert_eq!(a1.pending_resource.memory_mb, (4 - held) * GIB, "{a1:?}");
    let alice = &a1.users[0];
    assert_eq!(alice.user, "alice");
    assert_eq!(alice.num_containers, a1.num_containers);
    assert_eq!(alice.pending_containers, a1.pending_containers);
    assert_eq!(alice.pending_resource, a1.pending_resource);

    let a = scheduler.queue_info("a").unwrap();
    let root = scheduler.queue_info("root").unwrap();
    for parent in [&a, &root] {
        assert_eq!(parent.num_containers, a1.num_containers, "{parent:?}");
        assert_eq!(parent.pending_resource, a1.pending_resource, "{parent:?}");
    }
    let b = scheduler.queue_info("b").unwrap();
    assert_eq!((b.num_containers, b.pending_containers), (0, 0));
}
