//! Property: whatever the tree, nodes, asks and completions, no node is over-allocated and no
//! queue (leaf or parent) exceeds its absolute maximum capacity.

use proptest::prelude::*;
use yarn_scheduler::{
    CapacityScheduler, CapacitySchedulerConfiguration, Resource, ResourceCalculator,
    ResourceRequest, SchedulerSettings,
};

use crate::mock::*;

/// A random tree: root with 2-3 children, each child a leaf or a parent of 2-3 leaves.
#[derive(Debug, Clone)]
struct Tree {
    /// Per top-level queue: (capacity, maximum-capacity headroom, number of children: 0 = leaf).
    top: Vec<(u32, u32, usize)>,
    /// Capacities of second-level leaves, consumed in order.
    weights: Vec<u32>,
}

/// Splits 100 into parts proportional to `weights` (each at least 1 before scaling).
fn split(weights: &[u32]) -> Vec<u32> {
    let total: u32 = weights.iter().sum();
    let mut parts: Vec<u32> = weights.iter().map(|w| w * 100 / total).collect();
    let rest = 100 - parts.iter().sum::<u32>();
    parts[0] += rest;
    parts
}

fn tree() -> impl Strategy<Value = Tree> {
    (
        prop::collection::vec(
            (1u32..10, 0u32..100, prop_oneof![Just(0usize), 2usize..4]),
            2..4,
        ),
        prop::collection::vec(1u32..10, 9),
    )
        .prop_map(|(top, weights)| Tree { top, weights })
}

/// Builds the configuration; returns it with the leaf paths.
fn build(
    tree: &Tree,
    calculator: ResourceCalculator,
) -> (CapacitySchedulerConfiguration, Vec<String>) {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut leaves = Vec::new();
    let top_caps = split(&tree.top.iter().map(|(w, _, _)| *w).collect::<Vec<_>>());
    let names: Vec<String> = (0..tree.top.len()).map(|i| format!("q{i}")).collect();
    pairs.push(("root.queues".into(), names.join(",")));
    let mut weights = tree.weights.iter().copied();
    for (i, (_, extra, children)) in tree.top.iter().enumerate() {
        let path = format!("root.{}", names[i]);
        let capacity = top_caps[i];
        let maximum = (capacity + extra).min(100);
        pairs.push((format!("{path}.capacity"), capacity.to_string()));
        pairs.push((format!("{path}.maximum-capacity"), maximum.to_string()));
        pairs.push((format!("{path}.user-limit-factor"), "3".into()));
        if *children == 0 {
            leaves.push(path);
            continue;
        }
        let child_weights: Vec<u32> = (0..*children)
            .map(|_| weights.next().unwrap_or(1))
            .collect();
        let child_caps = split(&child_weights);
        let child_names: Vec<String> = (0..*children).map(|c| format!("l{c}")).collect();
        pairs.push((format!("{path}.queues"), child_names.join(",")));
        for (c, name) in child_names.iter().enumerate() {
            let child = format!("{path}.{name}");
            pairs.push((format!("{child}.capacity"), child_caps[c].to_string()));
            pairs.push((
                format!("{child}.maximum-capacity"),
                (child_caps[c] + 30).min(100).to_string(),
            ));
            pairs.push((format!("{child}.user-limit-factor"), "2".into()));
            leaves.push(child);
        }
    }
    pairs.push(("maximum-am-resource-percent".into(), "0.5".into()));
    pairs.push(("resource-calculator".into(), calculator.class_name().into()));
    let borrowed: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let settings = SchedulerSettings {
        minimum_allocation: Resource::new(512, 1),
        ..SchedulerSettings::default()
    };
    (
        CapacitySchedulerConfiguration::new(props(&borrowed), settings)
            .expect("generated tree is valid"),
        leaves,
    )
}

#[derive(Debug, Clone)]
struct AppSpec {
    leaf: usize,
    user: usize,
    memory_mb: u64,
    vcores: u32,
    count: u32,
    host_ask: Option<(usize, bool)>,
}

fn app_spec() -> impl Strategy<Value = AppSpec> {
    (
        0usize..16,
        0usize..3,
        256u64..4096,
        1u32..4,
        1u32..12,
        prop::option::of((0usize..8, any::<bool>())),
    )
        .prop_map(|(leaf, user, memory_mb, vcores, count, host_ask)| AppSpec {
            leaf,
            user,
            memory_mb,
            vcores,
            count,
            host_ask,
        })
}

fn check(
    scheduler: &CapacityScheduler,
    calculator: ResourceCalculator,
) -> Result<(), TestCaseError> {
    let mut node_total = Resource::ZERO;
    for node in scheduler.nodes() {
        prop_assert!(
            calculator.fits_in(node.allocated(), node.capability()),
            "node {} over-allocated: {} of {}",
            node.node_id(),
            node.allocated(),
            node.capability()
        );
        node_total = node_total.saturating_add(node.allocated());
    }
    prop_assert_eq!(node_total, scheduler.cluster_used());
    for info in scheduler.queue_infos() {
        prop_assert!(
            calculator.fits_in(info.resources_used, info.maximum_resource),
            "queue {} uses {} above its maximum {}",
            info.queue_path,
            info.resources_used,
            info.maximum_resource
        );
    }
    prop_assert_eq!(
        scheduler.queue_info("root").unwrap().resources_used,
        scheduler.cluster_used()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn nodes_and_queues_never_exceed_their_limits(
        tree in tree(),
        drf in any::<bool>(),
        nodes in prop::collection::vec((2u64..16, 2u32..16), 1..8),
        apps in prop::collection::vec(app_spec(), 1..8),
        completions in prop::collection::vec(prop::collection::vec(any::<prop::sample::Index>(), 0..6), 4),
    ) {
        let calculator = if drf { ResourceCalculator::DominantResource } else { ResourceCalculator::Default };
        let (conf, leaves) = build(&tree, calculator);
        let mut scheduler = CapacityScheduler::new(conf);
        for (i, (memory_gib, vcores)) in nodes.iter().enumerate() {
            scheduler.add_node(node(i), Resource::new(memory_gib * GIB, *vcores)).unwrap();
        }
        for (n, spec) in apps.iter().enumerate() {
            let n = n as i32 + 1;
            let leaf = &leaves[spec.leaf % leaves.len()];
            let user = format!("user{}", spec.user);
            scheduler.submit_application(app(n), leaf, &user, &[], None).unwrap();
            scheduler.add_attempt(attempt(n), Resource::new(1024, 1)).unwrap();
            let capability = Resource::new(spec.memory_mb, spec.vcores);
            let mut asks = vec![ResourceRequest::any(1, capability, spec.count)];
            if let Some((host, relax)) = spec.host_ask {
                asks.push(ResourceRequest::on_host(0, &format!("host{host}"), capability, 2, relax));
            }
            scheduler.update_asks(attempt(n), &asks, &[]).unwrap();
        }
        check(&scheduler, calculator)?;
        for round in &completions {
            scheduler.schedule();
            check(&scheduler, calculator)?;
            let live: Vec<_> = scheduler.containers().map(|a| a.container_id).collect();
            for index in round {
                if !live.is_empty() {
                    scheduler.container_completed(&live[index.index(live.len())]);
                }
            }
            check(&scheduler, calculator)?;
        }
    }
}
