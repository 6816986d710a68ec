//! Legacy auto-creation of leaf queues (TestCapacitySchedulerAutoQueueCreation): managed
//! parents, their leaf templates, and which leaves hold their capacity.

use std::collections::BTreeSet;

use yarn_scheduler::{
    CapacitySchedulerConfiguration, CreatedAs, CreatedQueues, CreationMethod, CreationRefused,
    Placement, QueueCapacity, SchedulerError, SchedulerSettings, Submission, kept_from_removal,
    queues_to_create,
};

use crate::mock::*;

/// `root.default` and `root.managed`, a managed parent whose leaves hold 40 percent of it
/// each; users are placed in `root.managed.<user>` by a legacy mapping.
const BASE: [(&str, &str); 9] = [
    ("root.queues", "default,managed"),
    ("root.default.capacity", "50"),
    ("root.managed.capacity", "50"),
    ("root.managed.auto-create-child-queue.enabled", "true"),
    ("root.managed.leaf-queue-template.capacity", "40"),
    ("root.managed.leaf-queue-template.maximum-capacity", "80"),
    ("root.managed.leaf-queue-template.user-limit-factor", "3.0"),
    ("root.managed.leaf-queue-template.ordering-policy", "fair"),
    ("queue-mappings", "u:%user:root.managed.%user"),
];

fn with(
    extra: &[(&'static str, &'static str)],
) -> Result<CapacitySchedulerConfiguration, SchedulerError> {
    let mut pairs = BASE.to_vec();
    pairs.extend_from_slice(extra);
    CapacitySchedulerConfiguration::new(props(&pairs), SchedulerSettings::default())
}

fn leaves(kinds: &[(&str, CreatedAs)]) -> CreatedQueues {
    kinds
        .iter()
        .map(|(path, kind)| ((*path).to_owned(), *kind))
        .collect()
}

#[test]
fn a_mapping_creates_a_leaf_the_template_configures_with_its_capacity_or_none() {
    let conf = with(&[]).unwrap();
    let managed = conf.queue("root.managed").unwrap();
    assert!(
        !managed.is_leaf(),
        "a managed parent is a parent before it has leaves"
    );
    let placement = conf
        .placement_rules()
        .place(
            &conf,
            &Submission {
                user: "alice",
                groups: &[],
                application_name: "job",
                queue: "default",
            },
        )
        .unwrap();
    assert_eq!(
        placement,
        Placement::Placed {
            queue: "root.managed.alice".to_owned(),
            rule: "u:%user:root.managed.%user".to_owned(),
            created: vec!["root.managed.alice".to_owned()],
        }
    );

    let grown = conf
        .with_dynamic_queues(leaves(&[
            ("root.managed.alice", CreatedAs::GuaranteedLeaf),
            ("root.managed.bob", CreatedAs::Leaf),
        ]))
        .unwrap();
    let alice = grown.queue("root.managed.alice").unwrap();
    assert_eq!(alice.creation_method, CreationMethod::DynamicLegacy);
    assert_eq!(alice.capacity, QueueCapacity::Percentage(40.0));
    assert_eq!(alice.maximum_capacity, QueueCapacity::Percentage(80.0));
    assert_eq!(alice.user_limit_factor, 3.0);
    assert!((alice.absolute_capacity - 20.0).abs() < 1e-9, "40% of 50%");
    let bob = grown.queue("root.managed.bob").unwrap();
    assert_eq!(bob.capacity, QueueCapacity::Percentage(0.0), "no guarantee");
    assert_eq!(bob.maximum_capacity, QueueCapacity::Percentage(80.0));
    assert_eq!(
        grown.properties(),
        conf.properties(),
        "the file is unchanged"
    );

    // The activated leaf runs its user's work; the other takes applications by its template's
    // share, which wait for its capacity.
    let mut scheduler = must_scheduler(conf, 1, 16, 16);
    scheduler.reinitialize(grown).unwrap();
    must_start(&mut scheduler, 1, "root.managed.alice", "alice", 2);
    must_start(&mut scheduler, 2, "root.managed.bob", "bob", 2);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "root.managed.alice"), 3);
    let infos = scheduler.queue_infos();
    let info = |path: &str| infos.iter().find(|info| info.queue_path == path).unwrap();
    assert_eq!(info("root.managed").auto_creation_eligibility, "legacy");
    assert_eq!(info("root.managed.bob").auto_creation_eligibility, "off");
    // 10,000 applications scaled by the template's 40 percent of root.managed's 50.
    assert_eq!(info("root.managed.bob").maximum_applications, 2_000);
    assert_eq!(info("root.managed.alice").maximum_applications, 2_000);
}

#[test]
fn leaves_hold_their_capacity_only_while_the_parent_has_room() {
    let conf = with(&[]).unwrap();
    // A template raised since (or a race) cannot take the parent over: the first two in path
    // order hold 40 percent each, the third none.
    let grown = conf
        .with_dynamic_queues(leaves(&[
            ("root.managed.a", CreatedAs::GuaranteedLeaf),
            ("root.managed.b", CreatedAs::GuaranteedLeaf),
            ("root.managed.c", CreatedAs::GuaranteedLeaf),
        ]))
        .unwrap();
    let capacity = |path: &str| grown.queue(path).unwrap().capacity;
    assert_eq!(capacity("root.managed.a"), QueueCapacity::Percentage(40.0));
    assert_eq!(capacity("root.managed.b"), QueueCapacity::Percentage(40.0));
    assert_eq!(capacity("root.managed.c"), QueueCapacity::Percentage(0.0));
}

#[test]
fn a_managed_parent_creates_one_leaf_directly_under_it_only() {
    let conf = with(&[]).unwrap();
    assert_eq!(
        queues_to_create(&conf, "root.managed.carol").unwrap(),
        ["root.managed.carol"]
    );
    let Err(CreationRefused::Refused(reason)) = queues_to_create(&conf, "root.managed.eng.carol")
    else {
        panic!("two levels under a managed parent must be refused");
    };
    assert!(
        reason.contains("root.managed is a managed parent") && reason.contains("directly"),
        "{reason}"
    );
    // Its limits: max-queues, and with fail-on-exceeding-parent-capacity, room for the leaf.
    let limited = with(&[
        ("root.managed.auto-create-child-queue.max-queues", "3"),
        (
            "root.managed.auto-create-child-queue.fail-on-exceeding-parent-capacity",
            "true",
        ),
    ])
    .unwrap();
    let one = limited
        .with_dynamic_queues(leaves(&[("root.managed.a", CreatedAs::GuaranteedLeaf)]))
        .unwrap();
    assert_eq!(
        queues_to_create(&one, "root.managed.b").unwrap(),
        ["root.managed.b"]
    );
    let full = limited
        .with_dynamic_queues(leaves(&[
            ("root.managed.a", CreatedAs::GuaranteedLeaf),
            ("root.managed.b", CreatedAs::GuaranteedLeaf),
        ]))
        .unwrap();
    let Err(CreationRefused::Refused(reason)) = queues_to_create(&full, "root.managed.c") else {
        panic!("two leaves of 40 percent leave no room for a third");
    };
    assert!(
        reason.contains("fail-on-exceeding-parent-capacity"),
        "{reason}"
    );
    let counted = limited
        .with_dynamic_queues(leaves(&[
            ("root.managed.a", CreatedAs::GuaranteedLeaf),
            ("root.managed.b", CreatedAs::Leaf),
            ("root.managed.c", CreatedAs::Leaf),
        ]))
        .unwrap();
    let Err(CreationRefused::Refused(reason)) = queues_to_create(&counted, "root.managed.d") else {
        panic!("max-queues 3");
    };
    assert!(reason.contains("max-queues (3)"), "{reason}");

    // A managed parent's leaf is never a parent, and a parent created under a queue made a
    // managed parent since may be removed.
    assert_eq!(
        kept_from_removal(
            conf.properties(),
            &leaves(&[
                ("root.managed.a", CreatedAs::Leaf),
                ("root.managed.eng", CreatedAs::Parent),
            ])
        ),
        BTreeSet::from(["root.managed.a".to_owned()])
    );
    let kept = conf
        .with_dynamic_queues(leaves(&[("root.managed.eng", CreatedAs::Parent)]))
        .unwrap();
    assert!(kept.queue("root.managed.eng").is_none());
    assert!(
        kept.warnings()
            .iter()
            .any(|w| w.contains("creates only leaves")),
        "{:?}",
        kept.warnings()
    );
}

#[test]
fn hadoops_rules_on_managed_parents_are_kept_when_the_file_loads() {
    let cases: [(&[(&str, &str)], &str); 5] = [
        (
            &[
                ("root.managed.queues", "static"),
                ("root.managed.static.capacity", "100"),
            ],
            "may have no configured child queue, but it lists root.managed.static",
        ),
        (
            &[("root.managed.auto-queue-creation-v2.enabled", "true")],
            "both the legacy way",
        ),
        (
            &[("root.managed.leaf-queue-template.capacity", "")],
            "root.managed.leaf-queue-template.capacity",
        ),
        (
            &[(
                "root.managed.leaf-queue-template.capacity",
                "[memory=1024,vcores=1]",
            )],
            "a percentage above 0",
        ),
        (
            &[(
                "root.managed.auto-create-child-queue.management-policy",
                "com.example.Other",
            )],
            "GuaranteedOrZeroCapacityOverTimePolicy",
        ),
    ];
    for (extra, says) in cases {
        let err = with(extra).unwrap_err();
        assert!(err.to_string().contains(says), "{extra:?}: {err}");
    }
    // A template that configures a refused leaf is refused as the file loads.
    let err = with(&[("root.managed.leaf-queue-template.maximum-capacity", "30")]).unwrap_err();
    assert!(
        matches!(&err, SchedulerError::AutoCreatedQueueTemplate { parent, legacy: true, .. }
            if parent == "root.managed"),
        "{err}"
    );
    assert!(err.to_string().contains("leaf-queue-template.*"), "{err}");
    // A template or a setting under a queue that is no managed parent configures nothing,
    // and says so.
    let conf = with(&[
        ("root.default.leaf-queue-template.capacity", "10"),
        ("root.default.auto-create-child-queue.max-queues", "3"),
    ])
    .unwrap();
    for key in [
        "leaf-queue-template.capacity",
        "auto-create-child-queue.max-queues",
    ] {
        assert!(
            conf.warnings()
                .iter()
                .any(|w| w.contains(key) && w.contains("root.default is no managed parent")),
            "{key}: {:?}",
            conf.warnings()
        );
    }
}

#[test]
fn a_template_gives_label_capacities_that_a_leaf_without_capacity_gives_up() {
    let conf = with(&[
        ("root.accessible-node-labels", "gpu"),
        ("root.accessible-node-labels.gpu.capacity", "100"),
        ("root.managed.accessible-node-labels", "gpu"),
        ("root.managed.accessible-node-labels.gpu.capacity", "100"),
        (
            "root.managed.leaf-queue-template.accessible-node-labels",
            "gpu",
        ),
        (
            "root.managed.leaf-queue-template.accessible-node-labels.gpu.capacity",
            "30",
        ),
    ])
    .unwrap();
    let grown = conf
        .with_dynamic_queues(leaves(&[
            ("root.managed.a", CreatedAs::GuaranteedLeaf),
            ("root.managed.b", CreatedAs::Leaf),
        ]))
        .unwrap();
    let gpu = |path: &str| {
        grown
            .queue(path)
            .unwrap()
            .node_labels
            .capacity("gpu")
            .capacity
    };
    assert_eq!(gpu("root.managed.a"), 30.0);
    assert_eq!(gpu("root.managed.b"), 0.0);
    assert!(
        grown
            .queue("root.managed.b")
            .unwrap()
            .node_labels
            .can_access("gpu")
    );
}
