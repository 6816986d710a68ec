//! Node labels: each partition is scheduled on its own nodes with the queues' capacities
//! there, an exclusive partition serves only its own asks, a non-exclusive one lends what is
//! idle to the default partition, and label expressions are checked as Hadoop checks them.

use yarn_scheduler::{
    Allocation, CapacityScheduler, NodeLabel, NodeLabels, NodeSpec, ResourceRequest,
    SchedulerError, SchedulerSettings,
};

use crate::mock::*;

/// `root.a` may use `gpu` (exclusive) and `spare` (non-exclusive), `root.b` neither; the
/// default partition is split 50/50.
fn labelled_conf(extra: &[(&str, &str)]) -> yarn_scheduler::CapacitySchedulerConfiguration {
    let mut pairs = vec![
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.a.maximum-capacity", "100"),
        ("root.b.maximum-capacity", "100"),
        ("maximum-am-resource-percent", "1.0"),
        ("user-limit-factor", "-1"),
        ("root.a.accessible-node-labels", "gpu,spare"),
        ("root.b.accessible-node-labels", " "),
        ("root.accessible-node-labels.gpu.capacity", "100"),
        ("root.a.accessible-node-labels.gpu.capacity", "100"),
    ];
    pairs.extend_from_slice(extra);
    must_conf_with(
        &pairs,
        SchedulerSettings {
            node_labels_enabled: true,
            ..SchedulerSettings::default()
        },
    )
}

/// Nodes 0 and 1 in the default partition, node 2 labelled `gpu`, node 3 `spare`; 4 GiB each.
fn labelled_cluster(conf: yarn_scheduler::CapacitySchedulerConfiguration) -> CapacityScheduler {
    let mut scheduler = must_scheduler(conf, 4, 4, 8);
    scheduler.set_node_labels(two_labels());
    scheduler
}

/// `gpu` (exclusive) on node 2, `spare` (non-exclusive) on node 3.
fn two_labels() -> NodeLabels {
    let mut labels = NodeLabels::default();
    labels
        .add(&[
            NodeLabel {
                name: "gpu".into(),
                exclusive: true,
            },
            NodeLabel {
                name: "spare".into(),
                exclusive: false,
            },
        ])
        .unwrap();
    labels
        .replace(&[
            (NodeSpec::of(&node(2)), Some("gpu".into())),
            (NodeSpec::of(&node(3)), Some("spare".into())),
        ])
        .unwrap();
    labels
}

fn labelled_ask(tasks: u32, label: &str) -> ResourceRequest {
    ResourceRequest {
        node_label_expression: label.to_owned(),
        ..ResourceRequest::any(1, gib(1), tasks)
    }
}

fn on_node(placed: &[Allocation], i: usize) -> usize {
    placed
        .iter()
        .filter(|a| !a.is_am && a.node_id == node(i))
        .count()
}

fn partition_used_gib(scheduler: &CapacityScheduler, queue: &str, label: &str) -> u64 {
    scheduler
        .queue_info(queue)
        .unwrap()
        .partitions
        .iter()
        .find(|p| p.label == label)
        .map_or(0, |p| p.resources_used.memory_mb / GIB)
}

#[test]
fn the_default_partition_is_what_queue_capacities_divide() {
    let scheduler = labelled_cluster(labelled_conf(&[]));
    assert_eq!(scheduler.cluster_resource().memory_mb, 8 * GIB);
    assert_eq!(scheduler.partition_resource("gpu").memory_mb, 4 * GIB);
    let a = scheduler.queue_info("a").unwrap();
    assert_eq!(a.guaranteed_resource.memory_mb, 4 * GIB);
    let gpu = a.partitions.iter().find(|p| p.label == "gpu").unwrap();
    assert_eq!(gpu.guaranteed_resource.memory_mb, 4 * GIB);
    assert_eq!(a.accessible_node_labels, vec!["gpu", "spare"]);
    let b = scheduler.queue_info("b").unwrap();
    let b_gpu = b.partitions.iter().find(|p| p.label == "gpu").unwrap();
    assert_eq!(b_gpu.maximum_resource.memory_mb, 0, "b may not use gpu");
}

#[test]
fn an_exclusive_partition_runs_only_the_asks_for_its_label() {
    let mut scheduler = labelled_cluster(labelled_conf(&[]));
    must_start(&mut scheduler, 1, "a", "alice", 0);
    must_ask(&mut scheduler, 1, labelled_ask(3, "gpu"));
    must_start(&mut scheduler, 2, "b", "bob", 12);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(on_node(&placed, 2), 3, "the gpu asks went to the gpu node");
    assert!(
        placed
            .iter()
            .filter(|a| a.application_attempt_id == attempt(2))
            .all(|a| a.node_id != node(2)),
        "b's default asks never reach the gpu node, even with the default partition full"
    );
    assert!(
        placed.iter().all(|a| !a.is_am || a.node_id != node(2)),
        "AMs without a label stay off it"
    );
    assert_eq!(partition_used_gib(&scheduler, "a", "gpu"), 3);
    assert_eq!(partition_used_gib(&scheduler, "root", "gpu"), 3);
    // The default partition's figures leave the gpu containers out.
    assert_eq!(queue_gib(&scheduler, "a"), 1, "a's AM only");
    assert_eq!(app_gib(&scheduler, 1), 4, "the application holds all four");
}

#[test]
fn a_non_exclusive_partition_lends_its_idle_nodes_to_default_asks_but_not_to_ams() {
    let mut scheduler = labelled_cluster(labelled_conf(&[]));
    // b fills the default partition (7 tasks and its AM) and wants more.
    must_start(&mut scheduler, 1, "b", "bob", 12);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(
        on_node(&placed, 3),
        4,
        "the spare node took what the default could not"
    );
    assert_eq!(
        on_node(&placed, 2),
        0,
        "the exclusive gpu node lent nothing"
    );
    assert_eq!(partition_used_gib(&scheduler, "b", "spare"), 4);
    // b may not access spare, yet the loan charges its usage there.
    assert_eq!(
        scheduler
            .application_status(app(1))
            .unwrap()
            .resources_used
            .memory_mb,
        12 * GIB
    );

    // A new application's AM is not placed on the lent partition.
    let mut scheduler = labelled_cluster(labelled_conf(&[]));
    must_start(&mut scheduler, 1, "b", "bob", 7);
    schedule_until_idle(&mut scheduler);
    must_start(&mut scheduler, 2, "b", "bob", 0);
    let placed = schedule_until_idle(&mut scheduler);
    assert!(placed.is_empty(), "no AM on the spare node: {placed:?}");
    assert_eq!(
        scheduler.application_status(app(2)).unwrap().num_containers,
        0,
        "the AM waits for the default partition"
    );
}

#[test]
fn a_partitions_own_asks_come_before_its_loan() {
    let mut scheduler = labelled_cluster(labelled_conf(&[
        ("root.a.accessible-node-labels.spare.capacity", "100"),
        ("root.accessible-node-labels.spare.capacity", "100"),
    ]));
    must_start(&mut scheduler, 1, "b", "bob", 0);
    must_start(&mut scheduler, 2, "a", "alice", 0);
    assert_eq!(schedule_until_idle(&mut scheduler).len(), 2, "both AMs");
    // In one pass: b overflows the default partition while a asks for the spare node.
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 20));
    must_ask(&mut scheduler, 2, labelled_ask(4, "spare"));
    let placed = scheduler.schedule();
    let spare_for = |n: i32| {
        placed
            .iter()
            .filter(|a| a.node_id == node(3) && a.application_attempt_id == attempt(n))
            .count()
    };
    assert_eq!(spare_for(2), 4, "a's spare asks took the whole spare node");
    assert_eq!(spare_for(1), 0, "nothing was left idle to lend");
    assert_eq!(partition_used_gib(&scheduler, "a", "spare"), 4);
}

#[test]
fn each_partition_is_divided_by_its_own_capacities() {
    let conf = labelled_conf(&[
        ("root.b.accessible-node-labels", "gpu"),
        ("root.a.accessible-node-labels.gpu.capacity", "25"),
        ("root.a.accessible-node-labels.gpu.maximum-capacity", "50"),
        ("root.b.accessible-node-labels.gpu.capacity", "75"),
    ]);
    let mut scheduler = labelled_cluster(conf);
    must_start(&mut scheduler, 1, "a", "alice", 0);
    must_ask(&mut scheduler, 1, labelled_ask(4, "gpu"));
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(
        on_node(&placed, 2),
        2,
        "a is held at 50% of the 4 GiB gpu partition"
    );
    assert_eq!(partition_used_gib(&scheduler, "a", "gpu"), 2);
    let a = scheduler.queue_info("a").unwrap();
    let gpu = a.partitions.iter().find(|p| p.label == "gpu").unwrap();
    assert_eq!(gpu.absolute_capacity, 25.0);
    assert_eq!(gpu.maximum_resource.memory_mb, 2 * GIB);

    must_start(&mut scheduler, 2, "b", "bob", 0);
    must_ask(&mut scheduler, 2, labelled_ask(4, "gpu"));
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(on_node(&placed, 2), 2, "b takes the rest of the gpu node");
}

#[test]
fn an_application_label_sends_its_am_and_asks_to_the_partition() {
    let mut scheduler = labelled_cluster(labelled_conf(&[]));
    scheduler
        .submit_application(app(1), "a", "alice", &[], None)
        .unwrap();
    scheduler.set_application_labels(app(1), "gpu", "").unwrap();
    scheduler.add_attempt(attempt(1), gib(1)).unwrap();
    must_ask(&mut scheduler, 1, ResourceRequest::any(1, gib(1), 2));
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 3);
    assert!(placed.iter().all(|a| a.node_id == node(2)), "{placed:?}");
}

#[test]
fn the_queue_default_label_applies_to_asks_without_one() {
    let mut scheduler = labelled_cluster(labelled_conf(&[(
        "root.a.default-node-label-expression",
        "gpu",
    )]));
    must_start(&mut scheduler, 1, "a", "alice", 2);
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 3);
    assert!(placed.iter().all(|a| a.node_id == node(2)), "{placed:?}");
}

#[test]
fn label_expressions_the_scheduler_cannot_serve_are_refused() {
    let mut scheduler = labelled_cluster(labelled_conf(&[]));
    must_start(&mut scheduler, 1, "b", "bob", 0);
    must_start(&mut scheduler, 2, "a", "alice", 0);
    let refused = |scheduler: &mut CapacityScheduler, n: i32, ask: ResourceRequest| {
        let err = scheduler.update_asks(attempt(n), &[ask], &[]).unwrap_err();
        assert!(
            matches!(err, SchedulerError::InvalidLabelRequest { .. }),
            "{err}"
        );
        err.to_string()
    };
    let message = refused(&mut scheduler, 1, labelled_ask(1, "gpu"));
    assert!(message.contains("root.b"), "{message}");
    let message = refused(&mut scheduler, 2, labelled_ask(1, "fpga"));
    assert!(message.contains("does not have"), "{message}");
    let message = refused(&mut scheduler, 2, labelled_ask(1, "gpu&&spare"));
    assert!(message.contains("single label"), "{message}");
    let on_host = ResourceRequest {
        node_label_expression: "gpu".into(),
        ..ResourceRequest::on_host(1, "host2", gib(1), 1, true)
    };
    let message = refused(&mut scheduler, 2, on_host);
    assert!(message.contains("host2"), "{message}");
    assert!(
        scheduler
            .check_application_labels(app(3), "b", "bob", "gpu", "")
            .is_err()
    );
    scheduler
        .check_application_labels(app(3), "a", "alice", "gpu", "")
        .unwrap();
    assert!(schedule_until_idle(&mut scheduler).iter().all(|a| a.is_am));
}

#[test]
fn a_relabelled_node_takes_its_containers_usage_to_its_new_partition() {
    let mut scheduler = labelled_cluster(labelled_conf(&[]));
    must_start(&mut scheduler, 1, "a", "alice", 0);
    must_ask(&mut scheduler, 1, labelled_ask(2, "gpu"));
    schedule_until_idle(&mut scheduler);
    assert_eq!(partition_used_gib(&scheduler, "a", "gpu"), 2);
    let mut labels = scheduler.node_labels().clone();
    labels.replace(&[(NodeSpec::of(&node(2)), None)]).unwrap();
    scheduler.set_node_labels(labels);
    assert_eq!(partition_used_gib(&scheduler, "a", "gpu"), 0);
    assert_eq!(
        queue_gib(&scheduler, "a"),
        3,
        "AM and both containers, now default"
    );
    assert_eq!(scheduler.cluster_resource().memory_mb, 12 * GIB);
    assert_eq!(scheduler.partition_resource("gpu").memory_mb, 0);
    // Releasing them uncharges the partition they are in now.
    scheduler.remove_application(app(1)).unwrap();
    assert_eq!(queue_gib(&scheduler, "a"), 0);
    assert_eq!(scheduler.cluster_used().memory_mb, 0);
}

#[test]
fn label_settings_that_break_hadoops_rules_are_refused_naming_the_key() {
    let build = |extra: &[(&str, &str)]| {
        let mut pairs = vec![
            ("root.queues", "a,b"),
            ("root.a.capacity", "50"),
            ("root.b.capacity", "50"),
        ];
        pairs.extend_from_slice(extra);
        yarn_scheduler::CapacitySchedulerConfiguration::new(
            props(&pairs),
            yarn_scheduler::SchedulerSettings::default(),
        )
    };
    for (extra, key, says) in [
        (
            vec![
                ("root.a.accessible-node-labels.gpu.capacity", "60"),
                ("root.b.accessible-node-labels.gpu.capacity", "30"),
            ],
            "root.a.accessible-node-labels.gpu.capacity",
            "sum to 90",
        ),
        (
            vec![("root.a.accessible-node-labels.gpu.capacity", "12x")],
            "root.a.accessible-node-labels.gpu.capacity",
            "percentage",
        ),
        (
            vec![
                ("root.a.accessible-node-labels", "ssd"),
                ("root.a.accessible-node-labels.gpu.capacity", "100"),
            ],
            "root.a.accessible-node-labels.gpu.capacity",
            "may not use",
        ),
        (
            vec![
                ("root.accessible-node-labels", "ssd"),
                ("root.a.accessible-node-labels", "gpu"),
            ],
            "root.a.accessible-node-labels",
            "subset",
        ),
        (
            vec![
                ("root.b.accessible-node-labels", " "),
                ("root.b.default-node-label-expression", "gpu"),
            ],
            "root.b.default-node-label-expression",
            "may not use",
        ),
        (
            vec![("root.a.default-node-label-expression", "gpu||ssd")],
            "root.a.default-node-label-expression",
            "one label",
        ),
        (
            vec![("root.accessible-node-labels.gpu.capacity", "50")],
            "root.accessible-node-labels.gpu.capacity",
            "root has all",
        ),
    ] {
        let err = build(&extra).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains(key) && message.contains(says),
            "{extra:?}: {message}"
        );
        assert_eq!(
            err.key().as_deref(),
            Some(format!("yarn.scheduler.capacity.{key}").as_str()),
            "{message}"
        );
    }
}

#[test]
fn with_node_labels_disabled_every_node_is_in_the_default_partition() {
    let conf = must_conf(&[
        ("root.queues", "a"),
        ("root.a.capacity", "100"),
        ("root.a.accessible-node-labels", "gpu"),
    ]);
    let mut scheduler = must_scheduler(conf, 4, 4, 8);
    scheduler.set_node_labels(two_labels());
    assert!(scheduler.node_labels().is_empty());
    assert_eq!(scheduler.cluster_resource().memory_mb, 16 * GIB);
    must_start(&mut scheduler, 1, "a", "alice", 0);
    let err = scheduler
        .update_asks(attempt(1), &[labelled_ask(1, "gpu")], &[])
        .unwrap_err();
    assert!(
        err.to_string().contains("yarn.node-labels.enabled"),
        "{err}"
    );
}

#[test]
fn a_queue_default_label_the_cluster_lacks_refuses_submissions() {
    let mut scheduler = labelled_cluster(labelled_conf(&[
        ("root.a.accessible-node-labels", "gpu,spare,fpga"),
        ("root.a.default-node-label-expression", "fpga"),
    ]));
    let err = scheduler
        .submit_application(app(1), "a", "alice", &[], None)
        .unwrap_err();
    assert!(
        matches!(err, SchedulerError::InvalidLabelRequest { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("fpga"), "{err}");
    assert!(!scheduler.has_application(app(1)), "nothing was admitted");
    assert!(
        scheduler
            .check_application_labels(app(1), "a", "alice", "", "")
            .is_err(),
        "the submission check sees the queue's default too"
    );
}

#[test]
fn an_application_moves_only_to_a_queue_that_may_use_its_partition() {
    let mut scheduler = labelled_cluster(labelled_conf(&[]));
    scheduler
        .submit_application(app(1), "a", "alice", &[], None)
        .unwrap();
    scheduler.set_application_labels(app(1), "gpu", "").unwrap();
    let err = scheduler.check_move(app(1), "b").unwrap_err();
    assert!(err.to_string().contains("root.b"), "{err}");
    must_start(&mut scheduler, 2, "a", "alice", 0);
    assert_eq!(scheduler.check_move(app(2), "b").unwrap(), "root.b");
}

#[test]
fn am_limits_count_the_ams_of_their_own_partition() {
    // 10% AM share: 409 MB of the 4 GiB gpu partition rounds up to one 1 GiB AM there, as of
    // the 8 GiB default partition.
    let mut scheduler = labelled_cluster(labelled_conf(&[(
        "root.a.maximum-am-resource-percent",
        "0.1",
    )]));
    must_start(&mut scheduler, 1, "a", "alice", 0);
    schedule_until_idle(&mut scheduler);
    // A default-partition AM runs; a gpu AM is still let in, its partition running none.
    scheduler
        .submit_application(app(2), "a", "alice", &[], None)
        .unwrap();
    scheduler.set_application_labels(app(2), "gpu", "").unwrap();
    scheduler.add_attempt(attempt(2), gib(1)).unwrap();
    let placed = schedule_until_idle(&mut scheduler);
    assert_eq!(placed.len(), 1, "{placed:?}");
    assert_eq!(placed[0].node_id, node(2));
    // A second gpu AM waits for the first: the gpu partition's AM limit is used up.
    scheduler
        .submit_application(app(3), "a", "alice", &[], None)
        .unwrap();
    scheduler.set_application_labels(app(3), "gpu", "").unwrap();
    scheduler.add_attempt(attempt(3), gib(1)).unwrap();
    assert!(schedule_until_idle(&mut scheduler).is_empty());
    let pending = scheduler.application_status(app(3)).unwrap().pending_reason;
    assert!(pending.is_some(), "held back by the AM limit");
}
