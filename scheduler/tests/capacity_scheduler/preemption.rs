//! Preemption rounds over a running scheduler: the snapshot it gives (usage, demand within user
//! limits, `disable_preemption` inherited down the tree) and the containers a round chooses.

use yarn_proto::ids::ContainerId;
use yarn_scheduler::preemption::{PreemptionQueue, PreemptionSettings};
use yarn_scheduler::{CapacityScheduler, CapacitySchedulerConfiguration, SchedulerError};

use crate::mock::*;

/// Hadoop's test settings: everything owed in one round.
fn eager() -> PreemptionSettings {
    PreemptionSettings {
        total_preemption_per_round: 1.0,
        max_ignored_over_capacity: 0.1,
        natural_termination_factor: 1.0,
    }
}

/// Queues a and b of half the cluster each (plus `extra` properties), four 4 GiB nodes, and
/// application 1 in a holding all 16 GiB (its AM and 15 tasks); then application 2 in b asks
/// for its AM and 7 tasks. Returns the scheduler and application 1's tasks, newest first.
fn a_fills_the_cluster_then_b_asks(
    extra: &[(&str, &str)],
) -> (CapacityScheduler, Vec<ContainerId>) {
    let mut pairs = vec![
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        // One user may fill a's whole maximum.
        ("root.a.user-limit-factor", "2"),
    ];
    pairs.extend_from_slice(extra);
    let mut scheduler = must_scheduler(must_conf(&pairs), 4, 4, 8);
    must_start(&mut scheduler, 1, "a", "alice", 15);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(
        queue_gib(&scheduler, "a"),
        16,
        "a grew into b's idle guarantee"
    );
    must_start(&mut scheduler, 2, "b", "bob", 7);
    assert!(
        schedule_until_idle(&mut scheduler).is_empty(),
        "no room left"
    );
    let mut tasks: Vec<ContainerId> = placed
        .iter()
        .filter(|allocation| !allocation.is_am)
        .map(|allocation| allocation.container_id)
        .collect();
    tasks.sort_unstable_by(|x, y| y.cmp(x));
    (scheduler, tasks)
}

fn child<'a>(root: &'a PreemptionQueue, path: &str) -> &'a PreemptionQueue {
    root.children
        .iter()
        .find(|queue| queue.path == path)
        .unwrap_or_else(|| panic!("no {path}"))
}

#[test]
fn a_queue_grown_into_an_idle_guarantee_gives_its_newest_tasks_back_and_keeps_its_am() {
    let (scheduler, tasks) = a_fills_the_cluster_then_b_asks(&[]);
    let snapshot = scheduler.preemption_snapshot();
    let (a, b) = (
        child(&snapshot.root, "root.a"),
        child(&snapshot.root, "root.b"),
    );
    assert_eq!(
        (a.used.memory_mb, a.guaranteed.memory_mb),
        (16 * GIB, 8 * GIB)
    );
    assert_eq!(
        (b.used.memory_mb, b.pending.memory_mb),
        (0, 8 * GIB),
        "AM and 7 tasks"
    );
    assert_eq!(
        snapshot.leaves["root.a"].applications[0].containers.len(),
        16
    );

    let decision = snapshot.decide(&eager());
    let owed = decision.assignment.target("root.a").map(|t| t.to_obtain);
    assert_eq!(owed.map(|r| r.memory_mb), Some(8 * GIB));
    assert_eq!(
        decision.chosen.get("root.a"),
        Some(&tasks[..8].to_vec()),
        "application 1's eight newest tasks"
    );
    assert!(!decision.chosen.contains_key("root.b"));
    assert_eq!(decision.for_queues, ["root.b"], "reclaimed for b");

    // Hadoop's defaults go slowly: a tenth of the cluster per round (1.6 GiB of the 8 owed),
    // of which a fifth is asked for (328 MB), which the newest task alone covers.
    let default = snapshot.decide(&PreemptionSettings::default());
    let owed = default
        .assignment
        .target("root.a")
        .map(|t| t.to_obtain.memory_mb);
    assert_eq!(owed, Some(328));
    assert_eq!(default.chosen["root.a"], tasks[..1].to_vec());
}

#[test]
fn demand_counts_only_up_to_the_users_limit() {
    // bob may hold only half of b's guarantee, so b asks a for 4 GiB, not 8.
    let (scheduler, tasks) =
        a_fills_the_cluster_then_b_asks(&[("root.b.user-limit-factor", "0.5")]);
    let snapshot = scheduler.preemption_snapshot();
    assert_eq!(child(&snapshot.root, "root.b").pending.memory_mb, 4 * GIB);
    assert_eq!(
        snapshot.decide(&eager()).chosen["root.a"],
        tasks[..4].to_vec()
    );
}

#[test]
fn disable_preemption_is_inherited_and_spares_the_queue() {
    for extra in [
        &[("root.a.disable_preemption", "true")][..],
        &[("root.disable_preemption", "TRUE")][..],
    ] {
        let (scheduler, _) = a_fills_the_cluster_then_b_asks(extra);
        let snapshot = scheduler.preemption_snapshot();
        assert!(
            child(&snapshot.root, "root.a").preemption_disabled,
            "{extra:?}"
        );
        assert!(snapshot.decide(&eager()).chosen.is_empty(), "{extra:?}");
    }
    // A child may turn it back on under a parent that turned it off.
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.disable_preemption", "true"),
        ("root.a.disable_preemption", "false"),
    ]);
    assert_eq!(
        conf.queue("root.a").map(|q| q.disable_preemption),
        Some(false)
    );
    assert_eq!(
        conf.queue("root.b").map(|q| q.disable_preemption),
        Some(true)
    );
}

#[test]
fn a_disable_preemption_value_that_is_not_a_boolean_is_refused_by_name() {
    let err = CapacitySchedulerConfiguration::new(
        props(&[
            ("root.queues", "a"),
            ("root.a.capacity", "100"),
            ("root.a.disable_preemption", "yes"),
        ]),
        Default::default(),
    )
    .unwrap_err();
    match err {
        SchedulerError::InvalidValue { key, value, .. } => {
            assert_eq!(key, "yarn.scheduler.capacity.root.a.disable_preemption");
            assert_eq!(value, "yes");
        }
        other => panic!("expected the key to be named, got {other:?}"),
    }
}
