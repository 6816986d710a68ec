//! Delay scheduling: an ask naming a host waits `node-locality-delay` opportunities (heartbeats
//! from nodes with room) for it before taking its rack, and the off-switch delay before taking
//! any node, as Hadoop's `RegularContainerAllocator` decides.

use yarn_proto::ids::NodeId;
use yarn_scheduler::{Allocation, CapacityScheduler, Resource, ResourceRequest};

use crate::mock::*;

/// Two racks: `host0` and `host1` on `/r1` with 4 GiB, `host2` and `host3` on `/r2` with 8 GiB
/// (so a search for the most free memory prefers `/r2`). Application 1 runs its AM; application
/// 2 fills `host0` with four 1 GiB containers.
fn two_racks(extra: &[(&str, &str)]) -> (CapacityScheduler, Vec<Allocation>) {
    let mut pairs = vec![
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("maximum-am-resource-percent", "1.0"),
    ];
    pairs.extend_from_slice(extra);
    let mut scheduler = CapacityScheduler::new(must_conf(&pairs));
    for (i, rack, memory) in [(0, "/r1", 4), (1, "/r1", 4), (2, "/r2", 8), (3, "/r2", 8)] {
        scheduler
            .add_node_on_rack(node(i), rack.to_owned(), Resource::new(memory * GIB, 8))
            .unwrap();
    }
    must_start(&mut scheduler, 1, "default", "alice", 0);
    must_start(&mut scheduler, 2, "default", "bob", 0);
    schedule_until_idle(&mut scheduler);
    must_ask(
        &mut scheduler,
        2,
        ResourceRequest::on_host(1, "host0", gib(1), 8, false),
    );
    let filler: Vec<Allocation> = schedule_until_idle(&mut scheduler)
        .into_iter()
        .filter(|c| c.node_id == node(0))
        .collect();
    let host0_free = scheduler
        .nodes()
        .find(|n| n.node_id() == &node(0))
        .map(|n| n.free().memory_mb);
    assert_eq!(host0_free, Some(0), "host0 is full");
    (scheduler, filler)
}

/// The asks Hadoop's AMRMClient sends for `count` containers on `host` in `rack`.
fn ask_like_amrm_client(scheduler: &mut CapacityScheduler, host: &str, rack: &str, count: u32) {
    for name in [host, rack, ResourceRequest::ANY] {
        must_ask(
            scheduler,
            1,
            ResourceRequest {
                resource_name: name.to_owned(),
                ..ResourceRequest::any(2, gib(1), count)
            },
        );
    }
}

fn heartbeat(scheduler: &mut CapacityScheduler, nodes: &[usize]) {
    let ids: Vec<NodeId> = nodes.iter().map(|i| node(*i)).collect();
    scheduler.node_heartbeats(&ids);
}

#[test]
fn a_node_that_frees_within_the_delay_gets_its_node_local_container() {
    let (mut scheduler, filler) = two_racks(&[]);
    // Ten containers make the off-switch wait the whole cluster: min(4, 10 * 2/4).
    ask_like_amrm_client(&mut scheduler, "host0", "/r1", 10);
    assert!(schedule_until_idle(&mut scheduler).is_empty());
    // Three heartbeats and the pass's own offer: four missed, not past the delay on four nodes.
    heartbeat(&mut scheduler, &[1, 2, 3]);
    assert!(schedule_until_idle(&mut scheduler).is_empty());
    scheduler
        .container_completed(&filler[0].container_id)
        .unwrap();
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 1);
    assert_eq!(placed[0].node_id, node(0), "node-local once host0 has room");
}

#[test]
fn past_the_node_locality_delay_the_named_rack_is_taken_before_any_node() {
    let (mut scheduler, _) = two_racks(&[]);
    ask_like_amrm_client(&mut scheduler, "host0", "/r1", 10);
    assert!(schedule_until_idle(&mut scheduler).is_empty());
    // A full node offers nothing, however often it heartbeats.
    for _ in 0..10 {
        heartbeat(&mut scheduler, &[0]);
    }
    assert!(schedule_until_idle(&mut scheduler).is_empty());
    // Four missed are the delay capped at four nodes; the fifth is past it.
    heartbeat(&mut scheduler, &[1, 2, 3]);
    assert!(schedule_until_idle(&mut scheduler).is_empty());
    heartbeat(&mut scheduler, &[1]);
    let placed = schedule_until_idle(&mut scheduler);
    // One: the rack-local container starts the wait again.
    assert_eq!(placed.len(), 1);
    assert_eq!(
        placed[0].node_id,
        node(1),
        "rack-local on /r1, not the emptier /r2"
    );
}

#[test]
fn past_the_additional_delay_any_node_is_taken() {
    let (mut scheduler, _) = two_racks(&[
        ("node-locality-delay", "1"),
        ("rack-locality-additional-delay", "2"),
    ]);
    // host1, the rest of /r1, is blacklisted, so the rack has no room for application 1.
    scheduler
        .update_blacklist(attempt(1), &["host1".to_owned()], &[])
        .unwrap();
    ask_like_amrm_client(&mut scheduler, "host0", "/r1", 2);
    assert!(schedule_until_idle(&mut scheduler).is_empty());
    heartbeat(&mut scheduler, &[1, 2]);
    assert!(
        schedule_until_idle(&mut scheduler).is_empty(),
        "three missed: not more than 1 + 2"
    );
    heartbeat(&mut scheduler, &[3]);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(
        placed.len(),
        2,
        "an off-switch container does not reset the wait"
    );
    assert!(
        placed
            .iter()
            .all(|c| c.node_id == node(2) || c.node_id == node(3))
    );
}

#[test]
fn without_the_additional_delay_the_wait_grows_with_the_asks() {
    let (mut scheduler, _) = two_racks(&[("node-locality-delay", "-1")]);
    scheduler
        .update_blacklist(attempt(1), &["host1".to_owned()], &[])
        .unwrap();
    // host0, /r1 and `*` for 3 containers on 4 nodes: 3 * 2/4 = 1.5 opportunities.
    ask_like_amrm_client(&mut scheduler, "host0", "/r1", 3);
    assert!(
        schedule_until_idle(&mut scheduler).is_empty(),
        "the first offer is one missed"
    );
    heartbeat(&mut scheduler, &[2]);
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 3);
}

#[test]
fn a_single_container_goes_off_switch_sooner_than_rack_local_as_in_hadoop() {
    let (mut scheduler, _) = two_racks(&[]);
    // One container: the off-switch wait is 1 * 2/4 of an opportunity, below the rack's 4, and
    // the first offer is already one missed.
    ask_like_amrm_client(&mut scheduler, "host0", "/r1", 1);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 1);
    assert_ne!(placed[0].node_id, node(0));
}

#[test]
fn an_ask_for_anywhere_alone_never_waits() {
    let (mut scheduler, _) = two_racks(&[]);
    must_ask(&mut scheduler, 1, ResourceRequest::any(2, gib(1), 2));
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 2);
}

#[test]
fn a_rack_ask_that_does_not_relax_keeps_containers_off_it_and_a_whitelisted_rack_holds_them() {
    let (mut scheduler, _) = two_racks(&[("node-locality-delay", "0")]);
    // Hadoop's strict node ask: host0 relaxes nowhere; its rack and `*` do not relax.
    for (name, relax) in [
        ("host0", true),
        ("/r1", false),
        (ResourceRequest::ANY, false),
    ] {
        must_ask(
            &mut scheduler,
            1,
            ResourceRequest {
                resource_name: name.to_owned(),
                relax_locality: relax,
                ..ResourceRequest::any(2, gib(1), 1)
            },
        );
    }
    assert!(schedule_over_heartbeats(&mut scheduler, 5).is_empty());
    // A whitelisted rack: /r2 relaxes to any of its nodes, `*` does not.
    for (name, count, relax) in [
        ("/r1", 0, false),
        ("host0", 0, true),
        ("/r2", 2, true),
        (ResourceRequest::ANY, 2, false),
    ] {
        must_ask(
            &mut scheduler,
            1,
            ResourceRequest {
                resource_name: name.to_owned(),
                num_containers: count,
                relax_locality: relax,
                ..ResourceRequest::any(2, gib(1), 1)
            },
        );
    }
    // A round to start waiting, then one rack-local container per round: each resets the wait.
    let placed = schedule_over_heartbeats(&mut scheduler, 3);
    assert_eq!(placed.len(), 2);
    assert!(
        placed
            .iter()
            .all(|c| c.node_id == node(2) || c.node_id == node(3))
    );
}

#[test]
fn a_node_local_container_resets_the_wait_and_a_rack_local_one_only_with_full_reset() {
    for (full_reset, waits_again) in [("true", true), ("false", false)] {
        let (mut scheduler, _) = two_racks(&[
            ("node-locality-delay", "2"),
            ("rack-locality-full-reset", full_reset),
        ]);
        // Ten containers keep the off-switch wait at the cluster's four nodes.
        ask_like_amrm_client(&mut scheduler, "host0", "/r1", 10);
        assert!(schedule_until_idle(&mut scheduler).is_empty());
        // Four missed: past the rack delay of 2, not past the off-switch one.
        heartbeat(&mut scheduler, &[1, 2, 3]);
        let placed = schedule_until_idle(&mut scheduler);
        let on_host1 = placed.iter().filter(|c| c.node_id == node(1)).count();
        if waits_again {
            assert_eq!(placed.len(), 1, "one rack-local container, then a new wait");
            assert_eq!(on_host1, 1);
        } else {
            // Without the reset, rack-local containers fill host1's 4 GB (and the six still
            // wanted shorten the off-switch wait to 3, so the rest go anywhere).
            assert_eq!(on_host1, 4, "{placed:?}");
        }
    }
}
