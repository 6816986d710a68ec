//! Capacity modes: percentages, weights, absolute resources and capacity vectors, resolved
//! against the cluster as Hadoop does (the seed's worked examples, TestAbsoluteResourceConfiguration
//! and TestCapacitySchedulerWeightMode in spirit), and the mixes each queue mode refuses.

use yarn_scheduler::{
    CapacityScheduler, CapacitySchedulerConfiguration, EffectiveCapacity, QueueCapacity, Resource,
    SchedulerError, SchedulerSettings,
};

use crate::mock::*;

const FLEXIBLE: (&str, &str) = ("legacy-queue-mode.enabled", "false");

fn build(pairs: &[(&str, &str)]) -> Result<CapacitySchedulerConfiguration, SchedulerError> {
    CapacitySchedulerConfiguration::new(props(pairs), SchedulerSettings::default())
}

fn refusal(pairs: &[(&str, &str)]) -> String {
    build(pairs)
        .expect_err("the configuration must be refused")
        .to_string()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

fn effective(
    conf: &CapacitySchedulerConfiguration,
    cluster: Resource,
    path: &str,
) -> EffectiveCapacity {
    conf.effective_capacities(cluster)[path]
}

/// The seed's example of the universal capacity vector on 32 GB and 32 cores: absolute amounts
/// first, then percentages of what is left, then weights.
#[test]
fn the_seeds_mixed_example_resolves_absolute_then_percentage_then_weight() {
    let conf = must_conf(&[
        FLEXIBLE,
        ("root.queues", "default,test_1,test_2"),
        ("root.test_1.queues", "test_1_1,test_1_2,test_1_3"),
        ("root.default.capacity", "[memory=1w, vcores=1w]"),
        ("root.test_1.capacity", "[memory=16384, vcores=16]"),
        ("root.test_1.test_1_1.capacity", "[memory=50%, vcores=50%]"),
        ("root.test_1.test_1_2.capacity", "[memory=1w, vcores=1w]"),
        ("root.test_1.test_1_3.capacity", "[memory=12288, vcores=12]"),
        ("root.test_2.capacity", "[memory=75%, vcores=75%]"),
    ]);
    let cluster = Resource::new(32 * 1024, 32);
    for (path, minimum, absolute) in [
        ("root.default", Resource::new(4096, 4), 12.5),
        ("root.test_1", Resource::new(16384, 16), 50.0),
        ("root.test_1.test_1_1", Resource::new(2048, 2), 6.25),
        ("root.test_1.test_1_2", Resource::new(2048, 2), 6.25),
        ("root.test_1.test_1_3", Resource::new(12288, 12), 37.5),
        ("root.test_2", Resource::new(12288, 12), 37.5),
    ] {
        let capacity = effective(&conf, cluster, path);
        assert_eq!(capacity.guaranteed, minimum, "{path}");
        assert!(
            close(capacity.absolute_capacity, absolute),
            "{path}: {capacity:?}"
        );
        assert_eq!(
            capacity.maximum,
            capacity_of_parent(&conf, cluster, path),
            "{path}"
        );
    }
    let test_1_3 = effective(&conf, cluster, "root.test_1.test_1_3");
    assert!(
        close(test_1_3.capacity, 75.0),
        "12 of test_1's 16: {test_1_3:?}"
    );
}

/// An unset maximum is all of the parent's maximum.
fn capacity_of_parent(
    conf: &CapacitySchedulerConfiguration,
    cluster: Resource,
    path: &str,
) -> Resource {
    let parent = conf.queue(path).unwrap().parent.clone().unwrap();
    if parent == "root" {
        cluster
    } else {
        effective(conf, cluster, &parent).maximum
    }
}

/// The seed's weights: 3w, 2w and 5w are 30, 20 and 50 percent; a fourth queue of 10w halves
/// them, with nothing else to recompute.
#[test]
fn weights_divide_the_parent_in_proportion() {
    let three = must_conf(&[
        ("root.queues", "a,b,c"),
        ("root.a.capacity", "3w"),
        ("root.b.capacity", "2w"),
        ("root.c.capacity", "5w"),
    ]);
    let four = must_conf(&[
        ("root.queues", "a,b,c,d"),
        ("root.a.capacity", "3w"),
        ("root.b.capacity", "2w"),
        ("root.c.capacity", "5w"),
        ("root.d.capacity", "10w"),
    ]);
    let cluster = Resource::new(100 * 1024, 100);
    for (conf, expected) in [
        (&three, [30.0, 20.0, 50.0, 0.0]),
        (&four, [15.0, 10.0, 25.0, 50.0]),
    ] {
        for (queue, share) in ["a", "b", "c", "d"].iter().zip(expected) {
            let path = format!("root.{queue}");
            let Some(queue_conf) = conf.queue(&path) else {
                continue;
            };
            assert!(close(queue_conf.absolute_capacity, share), "{path}");
            let capacity = effective(conf, cluster, &path);
            assert!(
                close(capacity.absolute_capacity, share),
                "{path}: {capacity:?}"
            );
            assert!(close(capacity.capacity, share), "{path}: {capacity:?}");
        }
    }
    assert_eq!(
        effective(&four, cluster, "root.d").guaranteed,
        Resource::new(50 * 1024, 50)
    );
}

/// Absolute resources follow the cluster: shares grow and shrink as nodes join and leave, and
/// when the cluster holds less than the queues are promised their guarantees shrink in
/// proportion.
#[test]
fn absolute_resources_are_resolved_again_when_nodes_join_and_leave() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "[memory=4096,vcores=4]"),
        ("root.a.maximum-capacity", "[memory=8192,vcores=8]"),
        ("root.b.capacity", "[memory=2048,vcores=2]"),
    ]);
    let mut scheduler = CapacityScheduler::new(conf);
    let info = |scheduler: &CapacityScheduler, queue: &str| scheduler.queue_info(queue).unwrap();
    scheduler.add_node(node(0), Resource::new(8192, 8)).unwrap();
    let a = info(&scheduler, "a");
    assert_eq!(a.guaranteed_resource, Resource::new(4096, 4));
    assert_eq!(a.maximum_resource, Resource::new(8192, 8));
    assert!(
        close(a.absolute_capacity, 50.0) && close(a.capacity, 50.0),
        "{a:?}"
    );
    assert_eq!(a.configured_capacity.to_string(), "[memory=4096,vcores=4]");
    assert!(close(info(&scheduler, "b").absolute_capacity, 25.0));

    scheduler.add_node(node(1), Resource::new(8192, 8)).unwrap();
    let a = info(&scheduler, "a");
    assert_eq!(
        a.guaranteed_resource,
        Resource::new(4096, 4),
        "the amount stays"
    );
    assert!(close(a.absolute_capacity, 25.0), "the share halves: {a:?}");
    assert!(close(a.absolute_maximum_capacity, 50.0), "{a:?}");

    scheduler.remove_node(&node(1)).unwrap();
    scheduler.remove_node(&node(0)).unwrap();
    scheduler.add_node(node(2), Resource::new(3072, 3)).unwrap();
    // 6 GB promised on 3 GB: each guarantee is scaled by one half.
    assert_eq!(
        info(&scheduler, "a").guaranteed_resource,
        Resource::new(2048, 2)
    );
    assert_eq!(
        info(&scheduler, "b").guaranteed_resource,
        Resource::new(1024, 1)
    );
}

/// Absolute parents with weighted children, and percentages under weights, outside legacy
/// queue mode.
#[test]
fn absolute_parents_divide_among_weighted_children_in_flexible_mode() {
    let conf = must_conf(&[
        FLEXIBLE,
        ("root.queues", "prod,dev"),
        ("root.prod.capacity", "[memory=12288,vcores=12]"),
        ("root.prod.queues", "etl,reports"),
        ("root.prod.etl.capacity", "2w"),
        ("root.prod.reports.capacity", "1w"),
        ("root.dev.capacity", "1w"),
        ("root.dev.maximum-capacity", "[memory=4096,vcores=100%]"),
    ]);
    let cluster = Resource::new(16 * 1024, 16);
    assert_eq!(
        effective(&conf, cluster, "root.prod.etl").guaranteed,
        Resource::new(8192, 8)
    );
    assert_eq!(
        effective(&conf, cluster, "root.prod.reports").guaranteed,
        Resource::new(4096, 4)
    );
    let dev = effective(&conf, cluster, "root.dev");
    assert_eq!(dev.guaranteed, Resource::new(4096, 4), "what prod leaves");
    assert_eq!(dev.maximum, Resource::new(4096, 16));
}

/// Application limits follow the resolved share; with no cluster yet, a configuration with
/// absolute amounts takes the global limit, as Hadoop does.
#[test]
fn application_limits_follow_the_resolved_share() {
    let conf = must_conf(&[
        ("maximum-applications", "1000"),
        ("root.queues", "a,b"),
        ("root.a.capacity", "[memory=2048,vcores=2]"),
        ("root.b.capacity", "[memory=6144,vcores=6]"),
    ]);
    let mut scheduler = CapacityScheduler::new(conf);
    assert_eq!(
        scheduler.queue_info("a").unwrap().maximum_applications,
        1000
    );
    scheduler.add_node(node(0), Resource::new(8192, 8)).unwrap();
    assert_eq!(scheduler.queue_info("a").unwrap().maximum_applications, 250);
    assert_eq!(scheduler.queue_info("b").unwrap().maximum_applications, 750);
}

#[test]
fn legacy_queue_mode_refuses_mixes_naming_the_queue_and_the_key() {
    for (pairs, key, says) in [
        (
            &[
                ("root.queues", "a,b"),
                ("root.a.capacity", "1w"),
                ("root.b.capacity", "50"),
            ][..],
            "root.b.capacity",
            "the children of root use one capacity mode, but root.a is a weight (1w) and root.b a \
             percentage (50)",
        ),
        (
            &[
                ("root.queues", "a,b"),
                ("root.a.capacity", "[memory=1024,vcores=1]"),
                ("root.b.capacity", "2w"),
            ],
            "root.b.capacity",
            "root.a is an absolute ([memory=1024,vcores=1]) and root.b a weight (2w)",
        ),
        (
            &[
                ("root.queues", "a"),
                ("root.a.capacity", "[memory=4096,vcores=4]"),
                ("root.a.queues", "a1"),
                ("root.a.a1.capacity", "100"),
            ],
            "root.a.a1.capacity",
            "a queue and its children both use absolute resources or neither does",
        ),
        (
            &[
                ("root.queues", "a"),
                ("root.a.capacity", "[memory=4096,vcores=4]"),
                ("root.a.queues", "a1,a2"),
                ("root.a.a1.capacity", "[memory=3072,vcores=2]"),
                ("root.a.a2.capacity", "[memory=2048,vcores=2]"),
            ],
            "root.a.a1.capacity",
            "are guaranteed [memory=5120,vcores=4] together, more than its capacity \
             [memory=4096,vcores=4]",
        ),
        (
            &[
                ("root.queues", "a"),
                ("root.a.capacity", "100"),
                ("root.a.maximum-capacity", "[memory=4096,vcores=4]"),
            ],
            "root.a.maximum-capacity",
            "capacity is percentage (100) and maximum-capacity absolute",
        ),
    ] {
        let message = refusal(pairs);
        assert!(
            message.starts_with(&format!("key yarn.scheduler.capacity.{key}: "))
                && message.contains(says),
            "{message}"
        );
    }
    let message = refusal(&[
        ("root.queues", "a"),
        ("root.a.capacity", "[memory=50%,vcores=2w]"),
    ]);
    assert!(message.contains("needs yarn.scheduler.capacity.legacy-queue-mode.enabled=false"));
}

#[test]
fn flexible_mode_mixes_freely_but_never_promises_more_than_all() {
    assert!(
        build(&[
            FLEXIBLE,
            ("root.queues", "a,b,c"),
            ("root.a.capacity", "1w"),
            ("root.b.capacity", "50"),
            ("root.c.capacity", "[memory=1024,vcores=1]"),
        ])
        .is_ok()
    );
    let message = refusal(&[
        FLEXIBLE,
        ("root.queues", "a,b"),
        ("root.a.capacity", "[memory=80%,vcores=10%]"),
        ("root.b.capacity", "40"),
    ]);
    assert!(
        message.starts_with("key yarn.scheduler.capacity.root.a.capacity: the children of root")
            && message.contains("give 120 percent of its memory in percentages, more than 100"),
        "{message}"
    );
}

/// Bad values name the key and value; the maximum has no weight mode; a maximum below the
/// capacity is refused where the two compare.
#[test]
fn bad_capacities_are_refused_naming_key_and_value() {
    for (key, value) in [
        ("root.a.capacity", "12x"),
        ("root.a.capacity", "[memory=-1]"),
        ("root.a.capacity", "[memory=1024,gpu=1]"),
        ("root.a.maximum-capacity", "3w"),
    ] {
        let mut pairs = vec![("root.queues", "a"), ("root.a.capacity", "100")];
        pairs.retain(|(k, _)| *k != key);
        pairs.push((key, value));
        let message = refusal(&pairs);
        assert!(
            message.starts_with(&format!(
                "key yarn.scheduler.capacity.{key}: value {value:?} is invalid"
            )),
            "{message}"
        );
    }
    let message = refusal(&[
        ("root.queues", "a"),
        ("root.a.capacity", "[memory=4096,vcores=4]"),
        ("root.a.maximum-capacity", "[memory=2048,vcores=8]"),
    ]);
    assert_eq!(
        message,
        "queue root.a: capacity [memory=4096,vcores=4] exceeds maximum-capacity \
         [memory=2048,vcores=8]"
    );
    assert_eq!(
        build(&[("root.queues", "a"), ("root.a.capacity", "3w")])
            .unwrap()
            .queue("root.a")
            .unwrap()
            .capacity,
        QueueCapacity::Weight(3.0)
    );
}

/// A vector divides each resource type on its own, even with no absolute amount anywhere.
#[test]
fn a_vector_of_percentages_and_weights_divides_each_type_on_its_own() {
    let conf = must_conf(&[
        FLEXIBLE,
        ("root.queues", "a,b"),
        ("root.a.capacity", "[memory=50%,vcores=2w]"),
        ("root.b.capacity", "[memory=50%,vcores=1w]"),
        ("root.b.maximum-capacity", "[memory=50%,vcores=100%]"),
    ]);
    let cluster = Resource::new(10240, 30);
    assert_eq!(
        effective(&conf, cluster, "root.a").guaranteed,
        Resource::new(5120, 20)
    );
    let b = effective(&conf, cluster, "root.b");
    assert_eq!(b.guaranteed, Resource::new(5120, 10));
    assert_eq!(b.maximum, Resource::new(5120, 30));
}

/// As in Hadoop, a child of 0 percent has no mode and may sit beside weights; an absolute
/// maximum may not exceed the parent's.
#[test]
fn a_zero_percent_child_sits_beside_weights_and_maximums_stay_within_the_parent() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "0"),
        ("root.b.capacity", "2w"),
    ]);
    let b = effective(&conf, Resource::new(8192, 8), "root.b");
    assert_eq!(b.guaranteed, Resource::new(8192, 8));
    let message = refusal(&[
        ("root.queues", "a"),
        ("root.a.capacity", "[memory=4096,vcores=4]"),
        ("root.a.maximum-capacity", "[memory=4096,vcores=4]"),
        ("root.a.queues", "a1"),
        ("root.a.a1.capacity", "[memory=2048,vcores=2]"),
        ("root.a.a1.maximum-capacity", "[memory=8192,vcores=2]"),
    ]);
    assert_eq!(
        message,
        "key yarn.scheduler.capacity.root.a.a1.maximum-capacity: root.a.a1 may use at most \
         [memory=8192,vcores=2], more than its parent root.a may ([memory=4096,vcores=4])"
    );
}
