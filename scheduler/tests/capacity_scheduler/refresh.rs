//! Refreshing the queue configuration under load (TestCapacitySchedulerQueues,
//! TestQueueParsing#testQueueRemoval...).

use yarn_scheduler::{CapacityScheduler, QueueState, SchedulerError};

use crate::mock::*;

const BASE: [(&str, &str); 7] = [
    ("root.queues", "a,b"),
    ("root.a.capacity", "50"),
    ("root.b.capacity", "50"),
    ("root.a.queues", "a1,a2"),
    ("root.a.a1.capacity", "50"),
    ("root.a.a2.capacity", "50"),
    ("root.a.a1.user-limit-factor", "4"),
];

fn with(
    changes: &[(&'static str, &'static str)],
    removed: &[&str],
) -> Vec<(&'static str, &'static str)> {
    let mut pairs: Vec<(&str, &str)> = BASE
        .iter()
        .copied()
        .filter(|(key, _)| !removed.contains(key))
        .collect();
    for (key, value) in changes {
        pairs.retain(|(k, _)| k != key);
        pairs.push((key, value));
    }
    pairs
}

/// A scheduler with one application in a1 holding 4 GiB.
fn loaded() -> CapacityScheduler {
    let mut scheduler = must_scheduler(must_conf(&BASE), 1, 20, 20);
    must_start(&mut scheduler, 1, "a1", "alice", 3);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "a1"), 4);
    scheduler
}

/// Applies a refresh that must fail, checks the message, and checks nothing changed.
fn must_reject(pairs: &[(&str, &str)], expected: &str) -> SchedulerError {
    let mut scheduler = loaded();
    let before = scheduler.configuration().clone();
    let err = scheduler.reinitialize(must_conf(pairs)).unwrap_err();
    let message = err.to_string();
    assert!(message.contains(expected), "{message}");
    assert_eq!(
        scheduler.configuration(),
        &before,
        "old configuration stays in effect"
    );
    assert_eq!(queue_gib(&scheduler, "a1"), 4);
    must_start(&mut scheduler, 2, "a1", "alice", 0);
    err
}

#[test]
fn removing_a_running_queue_is_rejected() {
    let pairs = with(
        &[("root.a.queues", "a1"), ("root.a.a1.capacity", "100")],
        &["root.a.a2.capacity"],
    );
    let err = must_reject(
        &pairs,
        "queue root.a.a2 is removed but is RUNNING; stop it first",
    );
    assert!(matches!(err, SchedulerError::RemovedQueueNotStopped { .. }));
}

#[test]
fn removing_a_stopped_queue_with_applications_is_rejected() {
    let mut scheduler = loaded();
    let stopped = with(&[("root.a.a1.state", "STOPPED")], &[]);
    scheduler.reinitialize(must_conf(&stopped)).unwrap();
    let removed = with(
        &[("root.a.queues", "a2"), ("root.a.a2.capacity", "100")],
        &["root.a.a1.capacity", "root.a.a1.user-limit-factor"],
    );
    let err = scheduler.reinitialize(must_conf(&removed)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "refresh rejected: queue root.a.a1 is removed but still has 1 application(s)"
    );
    // Once drained, the stopped queue can go.
    scheduler.remove_application(app(1)).unwrap();
    scheduler.reinitialize(must_conf(&removed)).unwrap();
    assert!(scheduler.queue_info("root.a.a1").is_err());
}

/// Removing root.a takes a1 and a2 with it: every key of the subtree goes, root.a must be
/// STOPPED (its children inherit that) and nothing may run anywhere under it.
#[test]
fn removing_a_parent_subtree_needs_it_stopped_and_empty() {
    let without_a = with(
        &[("root.queues", "b"), ("root.b.capacity", "100")],
        &[
            "root.a.capacity",
            "root.a.queues",
            "root.a.a1.capacity",
            "root.a.a2.capacity",
            "root.a.a1.user-limit-factor",
        ],
    );
    let mut scheduler = loaded();
    match scheduler.reinitialize(must_conf(&without_a)).unwrap_err() {
        SchedulerError::RemovedQueueNotStopped { queue, state } => {
            assert_eq!((queue.as_str(), state), ("root.a", QueueState::Running));
        }
        other => panic!("expected RemovedQueueNotStopped, got {other:?}"),
    }

    // Stopping only the children is not enough: the parent itself must be STOPPED.
    let children_stopped = with(
        &[
            ("root.a.a1.state", "STOPPED"),
            ("root.a.a2.state", "STOPPED"),
        ],
        &[],
    );
    scheduler
        .reinitialize(must_conf(&children_stopped))
        .unwrap();
    let err = scheduler.reinitialize(must_conf(&without_a)).unwrap_err();
    assert!(
        matches!(&err, SchedulerError::RemovedQueueNotStopped { queue, .. } if queue == "root.a"),
        "{err:?}"
    );

    // Stopped, but a1 still drains an application: refused, counting the whole subtree.
    let stopped = with(&[("root.a.state", "STOPPED")], &[]);
    scheduler.reinitialize(must_conf(&stopped)).unwrap();
    assert_eq!(
        scheduler.queue_info("a2").unwrap().state,
        QueueState::Stopped,
        "inherited"
    );
    let err = scheduler.reinitialize(must_conf(&without_a)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "refresh rejected: queue root.a is removed but still has 1 application(s)"
    );
    assert!(scheduler.queue_info("root.a.a1").is_ok(), "nothing changed");

    // Stopped and empty: the whole subtree goes.
    scheduler.remove_application(app(1)).unwrap();
    scheduler.reinitialize(must_conf(&without_a)).unwrap();
    for queue in ["root.a", "root.a.a1", "root.a.a2"] {
        assert!(scheduler.queue_info(queue).is_err(), "{queue}");
    }
    assert_eq!(scheduler.queue_infos().len(), 2, "root and b");
    must_start(&mut scheduler, 2, "b", "bob", 1);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "b"), 2);
}

/// Keys left behind for a removed queue name a queue outside the hierarchy: the refresh is
/// refused before it reaches the scheduler.
#[test]
fn a_refresh_that_leaves_keys_of_a_removed_queue_is_rejected() {
    let leftover = with(
        &[("root.a.queues", "a1"), ("root.a.a1.capacity", "100")],
        &[],
    );
    let err =
        yarn_scheduler::CapacitySchedulerConfiguration::new(props(&leftover), Default::default())
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "key yarn.scheduler.capacity.root.a.a2.capacity: queue root.a.a2 is not part of the \
         queue hierarchy (yarn.scheduler.capacity.root.a.queues = \"a1\" does not list a2)"
    );
}

#[test]
fn turning_a_leaf_with_applications_into_a_parent_is_rejected() {
    let pairs = with(
        &[
            ("root.a.a1.queues", "deep"),
            ("root.a.a1.deep.capacity", "100"),
        ],
        &[],
    );
    let err = must_reject(
        &pairs,
        "leaf queue root.a.a1 cannot become a parent queue while it has 1 application(s)",
    );
    assert!(matches!(
        err,
        SchedulerError::LeafWithApplicationsBecomesParent { .. }
    ));
}

#[test]
fn moving_a_queue_to_another_parent_is_rejected() {
    let pairs = with(
        &[
            ("root.a.queues", "a1"),
            ("root.a.a1.capacity", "100"),
            ("root.b.queues", "a2"),
            ("root.b.a2.capacity", "100"),
        ],
        &["root.a.a2.capacity"],
    );
    must_reject(&pairs, "queue a2 cannot move from root.a.a2 to root.b.a2");
}

#[test]
fn lowering_a_maximum_allocation_is_rejected() {
    let pairs = with(&[("root.a.maximum-allocation-mb", "4096")], &[]);
    must_reject(
        &pairs,
        "queue root.a: the maximum allocation cannot be decreased from <memory:8192, vCores:4> to <memory:4096, vCores:4>",
    );
}

#[test]
fn an_invalid_new_configuration_never_reaches_the_scheduler() {
    let pairs = with(&[("root.b.capacity", "40")], &[]);
    let err =
        yarn_scheduler::CapacitySchedulerConfiguration::new(props(&pairs), Default::default())
            .unwrap_err();
    assert!(err.to_string().contains("sum to 90"), "{err}");
}

/// Capacities change under load: usage carries over and the new limits apply at once.
#[test]
fn refresh_under_load_keeps_usage_and_applies_new_limits() {
    let mut scheduler = loaded();
    must_start(&mut scheduler, 2, "b", "bob", 2);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "b"), 3);

    let shrunk = with(
        &[
            ("root.a.capacity", "20"),
            ("root.a.maximum-capacity", "20"),
            ("root.b.capacity", "80"),
        ],
        &[],
    );
    scheduler.reinitialize(must_conf(&shrunk)).unwrap();
    let a = scheduler.queue_info("a").unwrap();
    assert_eq!(a.resources_used.memory_mb, 4 * GIB, "usage carried over");
    assert!((a.absolute_capacity - 20.0).abs() < 1e-9);
    assert!(
        (a.used_capacity - 100.0).abs() < 1e-9,
        "4 GiB of a 4 GiB guarantee"
    );
    assert_eq!(
        scheduler.queue_info("a1").unwrap().num_active_applications,
        1
    );
    assert_eq!(queue_gib(&scheduler, "root"), 7);

    // a is at its new maximum (20% of 20 GiB): more asks wait, b still grows.
    must_ask(
        &mut scheduler,
        1,
        yarn_scheduler::ResourceRequest::any(1, gib(1), 5),
    );
    must_ask(
        &mut scheduler,
        2,
        yarn_scheduler::ResourceRequest::any(1, gib(1), 5),
    );
    let placed = schedule_until_idle(&mut scheduler);
    assert!(
        placed
            .iter()
            .all(|a| a.application_attempt_id == attempt(2)),
        "{placed:?}"
    );
    assert_eq!(queue_gib(&scheduler, "a"), 4);
    assert_eq!(queue_gib(&scheduler, "b"), 8);

    // New queues can be added and used.
    let grown = with(
        &[
            ("root.queues", "a,b,c"),
            ("root.a.capacity", "20"),
            ("root.b.capacity", "60"),
            ("root.c.capacity", "20"),
        ],
        &[],
    );
    scheduler.reinitialize(must_conf(&grown)).unwrap();
    must_start(&mut scheduler, 3, "c", "carol", 1);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "c"), 2);
    assert_eq!(
        scheduler.queue_info("c").unwrap().state,
        QueueState::Running
    );
}
