//! Containers their AM has not acquired: one that completes first gives its asks back, with
//! the locality they had; one the AM acquired, or one of an attempt since replaced, does not.

use yarn_scheduler::ResourceRequest;

use crate::mock::*;

/// Two 4 GiB nodes and the whole cluster for `default`; application 1 is running its AM.
fn running() -> yarn_scheduler::CapacityScheduler {
    let conf = must_conf(&[("root.queues", "default"), ("root.default.capacity", "100")]);
    let mut scheduler = must_scheduler(conf, 2, 4, 8);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    let placed = scheduler.schedule();
    assert!(placed.len() == 1 && placed[0].is_am);
    assert!(
        scheduler.unacquired(attempt(1)).is_empty(),
        "an AM container satisfies no ask"
    );
    scheduler
}

#[test]
fn a_container_completed_before_its_am_acquired_it_is_asked_for_again_where_it_was_wanted() {
    let mut scheduler = running();
    let host = node(1).host;
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 2));
    must_ask(
        &mut scheduler,
        1,
        ResourceRequest::on_host(1, &host, gib(1), 1, true),
    );
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 2);
    // The first took the host ask as well as the "*" one.
    let (on_host, other) = (&placed[0], &placed[1]);
    assert_eq!(on_host.node_id, node(1));
    assert_eq!(scheduler.unacquired(attempt(1)).len(), 2);

    // The AM acquires one; the other is lost with its node before the AM hears of it.
    scheduler.container_acquired(&other.container_id);
    assert!(!scheduler.recover_asks(&other.container_id), "acquired");
    assert!(scheduler.recover_asks(&on_host.container_id));
    assert!(
        !scheduler.recover_asks(&on_host.container_id),
        "given back once"
    );
    scheduler.container_completed(&on_host.container_id);
    assert!(scheduler.unacquired(attempt(1)).is_empty());

    // Wanted again, on its host first: the pass places it there.
    let again = schedule_until_idle(&mut scheduler);
    assert_eq!(
        again.len(),
        1,
        "one container, as before the loss: {again:?}"
    );
    assert_eq!(again[0].node_id, node(1));
    assert_eq!(again[0].resource, gib(1));
    assert_eq!((again[0].priority, again[0].allocation_request_id), (1, -1));
    assert_ne!(again[0].container_id, on_host.container_id);
}

#[test]
fn an_ask_the_am_cancelled_meanwhile_is_held_again_and_its_next_ask_replaces_it() {
    let mut scheduler = running();
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 1));
    let placed = scheduler.schedule();
    assert_eq!(placed.len(), 1);
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 0));
    scheduler.container_completed(&placed[0].container_id);
    assert!(scheduler.recover_asks(&placed[0].container_id));
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 0));
    assert!(
        schedule_until_idle(&mut scheduler).is_empty(),
        "the AM's later ask for none replaces what was given back"
    );
}

#[test]
fn a_container_of_an_ended_attempt_gives_nothing_back() {
    let mut scheduler = running();
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 1));
    let task = scheduler.schedule().remove(0);
    let am = scheduler
        .containers()
        .find(|a| a.is_am)
        .expect("the AM container")
        .container_id;
    scheduler.container_completed(&am);
    let next = yarn_proto::ids::ApplicationAttemptId::new(app(1), 2);
    scheduler.add_attempt(next, gib(1)).expect("next attempt");
    assert!(!scheduler.recover_asks(&task.container_id));
    assert!(scheduler.unacquired(attempt(1)).is_empty());
    let placed = schedule_until_idle(&mut scheduler);
    assert!(
        placed
            .iter()
            .all(|a| a.is_am && a.application_attempt_id == next),
        "only the new attempt's AM: {placed:?}"
    );
}
