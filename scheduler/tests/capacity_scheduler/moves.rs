//! Moving applications between queues and per-attempt blacklists (TestCapacityScheduler's
//! moveApplication cases, TestAppSchedulingInfo's blacklist).

use yarn_proto::ids::ApplicationAttemptId;
use yarn_scheduler::{ResourceRequest, SchedulerError};

use crate::mock::*;

fn two_queues(extra: &[(&'static str, &'static str)]) -> yarn_scheduler::CapacityScheduler {
    let mut pairs = vec![
        ("root.queues", "a,b,p"),
        ("root.a.capacity", "40"),
        ("root.b.capacity", "40"),
        ("root.b.maximum-capacity", "40"),
        ("root.p.capacity", "20"),
        ("root.p.queues", "p1"),
        ("root.p.p1.capacity", "100"),
        ("maximum-am-resource-percent", "1.0"),
    ];
    pairs.extend_from_slice(extra);
    must_scheduler(must_conf(&pairs), 1, 10, 10)
}

#[test]
fn a_moved_application_takes_its_usage_and_counts_to_the_target_queue() {
    let mut scheduler = two_queues(&[]);
    must_start(&mut scheduler, 1, "a", "alice", 2);
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 3);
    assert_eq!(queue_gib(&scheduler, "a"), 3);

    assert_eq!(scheduler.check_move(app(1), "b").unwrap(), "root.b");
    scheduler.move_application(app(1), "b").unwrap();

    let status = scheduler.application_status(app(1)).unwrap();
    assert_eq!(status.queue, "root.b");
    assert!(status.active, "an active application stays active");
    assert_eq!(app_gib(&scheduler, 1), 3);
    let (a, b) = (
        scheduler.queue_info("a").unwrap(),
        scheduler.queue_info("b").unwrap(),
    );
    assert_eq!((a.resources_used.memory_mb, a.num_applications), (0, 0));
    assert_eq!(
        (b.resources_used.memory_mb, b.num_applications),
        (3 * GIB, 1)
    );
    assert_eq!(b.num_active_applications, 1);
    assert_eq!(b.am_resource_used.memory_mb, GIB, "the AM is charged to b");
    assert!(a.users.is_empty(), "alice has nothing left in a");
    assert_eq!(b.users[0].user, "alice");
    assert_eq!(b.users[0].resources_used.memory_mb, 3 * GIB);
    assert_eq!(
        scheduler
            .queue_info("root")
            .unwrap()
            .resources_used
            .memory_mb,
        3 * GIB,
        "the cluster total is unchanged"
    );

    // b's maximum capacity (4 of 10 GiB) now bounds the application's next containers.
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 5));
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 1);
    assert_eq!(queue_gib(&scheduler, "b"), 4);

    // Releasing in the target returns the charge to the target.
    let placed: Vec<_> = scheduler
        .containers()
        .filter(|c| !c.is_am)
        .map(|c| c.container_id)
        .collect();
    scheduler.container_completed(&placed[0]);
    assert_eq!(queue_gib(&scheduler, "b"), 3);
    assert_eq!(queue_gib(&scheduler, "a"), 0);
}

#[test]
fn a_move_is_refused_to_a_stopped_full_unknown_or_parent_queue_and_changes_nothing() {
    let mut scheduler = two_queues(&[
        ("root.b.state", "STOPPED"),
        ("root.p.p1.maximum-applications", "1"),
    ]);
    must_start(&mut scheduler, 1, "a", "alice", 0);
    must_start(&mut scheduler, 2, "p1", "bob", 0);

    let stopped = scheduler.check_move(app(1), "b").unwrap_err();
    assert!(
        matches!(stopped, SchedulerError::QueueNotRunning { .. }),
        "{stopped}"
    );
    let full = scheduler.check_move(app(1), "p1").unwrap_err();
    assert!(
        matches!(full, SchedulerError::QueueApplicationLimit { limit: 1, .. }),
        "{full}"
    );
    let parent = scheduler.check_move(app(1), "p").unwrap_err();
    assert!(
        matches!(parent, SchedulerError::NotLeafQueue { .. }),
        "{parent}"
    );
    let unknown = scheduler.check_move(app(1), "nowhere").unwrap_err();
    assert!(
        matches!(unknown, SchedulerError::UnknownQueue { .. }),
        "{unknown}"
    );
    let gone = scheduler.check_move(app(9), "a").unwrap_err();
    assert!(
        matches!(gone, SchedulerError::UnknownApplication { .. }),
        "{gone}"
    );
    assert_eq!(
        scheduler.check_move(app(1), "root.a").unwrap(),
        "root.a",
        "moving to its own queue passes, so a retried move succeeds"
    );
    assert_eq!(
        scheduler.application_status(app(1)).unwrap().queue,
        "root.a"
    );
    assert_eq!(scheduler.queue_info("p1").unwrap().num_applications, 1);
}

#[test]
fn a_move_lets_the_source_activate_an_application_waiting_for_its_am_limit() {
    let mut scheduler = two_queues(&[("root.a.maximum-am-resource-percent", "0.25")]);
    // a's AM limit is 25% of its 4 GiB: one 1 GiB AM.
    must_start(&mut scheduler, 1, "a", "alice", 0);
    must_start(&mut scheduler, 2, "a", "alice", 0);
    assert!(!scheduler.application_status(app(2)).unwrap().active);

    scheduler.move_application(app(1), "b").unwrap();

    assert!(scheduler.application_status(app(2)).unwrap().active);
    assert_eq!(
        scheduler
            .queue_info("a")
            .unwrap()
            .am_resource_used
            .memory_mb,
        GIB
    );
}

#[test]
fn a_waiting_application_moves_waiting_and_activates_under_the_target_limits() {
    let mut scheduler = two_queues(&[("root.a.maximum-am-resource-percent", "0.25")]);
    must_start(&mut scheduler, 1, "a", "alice", 0);
    must_start(&mut scheduler, 2, "a", "alice", 0);

    scheduler.move_application(app(2), "b").unwrap();

    assert!(scheduler.application_status(app(2)).unwrap().active);
    let placed = schedule_until_idle(&mut scheduler);
    assert!(
        placed
            .iter()
            .any(|c| c.is_am && c.application_attempt_id == attempt(2))
    );
    assert_eq!(queue_gib(&scheduler, "b"), 1);
}

#[test]
fn blacklisted_hosts_get_no_container_until_removed() {
    let conf = must_conf(&[("root.queues", "default"), ("root.default.capacity", "100")]);
    let mut scheduler = must_scheduler(conf, 3, 10, 10);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    schedule_until_idle(&mut scheduler);
    let blacklist = ["host0".to_owned(), "host1".to_owned()];
    scheduler
        .update_blacklist(attempt(1), &blacklist, &[])
        .unwrap();
    assert_eq!(scheduler.blacklist(attempt(1)), blacklist);

    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 4));
    must_ask(
        &mut scheduler,
        1,
        ResourceRequest::on_host(1, "host0", gib(1), 1, true),
    );
    // It names a host, so it waits for the off-switch delay: 4 * 1/3 of a heartbeat.
    assert!(schedule_until_idle(&mut scheduler).is_empty());
    let placed = schedule_over_heartbeats(&mut scheduler, 1);
    assert_eq!(placed.len(), 4);
    assert!(
        placed.iter().all(|c| c.node_id == node(2)),
        "a relaxable ask for a blacklisted host goes elsewhere: {placed:?}"
    );

    scheduler
        .update_blacklist(attempt(1), &[], &["host0".to_owned()])
        .unwrap();
    must_ask(&mut scheduler, 1, ResourceRequest::any(2, gib(1), 1));
    must_ask(
        &mut scheduler,
        1,
        ResourceRequest::on_host(2, "host0", gib(1), 1, false),
    );
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 1);
    assert_eq!(placed[0].node_id, node(0));
}

#[test]
fn a_strict_ask_for_a_blacklisted_host_waits_and_the_default_rack_blocks_every_node() {
    let conf = must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("maximum-am-resource-percent", "1.0"),
    ]);
    let mut scheduler = must_scheduler(conf, 2, 10, 10);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    must_start(&mut scheduler, 2, "default", "bob", 0);
    schedule_until_idle(&mut scheduler);

    scheduler
        .update_blacklist(attempt(1), &["host1".to_owned()], &[])
        .unwrap();
    must_ask(
        &mut scheduler,
        1,
        ResourceRequest::on_host(1, "host1", gib(1), 1, false),
    );
    scheduler
        .update_blacklist(attempt(2), &["/default-rack".to_owned()], &[])
        .unwrap();
    must_ask(&mut scheduler, 2, ResourceRequest::any(1, gib(1), 1));
    assert!(schedule_until_idle(&mut scheduler).is_empty());

    // Another application is not affected by those lists.
    must_start(&mut scheduler, 3, "default", "carol", 1);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 2, "carol's AM and task: {placed:?}");
}

#[test]
fn a_new_attempt_starts_with_an_empty_blacklist_and_unknown_attempts_are_refused() {
    let conf = must_conf(&[("root.queues", "default"), ("root.default.capacity", "100")]);
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    scheduler
        .update_blacklist(attempt(1), &["host0".to_owned()], &[])
        .unwrap();
    let second = ApplicationAttemptId::new(app(1), 2);
    scheduler.add_attempt(second, gib(1)).unwrap();
    assert!(scheduler.blacklist(second).is_empty());
    let err = scheduler
        .update_blacklist(attempt(1), &["host0".to_owned()], &[])
        .unwrap_err();
    assert!(
        matches!(err, SchedulerError::UnknownAttempt { .. }),
        "{err}"
    );
}

#[test]
fn a_raised_priority_serves_the_application_first_and_is_capped_at_the_cluster_maximum() {
    let settings = yarn_scheduler::SchedulerSettings {
        max_application_priority: 10,
        ..yarn_scheduler::SchedulerSettings::default()
    };
    let conf = must_conf_with(
        &[
            ("root.queues", "default"),
            ("root.default.capacity", "100"),
            ("maximum-am-resource-percent", "1.0"),
        ],
        settings,
    );
    let mut scheduler = must_scheduler(conf, 1, 3, 10);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    must_start(&mut scheduler, 2, "default", "alice", 0);
    schedule_until_idle(&mut scheduler);
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 1));
    must_ask(&mut scheduler, 2, ResourceRequest::any(1, gib(1), 1));

    assert_eq!(
        scheduler.update_application_priority(app(2), 50).unwrap(),
        10
    );
    assert_eq!(
        scheduler.application_placement(app(2)),
        Some(("root.default", 10))
    );
    let placed = scheduler.schedule();
    assert_eq!(placed.len(), 1, "room for one task: {placed:?}");
    assert_eq!(
        placed[0].application_attempt_id,
        attempt(2),
        "the raised application is served before the older one"
    );
    let err = scheduler
        .update_application_priority(app(9), 1)
        .unwrap_err();
    assert!(
        matches!(err, SchedulerError::UnknownApplication { .. }),
        "{err}"
    );
}
