//! Heartbeat-driven scheduling (`schedule-asynchronously.enable=false`): a node takes what
//! Hadoop's heartbeat would give it, `per-node-heartbeat.*` limiting how many containers and
//! how many off-switch ones, until it heartbeats again.

use yarn_scheduler::{CapacityScheduler, ResourceRequest};

use crate::mock::*;

fn heartbeat_driven(extra: &[(&str, &str)]) -> CapacityScheduler {
    let mut pairs = vec![
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("root.default.user-limit-factor", "10"),
        ("maximum-am-resource-percent", "1.0"),
        ("schedule-asynchronously.enable", "false"),
    ];
    pairs.extend_from_slice(extra);
    must_scheduler(must_conf(&pairs), 2, 16, 16)
}

fn heartbeat_all(scheduler: &mut CapacityScheduler) {
    scheduler.node_heartbeats(&[node(0), node(1)]);
}

#[test]
fn one_off_switch_container_per_node_per_heartbeat_by_default() {
    let mut scheduler = heartbeat_driven(&[]);
    must_start(&mut scheduler, 1, "default", "alice", 5);
    // The AM and one task: each node's single off-switch container for this heartbeat.
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 2);
    heartbeat_all(&mut scheduler);
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 2);
    heartbeat_all(&mut scheduler);
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 2);
    assert_eq!(app_gib(&scheduler, 1), 6);
}

#[test]
fn node_local_containers_fill_a_heartbeat_up_to_the_container_limit() {
    let mut scheduler =
        heartbeat_driven(&[("per-node-heartbeat.maximum-container-assignments", "3")]);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    schedule_until_idle(&mut scheduler);
    heartbeat_all(&mut scheduler);
    for name in ["host1", "/default-rack", ResourceRequest::ANY] {
        must_ask(
            &mut scheduler,
            1,
            ResourceRequest {
                resource_name: name.to_owned(),
                ..ResourceRequest::any(2, gib(1), 5)
            },
        );
    }
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 3, "{placed:?}");
    assert!(placed.iter().all(|c| c.node_id == node(1)));
}

#[test]
fn without_multiple_assignments_a_node_takes_one_container_per_heartbeat() {
    let mut scheduler =
        heartbeat_driven(&[("per-node-heartbeat.multiple-assignments-enabled", "false")]);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    schedule_until_idle(&mut scheduler);
    heartbeat_all(&mut scheduler);
    must_ask(
        &mut scheduler,
        1,
        ResourceRequest::on_host(2, "host1", gib(1), 4, false),
    );
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 1);
    heartbeat_all(&mut scheduler);
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 1);
}

#[test]
fn asynchronous_scheduling_places_all_that_fits_at_once() {
    let conf = must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("root.default.user-limit-factor", "10"),
        ("maximum-am-resource-percent", "1.0"),
        ("per-node-heartbeat.maximum-offswitch-assignments", "1"),
    ]);
    assert!(conf.heartbeat_assignments().is_none());
    assert!(conf.warnings().iter().any(|warning| {
        warning
            .starts_with("yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments")
            && warning.contains("schedule-asynchronously.enable=false")
    }));
    let mut scheduler = must_scheduler(conf, 2, 16, 16);
    must_start(&mut scheduler, 1, "default", "alice", 5);
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 6);
}

#[test]
fn a_promotion_takes_one_of_its_nodes_turns() {
    let mut scheduler = heartbeat_driven(&[]);
    must_start(&mut scheduler, 1, "default", "alice", 0);
    // The AM, off-switch, takes node0's turn (the most free node, first by id).
    let am = schedule_until_idle(&mut scheduler);
    assert_eq!(am.len(), 1);
    let on_am_node = yarn_scheduler::Allocation {
        container_id: yarn_proto::ids::ContainerId::new(attempt(1), 0, 100).unwrap(),
        application_attempt_id: attempt(1),
        node_id: am[0].node_id.clone(),
        resource: gib(1),
        priority: 1,
        allocation_request_id: 0,
        is_am: false,
    };
    scheduler.request_promotion(on_am_node.clone()).unwrap();
    assert!(scheduler.schedule_promotions().is_empty(), "no turn left");
    heartbeat_all(&mut scheduler);
    assert_eq!(scheduler.schedule_promotions(), vec![on_am_node]);
}
