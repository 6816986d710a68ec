//! Resource calculators, normalization and maximum allocations (TestCapacityScheduler
//! #testValidateRequest..., TestLeafQueue with DominantResourceCalculator).

use yarn_scheduler::{
    Resource, ResourceCalculator, ResourceRequest, SchedulerError, SchedulerSettings,
};

use crate::mock::*;

fn skewed_cluster(calculator: ResourceCalculator) -> yarn_scheduler::CapacityScheduler {
    let settings = SchedulerSettings {
        maximum_allocation: Resource::new(8192, 16),
        ..SchedulerSettings::default()
    };
    let calculator_pair = ("resource-calculator", calculator.class_name());
    let conf = must_conf_with(
        &[
            ("root.queues", "a,b"),
            ("root.a.capacity", "50"),
            ("root.a.maximum-capacity", "50"),
            ("root.b.capacity", "50"),
            calculator_pair,
        ],
        settings,
    );
    must_scheduler(conf, 1, 100, 100)
}

/// Core-heavy containers: the memory-only calculator sees a nearly idle queue and grants
/// one core each; DRF charges the cores and stops the queue at half the cluster's cores.
#[test]
fn dominant_resource_fairness_limits_core_heavy_queues_and_memory_only_does_not() {
    let core_heavy = ResourceRequest::any(1, Resource::new(1024, 10), 100);

    let mut memory_only = skewed_cluster(ResourceCalculator::Default);
    must_start(&mut memory_only, 1, "a", "alice", 0);
    must_ask(&mut memory_only, 1, core_heavy.clone());
    let placed = schedule_until_idle(&mut memory_only);
    assert!(placed.iter().all(|a| a.resource == Resource::new(1024, 1)));
    assert_eq!(app_gib(&memory_only, 1), 50, "memory-only: half the memory");

    let mut drf = skewed_cluster(ResourceCalculator::DominantResource);
    must_start(&mut drf, 1, "a", "alice", 0);
    must_ask(&mut drf, 1, core_heavy);
    let placed = schedule_until_idle(&mut drf);
    let tasks: Vec<_> = placed.iter().filter(|a| !a.is_am).collect();
    assert!(tasks.iter().all(|a| a.resource == Resource::new(1024, 10)));
    // AM (1 GiB, 1 core) + 4 tasks = 41 cores; a fifth would pass a's 50 cores.
    assert_eq!(tasks.len(), 4);
    let info = drf.queue_info("a").unwrap();
    assert_eq!(info.resources_used, Resource::new(5 * 1024, 41));
    assert!(
        (info.absolute_used_capacity - 41.0).abs() < 1e-9,
        "dominant share is cores"
    );
}

/// Under DRF the queue further below its guarantee is judged by its dominant share.
#[test]
fn drf_orders_queues_by_dominant_share() {
    let mut drf = skewed_cluster(ResourceCalculator::DominantResource);
    must_start(&mut drf, 1, "a", "alice", 0);
    must_ask(
        &mut drf,
        1,
        ResourceRequest::any(1, Resource::new(1024, 10), 2),
    );
    must_start(&mut drf, 2, "b", "bob", 0);
    must_ask(
        &mut drf,
        2,
        ResourceRequest::any(1, Resource::new(2048, 1), 2),
    );
    schedule_until_idle(&mut drf);
    let a = drf.queue_info("a").unwrap();
    let b = drf.queue_info("b").unwrap();
    assert_eq!(a.resources_used, Resource::new(3 * 1024, 21));
    assert_eq!(b.resources_used, Resource::new(5 * 1024, 3));
    assert!(
        a.used_capacity > b.used_capacity,
        "a's cores dominate: {a:?} {b:?}"
    );
}

#[test]
fn asks_are_normalized_up_to_the_minimum_allocation() {
    let conf = must_conf(&[
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        (
            "resource-calculator",
            ResourceCalculator::DOMINANT_RESOURCE_CLASS,
        ),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 16, 16);
    must_start(&mut scheduler, 1, "default", "u", 0);
    must_ask(
        &mut scheduler,
        1,
        ResourceRequest::any(1, Resource::new(1500, 3), 1),
    );
    let placed = scheduler.schedule();
    let task = placed.iter().find(|a| !a.is_am).unwrap();
    assert_eq!(task.resource, Resource::new(2048, 3));
}

#[test]
fn asks_above_the_maximum_allocation_are_rejected_with_the_limits() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.b.maximum-allocation-mb", "4096"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 16, 16);
    must_start(&mut scheduler, 1, "a", "u", 0);
    let err = scheduler
        .update_asks(
            attempt(1),
            &[
                ResourceRequest::any(1, gib(1), 1),
                ResourceRequest::any(2, Resource::new(9000, 1), 1),
            ],
            &[],
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid resource request from appattempt_1700000000000_0001_000001: requested \
         <memory:9000, vCores:1> at priority 2 exceeds the maximum allocation \
         <memory:8192, vCores:4> of queue root.a"
    );
    assert!(
        scheduler.schedule().iter().all(|a| a.is_am),
        "nothing from the rejected call"
    );

    let err = scheduler
        .update_asks(
            attempt(1),
            &[ResourceRequest::any(1, Resource::new(1024, 5), 1)],
            &[],
        )
        .unwrap_err();
    assert!(
        matches!(err, SchedulerError::InvalidResourceRequest { .. }),
        "cores too"
    );

    scheduler
        .submit_application(app(2), "b", "u", &[], None)
        .unwrap();
    let err = scheduler
        .add_attempt(attempt(2), Resource::new(5000, 1))
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("<memory:4096, vCores:4>") && message.contains("root.b"),
        "{message}"
    );
}
