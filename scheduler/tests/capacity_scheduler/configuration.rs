//! Building the hierarchy from `capacity-scheduler.xml` properties: keys that name no queue,
//! capacity modes, defaults and ACL inheritance (TestQueueParsing,
//! TestCapacitySchedulerConfiguration).

use yarn_scheduler::{
    CapacitySchedulerConfiguration, QueueAcl, QueueCapacity, SchedulerError, SchedulerSettings,
};

use crate::mock::*;

const TWO_QUEUES: [(&str, &str); 5] = [
    ("root.queues", "a,b"),
    ("root.a.capacity", "40"),
    ("root.b.capacity", "60"),
    ("root.a.queues", "a1"),
    ("root.a.a1.capacity", "100"),
];

fn build(extra: &[(&str, &str)]) -> Result<CapacitySchedulerConfiguration, SchedulerError> {
    let mut pairs = TWO_QUEUES.to_vec();
    pairs.extend_from_slice(extra);
    CapacitySchedulerConfiguration::new(props(&pairs), SchedulerSettings::default())
}

fn must_build(extra: &[(&str, &str)]) -> CapacitySchedulerConfiguration {
    build(extra).expect("valid configuration")
}

fn acls_enabled() -> SchedulerSettings {
    SchedulerSettings {
        acl_enable: true,
        ..SchedulerSettings::default()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn a_key_for_a_queue_its_parent_does_not_list_is_refused() {
    let err = build(&[("root.c.capacity", "10")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "key yarn.scheduler.capacity.root.c.capacity: queue root.c is not part of the queue \
         hierarchy (yarn.scheduler.capacity.root.queues = \"a,b\" does not list c)"
    );
    match err {
        SchedulerError::QueueNotInHierarchy {
            key,
            queue,
            parent,
            listed,
        } => {
            assert_eq!(key, "yarn.scheduler.capacity.root.c.capacity");
            assert_eq!((queue.as_str(), parent.as_str()), ("root.c", "root"));
            assert_eq!(listed, "a,b");
        }
        other => panic!("expected QueueNotInHierarchy, got {other:?}"),
    }

    // Whatever the property, and however deep below the missing queue.
    for (key, queue, parent, child) in [
        ("root.c.queues", "root.c", "root", "c"),
        ("root.c.acl_submit_applications", "root.c", "root", "c"),
        ("root.c.user-settings.alice.weight", "root.c", "root", "c"),
        ("root.c.d.maximum-capacity", "root.c.d", "root", "c"),
        ("root.a.x.state", "root.a.x", "root.a", "x"),
        (
            "root.a.a1.deep.capacity",
            "root.a.a1.deep",
            "root.a.a1",
            "deep",
        ),
    ] {
        let err = build(&[(key, "50")]).unwrap_err();
        let message = err.to_string();
        match err {
            SchedulerError::QueueNotInHierarchy {
                key: k,
                queue: q,
                parent: p,
                ..
            } => {
                assert_eq!(k, format!("yarn.scheduler.capacity.{key}"));
                assert_eq!((q.as_str(), p.as_str()), (queue, parent));
                assert!(
                    message.ends_with(&format!(" does not list {child})")),
                    "{message}"
                );
            }
            other => panic!("{key}: expected QueueNotInHierarchy, got {other:?}"),
        }
    }
    // A leaf lists no children.
    let message = build(&[("root.a.a1.deep.capacity", "1")])
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("yarn.scheduler.capacity.root.a.a1.queues = \"\" does not list deep"),
        "{message}"
    );
}

#[test]
fn global_keys_are_read_and_keys_not_honoured_are_warned_about_by_name() {
    let conf = must_build(&[
        ("maximum-applications", "500"),
        ("maximum-am-resource-percent", "0.2"),
        (
            "resource-calculator",
            "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator",
        ),
        ("max-parallel-apps", "50"),
        ("user.max-parallel-apps", "5"),
        ("user.bob.max-parallel-apps", "2"),
        // Directory user names carry dots, as Hadoop reads them.
        ("user.first.last.max-parallel-apps", "3"),
        ("root.b.user-settings.first.last.weight", "2.5"),
        ("user-settings.carol.max-parallel-apps", "1"),
        ("minimum-user-limit-percent", "50"),
        ("user-limit-factor", "2"),
        // Hadoop keys the scheduler does not honour, set to values it need not refuse.
        ("per-node-heartbeat.multiple-assignments-enabled", "true"),
        ("root.a.leaf-queue-template.capacity", "10"),
        ("root.b.ordering-policy", "fifo"),
        ("root.b.maximum-application-lifetime", "-1"),
        // A typo.
        ("root.a.capcity", "10"),
    ]);
    assert_eq!(conf.maximum_applications(), 500);
    assert_eq!(conf.user_max_parallel_apps("bob"), Some(2));
    assert_eq!(conf.user_max_parallel_apps("first.last"), Some(3));
    assert_eq!(conf.queue("root.b").unwrap().user_weight("first.last"), 2.5);
    assert_eq!(conf.queues().count(), 4);
    let warnings = conf.warnings();
    assert_eq!(warnings.len(), 3, "{warnings:#?}");
    for (key, says) in [
        (
            "yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled",
            "is not honoured",
        ),
        (
            "yarn.scheduler.capacity.root.a.leaf-queue-template.capacity",
            "root.a is no managed parent",
        ),
        (
            "yarn.scheduler.capacity.root.a.capcity",
            "not a key yarn-ha knows",
        ),
    ] {
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with(&format!("{key} ")) && w.contains(says)),
            "{key}: {warnings:#?}"
        );
    }
}

#[test]
fn keys_whose_promise_the_scheduler_cannot_keep_are_refused_by_name() {
    for (key, value, says) in [
        (
            "root.a.allow-zero-capacity-sum",
            "true",
            "percentage children sum to 100",
        ),
        (
            "root.a.acl_application_max_priority",
            "[user=alice max_priority=5]",
            "limits on application priorities",
        ),
    ] {
        let err = build(&[(key, value)]).unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(&err, SchedulerError::UnhonouredKey { key: k, .. }
                if *k == format!("yarn.scheduler.capacity.{key}")),
            "{message}"
        );
        assert!(
            message.starts_with(&format!(
                "key yarn.scheduler.capacity.{key}: value {value:?} is refused: "
            )) && message.contains(says),
            "{message}"
        );
    }
}

#[test]
fn percentages_keep_their_configured_form() {
    let conf = must_build(&[("root.a.maximum-capacity", "60.5")]);
    let a = conf.queue("root.a").unwrap();
    assert_eq!(a.capacity, QueueCapacity::Percentage(40.0));
    assert_eq!(a.maximum_capacity, QueueCapacity::Percentage(60.5));
    assert!(close(a.absolute_capacity, 40.0));
    assert_eq!(conf.queue("root").unwrap().capacity, QueueCapacity::FULL);
}

#[test]
fn maximum_capacity_minus_one_means_all_of_the_parent() {
    let conf = must_build(&[
        ("root.a.maximum-capacity", "-1"),
        ("root.b.maximum-capacity", "80"),
        ("root.b.queues", "b1"),
        ("root.b.b1.capacity", "100"),
        ("root.b.b1.maximum-capacity", "-1"),
    ]);
    let a = conf.queue("root.a").unwrap();
    assert_eq!(a.maximum_capacity, QueueCapacity::FULL);
    assert!(close(a.absolute_maximum_capacity, 100.0));
    let b1 = conf.queue("root.b.b1").unwrap();
    assert_eq!(b1.maximum_capacity, QueueCapacity::FULL);
    assert!(
        close(b1.absolute_maximum_capacity, 80.0),
        "all of a parent that may use 80%"
    );

    let scheduler = must_scheduler(conf, 2, 10, 10);
    let info = scheduler.queue_info("a").unwrap();
    assert!(close(info.maximum_capacity, 100.0));
    assert_eq!(info.maximum_resource.memory_mb, 20 * GIB);
}

#[test]
fn unset_acls_are_reported_as_inherited_and_root_defaults_to_everyone() {
    let conf = must_build(&[
        ("root.a.acl_submit_applications", "alice devs"),
        ("root.b.acl_administer_queue", " "),
    ]);
    let own =
        |path: &str, acl: QueueAcl| conf.queue(path).unwrap().acl(acl).map(ToString::to_string);
    assert_eq!(
        own("root", QueueAcl::SubmitApplications).as_deref(),
        Some("*")
    );
    assert_eq!(own("root", QueueAcl::AdministerQueue).as_deref(), Some("*"));
    assert_eq!(
        own("root.a", QueueAcl::SubmitApplications).as_deref(),
        Some("alice devs")
    );
    assert_eq!(own("root.a", QueueAcl::AdministerQueue), None);
    assert_eq!(own("root.a.a1", QueueAcl::SubmitApplications), None);
    assert_eq!(
        own("root.b", QueueAcl::AdministerQueue).as_deref(),
        Some(" ")
    );

    let scheduler = must_scheduler(conf, 1, 10, 10);
    let report = |queue: &str| {
        let info = scheduler.queue_info(queue).unwrap();
        (info.acl_submit_applications, info.acl_administer_queue)
    };
    assert_eq!(report("root"), (Some("*".into()), Some("*".into())));
    assert_eq!(report("a"), (Some("alice devs".into()), None));
    assert_eq!(report("a1"), (None, None), "nothing of its own: inherited");
    assert_eq!(report("b"), (None, Some(" ".into())), "nobody, configured");
}

#[test]
fn with_acls_enabled_and_none_configured_everyone_may_submit_and_administer() {
    let pairs = TWO_QUEUES.to_vec();
    let scheduler = must_scheduler(must_conf_with(&pairs, acls_enabled()), 1, 10, 10);
    for queue in ["a1", "b"] {
        for acl in [QueueAcl::SubmitApplications, QueueAcl::AdministerQueue] {
            scheduler
                .check_access(queue, acl, "anyone", &[])
                .expect("root's default `*` is inherited");
        }
    }

    // Closing root's submit list alone changes nothing: root's administer list is still `*`,
    // and administering implies submitting.
    let mut closed = TWO_QUEUES.to_vec();
    closed.push(("root.acl_submit_applications", " "));
    let scheduler = must_scheduler(must_conf_with(&closed, acls_enabled()), 1, 10, 10);
    scheduler
        .check_access("b", QueueAcl::SubmitApplications, "anyone", &[])
        .expect("administer `*` implies submit");

    closed.push(("root.acl_administer_queue", " "));
    closed.push(("root.a.acl_submit_applications", "alice"));
    let mut scheduler = must_scheduler(must_conf_with(&closed, acls_enabled()), 1, 10, 10);
    assert!(matches!(
        scheduler.submit_application(app(1), "b", "anyone", &[], None),
        Err(SchedulerError::AccessDenied {
            right: QueueAcl::SubmitApplications,
            ..
        })
    ));
    scheduler
        .submit_application(app(2), "a1", "alice", &[], None)
        .expect("root.a's list is inherited by a1");
}

#[test]
fn global_user_limits_apply_to_queues_without_their_own() {
    let conf = must_build(&[
        ("minimum-user-limit-percent", "25"),
        ("user-limit-factor", "2.5"),
        ("root.b.minimum-user-limit-percent", "50"),
        ("root.a.a1.user-limit-factor", "-1"),
    ]);
    let a1 = conf.queue("root.a.a1").unwrap();
    assert!(close(a1.minimum_user_limit_percent, 25.0));
    assert!(close(a1.user_limit_factor, -1.0));
    let b = conf.queue("root.b").unwrap();
    assert!(close(b.minimum_user_limit_percent, 50.0));
    assert!(close(b.user_limit_factor, 2.5));

    // b is guaranteed 4 of 20 GiB; the global factor lets its single user grow to 2.5 x 4 GiB
    // = 10 GiB, plus one container (5 GiB with the default factor of 1).
    let mut scheduler = must_scheduler(
        must_conf(&[
            ("root.queues", "a,b"),
            ("root.a.capacity", "80"),
            ("root.b.capacity", "20"),
            ("user-limit-factor", "2.5"),
            ("maximum-am-resource-percent", "1.0"),
        ]),
        1,
        20,
        64,
    );
    let info = scheduler.queue_info("b").unwrap();
    assert!(close(info.user_limit_factor, 2.5));
    must_start(&mut scheduler, 1, "b", "bob", 100);
    schedule_until_idle(&mut scheduler);
    assert_eq!(app_gib(&scheduler, 1), 11);
}

#[test]
fn a_queue_maximum_am_resource_percent_overrides_the_global_one() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("maximum-am-resource-percent", "0.1"),
        ("root.b.maximum-am-resource-percent", "0.3"),
    ]);
    assert!(close(
        conf.queue("root.a").unwrap().maximum_am_resource_percent,
        0.1
    ));
    assert!(close(
        conf.queue("root.b").unwrap().maximum_am_resource_percent,
        0.3
    ));
    let mut scheduler = must_scheduler(conf, 1, 10, 10);
    // Each queue may grow to the whole 10 GiB: 10% of it is 1 GiB for a, 30% is 3 GiB for b.
    assert_eq!(
        scheduler
            .queue_info("a")
            .unwrap()
            .am_resource_limit
            .memory_mb,
        GIB
    );
    assert_eq!(
        scheduler
            .queue_info("b")
            .unwrap()
            .am_resource_limit
            .memory_mb,
        3 * GIB
    );
    // One user per application, so that only the queue AM limits bind.
    for n in 1..=4 {
        must_start(&mut scheduler, n, "b", &format!("b-user{n}"), 0);
        must_start(&mut scheduler, 10 + n, "a", &format!("a-user{n}"), 0);
    }
    let active = |queue: &str| scheduler.queue_info(queue).unwrap().num_active_applications;
    assert_eq!((active("a"), active("b")), (1, 3));
}

/// A key refused now may have been committed by an earlier version: the queues in force keep
/// scheduling, with the key named as ignored.
#[test]
fn a_committed_configuration_keeps_a_refused_key_as_a_warning() {
    let mut pairs = TWO_QUEUES.to_vec();
    pairs.push(("root.a.acl_application_max_priority", "alice"));
    assert!(
        CapacitySchedulerConfiguration::new(props(&pairs), SchedulerSettings::default()).is_err()
    );
    let conf =
        CapacitySchedulerConfiguration::committed(props(&pairs), SchedulerSettings::default())
            .expect("a committed configuration is built");
    assert_eq!(conf.warnings().len(), 1, "{:?}", conf.warnings());
    assert!(
        conf.warnings()[0].starts_with(
            "yarn.scheduler.capacity.root.a.acl_application_max_priority = \"alice\" is in \
             force from an earlier commit but ignored: "
        ),
        "{:?}",
        conf.warnings()
    );
}

/// The keys of the `capacity-scheduler.xml` Hadoop ships, with its values: the file loads, and
/// each key it holds that yarn-ha does not honour is named in a warning, none refused.
#[test]
fn the_keys_hadoop_ships_load_with_a_warning_for_each_one_not_honoured() {
    let shipped = [
        ("maximum-applications", "10000"),
        ("maximum-am-resource-percent", "0.1"),
        (
            "resource-calculator",
            "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator",
        ),
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("root.default.user-limit-factor", "1"),
        ("root.default.maximum-capacity", "100"),
        ("root.default.state", "RUNNING"),
        ("root.default.acl_submit_applications", "*"),
        ("root.default.acl_administer_queue", "*"),
        ("root.default.acl_application_max_priority", "*"),
        ("root.default.maximum-application-lifetime", "-1"),
        ("root.default.default-application-lifetime", "-1"),
        ("node-locality-delay", "40"),
        ("rack-locality-additional-delay", "-1"),
        ("queue-mappings", ""),
        ("queue-mappings-override.enable", "false"),
        ("per-node-heartbeat.maximum-offswitch-assignments", "1"),
        ("application.fail-fast", "false"),
        ("workflow-priority-mappings", ""),
        ("workflow-priority-mappings-override.enable", "false"),
    ];
    let conf = CapacitySchedulerConfiguration::new(props(&shipped), SchedulerSettings::default())
        .expect("Hadoop's shipped file loads");
    let warned: Vec<&str> = conf
        .warnings()
        .iter()
        .map(|warning| warning.split_whitespace().next().unwrap_or_default())
        .collect();
    assert_eq!(
        warned,
        [
            "yarn.scheduler.capacity.application.fail-fast",
            "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments",
            "yarn.scheduler.capacity.workflow-priority-mappings-override.enable",
        ]
    );
}

/// Lifetimes as Hadoop resolves them (TestApplicationLifetimeMonitor's queue settings): a
/// maximum inherited, a default under it, a default above it refused at its key, a default
/// without any maximum kept with a warning.
#[test]
fn application_lifetimes_are_inherited_and_a_default_needs_a_maximum() {
    let conf = must_build(&[
        ("root.maximum-application-lifetime", "3600"),
        ("root.a.default-application-lifetime", "600"),
        ("root.b.maximum-application-lifetime", "0"),
    ]);
    let lifetime = |path: &str| conf.queue(path).unwrap().application_lifetime;
    let a1 = lifetime("root.a.a1");
    assert_eq!(
        (a1.maximum_secs(), a1.default_secs()),
        (Some(3600), Some(600))
    );
    assert_eq!(a1.granted(Some(7200)), Some(3600));
    let b = lifetime("root.b");
    assert_eq!((b.maximum_secs(), b.granted(None)), (None, None));
    assert!(conf.warnings().is_empty(), "{:?}", conf.warnings());

    let err = build(&[
        ("root.a.maximum-application-lifetime", "60"),
        ("root.a.a1.default-application-lifetime", "120"),
    ])
    .unwrap_err();
    assert_eq!(
        err.key().as_deref(),
        Some("yarn.scheduler.capacity.root.a.a1.default-application-lifetime")
    );
    assert!(
        err.to_string()
            .contains("Default lifetime 120 can't exceed maximum lifetime 60"),
        "{err}"
    );
    let err = build(&[("root.b.maximum-application-lifetime", "1h")]).unwrap_err();
    assert!(matches!(err, SchedulerError::InvalidValue { .. }), "{err}");

    let warned = must_build(&[("root.a.default-application-lifetime", "600")]);
    let warnings = warned.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(
            "yarn.scheduler.capacity.root.a.a1.default-application-lifetime (set here or on an \
             ancestor) takes effect only under a maximum-application-lifetime"
        ),
        "{warnings:?}"
    );
}
