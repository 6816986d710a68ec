//! Submission checks, activation limits, stopped queues, ACLs and application priorities
//! (TestApplicationLimits, TestCapacityScheduler, TestQueueState).

use yarn_scheduler::{
    PendingReason, QueueAcl, QueueState, ResourceRequest, SchedulerError, SchedulerSettings,
};

use crate::mock::*;

#[test]
fn applications_wait_for_the_am_limit_and_activate_when_an_am_completes() {
    let conf = must_conf(&[("root.queues", "default"), ("root.default.capacity", "100")]);
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    must_start(&mut scheduler, 2, "default", "bob", 0);
    assert!(scheduler.application_status(app(1)).unwrap().active);
    let waiting = scheduler.application_status(app(2)).unwrap();
    assert!(!waiting.active);
    match waiting.pending_reason {
        Some(PendingReason::QueueAmLimit {
            am_used, am_limit, ..
        }) => {
            assert_eq!(am_used.memory_mb, GIB);
            assert_eq!(am_limit.memory_mb, GIB, "10% of 10 GiB");
        }
        other => panic!("expected the queue AM limit, got {other:?}"),
    }
    let diagnostic = waiting.pending_reason.unwrap().to_string();
    assert!(
        diagnostic.contains("Queue's AM resource limit exceeded"),
        "{diagnostic}"
    );
    let info = scheduler.queue_info("default").unwrap();
    assert_eq!(
        (info.num_active_applications, info.num_pending_applications),
        (1, 1)
    );

    let placed = scheduler.schedule();
    assert_eq!(placed.len(), 1, "only the active application gets its AM");
    assert!(placed[0].is_am && placed[0].application_attempt_id == attempt(1));

    scheduler.container_completed(&placed[0].container_id);
    assert!(scheduler.application_status(app(2)).unwrap().active);
    let placed = scheduler.schedule();
    assert_eq!(placed[0].application_attempt_id, attempt(2));
}

#[test]
fn maximum_applications_reject_and_max_parallel_apps_keep_pending() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.a.maximum-applications", "2"),
        ("root.b.minimum-user-limit-percent", "50"),
        ("root.b.maximum-applications", "2"),
        ("maximum-am-resource-percent", "1.0"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    must_start(&mut scheduler, 1, "a", "u1", 0);
    must_start(&mut scheduler, 2, "a", "u2", 0);
    let err = scheduler
        .submit_application(app(3), "a", "u3", &[], None)
        .unwrap_err();
    assert!(matches!(
        err,
        SchedulerError::QueueApplicationLimit {
            current: 2,
            limit: 2,
            ..
        }
    ));
    let message = err.to_string();
    assert!(
        message.contains("root.a") && message.contains("already has 2"),
        "{message}"
    );

    // Per-user share in b: 2 * 50% * factor 1 = 1 application.
    must_start(&mut scheduler, 4, "b", "u1", 0);
    let err = scheduler
        .submit_application(app(5), "b", "u1", &[], None)
        .unwrap_err();
    assert!(matches!(
        err,
        SchedulerError::UserApplicationLimit { limit: 1, .. }
    ));
    assert!(err.to_string().contains("from user u1"));

    let conf = must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("root.default.max-parallel-apps", "1"),
        ("user.max-parallel-apps", "5"),
        ("user-settings.carol.max-parallel-apps", "1"),
        ("maximum-am-resource-percent", "1.0"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    must_start(&mut scheduler, 2, "default", "bob", 0);
    let status = scheduler.application_status(app(2)).unwrap();
    assert!(!status.active);
    assert_eq!(
        status.pending_reason,
        Some(PendingReason::QueueParallelLimit {
            queue: "root.default".into(),
            limit: 1
        })
    );
    scheduler.remove_application(app(1)).unwrap();
    assert!(scheduler.application_status(app(2)).unwrap().active);
}

#[test]
fn user_max_parallel_apps_keeps_a_users_second_application_pending() {
    let conf = must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("user-settings.carol.max-parallel-apps", "1"),
        ("maximum-am-resource-percent", "1.0"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    must_start(&mut scheduler, 1, "default", "carol", 0);
    must_start(&mut scheduler, 2, "default", "carol", 0);
    must_start(&mut scheduler, 3, "default", "dave", 0);
    assert!(scheduler.application_status(app(3)).unwrap().active);
    let status = scheduler.application_status(app(2)).unwrap();
    assert_eq!(
        status.pending_reason,
        Some(PendingReason::UserParallelLimit {
            user: "carol".into(),
            limit: 1
        })
    );
    let placed = scheduler.schedule();
    let am = placed
        .iter()
        .find(|a| a.application_attempt_id == attempt(1))
        .unwrap();
    // The AM exiting ends the attempt and frees carol's slot.
    scheduler.container_completed(&am.container_id);
    assert!(scheduler.application_status(app(2)).unwrap().active);
}

#[test]
fn stopped_queues_reject_new_applications_and_drain_running_ones() {
    let running = [
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.a.queues", "a1"),
        ("root.a.a1.capacity", "100"),
    ];
    let mut scheduler = must_scheduler(must_conf(&running), 1, 10, 10);
    must_start(&mut scheduler, 1, "a1", "alice", 2);

    let mut stopped = running.to_vec();
    stopped.push(("root.a.state", "STOPPED"));
    scheduler.reinitialize(must_conf(&stopped)).unwrap();
    let err = scheduler
        .submit_application(app(2), "a1", "alice", &[], None)
        .unwrap_err();
    match &err {
        SchedulerError::QueueNotRunning {
            queue,
            state,
            stopped_queue,
            ..
        } => {
            assert_eq!(queue, "root.a.a1");
            assert_eq!(*state, QueueState::Draining);
            assert_eq!(stopped_queue, "root.a");
        }
        other => panic!("expected QueueNotRunning, got {other:?}"),
    }
    assert_eq!(
        scheduler.queue_info("a1").unwrap().state,
        QueueState::Draining
    );
    assert_eq!(
        scheduler.queue_info("a").unwrap().state,
        QueueState::Draining
    );

    // The running application still gets its containers.
    schedule_until_idle(&mut scheduler);
    assert_eq!(app_gib(&scheduler, 1), 3);

    scheduler.remove_application(app(1)).unwrap();
    assert_eq!(
        scheduler.queue_info("a1").unwrap().state,
        QueueState::Stopped
    );
    assert_eq!(
        scheduler.queue_info("b").unwrap().state,
        QueueState::Running
    );
}

#[test]
fn acls_are_inherited_and_refusals_name_the_missing_right() {
    let settings = SchedulerSettings {
        acl_enable: true,
        ..SchedulerSettings::default()
    };
    let pairs = [
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.a.queues", "a1"),
        ("root.a.a1.capacity", "100"),
        ("root.acl_submit_applications", " "),
        ("root.acl_administer_queue", "ops-lead"),
        ("root.a.acl_submit_applications", "alice analysts"),
        ("root.a.acl_administer_queue", "bob"),
    ];
    let mut scheduler = must_scheduler(must_conf_with(&pairs, settings.clone()), 1, 10, 10);
    scheduler
        .submit_application(app(1), "a1", "alice", &[], None)
        .expect("allowed on the parent, so on the child");
    scheduler
        .submit_application(app(2), "a1", "carol", &["analysts".into()], None)
        .expect("group member");
    scheduler
        .submit_application(app(3), "a1", "bob", &[], None)
        .expect("administer implies submit");
    scheduler
        .submit_application(app(4), "b", "ops-lead", &[], None)
        .expect("root administrator");

    let err = scheduler
        .submit_application(app(5), "b", "alice", &[], None)
        .unwrap_err();
    assert!(matches!(
        err,
        SchedulerError::AccessDenied {
            right: QueueAcl::SubmitApplications,
            ..
        }
    ));
    let message = err.to_string();
    assert!(
        message.contains("alice")
            && message.contains("SUBMIT_APPLICATIONS")
            && message.contains("root.b"),
        "{message}"
    );
    let message = scheduler
        .check_access("a1", QueueAcl::AdministerQueue, "alice", &[])
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("ADMINISTER_QUEUE") && message.contains("root.a.a1"),
        "{message}"
    );
    scheduler
        .check_access("a1", QueueAcl::AdministerQueue, "bob", &[])
        .expect("bob administers root.a");

    // With yarn.acl.enable=false everything is allowed.
    let open = must_scheduler(must_conf(&pairs), 1, 10, 10);
    open.check_access("b", QueueAcl::AdministerQueue, "anyone", &[])
        .expect("ACLs disabled");
}

#[test]
fn submission_checks_queue_existence_and_leafness_first() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.a.queues", "x"),
        ("root.a.x.capacity", "100"),
        ("root.b.queues", "x"),
        ("root.b.x.capacity", "100"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    let err = scheduler
        .submit_application(app(1), "nope", "alice", &[], None)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "application application_1700000000000_0001 submitted by user alice to unknown queue: nope"
    );
    let err = scheduler
        .submit_application(app(1), "a", "alice", &[], None)
        .unwrap_err();
    assert!(matches!(err, SchedulerError::NotLeafQueue { .. }));
    let err = scheduler
        .submit_application(app(1), "x", "alice", &[], None)
        .unwrap_err();
    assert!(err.to_string().contains("root.a.x,root.b.x"));
    scheduler
        .submit_application(app(1), "root.b.x", "alice", &[], None)
        .unwrap();
    assert!(matches!(
        scheduler.submit_application(app(1), "root.b.x", "alice", &[], None),
        Err(SchedulerError::DuplicateApplication { .. })
    ));
}

#[test]
fn higher_priority_applications_are_served_first_and_priorities_are_clamped() {
    let settings = SchedulerSettings {
        max_application_priority: 10,
        ..SchedulerSettings::default()
    };
    let conf = must_conf_with(
        &[
            ("root.queues", "default"),
            ("root.default.capacity", "100"),
            ("root.default.default-application-priority", "2"),
            ("maximum-am-resource-percent", "1.0"),
        ],
        settings,
    );
    let mut scheduler = must_scheduler(conf, 1, 4, 8);
    must_start_with(&mut scheduler, 1, "default", "u", Some(1), 2);
    must_start_with(&mut scheduler, 2, "default", "u", Some(5), 2);
    must_start_with(&mut scheduler, 3, "default", "u", Some(3), 2);
    let placed = scheduler.schedule();
    let order: Vec<i32> = placed
        .iter()
        .map(|a| a.application_attempt_id.application_id.id)
        .collect();
    assert_eq!(
        order,
        vec![2, 2, 2, 3],
        "priority 5 first (AM and tasks), then 3"
    );

    let accepted = scheduler
        .submit_application(app(4), "default", "u", &[], Some(20))
        .unwrap();
    assert_eq!(accepted.priority, 10, "lowered to the cluster maximum");
    let accepted = scheduler
        .submit_application(app(5), "default", "u", &[], None)
        .unwrap();
    assert_eq!(accepted.priority, 2, "queue default");
}

#[test]
fn asks_are_served_by_container_priority_and_locality() {
    let conf = must_conf(&[("root.queues", "default"), ("root.default.capacity", "100")]);
    let mut scheduler = must_scheduler(conf, 3, 4, 8);
    must_start(&mut scheduler, 1, "default", "u", 0);
    scheduler.schedule();
    scheduler
        .update_asks(
            attempt(1),
            &[
                ResourceRequest::any(20, gib(1), 1),
                ResourceRequest::on_host(10, "host2", gib(1), 2, false),
            ],
            &[],
        )
        .unwrap();
    let placed = scheduler.schedule();
    assert_eq!(placed.len(), 3);
    assert_eq!(
        (placed[0].priority, placed[0].node_id.host.as_str()),
        (10, "host2")
    );
    assert_eq!(
        (placed[1].priority, placed[1].node_id.host.as_str()),
        (10, "host2")
    );
    assert_eq!(placed[2].priority, 20);

    // A strict host ask never leaves its host, even when the host is full.
    scheduler
        .update_asks(
            attempt(1),
            &[ResourceRequest::on_host(5, "host2", gib(3), 1, false)],
            &[],
        )
        .unwrap();
    assert!(
        scheduler.schedule().is_empty(),
        "host2 has 2 GiB free; host0 and host1 have 3 GiB but are not allowed"
    );
}

/// An AM asking for 150,000 containers on hosts the cluster does not have, each strict, and
/// for 500 anywhere after them: the strict asks are never placed, and the rest are, in one pass.
/// (Each container once walked every strict ask again: this scenario held a leader's scheduler
/// for a minute.)
#[test]
fn asks_that_cannot_be_placed_are_passed_over_once_per_pass() {
    let conf = must_conf(&[("root.queues", "default"), ("root.default.capacity", "100")]);
    let mut scheduler = must_scheduler(conf, 10, 64, 64);
    must_start(&mut scheduler, 1, "default", "u", 0);
    scheduler.schedule();
    let mut asks: Vec<ResourceRequest> = (0..150_000)
        .map(|i| ResourceRequest {
            allocation_request_id: i,
            ..ResourceRequest::on_host(1, &format!("absent{i}"), gib(1), 1, false)
        })
        .collect();
    asks.push(ResourceRequest::any(2, gib(1), 500));
    scheduler.update_asks(attempt(1), &asks, &[]).unwrap();
    let placed = scheduler.schedule();
    assert_eq!(placed.len(), 500);
    assert!(placed.iter().all(|allocation| allocation.priority == 2));
    assert!(
        scheduler.schedule().is_empty(),
        "the strict asks stay unplaced"
    );
    assert_eq!(app_gib(&scheduler, 1), 501, "the AM and 500 containers");
}
