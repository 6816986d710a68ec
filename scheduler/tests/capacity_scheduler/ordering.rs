//! Leaf ordering policies: `fifo` serves the first submitted, `fair` splits a queue between its
//! applications (Hadoop's FairOrderingPolicy; TestFairOrderingPolicy and
//! TestApplicationPriority in spirit).

use yarn_scheduler::{CapacityScheduler, OrderingPolicy, SchedulerSettings};

use crate::mock::*;

/// One leaf `a` of the whole cluster, ordered by `policy`, on one 10 GiB node; the AM limit is
/// raised so that both applications run.
fn one_leaf(policy: &str, extra: &[(&str, &str)]) -> CapacityScheduler {
    let mut pairs = vec![
        ("root.queues", "a"),
        ("root.a.capacity", "100"),
        ("root.a.ordering-policy", policy),
        ("root.a.maximum-am-resource-percent", "0.5"),
    ];
    pairs.extend_from_slice(extra);
    let settings = SchedulerSettings {
        max_application_priority: 10,
        ..SchedulerSettings::default()
    };
    must_scheduler(must_conf_with(&pairs, settings), 1, 10, 10)
}

#[test]
fn fifo_serves_the_first_submitted_and_fair_splits_the_queue() {
    let mut fifo = one_leaf("fifo", &[]);
    must_start(&mut fifo, 1, "a", "alice", 20);
    must_start(&mut fifo, 2, "a", "bob", 20);
    schedule_until_idle(&mut fifo);
    assert_eq!(
        (app_gib(&fifo, 1), app_gib(&fifo, 2)),
        (10, 0),
        "app 2 waits, AM and all"
    );

    let mut fair = one_leaf("fair", &[]);
    must_start(&mut fair, 1, "a", "alice", 20);
    must_start(&mut fair, 2, "a", "bob", 20);
    schedule_until_idle(&mut fair);
    assert_eq!((app_gib(&fair, 1), app_gib(&fair, 2)), (5, 5));
    assert_eq!(
        fair.configuration()
            .queue("root.a")
            .unwrap()
            .ordering_policy,
        OrderingPolicy::Fair {
            size_based_weight: false
        }
    );
}

/// Containers freed go to the application using least, not to the first submitted.
#[test]
fn under_fair_ordering_freed_room_goes_to_the_application_using_least() {
    let mut fair = one_leaf("fair", &[]);
    must_start(&mut fair, 1, "a", "alice", 20);
    let placed = schedule_until_idle(&mut fair);
    assert_eq!(app_gib(&fair, 1), 10);
    must_start(&mut fair, 2, "a", "bob", 20);
    // Application 1's tasks end, four of them, and app 1 still wants more: every freed
    // gigabyte goes to app 2 until the two are level.
    for allocation in placed.iter().filter(|a| !a.is_am).take(4) {
        fair.container_completed(&allocation.container_id)
            .expect("live");
    }
    schedule_until_idle(&mut fair);
    assert_eq!((app_gib(&fair, 1), app_gib(&fair, 2)), (6, 4));
}

/// Application priority is served first under both policies.
#[test]
fn a_higher_application_priority_is_served_first_under_both_policies() {
    for policy in ["fifo", "fair"] {
        let mut scheduler = one_leaf(policy, &[]);
        must_start_with(&mut scheduler, 1, "a", "alice", Some(1), 20);
        must_start_with(&mut scheduler, 2, "a", "bob", Some(5), 20);
        schedule_until_idle(&mut scheduler);
        assert_eq!(
            (app_gib(&scheduler, 1), app_gib(&scheduler, 2)),
            (0, 10),
            "{policy}: app 1 waits, AM and all"
        );
    }
}

#[test]
fn size_based_weight_means_something_only_to_the_fair_policy() {
    let conf = yarn_scheduler::CapacitySchedulerConfiguration::new(
        props(&[
            ("root.queues", "a"),
            ("root.a.capacity", "100"),
            (
                "root.a.ordering-policy.fair.enable-size-based-weight",
                "true",
            ),
        ]),
        yarn_scheduler::SchedulerSettings::default(),
    )
    .expect("ignored, as Hadoop does, but named");
    assert_eq!(
        conf.warnings(),
        [
            "yarn.scheduler.capacity.root.a.ordering-policy.fair.enable-size-based-weight applies \
          to the fair ordering policy only, and root.a does not order its applications fairly: \
          ignored"
        ]
    );
    let parent = yarn_scheduler::CapacitySchedulerConfiguration::new(
        props(&[
            ("root.queues", "a"),
            ("root.ordering-policy", "fair"),
            ("root.a.capacity", "100"),
        ]),
        yarn_scheduler::SchedulerSettings::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        parent.contains("utilization or priority-utilization on a parent queue"),
        "{parent}"
    );
}

/// Earlier versions accepted and ignored ordering keys that are now read: a committed
/// configuration with one keeps scheduling fifo, saying so; a new file is refused.
#[test]
fn a_committed_ordering_key_that_no_longer_parses_is_kept_as_a_warning() {
    let settings = SchedulerSettings::default;
    for (key, value) in [
        ("root.a.ordering-policy", "FIFO"),
        ("root.ordering-policy", "fifo"),
        (
            "root.a.ordering-policy.fair.enable-size-based-weight",
            "yes",
        ),
    ] {
        let pairs = [
            ("root.queues", "a"),
            ("root.a.capacity", "100"),
            (key, value),
        ];
        assert!(
            yarn_scheduler::CapacitySchedulerConfiguration::new(props(&pairs), settings()).is_err(),
            "{key}"
        );
        let committed =
            yarn_scheduler::CapacitySchedulerConfiguration::committed(props(&pairs), settings())
                .expect("a committed configuration is built");
        assert_eq!(
            committed.queue("root.a").unwrap().ordering_policy,
            OrderingPolicy::Fifo
        );
        assert!(
            committed
                .warnings()
                .iter()
                .any(|warning| warning.contains(key)
                    && warning.contains("orders its applications fifo")),
            "{key}: {:?}",
            committed.warnings()
        );
    }
}

/// As in Hadoop, the queues of a reservable queue's reservations serve their applications fifo.
#[test]
fn a_reservable_queue_cannot_order_fairly() {
    let message = yarn_scheduler::CapacitySchedulerConfiguration::new(
        props(&[
            ("root.queues", "a"),
            ("root.a.capacity", "100"),
            ("root.a.reservable", "true"),
            ("root.a.ordering-policy", "fair"),
        ]),
        SchedulerSettings::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(message.contains("root.a is reservable"), "{message}");
}

/// A key of a queue since removed from its parent's list was accepted before ordering keys were
/// read per queue: a committed configuration with one keeps scheduling, saying so.
#[test]
fn a_committed_key_of_an_unlisted_queue_is_kept_as_a_warning() {
    let pairs = [
        ("root.queues", "a"),
        ("root.a.capacity", "100"),
        ("root.gone.ordering-policy", "fifo"),
    ];
    let settings = SchedulerSettings::default;
    assert!(
        yarn_scheduler::CapacitySchedulerConfiguration::new(props(&pairs), settings()).is_err()
    );
    let committed =
        yarn_scheduler::CapacitySchedulerConfiguration::committed(props(&pairs), settings())
            .expect("a committed configuration is built");
    assert!(
        committed
            .warnings()
            .iter()
            .any(|warning| warning.contains("root.gone")
                && warning.contains(yarn_scheduler::EARLIER_COMMIT)),
        "{:?}",
        committed.warnings()
    );
}

/// Three children of 3, 3 and 4 GiB of a 10 GiB cluster, `c` idle; `b` has the higher priority.
fn prioritized(policy: &str) -> CapacityScheduler {
    let pairs = [
        ("root.queues", "a,b,c"),
        ("root.ordering-policy", policy),
        ("maximum-am-resource-percent", "1.0"),
        ("user-limit-factor", "10"),
        ("root.a.capacity", "30"),
        ("root.b.capacity", "30"),
        ("root.b.priority", "5"),
        ("root.c.capacity", "40"),
    ];
    let mut scheduler = must_scheduler(must_conf(&pairs), 1, 10, 10);
    must_start(&mut scheduler, 1, "a", "alice", 20);
    must_start(&mut scheduler, 2, "b", "bob", 20);
    scheduler
}

/// Hadoop's priority-utilization (TestApplicationPriorityACLs / TestQueueOrderingPolicy in
/// spirit): both queues first get their guarantees, the higher priority first; what is left
/// goes to the higher priority, where utilization would split it.
#[test]
fn priority_utilization_gives_what_is_left_above_guarantees_to_the_higher_priority() {
    let mut by_priority = prioritized("priority-utilization");
    let placed = schedule_until_idle(&mut by_priority);
    assert_eq!(
        (queue_gib(&by_priority, "a"), queue_gib(&by_priority, "b")),
        (3, 7)
    );
    // Below their guarantees, b went first.
    let of = |n: i32| move |c: &&yarn_scheduler::Allocation| c.application_attempt_id == attempt(n);
    let first_of_a = placed.iter().position(|c| of(1)(&c)).unwrap();
    let b_before_a = placed[..first_of_a].iter().filter(of(2)).count();
    assert_eq!(
        b_before_a, 3,
        "b filled its 3 GiB guarantee before a got one"
    );
    assert_eq!(
        by_priority
            .configuration()
            .queue("root")
            .unwrap()
            .queue_ordering_policy,
        yarn_scheduler::QueueOrderingPolicy::PriorityUtilization
    );

    let mut by_use = prioritized("utilization");
    schedule_until_idle(&mut by_use);
    assert_eq!((queue_gib(&by_use, "a"), queue_gib(&by_use, "b")), (5, 5));

    // Preemption weighs the priorities only under priority-utilization.
    let relative_priority = |scheduler: &CapacityScheduler| {
        let snapshot = scheduler.preemption_snapshot();
        let b = snapshot.root.children.iter().find(|q| q.path == "root.b");
        b.expect("root.b").relative_priority
    };
    assert_eq!(relative_priority(&by_priority), 5);
    assert_eq!(relative_priority(&by_use), 0);
}

/// A priority no parent weighs is named as ignored; one an earlier version committed that no
/// longer parses counts as 0, with a warning, where a new file is refused.
#[test]
fn a_priority_no_parent_weighs_is_warned_about() {
    let settings = SchedulerSettings::default;
    let pairs = [
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.a.priority", "3"),
        ("root.b.capacity", "50"),
    ];
    let conf =
        yarn_scheduler::CapacitySchedulerConfiguration::new(props(&pairs), settings()).unwrap();
    assert_eq!(conf.queue("root.a").unwrap().priority, 3);
    assert_eq!(conf.warnings().len(), 1, "{:?}", conf.warnings());
    assert!(
        conf.warnings()[0].starts_with(
            "yarn.scheduler.capacity.root.a.priority = 3 takes effect only under a parent whose \
             ordering-policy is priority-utilization"
        ),
        "{:?}",
        conf.warnings()
    );

    let bad = [
        ("root.queues", "a"),
        ("root.ordering-policy", "priority-utilization"),
        ("root.a.capacity", "100"),
        ("root.a.priority", "high"),
    ];
    assert!(yarn_scheduler::CapacitySchedulerConfiguration::new(props(&bad), settings()).is_err());
    let committed =
        yarn_scheduler::CapacitySchedulerConfiguration::committed(props(&bad), settings())
            .expect("a committed configuration is built");
    assert_eq!(committed.queue("root.a").unwrap().priority, 0);
    assert!(
        committed
            .warnings()
            .iter()
            .any(|warning| warning.contains("root.a has priority 0")),
        "{:?}",
        committed.warnings()
    );
}
