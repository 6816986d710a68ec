//! Preemption rounds over a running scheduler: the snapshot it gives (usage, demand within user
//! limits, `disable_preemption` inherited down the tree) and the containers a round chooses,
//! across queues and within one.

use yarn_proto::ids::ContainerId;
use yarn_scheduler::preemption::{
    IntraQueueOrder, IntraQueueSettings, PreemptionQueue, PreemptionSettings,
};
use yarn_scheduler::{
    Allocation, CapacityScheduler, CapacitySchedulerConfiguration, SchedulerError,
    SchedulerSettings,
};

use crate::mock::*;

/// Hadoop's test settings: everything owed in one round.
fn eager() -> PreemptionSettings {
    PreemptionSettings {
        total_preemption_per_round: 1.0,
        max_ignored_over_capacity: 0.1,
        natural_termination_factor: 1.0,
        intra_queue: None,
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
    (scheduler, newest_tasks_first(&placed))
}

/// The task containers (not AMs) among `placed`, newest first.
fn newest_tasks_first(placed: &[Allocation]) -> Vec<ContainerId> {
    let mut tasks: Vec<ContainerId> = placed
        .iter()
        .filter(|allocation| !allocation.is_am)
        .map(|allocation| allocation.container_id)
        .collect();
    tasks.sort_unstable_by(|x, y| y.cmp(x));
    tasks
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

/// One queue on four 4 GiB nodes; application 1 of alice holds all 16 GiB (its AM and 15
/// tasks), then application 2 of `user` at `priority` asks for its AM and 3 tasks. AMs may
/// take half the queue, so the second is activated and its demand counts; priorities go up
/// to 10.
fn one_queue_full_then(
    extra: &[(&str, &str)],
    user: &str,
    priority: i32,
) -> (CapacityScheduler, Vec<ContainerId>) {
    let mut pairs = vec![
        ("root.queues", "a"),
        ("root.a.capacity", "100"),
        ("root.a.maximum-am-resource-percent", "0.5"),
    ];
    pairs.extend_from_slice(extra);
    let settings = SchedulerSettings {
        max_application_priority: 10,
        ..SchedulerSettings::default()
    };
    let mut scheduler = must_scheduler(must_conf_with(&pairs, settings), 4, 4, 8);
    must_start(&mut scheduler, 1, "a", "alice", 15);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "a"), 16);
    must_start_with(&mut scheduler, 2, "a", user, Some(priority), 3);
    assert!(
        schedule_until_idle(&mut scheduler).is_empty(),
        "no room left"
    );
    (scheduler, newest_tasks_first(&placed))
}

fn within(order: IntraQueueOrder) -> PreemptionSettings {
    PreemptionSettings {
        intra_queue: Some(IntraQueueSettings {
            max_allowable_limit: 1.0,
            order,
            ..IntraQueueSettings::default()
        }),
        ..eager()
    }
}

#[test]
fn a_more_important_application_takes_from_a_less_important_one_of_its_queue() {
    let (scheduler, tasks) = one_queue_full_then(&[], "alice", 5);
    let snapshot = scheduler.preemption_snapshot();
    let leaf = &snapshot.leaves["root.a"];
    let second = leaf
        .applications
        .iter()
        .find(|application| application.id == app(2))
        .expect("application 2 in the leaf");
    assert_eq!((second.priority, second.user.as_str()), (5, "alice"));
    assert_eq!(second.pending.memory_mb, 4 * GIB, "its AM and 3 tasks");
    assert_eq!(leaf.user_limits["alice"].memory_mb, 16 * GIB);

    // Across queues there is nothing to do, and intra-queue preemption is off by default.
    assert!(snapshot.decide(&eager()).chosen.is_empty());
    // priority_first: application 1 gives its 4 newest tasks for application 2.
    let decision = snapshot.decide(&within(IntraQueueOrder::PriorityFirst));
    assert_eq!(decision.chosen["root.a"], tasks[..4].to_vec());
    assert_eq!(decision.for_queues, ["root.a"]);
    // userlimit_first: alice is within her limit, so she keeps everything.
    let decision = snapshot.decide(&within(IntraQueueOrder::UserLimitFirst));
    assert!(decision.chosen.is_empty());
}

#[test]
fn a_user_above_the_user_limit_gives_to_one_below_it() {
    // Two users of one priority, each limited to about half the queue: alice holds 16 GiB
    // against a limit of 9 (half the queue and a container, as Hadoop rounds it), bob asks
    // for 4 and gets them.
    let (scheduler, tasks) =
        one_queue_full_then(&[("root.a.minimum-user-limit-percent", "50")], "bob", 0);
    let snapshot = scheduler.preemption_snapshot();
    assert_eq!(
        snapshot.leaves["root.a"].user_limits["alice"].memory_mb,
        9 * GIB
    );
    for order in [
        IntraQueueOrder::UserLimitFirst,
        IntraQueueOrder::PriorityFirst,
    ] {
        let decision = snapshot.decide(&within(order));
        assert_eq!(decision.chosen["root.a"], tasks[..4].to_vec(), "{order:?}");
    }
}

#[test]
fn intra_queue_disable_preemption_is_inherited_and_read_with_disable_preemption() {
    for extra in [
        &[("root.a.intra-queue-preemption.disable_preemption", "true")][..],
        &[("root.intra-queue-preemption.disable_preemption", "True")][..],
        &[("root.a.disable_preemption", "true")][..],
    ] {
        let (scheduler, _) = one_queue_full_then(extra, "alice", 5);
        let snapshot = scheduler.preemption_snapshot();
        assert!(
            snapshot.leaves["root.a"].intra_queue_preemption_disabled,
            "{extra:?}"
        );
        let decision = snapshot.decide(&within(IntraQueueOrder::PriorityFirst));
        assert!(decision.chosen.is_empty(), "{extra:?}");
    }
    let err = CapacitySchedulerConfiguration::new(
        props(&[
            ("root.queues", "a"),
            ("root.a.capacity", "100"),
            ("root.a.intra-queue-preemption.disable_preemption", "never"),
        ]),
        Default::default(),
    )
    .unwrap_err();
    match err {
        SchedulerError::InvalidValue { key, value, .. } => {
            assert_eq!(
                key,
                "yarn.scheduler.capacity.root.a.intra-queue-preemption.disable_preemption"
            );
            assert_eq!(value, "never");
        }
        other => panic!("expected the key to be named, got {other:?}"),
    }
}
