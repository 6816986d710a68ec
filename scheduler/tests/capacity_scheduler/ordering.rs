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
            ("root.ordering-policy", "priority-utilization"),
            ("root.a.capacity", "100"),
        ]),
        yarn_scheduler::SchedulerSettings::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        parent.contains("priority-utilization is not implemented"),
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
