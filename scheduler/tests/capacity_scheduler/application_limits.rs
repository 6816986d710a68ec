//! The order YARN evaluates application limits in when `maximum-am-resource-percent` is below
//! 1 (TestApplicationLimits): `max-parallel-apps` (user, then the queue and its ancestors)
//! before the queue AM limit, before the user AM limit.

use yarn_scheduler::{CapacityScheduler, PendingReason};

use crate::mock::*;

fn pending_reason(scheduler: &CapacityScheduler, n: i32) -> Option<PendingReason> {
    let status = scheduler
        .application_status(app(n))
        .expect("known application");
    assert_eq!(
        status.active,
        status.pending_reason.is_none(),
        "active exactly when nothing holds it back: {status:?}"
    );
    status.pending_reason
}

fn is_active(scheduler: &CapacityScheduler, n: i32) -> bool {
    pending_reason(scheduler, n).is_none()
}

#[test]
fn an_application_held_by_max_parallel_apps_takes_no_am_share() {
    // Queue AM limit: 20% of 10 GiB = 2 GiB.
    let conf = must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("maximum-am-resource-percent", "0.2"),
        ("user-settings.carol.max-parallel-apps", "1"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    must_start(&mut scheduler, 1, "default", "carol", 0);
    must_start(&mut scheduler, 2, "default", "carol", 0);
    must_start(&mut scheduler, 3, "default", "dave", 0);
    must_start(&mut scheduler, 4, "default", "erin", 0);

    assert!(is_active(&scheduler, 1));
    assert_eq!(
        pending_reason(&scheduler, 2),
        Some(PendingReason::UserParallelLimit {
            user: "carol".into(),
            limit: 1
        })
    );
    // Had carol's held application been charged, dave's AM would not fit.
    assert!(is_active(&scheduler, 3));
    match pending_reason(&scheduler, 4) {
        Some(PendingReason::QueueAmLimit {
            am_used, am_limit, ..
        }) => {
            assert_eq!(
                am_used.memory_mb,
                2 * GIB,
                "the AMs of applications 1 and 3 only"
            );
            assert_eq!(am_limit.memory_mb, 2 * GIB);
        }
        other => panic!("expected the queue AM limit, got {other:?}"),
    }
    let info = scheduler.queue_info("default").unwrap();
    assert_eq!(info.am_resource_used.memory_mb, 2 * GIB);
    assert_eq!(
        (info.num_active_applications, info.num_pending_applications),
        (2, 2)
    );
    let carol = info.users.iter().find(|u| u.user == "carol").unwrap();
    assert_eq!(carol.am_resources_used.memory_mb, GIB);
    assert_eq!(
        (
            carol.num_active_applications,
            carol.num_pending_applications
        ),
        (1, 1)
    );

    // carol's first application ends: her second becomes runnable and, ahead of erin's in
    // submission order, takes the AM room that frees.
    scheduler.remove_application(app(1)).unwrap();
    assert!(is_active(&scheduler, 2));
    assert!(matches!(
        pending_reason(&scheduler, 4),
        Some(PendingReason::QueueAmLimit { .. })
    ));
}

#[test]
fn max_parallel_apps_is_reported_before_the_am_limit_when_both_bind() {
    // Queue AM limit: 10% of 10 GiB = 1 GiB, so only the first AM fits.
    let conf = must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("root.default.max-parallel-apps", "2"),
        ("maximum-am-resource-percent", "0.1"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    must_start(&mut scheduler, 2, "default", "bob", 0);
    must_start(&mut scheduler, 3, "default", "carol", 0);

    assert!(is_active(&scheduler, 1));
    assert!(matches!(
        pending_reason(&scheduler, 2),
        Some(PendingReason::QueueAmLimit { .. })
    ));
    // Both limits bind on application 3; max-parallel-apps is checked first.
    assert_eq!(
        pending_reason(&scheduler, 3),
        Some(PendingReason::QueueParallelLimit {
            queue: "root.default".into(),
            limit: 2
        })
    );

    // Application 1 ends: 2 takes the AM room, 3 becomes runnable and now waits for AM room.
    scheduler.remove_application(app(1)).unwrap();
    assert!(is_active(&scheduler, 2));
    match pending_reason(&scheduler, 3) {
        Some(PendingReason::QueueAmLimit { am_used, .. }) => assert_eq!(am_used.memory_mb, GIB),
        other => panic!("expected the queue AM limit, got {other:?}"),
    }
}

#[test]
fn a_user_over_the_user_am_limit_waits_while_the_queue_has_am_room() {
    // Queue AM limit: 50% of 8 GiB = 4 GiB. With two active users and
    // minimum-user-limit-percent 50, each user's AM limit is 8 GiB * 0.5 * 50% = 2 GiB.
    let conf = must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("root.default.minimum-user-limit-percent", "50"),
        ("maximum-am-resource-percent", "0.5"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 8, 8);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    must_start(&mut scheduler, 2, "default", "bob", 0);
    must_start(&mut scheduler, 3, "default", "alice", 0);
    must_start(&mut scheduler, 4, "default", "alice", 0);

    assert!(is_active(&scheduler, 1) && is_active(&scheduler, 2) && is_active(&scheduler, 3));
    let reason = pending_reason(&scheduler, 4);
    match &reason {
        Some(PendingReason::UserAmLimit {
            queue,
            user,
            am_resource,
            am_used,
            am_limit,
        }) => {
            assert_eq!((queue.as_str(), user.as_str()), ("root.default", "alice"));
            assert_eq!(am_resource.memory_mb, GIB);
            assert_eq!(am_used.memory_mb, 2 * GIB);
            assert_eq!(am_limit.memory_mb, 2 * GIB);
        }
        other => panic!("expected the user AM limit, got {other:?}"),
    }
    let diagnostic = reason.unwrap().to_string();
    assert!(
        diagnostic.contains("User's AM resource limit exceeded") && diagnostic.contains("alice"),
        "{diagnostic}"
    );
    let info = scheduler.queue_info("default").unwrap();
    assert_eq!(
        info.am_resource_used.memory_mb,
        3 * GIB,
        "the queue still has AM room"
    );
    assert_eq!(info.am_resource_limit.memory_mb, 4 * GIB);
}

#[test]
fn a_parent_max_parallel_apps_binds_across_its_children() {
    // root.a allows 2 running applications in a1 and a2 together, although a1 alone allows 5.
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.a.queues", "a1,a2"),
        ("root.a.a1.capacity", "50"),
        ("root.a.a2.capacity", "50"),
        ("root.a.max-parallel-apps", "2"),
        ("root.a.a1.max-parallel-apps", "5"),
        ("maximum-am-resource-percent", "0.5"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 20, 20);
    must_start(&mut scheduler, 1, "a1", "u1", 0);
    must_start(&mut scheduler, 2, "a2", "u2", 0);
    must_start(&mut scheduler, 3, "a1", "u3", 0);
    must_start(&mut scheduler, 4, "b", "u4", 0);
    must_start(&mut scheduler, 5, "a2", "u5", 0);

    let held_by_a = Some(PendingReason::QueueParallelLimit {
        queue: "root.a".into(),
        limit: 2,
    });
    assert!(is_active(&scheduler, 1) && is_active(&scheduler, 2));
    assert_eq!(pending_reason(&scheduler, 3), held_by_a);
    assert_eq!(pending_reason(&scheduler, 5), held_by_a);
    assert!(is_active(&scheduler, 4), "b is outside root.a");
    let a = scheduler.queue_info("a").unwrap();
    assert_eq!(
        (a.num_active_applications, a.num_pending_applications),
        (2, 2)
    );

    // Freeing a slot in a2 lets the earliest held application in, even though it is in a1.
    scheduler.remove_application(app(2)).unwrap();
    assert!(is_active(&scheduler, 3));
    assert_eq!(pending_reason(&scheduler, 5), held_by_a);
}
