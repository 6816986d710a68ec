//! Activities: while a recorder is held, each attempt to give an application a container says
//! which request went to which node, or why it was passed over; recording changes nothing.

use std::collections::BTreeSet;

use yarn_scheduler::{
    ActivitiesRecorder, ActivityDiagnostic, ActivityState, AppActivity, CapacityScheduler,
    Resource, ResourceRequest,
};

use crate::mock::*;

/// Runs one pass recording every application, and returns the records of application `n`.
fn recorded_pass(scheduler: &mut CapacityScheduler, n: i32) -> Vec<AppActivity> {
    scheduler.record_activities(Some(ActivitiesRecorder::new(true, BTreeSet::new())));
    scheduler.schedule();
    let recorder = scheduler.take_activities().expect("the recorder given");
    recorder
        .into_records()
        .into_iter()
        .filter(|record| record.application_id == app(n))
        .collect()
}

/// The diagnostics recorded for application `n`'s requests and for the application itself.
fn diagnostics(records: &[AppActivity]) -> Vec<ActivityDiagnostic> {
    records
        .iter()
        .flat_map(|record| {
            record
                .requests
                .iter()
                .filter_map(|request| request.diagnostic.clone())
                .chain(record.diagnostic.clone())
        })
        .collect()
}

#[test]
fn an_application_over_its_user_limit_is_rejected_with_the_figures() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.a.maximum-capacity", "100"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 8, 8);
    must_start(&mut scheduler, 1, "a", "alice", 8);
    schedule_until_idle(&mut scheduler);
    let records = recorded_pass(&mut scheduler, 1);
    let rejected = records
        .iter()
        .find(|record| record.state == ActivityState::Rejected)
        .expect("a rejection recorded");
    assert_eq!(rejected.queue, "root.a");
    match &rejected.diagnostic {
        Some(ActivityDiagnostic::UserLimit { user, used, limit }) => {
            assert_eq!(user, "alice");
            assert!(used.memory_mb > limit.memory_mb, "{used} over {limit}");
        }
        other => panic!("expected the user limit, got {other:?}"),
    }
    assert!(
        rejected
            .diagnostic
            .as_ref()
            .unwrap()
            .to_string()
            .starts_with("Queue hits user max-capacity limit"),
    );
}

#[test]
fn a_request_waiting_for_locality_shows_the_delay() {
    let conf = must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("maximum-am-resource-percent", "1.0"),
    ]);
    let mut scheduler = CapacityScheduler::new(conf);
    scheduler
        .add_node_on_rack(node(0), "/r1".to_owned(), Resource::new(2 * GIB, 8))
        .unwrap();
    scheduler
        .add_node_on_rack(node(1), "/r2".to_owned(), Resource::new(8 * GIB, 8))
        .unwrap();
    must_start(&mut scheduler, 1, "default", "alice", 0);
    schedule_until_idle(&mut scheduler);
    // host0 cannot hold 4 GiB and is alone on /r1: only the off-switch step could place it.
    for name in ["host0", "/r1", ResourceRequest::ANY] {
        must_ask(
            &mut scheduler,
            1,
            ResourceRequest {
                resource_name: name.to_owned(),
                ..ResourceRequest::any(2, gib(4), 1)
            },
        );
    }
    let records = recorded_pass(&mut scheduler, 1);
    assert_eq!(
        diagnostics(&records),
        vec![ActivityDiagnostic::LocalityDelay { off_switch: true }]
    );
    let request = &records[0].requests[0];
    assert_eq!(
        (request.priority, request.state),
        (2, ActivityState::Skipped)
    );
}

#[test]
fn queue_maximum_am_limit_and_no_room_are_named_and_an_allocation_names_its_node() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.a.maximum-capacity", "50"),
        ("root.a.user-limit-factor", "4"),
        ("root.b.capacity", "50"),
        ("root.b.maximum-am-resource-percent", "0.1"),
    ]);
    let mut scheduler = must_scheduler(conf, 2, 8, 8);
    // Application 1 fills root.a up to its maximum (8 of 16 GiB), then asks for more.
    must_start(&mut scheduler, 1, "a", "alice", 7);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "a"), 8);
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 8));
    // Application 2 runs in root.b; application 3's AM waits for b's AM limit.
    must_start(&mut scheduler, 2, "b", "bob", 0);
    schedule_until_idle(&mut scheduler);
    must_start(&mut scheduler, 3, "b", "carol", 0);
    // Application 2 asks for a container larger than any node has free.
    must_ask(&mut scheduler, 2, ResourceRequest::any(3, gib(6), 1));

    let mut recorded = BTreeSet::new();
    recorded.insert(app(1));
    recorded.insert(app(2));
    recorded.insert(app(3));
    let mut unrecorded = scheduler.clone();
    scheduler.record_activities(Some(ActivitiesRecorder::new(false, recorded.clone())));
    let placed = scheduler.schedule();
    let records = scheduler.take_activities().unwrap().into_records();
    assert!(
        records
            .iter()
            .all(|record| recorded.contains(&record.application_id)),
        "only the applications named are recorded"
    );
    assert_eq!(
        placed,
        unrecorded.schedule(),
        "recording changes no decision"
    );
    let of = |n| -> Vec<AppActivity> {
        records
            .iter()
            .filter(|record| record.application_id == app(n))
            .cloned()
            .collect()
    };
    assert!(
        diagnostics(&of(1)).contains(&ActivityDiagnostic::QueueMaxCapacity {
            queue: "root.a".to_owned(),
            resource: gib(1),
        }),
        "{:?}",
        of(1)
    );
    assert!(
        diagnostics(&of(2)).iter().any(
            |d| matches!(d, ActivityDiagnostic::NoNodeWithRoom { resource } if *resource == gib(6))
        ),
        "{:?}",
        of(2)
    );
    let held = diagnostics(&of(3));
    assert!(
        held.iter().any(
            |d| d.to_string().starts_with("Application is not activated: ")
                && d.to_string().contains("root.b")
        ),
        "{held:?}"
    );

    // Recorded, an allocation names its node and container.
    let mut fresh = CapacityScheduler::new(must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
    ]));
    fresh.add_node(node(0), Resource::new(8 * GIB, 8)).unwrap();
    must_start(&mut fresh, 1, "default", "alice", 0);
    let records = recorded_pass(&mut fresh, 1);
    let allocated = &records[0];
    assert_eq!(allocated.state, ActivityState::Allocated);
    let am = &allocated.requests[0];
    assert_eq!((am.priority, am.allocation_request_id), (0, -1));
    assert_eq!(am.node, Some(node(0)));
    assert!(am.container.is_some());
}
