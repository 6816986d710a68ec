//! [`ReservationQueueSize`]: the queues under a reservable queue, and how the plan follower
//! sizes them from the plan (Hadoop's `CapacitySchedulerPlanFollower`).
//!
//! A reservable leaf of the configured tree runs as a plan queue: a parent whose children are
//! its default reservation queue, `<name>-default`, which takes the applications submitted to
//! the plan queue without a reservation, and one queue per active reservation, named by the
//! reservation id, which takes the applications submitted with that id. At every time step
//! the plan follower gives each reservation's queue what the plan holds for it at that
//! instant, and the default queue what is left.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::capacity_scheduler_configuration::CapacitySchedulerConfiguration;
use crate::queue_capacity::QueueCapacity;
use crate::queue_conf::QueueConf;
use crate::queue_node_labels::QueueNodeLabels;
use crate::{Resource, ResourceCalculator};

use super::resource_timeline::ResourceTimeline;

/// The suffix of a plan queue's default reservation queue (Hadoop's
/// `ReservationConstants.DEFAULT_QUEUE_SUFFIX`).
pub const DEFAULT_QUEUE_SUFFIX: &str = "-default";

/// The name of the default reservation queue of the plan queue named `plan_name` (the last
/// component of its path): `dedicated-default` under `root.dedicated`.
pub fn default_queue_name(plan_name: &str) -> String {
    format!("{plan_name}{DEFAULT_QUEUE_SUFFIX}")
}

/// A reservation queue's entitlement, as shares of its plan queue in percent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReservationQueueSize {
    /// The queue's name: the reservation id, `reservation_<cluster ts>_<seq>`.
    pub name: String,
    /// Its guaranteed share of the plan queue, percent (0 to 100).
    pub capacity: f64,
    /// Its hard limit as a share of the plan queue, percent (`capacity` to 100).
    pub maximum_capacity: f64,
    /// Whether its reservation is active, so that applications may be submitted into it; a
    /// queue kept only for the applications still in it after its reservation ended is not.
    pub active: bool,
}

impl ReservationQueueSize {
    /// The queue of a reservation that is no longer active, kept at nothing until the
    /// applications still in it have moved or ended.
    pub fn retained(name: &str) -> Self {
        Self {
            name: name.to_string(),
            capacity: 0.0,
            maximum_capacity: 0.0,
            active: false,
        }
    }
}

/// Adds to `plans`, as [retained](ReservationQueueSize::retained), the queue of every
/// reservation in `queues_in_use` (full paths of queues holding applications) that `plans` does
/// not list under its plan queue of `conf`: a reservation queue goes only once it is empty.
pub fn retain_queues_in_use<'a>(
    plans: &mut BTreeMap<String, Vec<ReservationQueueSize>>,
    conf: &CapacitySchedulerConfiguration,
    queues_in_use: impl IntoIterator<Item = &'a str>,
) {
    for queue in queues_in_use {
        let Some((plan, name)) = queue.rsplit_once('.') else {
            continue;
        };
        let Some(plan_conf) = conf.queue(plan) else {
            continue;
        };
        if plan_conf.reservation.is_none() || name == default_queue_name(&plan_conf.name) {
            continue;
        }
        let sizes = plans.entry(plan.to_string()).or_default();
        if !sizes.iter().any(|size| size.name == name) {
            sizes.push(ReservationQueueSize::retained(name));
        }
    }
}

/// One reservation of a plan, as the plan follower weighs it.
#[derive(Debug, Clone, Copy)]
pub struct FollowedReservation<'a> {
    /// Its id, which names its queue.
    pub name: &'a str,
    /// What the plan holds for it over time.
    pub allocation: &'a ResourceTimeline,
    /// Whether a stage runs gangs of more than one container.
    pub has_gangs: bool,
}

impl FollowedReservation<'_> {
    /// Whether the reservation holds its window at `now_ms`: from the first instant the plan
    /// gives it anything until the last one ends (a gap between stages does not end it).
    pub fn is_active_at(&self, now_ms: i64) -> bool {
        self.allocation
            .span()
            .is_some_and(|(start, end)| start <= now_ms && now_ms < end)
    }
}

/// The sizes of a plan's reservation queues at `now_ms`, for the reservations active then, in
/// the order given.
///
/// Each gets what the plan holds for it at `now_ms` over `plan_resources` (the plan queue's
/// guaranteed resources), as `calculator` divides within `cluster`. Its maximum capacity is
/// 100 percent, so it may borrow idle capacity, unless it runs gangs: a gang started before
/// all of it fits only holds resources idle, so it keeps to its capacity. When the shares sum
/// above 100 (the plan holds more than `plan_resources` because the cluster shrank, or, under
/// dominant resource fairness, reservations dominant in different resources add up past the
/// plan's percentage), every reservation is scaled down alike so they sum to 100. A plan with
/// nothing the calculator counts (no memory for the default one; no share of any type for DRF,
/// so that an absolute plan of memory alone still sizes its reservations) gives every
/// reservation 0.
pub fn size_reservation_queues<'a>(
    reservations: impl IntoIterator<Item = FollowedReservation<'a>>,
    now_ms: i64,
    plan_resources: Resource,
    cluster: Resource,
    calculator: ResourceCalculator,
) -> Vec<ReservationQueueSize> {
    let has_resources = calculator.dominant_share(cluster, plan_resources) > 0.0;
    let mut sizes: Vec<(ReservationQueueSize, bool)> = reservations
        .into_iter()
        .filter(|reservation| reservation.is_active_at(now_ms))
        .map(|reservation| {
            let held = reservation.allocation.at(now_ms);
            let share = if has_resources {
                calculator.divide(cluster, held, plan_resources) * 100.0
            } else {
                0.0
            };
            let size = ReservationQueueSize {
                name: reservation.name.to_string(),
                capacity: share,
                maximum_capacity: 100.0,
                active: true,
            };
            (size, reservation.has_gangs)
        })
        .collect();
    let total: f64 = sizes.iter().map(|(size, _)| size.capacity).sum();
    let scale = if total > 100.0 { 100.0 / total } else { 1.0 };
    for (size, has_gangs) in &mut sizes {
        size.capacity = (size.capacity * scale).clamp(0.0, 100.0);
        if *has_gangs {
            size.maximum_capacity = size.capacity;
        }
    }
    sizes.into_iter().map(|(size, _)| size).collect()
}

/// What the default reservation queue gets beside `reservations`: whatever they leave of the
/// plan queue, never below 0.
pub fn default_queue_capacity<'a>(
    reservations: impl IntoIterator<Item = &'a ReservationQueueSize>,
) -> f64 {
    let taken: f64 = reservations.into_iter().map(|size| size.capacity).sum();
    (100.0 - taken).max(0.0)
}

/// The configuration of a queue under the plan queue `plan`, with the plan queue's limits and
/// settings: its user limits, application limits, AM share, largest container, default
/// priority, application lifetimes and preemption flags. Its ACLs are the plan queue's, by inheritance.
pub(crate) fn reservation_queue_conf(
    plan: &QueueConf,
    name: &str,
    capacity: f64,
    maximum_capacity: f64,
) -> QueueConf {
    let (capacity_percent, maximum_percent) = (capacity, maximum_capacity);
    let capacity = QueueCapacity::Percentage(capacity);
    let maximum_capacity = QueueCapacity::Percentage(maximum_capacity);
    QueueConf {
        path: format!("{}.{name}", plan.path),
        name: name.to_string(),
        parent: Some(plan.path.clone()),
        children: Vec::new(),
        capacity,
        maximum_capacity,
        absolute_capacity: plan.absolute_capacity * capacity_percent / 100.0,
        absolute_maximum_capacity: plan.absolute_maximum_capacity * maximum_percent / 100.0,
        acl_submit_applications: None,
        acl_administer_queue: None,
        reservation: None,
        // A plan orders its reservation queues by utilization: no priority among them.
        priority: 0,
        // The plan's partitions, with no share of their own: reservations size the default
        // partition only.
        node_labels: QueueNodeLabels {
            capacities: BTreeMap::new(),
            ..plan.node_labels.clone()
        },
        ..plan.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLUSTER: Resource = Resource::new(100 * 1024, 100);

    fn window(start: i64, end: i64, memory_gb: u64) -> ResourceTimeline {
        ResourceTimeline::of(start, end, Resource::new(memory_gb * 1024, 1))
    }

    fn sizes(
        reservations: &[(&str, &ResourceTimeline, bool)],
        now_ms: i64,
        plan_gb: u64,
    ) -> Vec<(String, f64, f64)> {
        size_reservation_queues(
            reservations
                .iter()
                .map(|&(name, allocation, has_gangs)| FollowedReservation {
                    name,
                    allocation,
                    has_gangs,
                }),
            now_ms,
            Resource::new(plan_gb * 1024, 50),
            CLUSTER,
            ResourceCalculator::Default,
        )
        .into_iter()
        .map(|size| (size.name, size.capacity, size.maximum_capacity))
        .collect()
    }

    #[test]
    fn only_reservations_inside_their_window_get_a_queue_sized_from_the_plan() {
        let early = window(0, 10, 10);
        let later = window(10, 20, 30);
        let gang = window(5, 15, 20);
        let reservations = [
            ("early", &early, false),
            ("later", &later, false),
            ("gang", &gang, true),
        ];
        assert_eq!(
            sizes(&reservations, 0, 50),
            vec![("early".to_string(), 20.0, 100.0)]
        );
        // At 10 the first has ended; the gang keeps to its capacity.
        assert_eq!(
            sizes(&reservations, 10, 50),
            vec![
                ("later".to_string(), 60.0, 100.0),
                ("gang".to_string(), 40.0, 40.0),
            ]
        );
        assert!(sizes(&reservations, 20, 50).is_empty());
        assert!(sizes(&reservations, -1, 50).is_empty());
    }

    #[test]
    fn a_gap_between_stages_keeps_the_queue_at_zero() {
        let mut stages = window(0, 10, 10);
        stages.add_timeline(&window(20, 30, 10));
        assert_eq!(
            sizes(&[("r", &stages, false)], 15, 50),
            vec![("r".to_string(), 0.0, 100.0)]
        );
    }

    #[test]
    fn a_plan_that_shrank_scales_every_reservation_down_and_leaves_the_default_nothing() {
        let a = window(0, 10, 30);
        let b = window(0, 10, 10);
        let shares = size_reservation_queues(
            [("a", &a), ("b", &b)].map(|(name, allocation)| FollowedReservation {
                name,
                allocation,
                has_gangs: false,
            }),
            5,
            Resource::new(20 * 1024, 50),
            CLUSTER,
            ResourceCalculator::Default,
        );
        assert_eq!(
            shares.iter().map(|s| s.capacity).collect::<Vec<_>>(),
            vec![75.0, 25.0]
        );
        assert_eq!(default_queue_capacity(&shares), 0.0);
    }

    #[test]
    fn the_default_queue_takes_what_the_reservations_leave() {
        let a = window(0, 10, 10);
        let shares = size_reservation_queues(
            [FollowedReservation {
                name: "a",
                allocation: &a,
                has_gangs: false,
            }],
            0,
            Resource::new(40 * 1024, 50),
            CLUSTER,
            ResourceCalculator::Default,
        );
        assert_eq!(default_queue_capacity(&shares), 75.0);
        assert_eq!(default_queue_capacity(&Vec::new()), 100.0);
        assert_eq!(default_queue_name("dedicated"), "dedicated-default");
    }

    #[test]
    fn a_plan_without_resources_gives_nothing() {
        let a = window(0, 10, 10);
        assert_eq!(
            sizes(&[("a", &a, true)], 0, 0),
            vec![("a".to_string(), 0.0, 0.0)]
        );
    }

    /// An absolute plan of memory alone still sizes its reservations by memory.
    #[test]
    fn a_plan_of_memory_alone_sizes_by_memory() {
        let allocation = window(0, 10, 4);
        let sizes = size_reservation_queues(
            [FollowedReservation {
                name: "r",
                allocation: &allocation,
                has_gangs: false,
            }],
            5,
            Resource::new(16 * 1024, 0),
            CLUSTER,
            ResourceCalculator::Default,
        );
        assert!((sizes[0].capacity - 25.0).abs() < 1e-9, "{sizes:?}");
    }
}
