//! [`IdealAssignment`]: the share of the cluster each queue should hold, and what to take back
//! from the queues that hold more.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::preemption::{PreemptionQueue, PreemptionSettings};
use crate::queue_ordering_policy::compare_by_priority_and_use;
use crate::{Resource, ResourceCalculator};

/// The step offers are rounded up to: one unit of each dimension.
const UNIT: Resource = Resource::new(1, 1);

/// Where one round puts one queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueTarget {
    /// The share of its parent's ideal share the queue should hold now.
    pub ideal_assigned: Resource,
    /// How far its usage is above that share (and above its guarantee, or what it uses and asks
    /// for when that is less), scaled down with every queue of its level when the level as a
    /// whole is over-served by more than `total_preemption_per_round`.
    pub to_preempt: Resource,
    /// What this round takes back from the queue: a leaf above its dead zone asks back
    /// `natural_termination_factor` of [`to_preempt`](Self::to_preempt), rounded as the
    /// calculator rounds (to the nearest unit for memory only, up for DRF); zero for parents,
    /// for leaves within the dead zone and for leaves with preemption disabled.
    pub to_obtain: Resource,
}

/// The targets of one preemption round, by queue path.
///
/// Guarantees, for a snapshot whose children's guarantees fit in their parent's:
/// - no queue's ideal share exceeds its maximum capacity, nor, for a leaf, the larger of its
///   guarantee and its usage, so a round never takes from a queue to give to queues that are
///   all above their guarantees already;
/// - a queue using no more than its guarantee keeps at least what it uses, and so loses
///   nothing;
/// - what a queue with preemption disabled uses above its guarantee stays with it, and nothing
///   is taken from it;
/// - the children's ideal shares add up to at most their parent's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IdealAssignment {
    targets: BTreeMap<String, QueueTarget>,
}

impl IdealAssignment {
    /// Divides `cluster` over the tree under `root`, level by level, as Hadoop's proportional
    /// policy does, comparing resources with `calculator`.
    pub fn compute(
        root: &PreemptionQueue,
        cluster: Resource,
        calculator: ResourceCalculator,
        settings: &PreemptionSettings,
    ) -> Self {
        let mut round = Round {
            nodes: Vec::new(),
            cluster,
            calculator,
        };
        let root_index = round.add(root);
        round.nodes[root_index].ideal = root.guaranteed;
        round.distribute_below(root_index, settings.allowance(cluster));
        round.into_assignment(settings)
    }

    /// The target of the queue at `path`, if the snapshot had it.
    pub fn target(&self, path: &str) -> Option<&QueueTarget> {
        self.targets.get(path)
    }

    /// The leaves this round takes resources back from, with how much, in path order.
    pub fn to_obtain(&self) -> impl Iterator<Item = (&str, Resource)> {
        self.targets
            .iter()
            .filter(|(_, target)| !target.to_obtain.is_zero())
            .map(|(path, target)| (path.as_str(), target.to_obtain))
    }
}

/// One queue while a round runs, Hadoop's `TempQueuePerPartition`.
struct Node<'a> {
    queue: &'a PreemptionQueue,
    children: Vec<usize>,
    /// What the queue uses above its guarantee that must stay with it (its own, with
    /// preemption disabled, or a parent's beyond what its children may lose).
    untouchable_extra: Resource,
    /// What the queue uses above its guarantee that may be taken back.
    preemptable_extra: Resource,
    ideal: Resource,
    to_preempt: Resource,
    /// The queue's part of each offer (memory, vcores), set before every offer.
    share: (f64, f64),
}

/// The queues of one round, children after their parent is known; index 0 is the first added.
struct Round<'a> {
    nodes: Vec<Node<'a>>,
    cluster: Resource,
    calculator: ResourceCalculator,
}

impl<'a> Round<'a> {
    fn compare(&self, a: Resource, b: Resource) -> Ordering {
        self.calculator.compare(self.cluster, a, b)
    }

    fn greater(&self, a: Resource, b: Resource) -> bool {
        self.compare(a, b) == Ordering::Greater
    }

    fn positive(&self, r: Resource) -> bool {
        self.greater(r, Resource::ZERO)
    }

    /// Adds `queue` and its subtree, working out the extras bottom up; returns its index.
    fn add(&mut self, queue: &'a PreemptionQueue) -> usize {
        let children: Vec<usize> = queue.children.iter().map(|child| self.add(child)).collect();
        let extra = queue.used.saturating_sub(queue.guaranteed);
        let (untouchable_extra, preemptable_extra) = if children.is_empty() {
            if queue.preemption_disabled {
                (extra, Resource::ZERO)
            } else {
                (Resource::ZERO, extra)
            }
        } else {
            let of_children = children.iter().fold(Resource::ZERO, |sum, &child| {
                sum.saturating_add(self.nodes[child].preemptable_extra)
            });
            let untouchable = if self.compare(of_children, extra) == Ordering::Less {
                extra.saturating_sub(of_children)
            } else {
                Resource::ZERO
            };
            (
                untouchable,
                self.calculator.min(self.cluster, of_children, extra),
            )
        };
        self.nodes.push(Node {
            queue,
            children,
            untouchable_extra,
            preemptable_extra,
            ideal: Resource::ZERO,
            to_preempt: Resource::ZERO,
            share: (0.0, 0.0),
        });
        self.nodes.len() - 1
    }

    /// Divides `parent`'s ideal share among its children, then each child's among its own.
    fn distribute_below(&mut self, parent: usize, allowed: Resource) {
        let children = self.nodes[parent].children.clone();
        if children.is_empty() {
            return;
        }
        self.distribute(&children, self.nodes[parent].ideal, allowed);
        for child in children {
            self.distribute_below(child, allowed);
        }
    }

    /// Divides `total` among the sibling `queues`: first among those with a guarantee, in
    /// proportion to it; what is left equally among those without one. Then sets what each is
    /// over-served by, scaled so that the level gives back at most `allowed`.
    fn distribute(&mut self, queues: &[usize], total: Resource, allowed: Resource) {
        let mut unassigned = total;
        let (guaranteed, unguaranteed): (Vec<usize>, Vec<usize>) = queues
            .iter()
            .partition(|&&q| self.positive(self.nodes[q].queue.guaranteed));
        self.assign_fixpoint(&guaranteed, &mut unassigned, false);
        if !unguaranteed.is_empty() && self.positive(unassigned) {
            self.assign_fixpoint(&unguaranteed, &mut unassigned, true);
        }

        let over_served = queues.iter().fold(Resource::ZERO, |sum, &q| {
            let node = &self.nodes[q];
            if self.greater(node.queue.used, node.ideal) {
                sum.saturating_add(node.queue.used.saturating_sub(node.ideal))
            } else {
                sum
            }
        });
        let scaling = if self.greater(over_served, allowed) {
            self.calculator.divide(self.cluster, allowed, over_served)
        } else {
            1.0
        };
        for &q in queues {
            // Never below what the queue would be given anyway: its guarantee, or what it uses
            // and asks for when that is less, nor below its ideal share.
            let queue = self.nodes[q].queue;
            let floor = self.calculator.max(
                self.cluster,
                self.calculator.min(
                    self.cluster,
                    queue.used.saturating_add(queue.pending),
                    queue.guaranteed,
                ),
                self.nodes[q].ideal,
            );
            self.nodes[q].to_preempt = if self.greater(queue.used, floor) {
                queue
                    .used
                    .saturating_sub(floor)
                    .multiply_and_round_down(scaling)
            } else {
                Resource::ZERO
            };
        }
    }

    /// Hadoop's `computeFixpointAllocation`: each queue starts with what it uses up to its
    /// guarantee (plus what must stay with it), then what is `unassigned` is offered, most
    /// underserved queues first, until every queue has what it asks for or nothing is left.
    fn assign_fixpoint(&mut self, queues: &[usize], unassigned: &mut Resource, equally: bool) {
        let mut wanting = Vec::new();
        for &q in queues {
            let node = &self.nodes[q];
            let queue = node.queue;
            let ideal = if self.greater(queue.used, queue.guaranteed) {
                queue
                    .guaranteed
                    .component_min(queue.used)
                    .saturating_add(node.untouchable_extra)
            } else {
                queue.used
            };
            self.nodes[q].ideal = ideal;
            *unassigned = unassigned.saturating_sub(ideal);
            if self.compare(ideal, queue.used.saturating_add(queue.pending)) == Ordering::Less {
                wanting.push(q);
            }
        }
        while !wanting.is_empty() && self.positive(*unassigned) {
            self.set_shares(&wanting, equally);
            let underserved = self.take_most_underserved(&mut wanting);
            // Every queue of the group is offered its part of the same amount.
            let offered_from = *unassigned;
            for q in underserved {
                if !self.positive(*unassigned) {
                    break;
                }
                let (memory_share, vcores_share) = self.nodes[q].share;
                let offer = Resource::new(
                    self.calculator
                        .multiply_and_normalize_up(offered_from, memory_share, UNIT)
                        .memory_mb,
                    self.calculator
                        .multiply_and_normalize_up(offered_from, vcores_share, UNIT)
                        .vcores,
                )
                .component_min(*unassigned);
                let taken = offer.saturating_sub(self.offer(q, offer));
                if self.positive(taken) {
                    wanting.push(q);
                }
                *unassigned = unassigned.saturating_sub(taken);
            }
        }
    }

    /// Sets each wanting queue's part of the next offers: its guarantee's share of theirs, per
    /// dimension, or an equal part when they have no guarantees.
    fn set_shares(&mut self, wanting: &[usize], equally: bool) {
        let total = wanting.iter().fold(Resource::ZERO, |sum, &q| {
            sum.saturating_add(self.nodes[q].queue.guaranteed)
        });
        let part = |of: f64, whole: f64| if whole > 0.0 { of / whole } else { 0.0 };
        for &q in wanting {
            let guaranteed = self.nodes[q].queue.guaranteed;
            self.nodes[q].share = if equally {
                let each = 1.0 / wanting.len() as f64;
                (each, each)
            } else {
                (
                    part(guaranteed.memory_mb as f64, total.memory_mb as f64),
                    part(f64::from(guaranteed.vcores), f64::from(total.vcores)),
                )
            };
        }
    }

    /// Removes and returns the most underserved queues (all of them when several tie), in path
    /// order: those holding the lowest share of their guarantees, queues without a guarantee
    /// counting as the most served, and among siblings of a `priority-utilization` parent as
    /// Hadoop's ordering weighs priorities ([`compare_by_priority_and_use`]).
    fn take_most_underserved(&self, wanting: &mut Vec<usize>) -> Vec<usize> {
        let served = |q: usize| {
            let node = &self.nodes[q];
            if self.positive(node.queue.guaranteed) {
                self.calculator
                    .divide(self.cluster, node.ideal, node.queue.guaranteed)
            } else {
                f64::from(i32::MAX)
            }
        };
        let order = |a: usize, b: usize| {
            compare_by_priority_and_use(
                served(a),
                served(b),
                self.nodes[a].queue.relative_priority,
                self.nodes[b].queue.relative_priority,
            )
        };
        wanting.sort_by(|&a, &b| {
            order(a, b).then_with(|| self.nodes[a].queue.path.cmp(&self.nodes[b].queue.path))
        });
        let first = wanting[0];
        let ties = wanting
            .iter()
            .take_while(|&&q| order(q, first) == Ordering::Equal)
            .count();
        wanting.drain(..ties).collect()
    }

    /// Hadoop's `TempQueuePerPartition.offer`: the queue takes what it can of `available`,
    /// within its maximum capacity and its usage plus demand, and a leaf no more than the larger
    /// of its guarantee and its usage; returns what it left.
    fn offer(&mut self, q: usize, available: Resource) -> Resource {
        let node = &self.nodes[q];
        let queue = node.queue;
        let headroom = queue.maximum.saturating_sub(node.ideal);
        let wanted = queue
            .used
            .saturating_add(queue.pending)
            .saturating_sub(node.ideal);
        let mut accepted =
            headroom.component_min(self.calculator.min(self.cluster, available, wanted));
        if queue.is_leaf() {
            let cap = self
                .calculator
                .max(self.cluster, queue.used, queue.guaranteed)
                .saturating_sub(node.ideal);
            accepted = self.calculator.min(self.cluster, accepted, cap);
        }
        // The whole-resource minimums above may pick a value larger than the offer in one
        // dimension; a queue never takes more than it was offered.
        let accepted = accepted.component_min(available);
        self.nodes[q].ideal = self.nodes[q].ideal.saturating_add(accepted);
        available.saturating_sub(accepted)
    }

    fn into_assignment(self, settings: &PreemptionSettings) -> IdealAssignment {
        let dead_zone = 1.0 + settings.max_ignored_over_capacity;
        let targets = self
            .nodes
            .iter()
            .map(|node| {
                let queue = node.queue;
                let above_dead_zone = self.greater(
                    queue.used,
                    queue.guaranteed.multiply_and_round_down(dead_zone),
                );
                let to_obtain = if queue.is_leaf()
                    && !queue.preemption_disabled
                    && above_dead_zone
                    && self.positive(node.to_preempt)
                {
                    self.calculator.multiply_and_normalize_up(
                        node.to_preempt,
                        settings.natural_termination_factor,
                        UNIT,
                    )
                } else {
                    Resource::ZERO
                };
                let target = QueueTarget {
                    ideal_assigned: node.ideal,
                    to_preempt: node.to_preempt,
                    to_obtain,
                };
                (queue.path.clone(), target)
            })
            .collect();
        IdealAssignment { targets }
    }
}
