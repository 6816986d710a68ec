//! A new leader rebuilds the scheduler from replicated applications and containers.

use yarn_proto::ids::ContainerId;
use yarn_scheduler::{CapacityScheduler, ResourceRequest, SchedulerError};

use crate::mock::*;

fn conf() -> yarn_scheduler::CapacitySchedulerConfiguration {
    must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
    ])
}

#[test]
fn recovered_usage_matches_and_container_ids_never_repeat() {
    let mut leader = must_scheduler(conf(), 2, 8, 8);
    leader.set_epoch(3).unwrap();
    must_start(&mut leader, 1, "a", "alice", 3);
    must_start(&mut leader, 2, "b", "bob", 0);
    let placed = schedule_until_idle(&mut leader);
    assert_eq!(placed.len(), 5);
    assert!(placed.iter().all(|a| a.container_id.epoch() == 3));
    assert_eq!(
        placed[0].container_id.sequence(),
        1,
        "the AM is container 1"
    );

    let mut follower = must_scheduler(conf(), 2, 8, 8);
    follower.set_epoch(4).unwrap();
    for n in [1, 2] {
        let status = leader.application_status(app(n)).unwrap();
        follower
            .recover_application(app(n), &status.queue, &status.user, status.priority)
            .unwrap();
        follower.add_attempt(attempt(n), gib(1)).unwrap();
    }
    for allocation in leader.containers().cloned().collect::<Vec<_>>() {
        follower.recover_container(allocation).unwrap();
    }
    assert_eq!(follower.cluster_used(), leader.cluster_used());
    assert_eq!(
        follower.queue_info("a").unwrap(),
        leader.queue_info("a").unwrap()
    );
    assert!(follower.application_status(app(1)).unwrap().active);
    assert!(
        follower.schedule().is_empty(),
        "recovered AMs are not asked for again"
    );

    must_ask(&mut follower, 1, ResourceRequest::any(1, gib(1), 1));
    let next = follower.schedule();
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].container_id.epoch(), 4);
    assert_eq!(
        next[0].container_id.sequence(),
        5,
        "continues after the recovered ones"
    );

    let duplicate = leader.containers().next().cloned().unwrap();
    assert!(matches!(
        follower.recover_container(duplicate),
        Err(SchedulerError::DuplicateContainer { .. })
    ));
}

#[test]
fn removing_a_node_releases_its_containers_and_ends_am_attempts() {
    let mut scheduler = must_scheduler(conf(), 1, 8, 8);
    must_start(&mut scheduler, 1, "a", "alice", 2);
    let placed = scheduler.schedule();
    assert_eq!(placed.len(), 3);
    let released = scheduler.remove_node(&node(0)).unwrap();
    assert_eq!(released.len(), 3);
    assert_eq!(scheduler.cluster_used(), Default::default());
    assert_eq!(queue_gib(&scheduler, "a"), 0);
    let status = scheduler.application_status(app(1)).unwrap();
    assert!(!status.active && status.attempt.is_none(), "{status:?}");
    assert!(matches!(
        scheduler.remove_node(&node(0)),
        Err(SchedulerError::UnknownNode { .. })
    ));
    assert!(
        scheduler
            .container_completed(&placed[1].container_id)
            .is_none()
    );
}

#[test]
fn invalid_epochs_and_foreign_releases_are_refused() {
    let mut scheduler: CapacityScheduler = must_scheduler(conf(), 1, 8, 8);
    assert!(scheduler.set_epoch(ContainerId::MAX_EPOCH + 1).is_err());
    must_start(&mut scheduler, 1, "a", "alice", 0);
    must_start(&mut scheduler, 2, "b", "bob", 0);
    let placed = scheduler.schedule();
    let of_two = placed
        .iter()
        .find(|a| a.application_attempt_id == attempt(2))
        .unwrap();
    let err = scheduler
        .update_asks(attempt(1), &[], &[of_two.container_id])
        .unwrap_err();
    assert!(matches!(err, SchedulerError::ContainerNotOwned { .. }));
    assert!(scheduler.container(&of_two.container_id).is_some());
}

#[test]
fn an_attempt_without_am_is_active_at_once_and_charges_no_am_limit() {
    let mut scheduler = must_scheduler(conf(), 1, 8, 8);
    scheduler
        .submit_application(app(1), "a", "alice", &[], None)
        .unwrap();
    scheduler.add_attempt_without_am(attempt(1)).unwrap();
    let status = scheduler.application_status(app(1)).unwrap();
    assert!(status.active, "{status:?}");
    assert!(
        scheduler.schedule().is_empty(),
        "no AM container is asked for"
    );
    assert_eq!(
        scheduler.queue_info("a").unwrap().am_resource_used,
        yarn_scheduler::Resource::default()
    );
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 2));
    let placed = scheduler.schedule();
    assert_eq!(placed.len(), 2);
    assert!(placed.iter().all(|allocation| !allocation.is_am));
}
