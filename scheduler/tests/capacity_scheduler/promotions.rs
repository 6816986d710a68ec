//! Promotion of running OPPORTUNISTIC containers: a guaranteed ask pinned to the container's
//! node, granted only within node room and queue limits, and charged once granted.

use yarn_proto::ids::ContainerId;
use yarn_scheduler::{Allocation, CapacityScheduler, ResourceRequest, SchedulerError};

use crate::mock::*;

/// An uncharged 1 GiB OPPORTUNISTIC container `sequence` of application `n` on `node(0)`, as
/// the RM's opportunistic allocator (or an AMRMProxy) placed it.
fn opportunistic(n: i32, sequence: i64) -> Allocation {
    Allocation {
        container_id: ContainerId::new(attempt(n), 0, sequence).unwrap(),
        application_attempt_id: attempt(n),
        node_id: node(0),
        resource: gib(1),
        priority: 1,
        allocation_request_id: 0,
        is_am: false,
    }
}

/// One 4 GiB node and the whole cluster for `default`; application 1 fills the node with its
/// AM and three tasks. Returns the tasks.
fn full_node() -> (CapacityScheduler, Vec<Allocation>) {
    let conf = must_conf(&[("root.queues", "default"), ("root.default.capacity", "100")]);
    let mut scheduler = must_scheduler(conf, 1, 4, 8);
    must_start(&mut scheduler, 1, "default", "alice", 3);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 4);
    let tasks = placed.into_iter().filter(|a| !a.is_am).collect();
    (scheduler, tasks)
}

#[test]
fn a_promotion_waits_for_room_on_its_node_and_is_then_charged_once() {
    let (mut scheduler, tasks) = full_node();
    let promoted = opportunistic(1, 100);
    scheduler.request_promotion(promoted.clone()).unwrap();
    assert!(
        scheduler.schedule_promotions().is_empty(),
        "the node has nothing unallocated"
    );
    assert_eq!(scheduler.pending_promotions().count(), 1);
    assert_eq!(scheduler.cluster_used().memory_mb, 4 * GIB);

    scheduler.container_completed(&tasks[0].container_id);
    assert_eq!(scheduler.schedule_promotions(), vec![promoted.clone()]);
    assert_eq!(
        scheduler.cluster_used().memory_mb,
        4 * GIB,
        "charged in place of the task"
    );
    assert_eq!(app_gib(&scheduler, 1), 4);
    assert_eq!(queue_gib(&scheduler, "default"), 4);
    assert_eq!(scheduler.container(&promoted.container_id), Some(&promoted));
    assert!(scheduler.schedule_promotions().is_empty(), "granted once");
    assert_eq!(scheduler.pending_promotions().count(), 0);

    assert!(matches!(
        scheduler.request_promotion(promoted.clone()),
        Err(SchedulerError::DuplicateContainer { .. })
    ));
    // Once it completes, its resources are free like any guaranteed container's.
    scheduler.container_completed(&promoted.container_id);
    assert_eq!(scheduler.cluster_used().memory_mb, 3 * GIB);
}

#[test]
fn a_promotion_stays_within_the_queue_maximum_capacity() {
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
    scheduler.request_promotion(opportunistic(1, 50)).unwrap();
    assert!(
        scheduler.schedule_promotions().is_empty(),
        "the node has room but root.a does not"
    );
    let task = placed.iter().find(|a| !a.is_am).unwrap();
    scheduler.container_completed(&task.container_id);
    assert_eq!(scheduler.schedule_promotions().len(), 1);
    assert_eq!(queue_gib(&scheduler, "a"), 4);
    assert_eq!(queue_gib(&scheduler, "b"), 0);
}

#[test]
fn promotions_name_a_current_attempt_and_a_registered_node_and_end_with_their_attempt() {
    let (mut scheduler, _) = full_node();
    let mut stale = opportunistic(1, 7);
    stale.application_attempt_id = yarn_proto::ids::ApplicationAttemptId::new(app(1), 2);
    assert!(matches!(
        scheduler.request_promotion(stale),
        Err(SchedulerError::UnknownAttempt { .. })
    ));
    assert!(matches!(
        scheduler.request_promotion(opportunistic(9, 7)),
        Err(SchedulerError::UnknownApplication { .. })
    ));
    let mut elsewhere = opportunistic(1, 7);
    elsewhere.node_id = node(5);
    assert!(matches!(
        scheduler.request_promotion(elsewhere),
        Err(SchedulerError::UnknownNode { .. })
    ));
    assert_eq!(
        scheduler.pending_promotions().count(),
        0,
        "nothing was taken"
    );

    scheduler.request_promotion(opportunistic(1, 7)).unwrap();
    scheduler.request_promotion(opportunistic(1, 8)).unwrap();
    scheduler.cancel_promotion(&opportunistic(1, 7).container_id);
    let pending: Vec<_> = scheduler.pending_promotions().cloned().collect();
    assert_eq!(pending, vec![opportunistic(1, 8)]);
    let next = yarn_proto::ids::ApplicationAttemptId::new(app(1), 2);
    scheduler.add_attempt(next, gib(1)).unwrap();
    assert_eq!(
        scheduler.pending_promotions().count(),
        0,
        "a new attempt starts without the old one's requests"
    );
}

#[test]
fn a_recovered_promoted_container_leaves_the_id_sequence_alone() {
    let conf = must_conf(&[("root.queues", "default"), ("root.default.capacity", "100")]);
    let mut scheduler = must_scheduler(conf, 1, 8, 8);
    scheduler.set_epoch(2).unwrap();
    must_start(&mut scheduler, 1, "default", "alice", 0);
    let am = scheduler.schedule();
    assert_eq!(am[0].container_id.sequence(), 1);
    // An AMRMProxy counts its ids down from epoch 2's first id: the top of epoch 1's range.
    let placed_by_proxy = Allocation {
        container_id: ContainerId::new(attempt(1), 1, ContainerId::MAX_SEQUENCE).unwrap(),
        ..opportunistic(1, 0)
    };
    scheduler
        .recover_promoted_container(placed_by_proxy.clone())
        .unwrap();
    assert_eq!(scheduler.cluster_used().memory_mb, 2 * GIB);
    assert!(matches!(
        scheduler.recover_promoted_container(placed_by_proxy),
        Err(SchedulerError::DuplicateContainer { .. })
    ));
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 1));
    let next = scheduler.schedule();
    assert_eq!(next.len(), 1);
    assert_eq!(
        (
            next[0].container_id.epoch(),
            next[0].container_id.sequence()
        ),
        (2, 2),
        "numbering continues after the scheduler's own ids"
    );
}
