//! Scenario tests for [`ContainerScheduler`]: YARN's queuing cases, fed as events and checked
//! against the actions the scheduler emits.

use yarn_opportunistic::ContainerQueuingLimit;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

use super::*;
use crate::Error;

const GB: u64 = 1024;
const KILLED_BY_APPMASTER: i32 = -105;

fn must_id(sequence: i64) -> ContainerId {
    let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
    ContainerId::new(attempt, 0, sequence).expect("valid test container id")
}

/// A node with `memory_gb` GB and as many vcores, so tests can reason in GB alone.
fn node(memory_gb: u64, max_queue_length: u32) -> ContainerScheduler {
    ContainerScheduler::new(
        Resources::new(memory_gb * GB, memory_gb as u32),
        max_queue_length,
    )
}

fn request(sequence: i64, execution_type: ExecutionType, memory_gb: u64) -> ContainerRequest {
    ContainerRequest::new(
        must_id(sequence),
        execution_type,
        Resources::new(memory_gb * GB, 1),
    )
}

fn guaranteed(sequence: i64, memory_gb: u64) -> ContainerRequest {
    request(sequence, ExecutionType::Guaranteed, memory_gb)
}

fn opportunistic(sequence: i64, memory_gb: u64) -> ContainerRequest {
    request(sequence, ExecutionType::Opportunistic, memory_gb)
}

/// An execution-type update that keeps the container's size (any size for one the node does
/// not hold).
fn retype(
    node: &mut ContainerScheduler,
    id: ContainerId,
    execution_type: ExecutionType,
    version: i32,
) -> Result<Vec<SchedulerAction>, Error> {
    let size = node
        .container(&id)
        .map_or(Resources::new(GB, 1), |container| container.resources);
    node.update(id, execution_type, size, version)
}

fn must_schedule(
    scheduler: &mut ContainerScheduler,
    request: ContainerRequest,
) -> Vec<SchedulerAction> {
    scheduler.schedule(request).expect("schedule")
}

fn must_complete(scheduler: &mut ContainerScheduler, sequence: i64) -> Vec<SchedulerAction> {
    scheduler
        .container_completed(must_id(sequence))
        .expect("container_completed")
}

fn start(sequence: i64) -> SchedulerAction {
    SchedulerAction::Start {
        id: must_id(sequence),
    }
}

fn queue(sequence: i64) -> SchedulerAction {
    SchedulerAction::Queue {
        id: must_id(sequence),
    }
}

fn reject(sequence: i64) -> SchedulerAction {
    SchedulerAction::Reject {
        id: must_id(sequence),
        exit_status: -108,
        diagnostic: "Opportunistic container queue is full.".to_owned(),
    }
}

fn kill_for_guaranteed(sequence: i64) -> SchedulerAction {
    SchedulerAction::Kill {
        id: must_id(sequence),
        exit_status: -108,
        diagnostic: "Container Killed to make room for Guaranteed Container.".to_owned(),
    }
}

fn shed(sequence: i64) -> SchedulerAction {
    SchedulerAction::Shed {
        id: must_id(sequence),
        exit_status: -108,
        diagnostic: "Container De-queued to meet NM queuing limits.".to_owned(),
    }
}

fn queued_ids(scheduler: &ContainerScheduler) -> Vec<ContainerId> {
    scheduler.queued().map(|request| request.id).collect()
}

fn length_limit(max_queue_length: i32) -> ContainerQueuingLimit {
    ContainerQueuingLimit {
        max_queue_length,
        max_queue_wait_time_ms: -1,
    }
}

#[test]
fn containers_start_at_once_on_free_resources() {
    let mut node = node(8, 2);
    assert_eq!(must_schedule(&mut node, guaranteed(1, 2)), [start(1)]);
    assert_eq!(must_schedule(&mut node, opportunistic(2, 2)), [start(2)]);
    assert_eq!(node.state(&must_id(2)), Some(SchedulingState::Running));
    assert_eq!(node.allocated(), Resources::new(4 * GB, 2));
}

#[test]
fn queue_full_rejects_once_the_queue_holds_max_length() {
    let mut node = node(4, 2);
    assert_eq!(must_schedule(&mut node, opportunistic(1, 4)), [start(1)]);
    assert_eq!(must_schedule(&mut node, opportunistic(2, 1)), [queue(2)]);
    assert_eq!(must_schedule(&mut node, opportunistic(3, 1)), [queue(3)]);
    assert_eq!(must_schedule(&mut node, opportunistic(4, 1)), [reject(4)]);
    assert_eq!(node.state(&must_id(4)), None);
    assert_eq!(queued_ids(&node), [must_id(2), must_id(3)]);
}

#[test]
fn max_queue_length_zero_rejects_opportunistic_and_force_starts_guaranteed() {
    let mut node = node(4, 0);
    assert_eq!(must_schedule(&mut node, opportunistic(1, 1)), [reject(1)]);
    assert_eq!(must_schedule(&mut node, guaranteed(2, 4)), [start(2)]);
    // As in YARN, guaranteed containers start without looking at resources when opportunistic
    // ones are not allowed: the RM is trusted not to overcommit the node.
    assert_eq!(must_schedule(&mut node, guaranteed(3, 4)), [start(3)]);
    assert_eq!(node.allocated().memory_mb, 8 * GB);
}

#[test]
fn guaranteed_kills_one_opportunistic_container_and_starts_when_it_exits() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 2));
    must_schedule(&mut node, opportunistic(2, 2));

    assert_eq!(
        must_schedule(&mut node, guaranteed(3, 2)),
        [queue(3), kill_for_guaranteed(2)]
    );
    assert_eq!(node.state(&must_id(2)), Some(SchedulingState::Killing));
    assert_eq!(node.state(&must_id(1)), Some(SchedulingState::Running));
    assert_eq!(must_complete(&mut node, 2), [start(3)]);
}

#[test]
fn guaranteed_kills_several_opportunistic_containers_most_recently_started_first() {
    let mut node = node(4, 5);
    for sequence in 1..=4 {
        must_schedule(&mut node, opportunistic(sequence, 1));
    }

    assert_eq!(
        must_schedule(&mut node, guaranteed(5, 3)),
        [
            queue(5),
            kill_for_guaranteed(4),
            kill_for_guaranteed(3),
            kill_for_guaranteed(2)
        ]
    );
    assert_eq!(must_complete(&mut node, 4), []);
    assert_eq!(must_complete(&mut node, 3), []);
    assert_eq!(must_complete(&mut node, 2), [start(5)]);
    assert_eq!(node.state(&must_id(1)), Some(SchedulingState::Running));
}

#[test]
fn guaranteed_kills_only_the_required_opportunistic_containers() {
    let mut node = node(8, 5);
    must_schedule(&mut node, guaranteed(1, 2));
    must_schedule(&mut node, opportunistic(2, 2));
    must_schedule(&mut node, opportunistic(3, 2));
    must_schedule(&mut node, guaranteed(4, 1));

    // 1 GB is free and 2 GB are needed: the newest opportunistic container goes, the newer
    // guaranteed one is never a candidate.
    assert_eq!(
        must_schedule(&mut node, guaranteed(5, 2)),
        [queue(5), kill_for_guaranteed(3)]
    );
    // The next guaranteed container counts the kill under way and asks only for the rest.
    assert_eq!(
        must_schedule(&mut node, guaranteed(6, 2)),
        [queue(6), kill_for_guaranteed(2)]
    );
    assert_eq!(must_complete(&mut node, 3), [start(5)]);
    assert_eq!(must_complete(&mut node, 2), [start(6)]);
    assert_eq!(node.allocated().memory_mb, 7 * GB);
}

#[test]
fn vcores_alone_can_require_a_kill() {
    let mut node = ContainerScheduler::new(Resources::new(8 * GB, 2), 5);
    must_schedule(&mut node, opportunistic(1, 1));
    must_schedule(&mut node, opportunistic(2, 1));
    assert_eq!(
        must_schedule(&mut node, guaranteed(3, 1)),
        [queue(3), kill_for_guaranteed(2)]
    );
}

#[test]
fn guaranteed_waits_for_guaranteed_room_when_killing_every_opportunistic_one_is_not_enough() {
    let mut node = node(4, 5);
    must_schedule(&mut node, guaranteed(1, 3));
    must_schedule(&mut node, opportunistic(2, 1));

    assert_eq!(
        must_schedule(&mut node, guaranteed(3, 2)),
        [queue(3), kill_for_guaranteed(2)]
    );
    assert_eq!(must_complete(&mut node, 2), []);
    assert_eq!(node.state(&must_id(3)), Some(SchedulingState::Queued));
    assert_eq!(must_complete(&mut node, 1), [start(3)]);
}

#[test]
fn queued_containers_start_in_fifo_order_as_resources_free() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 4));
    for (sequence, memory_gb) in [(2, 3), (3, 1), (4, 1)] {
        assert_eq!(
            must_schedule(&mut node, opportunistic(sequence, memory_gb)),
            [queue(sequence)]
        );
    }

    assert_eq!(must_complete(&mut node, 1), [start(2), start(3)]);
    assert_eq!(must_complete(&mut node, 3), [start(4)]);
    assert_eq!(queued_ids(&node), []);
}

#[test]
fn a_small_opportunistic_container_waits_behind_the_queue_head() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 3));
    assert_eq!(must_schedule(&mut node, opportunistic(2, 2)), [queue(2)]);
    // 1 GB is free, but FIFO order means it does not overtake the head.
    assert_eq!(must_schedule(&mut node, opportunistic(3, 1)), [queue(3)]);
}

#[test]
fn opportunistic_containers_wait_while_a_guaranteed_one_waits_for_room() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 2));
    must_schedule(&mut node, opportunistic(2, 2));
    assert_eq!(
        must_schedule(&mut node, guaranteed(3, 3)),
        [queue(3), kill_for_guaranteed(2), kill_for_guaranteed(1)]
    );

    assert_eq!(must_complete(&mut node, 2), []);
    // 2 GB are free and it needs 1 GB, but the guaranteed container comes first.
    assert_eq!(must_schedule(&mut node, opportunistic(4, 1)), [queue(4)]);
    assert_eq!(must_complete(&mut node, 1), [start(3), start(4)]);
}

#[test]
fn queuing_limit_sheds_the_tail_of_the_queue() {
    let mut node = node(1, 10);
    must_schedule(&mut node, opportunistic(1, 1));
    for sequence in 2..=5 {
        must_schedule(&mut node, opportunistic(sequence, 1));
    }

    assert_eq!(node.set_queuing_limit(length_limit(5)), []);
    assert_eq!(node.set_queuing_limit(length_limit(-1)), []);
    assert_eq!(
        node.set_queuing_limit(ContainerQueuingLimit {
            max_queue_length: -1,
            max_queue_wait_time_ms: 10,
        }),
        []
    );
    assert_eq!(node.set_queuing_limit(length_limit(2)), [shed(4), shed(5)]);
    assert_eq!(queued_ids(&node), [must_id(2), must_id(3)]);
    assert_eq!(node.state(&must_id(5)), None);
    // The limit sheds only what is queued now; the configured maximum still admits arrivals.
    assert_eq!(must_schedule(&mut node, opportunistic(6, 1)), [queue(6)]);
}

#[test]
fn stopping_a_queued_container_removes_it_and_it_never_starts() {
    let mut node = node(1, 5);
    must_schedule(&mut node, opportunistic(1, 1));
    must_schedule(&mut node, opportunistic(2, 1));
    must_schedule(&mut node, opportunistic(3, 1));

    assert_eq!(
        node.stop(must_id(2), KILLED_BY_APPMASTER, "stopped by the AM"),
        Ok(vec![SchedulerAction::RemoveFromQueue {
            id: must_id(2),
            exit_status: KILLED_BY_APPMASTER,
            diagnostic: "stopped by the AM".to_owned(),
        }])
    );
    assert_eq!(node.state(&must_id(2)), None);
    assert_eq!(must_complete(&mut node, 1), [start(3)]);
}

#[test]
fn stopping_a_queued_guaranteed_container_lets_opportunistic_ones_start() {
    let mut node = node(4, 5);
    must_schedule(&mut node, guaranteed(1, 3));
    assert_eq!(must_schedule(&mut node, guaranteed(2, 2)), [queue(2)]);
    assert_eq!(must_schedule(&mut node, opportunistic(3, 1)), [queue(3)]);

    let actions = node
        .stop(must_id(2), KILLED_BY_APPMASTER, "stopped")
        .expect("stop");
    assert_eq!(
        actions.iter().map(SchedulerAction::id).collect::<Vec<_>>(),
        [must_id(2), must_id(3)]
    );
    assert_eq!(actions[1], start(3));
}

#[test]
fn stopping_a_running_container_kills_it_once_and_its_room_counts_as_freed() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 2));
    must_schedule(&mut node, opportunistic(2, 2));

    let kill = SchedulerAction::Kill {
        id: must_id(2),
        exit_status: KILLED_BY_APPMASTER,
        diagnostic: "stopped".to_owned(),
    };
    assert_eq!(
        node.stop(must_id(2), KILLED_BY_APPMASTER, "stopped"),
        Ok(vec![kill])
    );
    assert_eq!(
        node.stop(must_id(2), KILLED_BY_APPMASTER, "stopped"),
        Ok(vec![])
    );
    assert_eq!(node.allocated().memory_mb, 4 * GB);

    // Container 2 is on its way out, so container 1 survives.
    assert_eq!(must_schedule(&mut node, guaranteed(3, 2)), [queue(3)]);
    assert_eq!(must_complete(&mut node, 2), [start(3)]);
    assert_eq!(node.state(&must_id(1)), Some(SchedulingState::Running));
}

#[test]
fn promoting_a_queued_container_handles_it_as_guaranteed() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 2));
    must_schedule(&mut node, opportunistic(2, 2));
    must_schedule(&mut node, opportunistic(3, 2));
    must_schedule(&mut node, opportunistic(4, 1));

    assert_eq!(
        retype(&mut node, must_id(3), ExecutionType::Guaranteed, 1),
        Ok(vec![kill_for_guaranteed(2)])
    );
    let promoted = node.container(&must_id(3)).expect("still queued");
    assert_eq!(
        (promoted.execution_type, promoted.version),
        (ExecutionType::Guaranteed, 1)
    );
    assert_eq!(must_complete(&mut node, 2), [start(3)]);
    assert_eq!(queued_ids(&node), [must_id(4)]);
}

#[test]
fn promoting_a_running_container_protects_it_from_kills() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 2));
    must_schedule(&mut node, opportunistic(2, 2));

    assert_eq!(
        retype(&mut node, must_id(2), ExecutionType::Guaranteed, 1),
        Ok(vec![])
    );
    assert_eq!(
        must_schedule(&mut node, guaranteed(3, 2)),
        [queue(3), kill_for_guaranteed(1)]
    );
    assert_eq!(
        node.opportunistic_status().running_opportunistic_containers,
        1
    );
}

#[test]
fn demoting_a_running_container_makes_it_killable() {
    let mut node = node(4, 5);
    must_schedule(&mut node, guaranteed(1, 2));
    assert_eq!(
        retype(&mut node, must_id(1), ExecutionType::Opportunistic, 1),
        Ok(vec![])
    );
    assert_eq!(node.state(&must_id(1)), Some(SchedulingState::Running));
    assert_eq!(
        must_schedule(&mut node, guaranteed(2, 4)),
        [queue(2), kill_for_guaranteed(1)]
    );
}

#[test]
fn demoting_a_queued_guaranteed_container_moves_it_to_the_opportunistic_tail() {
    let mut node = node(2, 5);
    must_schedule(&mut node, guaranteed(1, 2));
    assert_eq!(must_schedule(&mut node, guaranteed(2, 2)), [queue(2)]);
    assert_eq!(must_schedule(&mut node, opportunistic(3, 1)), [queue(3)]);

    assert_eq!(
        retype(&mut node, must_id(2), ExecutionType::Opportunistic, 1),
        Ok(vec![])
    );
    assert_eq!(queued_ids(&node), [must_id(3), must_id(2)]);
    assert_eq!(must_complete(&mut node, 1), [start(3)]);
}

#[test]
fn stale_update_versions_are_refused_and_change_nothing() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 1));
    let id = must_id(1);

    assert_eq!(
        retype(&mut node, id, ExecutionType::Guaranteed, 0),
        Err(Error::StaleContainerVersion {
            id,
            current: 0,
            offered: 0
        })
    );
    assert_eq!(
        retype(&mut node, id, ExecutionType::Guaranteed, 2),
        Ok(vec![])
    );
    for stale in [2, 1] {
        assert_eq!(
            retype(&mut node, id, ExecutionType::Opportunistic, stale),
            Err(Error::StaleContainerVersion {
                id,
                current: 2,
                offered: stale
            })
        );
    }
    assert_eq!(
        node.container(&id).map(|c| c.execution_type),
        Some(ExecutionType::Guaranteed)
    );
    let message = retype(&mut node, id, ExecutionType::Opportunistic, 1)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains(&id.to_string()) && message.contains("version 1"),
        "{message}"
    );
}

#[test]
fn updates_of_unknown_or_dying_containers_are_refused() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 4));
    must_schedule(&mut node, guaranteed(2, 1));

    assert_eq!(
        retype(&mut node, must_id(1), ExecutionType::Guaranteed, 1),
        Err(Error::ContainerBeingKilled { id: must_id(1) })
    );
    assert_eq!(
        retype(&mut node, must_id(9), ExecutionType::Guaranteed, 1),
        Err(Error::UnknownContainer { id: must_id(9) })
    );
}

#[test]
fn opportunistic_status_counts_running_and_queued_containers() {
    let mut node = node(4, 3);
    must_schedule(&mut node, opportunistic(1, 1));
    must_schedule(&mut node, opportunistic(2, 2));
    must_schedule(&mut node, guaranteed(3, 4));
    must_schedule(&mut node, opportunistic(4, 1));

    assert_eq!(
        node.opportunistic_status(),
        OpportunisticContainersStatus {
            running_opportunistic_containers: 2,
            opportunistic_memory_used_mb: 3 * GB,
            opportunistic_vcores_used: 2,
            queued_opportunistic_containers: 1,
            wait_queue_length: 2,
            queue_capacity: 3,
        }
    );
}

#[test]
fn bad_events_are_errors_that_change_nothing() {
    let mut node = node(4, 5);
    must_schedule(&mut node, opportunistic(1, 4));
    must_schedule(&mut node, opportunistic(2, 1));

    for duplicate in [guaranteed(1, 1), opportunistic(2, 1)] {
        assert_eq!(
            node.schedule(duplicate),
            Err(Error::DuplicateContainer { id: duplicate.id })
        );
    }
    assert_eq!(
        node.schedule(guaranteed(3, 5)),
        Err(Error::ExceedsNodeCapacity {
            id: must_id(3),
            requested: Resources::new(5 * GB, 1),
            capacity: Resources::new(4 * GB, 4),
        })
    );
    assert_eq!(
        node.container_completed(must_id(3)),
        Err(Error::UnknownContainer { id: must_id(3) })
    );
    assert_eq!(
        node.stop(must_id(3), KILLED_BY_APPMASTER, "stopped"),
        Err(Error::UnknownContainer { id: must_id(3) })
    );
    assert_eq!(queued_ids(&node), [must_id(2)]);
    assert_eq!(node.allocated().memory_mb, 4 * GB);
}

#[test]
fn recovery_restores_start_order_and_queue_then_starts_what_fits() {
    let mut node = node(4, 5);
    node.recover_running(opportunistic(1, 2))
        .expect("recover 1");
    node.recover_running(opportunistic(2, 1))
        .expect("recover 2");
    node.recover_queued(opportunistic(3, 1)).expect("recover 3");
    node.recover_queued(opportunistic(4, 1)).expect("recover 4");
    assert_eq!(
        node.recover_running(opportunistic(3, 1)),
        Err(Error::DuplicateContainer { id: must_id(3) })
    );

    assert_eq!(node.recovery_completed(), [start(3)]);
    assert_eq!(queued_ids(&node), [must_id(4)]);
    // Kills follow the restored start order: 3 started last, then 2.
    assert_eq!(
        must_schedule(&mut node, guaranteed(5, 2)),
        [queue(5), kill_for_guaranteed(3), kill_for_guaranteed(2)]
    );
}

#[test]
fn recovery_keeps_overcommitted_running_containers_and_refuses_impossible_queued_ones() {
    let mut node = node(2, 5);
    node.recover_running(guaranteed(1, 2)).expect("recover 1");
    node.recover_running(guaranteed(2, 2)).expect("recover 2");
    assert_eq!(
        node.recover_queued(opportunistic(3, 3)),
        Err(Error::ExceedsNodeCapacity {
            id: must_id(3),
            requested: Resources::new(3 * GB, 1),
            capacity: Resources::new(2 * GB, 2),
        })
    );
    node.recover_queued(guaranteed(4, 1)).expect("recover 4");

    assert_eq!(node.recovery_completed(), []);
    assert_eq!(node.allocated().memory_mb, 4 * GB);
    assert_eq!(must_complete(&mut node, 1), []);
    assert_eq!(must_complete(&mut node, 2), [start(4)]);
}

#[test]
fn a_decrease_frees_room_at_once_and_an_increase_kills_opportunistic_containers_for_it() {
    let mut node = node(4, 5);
    must_schedule(&mut node, guaranteed(1, 3));
    assert_eq!(must_schedule(&mut node, guaranteed(2, 2)), [queue(2)]);

    let shrink = Resources::new(2 * GB, 1);
    assert_eq!(
        node.update(must_id(1), ExecutionType::Guaranteed, shrink, 1),
        Ok(vec![
            SchedulerAction::Resize {
                id: must_id(1),
                resources: shrink
            },
            start(2)
        ]),
        "the room a decrease frees starts what waits"
    );
    assert_eq!(node.allocated(), Resources::new(4 * GB, 2));
    must_complete(&mut node, 2);
    must_schedule(&mut node, opportunistic(3, 1));
    must_schedule(&mut node, opportunistic(4, 1));

    let grow = Resources::new(3 * GB, 2);
    assert_eq!(
        node.update(must_id(1), ExecutionType::Guaranteed, grow, 2),
        Ok(vec![
            kill_for_guaranteed(4),
            SchedulerAction::Resize {
                id: must_id(1),
                resources: grow
            }
        ]),
        "one opportunistic container, the newest, makes room for the increase"
    );
    let grown = node.container(&must_id(1)).expect("running");
    assert_eq!((grown.resources, grown.version), (grow, 2));
    assert_eq!(
        node.update(
            must_id(1),
            ExecutionType::Guaranteed,
            Resources::new(5 * GB, 1),
            3
        ),
        Err(Error::ExceedsNodeCapacity {
            id: must_id(1),
            requested: Resources::new(5 * GB, 1),
            capacity: Resources::new(4 * GB, 4),
        })
    );
    assert_eq!(node.container(&must_id(1)).map(|c| c.version), Some(2));

    // A container recovered larger than a node that shrank can still shrink and be demoted.
    let mut shrunk_node = self::node(4, 5);
    shrunk_node.recover_running(guaranteed(9, 8)).unwrap();
    shrunk_node.recover_running(opportunistic(10, 1)).unwrap();
    assert_eq!(shrunk_node.recovery_completed(), vec![]);
    let smaller = Resources::new(6 * GB, 1);
    assert_eq!(
        shrunk_node.update(must_id(9), ExecutionType::Guaranteed, smaller, 1),
        Ok(vec![SchedulerAction::Resize {
            id: must_id(9),
            resources: smaller
        }]),
        "an overcommit the update did not cause kills nothing"
    );
    assert!(
        shrunk_node
            .update(must_id(9), ExecutionType::Opportunistic, smaller, 2)
            .is_ok()
    );
}

#[test]
fn a_queued_container_keeps_its_place_when_resized() {
    let mut node = node(2, 5);
    must_schedule(&mut node, guaranteed(1, 2));
    must_schedule(&mut node, guaranteed(2, 2));
    must_schedule(&mut node, guaranteed(3, 1));
    assert_eq!(
        node.update(
            must_id(2),
            ExecutionType::Guaranteed,
            Resources::new(GB, 1),
            1
        ),
        Ok(vec![])
    );
    assert_eq!(queued_ids(&node), [must_id(2), must_id(3)]);
    assert_eq!(must_complete(&mut node, 1), [start(2), start(3)]);
}
