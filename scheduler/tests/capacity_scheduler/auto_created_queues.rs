//! Flexible auto-creation of queues (TestCapacitySchedulerNewQueueAutoCreation): which
//! submissions create queues, what the templates make of them, and the limits.

use yarn_scheduler::{
    CapacitySchedulerConfiguration, CreatedQueues, CreationMethod, CreationRefused, Placement,
    QueueCapacity, SchedulerError, SchedulerSettings, Submission, created_queues, queues_to_create,
};

use crate::mock::*;

/// `root.default` and `root.users`, which creates queues; users are placed in
/// `root.users.<user>` by a legacy mapping.
const BASE: [(&str, &str); 8] = [
    ("root.queues", "default,users"),
    ("root.default.capacity", "50"),
    ("root.users.capacity", "50"),
    ("root.users.auto-queue-creation-v2.enabled", "true"),
    (
        "root.users.auto-queue-creation-v2.template.maximum-capacity",
        "60",
    ),
    (
        "root.users.auto-queue-creation-v2.leaf-template.maximum-applications",
        "7",
    ),
    (
        "root.users.auto-queue-creation-v2.parent-template.capacity",
        "3w",
    ),
    ("queue-mappings", "u:%user:root.users.%user"),
];

fn with(extra: &[(&'static str, &'static str)]) -> CapacitySchedulerConfiguration {
    let mut pairs = BASE.to_vec();
    pairs.extend_from_slice(extra);
    must_conf(&pairs)
}

fn placed(conf: &CapacitySchedulerConfiguration, user: &str) -> Result<Placement, String> {
    conf.placement_rules().place(
        conf,
        &Submission {
            user,
            groups: &[],
            application_name: "job",
            queue: "default",
        },
    )
}

/// `paths` as one submission creates them: parents first, the leaf last.
fn created(paths: &[&str]) -> CreatedQueues {
    created_queues(
        &paths
            .iter()
            .map(|path| (*path).to_owned())
            .collect::<Vec<_>>(),
    )
}

#[test]
fn a_placement_creates_a_leaf_the_templates_configure_and_the_scheduler_runs_it() {
    let conf = with(&[]);
    let users = conf.queue("root.users").unwrap();
    assert!(!users.is_leaf(), "a queue that creates queues is a parent");
    assert_eq!(
        placed(&conf, "alice").unwrap(),
        Placement::Placed {
            queue: "root.users.alice".to_owned(),
            rule: "u:%user:root.users.%user".to_owned(),
            created: vec!["root.users.alice".to_owned()],
        }
    );
    let grown = conf
        .with_dynamic_queues(created(&["root.users.alice"]))
        .unwrap();
    let alice = grown.queue("root.users.alice").unwrap();
    assert_eq!(alice.creation_method, CreationMethod::DynamicFlexible);
    assert_eq!(alice.capacity, QueueCapacity::Weight(1.0));
    assert_eq!(alice.maximum_capacity, QueueCapacity::Percentage(60.0));
    assert_eq!(alice.maximum_applications, Some(7));
    assert_eq!(alice.user_limit_factor, -1.0);
    assert_eq!(
        grown.properties(),
        conf.properties(),
        "the file is unchanged"
    );

    // The second submission finds the queue: nothing more is created.
    assert!(matches!(
        placed(&grown, "alice").unwrap(),
        Placement::Placed { created, .. } if created.is_empty()
    ));

    let mut scheduler = must_scheduler(conf, 1, 16, 16);
    scheduler.reinitialize(grown).unwrap();
    must_start(&mut scheduler, 1, "root.users.alice", "alice", 2);
    schedule_until_idle(&mut scheduler);
    assert_eq!(queue_gib(&scheduler, "root.users.alice"), 3);
}

#[test]
fn a_submission_may_create_parents_down_to_the_maximum_depth() {
    let conf = with(&[]);
    assert_eq!(
        queues_to_create(&conf, "root.users.eng.bob").unwrap(),
        ["root.users.eng", "root.users.eng.bob"]
    );
    let grown = conf
        .with_dynamic_queues(created(&["root.users.eng", "root.users.eng.bob"]))
        .unwrap();
    let eng = grown.queue("root.users.eng").unwrap();
    assert_eq!(
        eng.capacity,
        QueueCapacity::Weight(3.0),
        "the parent template"
    );
    assert!(
        eng.auto_queue_creation.is_some(),
        "a created parent creates"
    );
    assert_eq!(eng.maximum_capacity, QueueCapacity::Percentage(60.0));

    let Err(CreationRefused::Refused(reason)) = queues_to_create(&conf, "root.users.a.b.c") else {
        panic!("three levels below a queue of depth 2");
    };
    assert!(
        reason.contains("3 levels below root.users") && reason.contains("maximum-queue-depth is 2"),
        "{reason}"
    );
    let deeper = with(&[("root.users.auto-queue-creation-v2.maximum-queue-depth", "3")]);
    assert_eq!(
        queues_to_create(&deeper, "root.users.a.b.c").unwrap().len(),
        3
    );

    // Created parents count toward the depth, and are named again with a new leaf.
    assert_eq!(
        queues_to_create(&grown, "root.users.eng.carol").unwrap(),
        ["root.users.eng", "root.users.eng.carol"]
    );
    assert!(matches!(
        queues_to_create(&grown, "root.users.eng.ops.dave"),
        Err(CreationRefused::Refused(reason)) if reason.contains("3 levels below root.users")
    ));
    // A created parent whose children went stays a parent.
    let mut parent_only = created(&["root.users.eng", "root.users.eng.bob"]);
    parent_only.remove("root.users.eng.bob");
    let emptied = conf.with_dynamic_queues(parent_only).unwrap();
    let eng = emptied.queue("root.users.eng").unwrap();
    assert!(!eng.is_leaf(), "{eng:?}");
    assert_eq!(
        queues_to_create(&emptied, "root.users.eng.bob").unwrap(),
        ["root.users.eng", "root.users.eng.bob"]
    );
}

#[test]
fn max_queues_counts_every_child_and_refuses_in_hadoops_words() {
    let conf = with(&[("root.users.auto-queue-creation-v2.max-queues", "1")]);
    let grown = conf
        .with_dynamic_queues(created(&["root.users.alice"]))
        .unwrap();
    // A legacy entry falls back to the default queue.
    let Placement::Fallback { queue, reason, .. } = placed(&grown, "bob").unwrap() else {
        panic!("bob's queue cannot be created");
    };
    assert_eq!(queue, "root.default");
    assert_eq!(
        reason,
        "Cannot auto create queue root.users.bob. Max Child Queue limit exceeded which is \
         configured as: 1 and number of child queues is: 1"
    );
    // A queue that exists is still used.
    assert!(placed(&grown, "alice").is_ok());
}

#[test]
fn queues_that_create_nothing_keep_their_refusals() {
    let conf = with(&[]);
    assert_eq!(
        queues_to_create(&conf, "root.default.x"),
        Err(CreationRefused::NotDynamic)
    );
    assert_eq!(
        queues_to_create(&conf, "root.nowhere.x"),
        Err(CreationRefused::NotDynamic)
    );
    assert_eq!(queues_to_create(&conf, "root.default").unwrap().len(), 0);
    assert_eq!(
        queues_to_create(&conf, "root.users"),
        Err(CreationRefused::NotDynamic),
        "a parent is refused at admission, as before"
    );
}

#[test]
fn a_rule_whose_create_flag_is_false_takes_its_fallback() {
    let json = r#"{"rules": [{"type": "user", "matches": "*", "policy": "custom",
        "customPlacement": "root.users.%user", "create": false, "fallbackResult": "skip"}]}"#;
    let conf = with(&[("mapping-rule-format", "json"), ("mapping-rule-json", json)]);
    assert_eq!(placed(&conf, "alice").unwrap(), Placement::AsSubmitted);
}

#[test]
fn templates_that_configure_a_refused_queue_are_refused_when_the_file_loads() {
    // Legacy queue mode: a created queue's weight cannot sit beside percentage siblings.
    let mut pairs = BASE.to_vec();
    pairs.extend_from_slice(&[
        ("root.users.queues", "static"),
        ("root.users.static.capacity", "100"),
    ]);
    let err = CapacitySchedulerConfiguration::new(props(&pairs), SchedulerSettings::default())
        .unwrap_err();
    assert!(
        matches!(&err, SchedulerError::AutoCreatedQueueTemplate { parent, .. } if parent == "root.users"),
        "{err}"
    );
    let mut pairs = BASE.to_vec();
    pairs.push((
        "root.users.auto-queue-creation-v2.leaf-template.maximum-capacity",
        "x",
    ));
    let err = CapacitySchedulerConfiguration::new(props(&pairs), SchedulerSettings::default())
        .unwrap_err();
    assert!(err.to_string().contains("maximum-capacity"), "{err}");
}

#[test]
fn a_created_queue_the_file_lists_since_is_the_configured_one() {
    let conf = with(&[
        ("root.users.queues", "alice"),
        ("root.users.alice.capacity", "1w"),
        ("root.users.alice.maximum-capacity", "30"),
    ]);
    let kept = conf
        .with_dynamic_queues(created(&["root.users.alice"]))
        .unwrap();
    let alice = kept.queue("root.users.alice").unwrap();
    assert_eq!(alice.creation_method, CreationMethod::Static);
    assert_eq!(alice.maximum_capacity, QueueCapacity::Percentage(30.0));
}

#[test]
fn a_created_queue_whose_parent_no_longer_creates_is_gone_with_a_warning() {
    let conf = must_conf(&[
        ("root.queues", "default,users"),
        ("root.default.capacity", "50"),
        ("root.users.capacity", "50"),
    ]);
    let kept = conf
        .with_dynamic_queues(created(&["root.users.alice"]))
        .unwrap();
    assert!(kept.queue("root.users.alice").is_none());
    assert!(kept.dynamic_queues().is_empty());
    assert!(
        kept.warnings()
            .iter()
            .any(|w| w.contains("root.users.alice is gone")),
        "{:?}",
        kept.warnings()
    );
}

#[test]
fn templates_give_created_leaves_label_capacities_within_their_parents() {
    let labelled = [
        ("root.accessible-node-labels", "gpu"),
        ("root.accessible-node-labels.gpu.capacity", "100"),
        ("root.users.accessible-node-labels", "gpu"),
        ("root.users.accessible-node-labels.gpu.capacity", "100"),
        (
            "root.users.auto-queue-creation-v2.leaf-template.accessible-node-labels",
            "gpu",
        ),
        (
            "root.users.auto-queue-creation-v2.leaf-template.accessible-node-labels.gpu.capacity",
            "40",
        ),
    ];
    let conf = with(&labelled);
    let two = conf
        .with_dynamic_queues(created(&["root.users.alice"]))
        .and_then(|one| {
            let mut both = one.dynamic_queues().clone();
            both.extend(created(&["root.users.bob"]));
            conf.with_dynamic_queues(both)
        })
        .unwrap();
    let gpu = |path: &str| {
        two.queue(path)
            .unwrap()
            .node_labels
            .capacity("gpu")
            .capacity
    };
    assert_eq!(gpu("root.users.alice"), 40.0);
    assert_eq!(gpu("root.users.bob"), 40.0);
    // A third would promise 120 percent of the parent's partition: it is refused.
    let mut three = two.dynamic_queues().clone();
    three.extend(created(&["root.users.carol"]));
    let err = conf.with_dynamic_queues(three).unwrap_err();
    assert!(err.to_string().contains("label gpu"), "{err}");
}
