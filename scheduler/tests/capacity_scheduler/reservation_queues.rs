//! A reservable queue runs as a plan queue: applications go to its default reservation queue or
//! to their reservation's queue, and the plan follower's sizes give each what the plan holds.

use std::collections::BTreeMap;

use yarn_scheduler::reservation::ReservationQueueSize;
use yarn_scheduler::{CapacityScheduler, SchedulerError};

use crate::mock::*;

const RESERVATION: &str = "reservation_1700000000000_0001";

/// Queue a (reservable, 50 percent of the cluster at most) and b, on four 4 GiB nodes.
fn plan_queue_a() -> CapacityScheduler {
    must_scheduler(
        must_conf(&[
            ("root.queues", "a,b"),
            ("root.a.capacity", "50"),
            ("root.b.capacity", "50"),
            ("root.a.maximum-capacity", "50"),
            ("root.a.reservable", "true"),
            ("root.a.user-limit-factor", "100"),
        ]),
        4,
        4,
        8,
    )
}

fn sized(capacity: f64, maximum_capacity: f64) -> BTreeMap<String, Vec<ReservationQueueSize>> {
    BTreeMap::from([(
        "root.a".to_string(),
        vec![ReservationQueueSize {
            name: RESERVATION.to_string(),
            capacity,
            maximum_capacity,
            active: true,
        }],
    )])
}

#[test]
fn a_reservable_queue_sends_applications_without_a_reservation_to_its_default_queue() {
    let scheduler = plan_queue_a();
    let a = scheduler
        .configuration()
        .queue("root.a")
        .expect("plan queue");
    assert_eq!(a.children, vec!["root.a.a-default".to_string()]);
    assert_eq!(
        scheduler.placement_queue(app(1), "a", "alice", None).ok(),
        Some("root.a.a-default".to_string())
    );
    assert_eq!(
        scheduler.placement_queue(app(1), "b", "alice", None).ok(),
        Some("root.b".to_string())
    );
    assert!(matches!(
        scheduler.placement_queue(app(1), "root.a", "alice", Some(RESERVATION)),
        Err(SchedulerError::ReservationNotActive { .. })
    ));
    let refused = scheduler
        .placement_queue(app(1), "b", "alice", Some(RESERVATION))
        .expect_err("b is not reservable");
    assert!(
        refused.to_string().contains("root.b is not reservable"),
        "{refused}"
    );
}

#[test]
fn an_active_reservation_runs_its_applications_at_its_share_of_the_plan() {
    let mut scheduler = plan_queue_a();
    // A gang reservation of half the plan: 4 GiB, and no more (its maximum, like Hadoop's, is
    // a share of the plan queue's maximum).
    scheduler
        .set_reservation_queues(sized(50.0, 50.0))
        .expect("sized");
    let path = format!("root.a.{RESERVATION}");
    assert_eq!(
        scheduler
            .placement_queue(app(1), "a", "alice", Some(RESERVATION))
            .ok(),
        Some(path.clone())
    );
    assert_eq!(
        scheduler
            .queue_info("root.a.a-default")
            .expect("default")
            .capacity,
        50.0
    );
    must_start(&mut scheduler, 1, &path, "alice", 10);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, &path), 4, "held to the reservation");

    // Without gangs the reservation may borrow up to the plan queue's maximum.
    scheduler
        .set_reservation_queues(sized(50.0, 100.0))
        .expect("resized");
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, &path), 8);
}

#[test]
fn an_ended_reservation_keeps_its_queue_for_its_applications_but_takes_no_new_one() {
    let mut scheduler = plan_queue_a();
    scheduler
        .set_reservation_queues(sized(50.0, 100.0))
        .expect("sized");
    let path = format!("root.a.{RESERVATION}");
    must_start(&mut scheduler, 1, &path, "alice", 0);
    // The reservation ended: its queue stays, empty-handed, while application 1 is in it.
    scheduler
        .set_reservation_queues(BTreeMap::new())
        .expect("retained");
    let kept = scheduler.queue_info(&path).expect("kept");
    assert_eq!((kept.capacity, kept.maximum_capacity), (0.0, 0.0));
    assert!(matches!(
        scheduler.placement_queue(app(2), "a", "alice", Some(RESERVATION)),
        Err(SchedulerError::ReservationNotActive { .. })
    ));
    // Moved to the plan queue, it lands in the default reservation queue; its old queue goes.
    let target = scheduler.check_move(app(1), "a").expect("movable");
    assert_eq!(target, "root.a.a-default");
    scheduler.move_application(app(1), &target).expect("moved");
    scheduler
        .set_reservation_queues(BTreeMap::new())
        .expect("gone");
    assert!(scheduler.queue_info(&path).is_err());
}

#[test]
fn a_refresh_keeps_the_reservation_queues() {
    let mut scheduler = plan_queue_a();
    scheduler
        .set_reservation_queues(sized(25.0, 100.0))
        .expect("sized");
    let refreshed = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "60"),
        ("root.b.capacity", "40"),
        ("root.a.reservable", "true"),
    ]);
    scheduler.reinitialize(refreshed).expect("refreshed");
    let reservation = scheduler
        .queue_info(&format!("root.a.{RESERVATION}"))
        .expect("kept");
    assert!((reservation.absolute_capacity - 15.0).abs() < 1e-9);
}
