//! [`EffectiveCapacity`]: every queue's configured capacities resolved against the cluster, as
//! Hadoop's CapacityScheduler resolves its capacity modes.
//!
//! For each resource type, from `root` (the whole cluster) down, a parent's guaranteed amount
//! is divided among its children in three rounds: first the children's absolute amounts (scaled
//! down together when they add up to more than the parent has), then percentages of what is
//! left, then weights sharing what is left after that in proportion. A child's maximum is a
//! percentage of the parent's maximum, or an absolute amount capped by it; its guarantee never
//! exceeds its maximum. Percentages and weights alone resolve to the same shares whatever the
//! cluster's size; absolute amounts make the shares follow the cluster as nodes join and leave.

use std::collections::BTreeMap;

use crate::Resource;
use crate::capacity_scheduler_configuration::{CapacitySchedulerConfiguration, ROOT};
use crate::queue_capacity::{CapacityEntry, QueueCapacity, ResourceType};
use crate::queue_conf::QueueConf;
use crate::resource_calculator::ResourceCalculator;

/// One queue's capacities in force for a given cluster.
///
/// Invariants: `guaranteed <= maximum` for every resource type, and the shares lie within 0 to
/// 100.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EffectiveCapacity {
    /// What the queue is guaranteed: Hadoop's effective minimum resource.
    pub guaranteed: Resource,
    /// What the queue may use at most: Hadoop's effective maximum resource.
    pub maximum: Resource,
    /// The guarantee as a share of the parent's, percent.
    pub capacity: f64,
    /// The maximum as a share of the parent's maximum, percent.
    pub maximum_capacity: f64,
    /// The guarantee as a share of the cluster, percent.
    pub absolute_capacity: f64,
    /// The maximum as a share of the cluster, percent.
    pub absolute_maximum_capacity: f64,
}

/// Per resource type, memory first.
type Amounts = [f64; 2];

impl CapacitySchedulerConfiguration {
    /// Every queue's [`EffectiveCapacity`] for a cluster of `cluster`, by path.
    ///
    /// When [`sized_by_amounts`](Self::sized_by_amounts) and every resource type of the cluster
    /// is present, each type is divided on its own and the shares come from the resolved
    /// amounts through the resource calculator (memory for the default calculator, the dominant
    /// share for DRF). Otherwise they are the nominal shares of [`QueueConf`] (percentages and
    /// weights alike for every type, absolute amounts counting as nothing), exact and shown even
    /// on an idle cluster, and the resources are those shares of the cluster.
    pub fn effective_capacities(&self, cluster: Resource) -> BTreeMap<String, EffectiveCapacity> {
        let calculator = self.resource_calculator();
        let cluster_amounts = amounts(cluster);
        let by_amounts =
            self.sized_by_amounts() && cluster_amounts.iter().all(|&amount| amount > 0.0);
        // Amounts: (guaranteed, maximum) per queue in cluster units.
        let resolved = by_amounts.then(|| resolve(self.queue_map(), cluster_amounts, true));
        // Each sibling group divided once: per queue it would cost the square of its siblings.
        let relative = if resolved.is_none() {
            relative_shares(calculator, self.queue_map())
        } else {
            BTreeMap::new()
        };
        let mut capacities = BTreeMap::new();
        for queue in self.queues() {
            let effective = if let Some(resolved) = &resolved {
                let (minimum, maximum) = resolved[&queue.path];
                let (parent_minimum, parent_maximum) = queue
                    .parent
                    .as_deref()
                    .map_or((cluster_amounts, cluster_amounts), |parent| {
                        resolved[parent]
                    });
                let share = |part, whole| share(calculator, part, whole, cluster_amounts);
                EffectiveCapacity {
                    guaranteed: floor(minimum),
                    maximum: floor(maximum),
                    capacity: share(minimum, parent_minimum),
                    maximum_capacity: share(maximum, parent_maximum),
                    absolute_capacity: share(minimum, cluster_amounts),
                    absolute_maximum_capacity: share(maximum, cluster_amounts),
                }
            } else {
                EffectiveCapacity {
                    guaranteed: cluster.multiply_and_round_down(queue.absolute_capacity / 100.0),
                    maximum: cluster
                        .multiply_and_round_down(queue.absolute_maximum_capacity / 100.0),
                    capacity: relative.get(queue.path.as_str()).copied().unwrap_or(100.0),
                    maximum_capacity: nominal_maximum_share(calculator, queue),
                    absolute_capacity: queue.absolute_capacity,
                    absolute_maximum_capacity: queue.absolute_maximum_capacity,
                }
            };
            capacities.insert(queue.path.clone(), effective);
        }
        capacities
    }
}

impl CapacitySchedulerConfiguration {
    /// Whether some capacity or maximum names an absolute amount or differs between resource
    /// types (a capacity vector), so that the queues' shares must be resolved type by type
    /// against the cluster's amounts.
    pub fn sized_by_amounts(&self) -> bool {
        self.queues().any(|queue| {
            [queue.capacity, queue.maximum_capacity]
                .iter()
                .any(|capacity| {
                    capacity.has_absolute() || matches!(capacity, QueueCapacity::Vector { .. })
                })
        })
    }

    /// Whether the guarantee of the queue at `path` depends on an absolute amount: its own
    /// capacity, an ancestor's, or a sibling's of either (percentages and weights share what
    /// their absolute siblings leave) names one.
    pub fn depends_on_amounts(&self, path: &str) -> bool {
        self.ancestry(path).iter().any(|queue| {
            let siblings = queue
                .parent
                .as_deref()
                .and_then(|parent| self.queue(parent))
                .map_or(&[][..], |parent| parent.children.as_slice());
            queue.capacity.has_absolute()
                || siblings
                    .iter()
                    .filter_map(|sibling| self.queue(sibling))
                    .any(|sibling| sibling.capacity.has_absolute())
        })
    }
}

/// The nominal shares of the cluster, percent, of every queue of `queues` (by path): what the
/// configured percentages and weights give, absolute amounts counting as nothing, as (guaranteed,
/// maximum) by the calculator.
pub(crate) fn nominal_shares(
    queues: &BTreeMap<String, QueueConf>,
    calculator: ResourceCalculator,
) -> BTreeMap<String, (f64, f64)> {
    resolve(queues, [100.0; 2], false)
        .into_iter()
        .map(|(path, (minimum, maximum))| {
            (
                path,
                (
                    nominal_share(calculator, minimum),
                    nominal_share(calculator, maximum),
                ),
            )
        })
        .collect()
}

/// (guaranteed, maximum) per queue of `queues`, dividing `total` from the root down; absolute
/// amounts count only when `with_absolute`.
fn resolve(
    queues: &BTreeMap<String, QueueConf>,
    total: Amounts,
    with_absolute: bool,
) -> BTreeMap<String, (Amounts, Amounts)> {
    let mut resolved = BTreeMap::from([(ROOT.to_string(), (total, total))]);
    // Paths sort a parent before its children.
    for parent in queues.values() {
        let Some(&(minimum, maximum)) = resolved.get(&parent.path) else {
            continue;
        };
        let children: Vec<&QueueConf> = parent
            .children
            .iter()
            .filter_map(|child| queues.get(child))
            .collect();
        let mut child_minimums = vec![[0.0; 2]; children.len()];
        for (index, resource) in ResourceType::ALL.into_iter().enumerate() {
            let entries: Vec<CapacityEntry> = children
                .iter()
                .map(|child| child.capacity.entry(resource))
                .collect();
            for (slot, amount) in divide(&entries, minimum[index], with_absolute)
                .into_iter()
                .enumerate()
            {
                child_minimums[slot][index] = amount;
            }
        }
        for (child, child_minimum) in children.iter().zip(child_minimums) {
            let child_maximum = maximum_of(&child.maximum_capacity, maximum, with_absolute);
            let child_minimum = [
                child_minimum[0].min(child_maximum[0]),
                child_minimum[1].min(child_maximum[1]),
            ];
            resolved.insert(child.path.clone(), (child_minimum, child_maximum));
        }
    }
    resolved
}

/// Divides `available` among children with `entries` for one resource type: absolute amounts
/// first (scaled down together to fit), then percentages of the rest, then weights sharing what
/// remains. Absolute amounts count as nothing unless `with_absolute`.
fn divide(entries: &[CapacityEntry], available: f64, with_absolute: bool) -> Vec<f64> {
    let absolute = |entry: &CapacityEntry| match entry {
        CapacityEntry::Absolute(amount) if with_absolute => *amount as f64,
        _ => 0.0,
    };
    let absolute_sum: f64 = entries.iter().map(absolute).sum();
    let scale = if absolute_sum > available && absolute_sum > 0.0 {
        available / absolute_sum
    } else {
        1.0
    };
    let after_absolute = (available - absolute_sum * scale).max(0.0);
    let percentage = |entry: &CapacityEntry| match entry {
        CapacityEntry::Percentage(percent) => after_absolute * percent / 100.0,
        _ => 0.0,
    };
    let after_percentages = (after_absolute - entries.iter().map(percentage).sum::<f64>()).max(0.0);
    let weight_sum: f64 = entries
        .iter()
        .map(|entry| match entry {
            CapacityEntry::Weight(weight) => *weight,
            _ => 0.0,
        })
        .sum();
    entries
        .iter()
        .map(|entry| match entry {
            CapacityEntry::Absolute(_) => absolute(entry) * scale,
            CapacityEntry::Percentage(_) => percentage(entry),
            CapacityEntry::Weight(weight) if weight_sum > 0.0 => {
                after_percentages * weight / weight_sum
            }
            CapacityEntry::Weight(_) => 0.0,
        })
        .collect()
}

/// A child's maximum under a parent whose maximum is `parent`: a percentage of it, or an
/// absolute amount capped by it (all of it when absolute amounts do not count).
fn maximum_of(capacity: &QueueCapacity, parent: Amounts, with_absolute: bool) -> Amounts {
    let mut maximum = parent;
    for (index, resource) in ResourceType::ALL.into_iter().enumerate() {
        maximum[index] = match capacity.entry(resource) {
            CapacityEntry::Percentage(percent) => parent[index] * percent / 100.0,
            CapacityEntry::Absolute(amount) if with_absolute => (amount as f64).min(parent[index]),
            // A weight maximum is refused when parsed; without a cluster an amount bounds nothing.
            CapacityEntry::Absolute(_) | CapacityEntry::Weight(_) => parent[index],
        };
    }
    maximum
}

/// `part` over `whole`, percent, as the calculator compares resources: memory alone, or the
/// dominant shares of the cluster for DRF.
fn share(calculator: ResourceCalculator, part: Amounts, whole: Amounts, cluster: Amounts) -> f64 {
    let ratio = |numerator: f64, denominator: f64| {
        if denominator > 0.0 {
            numerator / denominator
        } else {
            0.0
        }
    };
    let fraction = match calculator {
        ResourceCalculator::Default => ratio(part[0], whole[0]),
        ResourceCalculator::DominantResource => {
            let dominant =
                |amounts: Amounts| ratio(amounts[0], cluster[0]).max(ratio(amounts[1], cluster[1]));
            ratio(dominant(part), dominant(whole))
        }
    };
    (fraction * 100.0).clamp(0.0, 100.0)
}

/// A share of 100 as the calculator reads it.
fn nominal_share(calculator: ResourceCalculator, shares: Amounts) -> f64 {
    match calculator {
        ResourceCalculator::Default => shares[0],
        ResourceCalculator::DominantResource => shares[0].max(shares[1]),
    }
}

/// Each queue's configured share of its parent, percent, with absolute amounts counting as
/// nothing: a percentage as written, a weight over its siblings' weights; `root` is absent
/// (all of the cluster). Each sibling group is divided once.
fn relative_shares(
    calculator: ResourceCalculator,
    queues: &BTreeMap<String, QueueConf>,
) -> BTreeMap<&str, f64> {
    let mut relative = BTreeMap::new();
    for parent in queues.values() {
        let children: Vec<&QueueConf> = parent
            .children
            .iter()
            .filter_map(|child| queues.get(child))
            .collect();
        let mut shares = vec![[0.0; 2]; children.len()];
        for (slot, resource) in ResourceType::ALL.into_iter().enumerate() {
            let entries: Vec<CapacityEntry> = children
                .iter()
                .map(|child| child.capacity.entry(resource))
                .collect();
            for (index, share) in divide(&entries, 100.0, false).into_iter().enumerate() {
                shares[index][slot] = share;
            }
        }
        for (child, share) in children.iter().zip(shares) {
            relative.insert(child.path.as_str(), nominal_share(calculator, share));
        }
    }
    relative
}

/// The queue's configured maximum as a share of its parent's maximum, percent, with absolute
/// amounts bounding nothing.
fn nominal_maximum_share(calculator: ResourceCalculator, queue: &QueueConf) -> f64 {
    let share = |resource| match queue.maximum_capacity.entry(resource) {
        CapacityEntry::Percentage(percent) => percent,
        CapacityEntry::Absolute(_) | CapacityEntry::Weight(_) => 100.0,
    };
    nominal_share(
        calculator,
        [share(ResourceType::Memory), share(ResourceType::Vcores)],
    )
}

fn amounts(resource: Resource) -> Amounts {
    [resource.memory_mb as f64, f64::from(resource.vcores)]
}

/// Whole amounts, rounded down; a tolerance far below one unit keeps shares such as
/// `12288 * 2 / 3` from losing a unit to binary floating point.
fn floor(amounts: Amounts) -> Resource {
    // Amounts never exceed the cluster's, which fit their types.
    let whole = |amount: f64| (amount + 1e-6).floor().max(0.0);
    Resource::new(whole(amounts[0]) as u64, whole(amounts[1]) as u32)
}
