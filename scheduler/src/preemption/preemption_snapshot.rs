//! [`PreemptionSnapshot`]: everything one preemption round decides from, and the round itself.

use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::ContainerId;

use crate::preemption::{
    IdealAssignment, IntraQueueSettings, LeafContainers, PreemptionQueue, PreemptionSettings,
    select_candidates, select_within_leaf,
};
use crate::{Resource, ResourceCalculator};

/// The queues and their running containers at one moment, as
/// [`CapacityScheduler::preemption_snapshot`](crate::CapacityScheduler::preemption_snapshot)
/// takes them.
#[derive(Debug, Clone, PartialEq)]
pub struct PreemptionSnapshot {
    /// The queue tree.
    pub root: PreemptionQueue,
    /// Each leaf's applications and their GUARANTEED containers, by leaf path.
    pub leaves: BTreeMap<String, LeafContainers>,
    /// The resources of the registered nodes in the default partition: preemption works there
    /// only.
    pub cluster: Resource,
    /// How the scheduler compares resources.
    pub calculator: ResourceCalculator,
}

/// What one round decided.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PreemptionDecision {
    /// Every queue's ideal share and what each leaf owes.
    pub assignment: IdealAssignment,
    /// The containers chosen to give it back, by leaf path.
    pub chosen: BTreeMap<String, Vec<ContainerId>>,
    /// The leaves below their ideal share that still ask for more, and the leaves that take
    /// back from their own applications, in path order: the queues the round reclaims
    /// resources for.
    pub for_queues: Vec<String>,
}

impl PreemptionSnapshot {
    /// Runs one round of the proportional policy: the ideal assignment, then the containers
    /// that give back what the leaves owe, and with intra-queue preemption on those each leaf
    /// takes back from its own applications; at most `total_preemption_per_round` of the
    /// cluster in all.
    pub fn decide(&self, settings: &PreemptionSettings) -> PreemptionDecision {
        let assignment =
            IdealAssignment::compute(&self.root, self.cluster, self.calculator, settings);
        let allowed = settings.allowance(self.cluster);
        let mut chosen = select_candidates(
            &assignment,
            &self.leaves,
            allowed,
            self.cluster,
            self.calculator,
        );
        let mut for_queues = Vec::new();
        underserved_leaves(&self.root, &assignment, &mut for_queues);
        if let Some(intra_queue) = &settings.intra_queue {
            let within = self.select_within_leaves(intra_queue, allowed, &chosen);
            for (path, containers) in within {
                chosen.entry(path.clone()).or_default().extend(containers);
                for_queues.push(path);
            }
            for_queues.sort();
            for_queues.dedup();
        }
        PreemptionDecision {
            assignment,
            chosen,
            for_queues,
        }
    }

    /// What every leaf takes back from its own applications, by leaf path, with what is left
    /// of `allowed` once the containers `across` (chosen for other queues) are taken; leaves
    /// go in path order and share what is left.
    fn select_within_leaves(
        &self,
        settings: &IntraQueueSettings,
        allowed: Resource,
        across: &BTreeMap<String, Vec<ContainerId>>,
    ) -> BTreeMap<String, Vec<ContainerId>> {
        let taken: BTreeSet<ContainerId> = across.values().flatten().copied().collect();
        let mut left = across
            .keys()
            .filter_map(|path| self.leaves.get(path))
            .fold(allowed, |left, leaf| {
                left.saturating_sub(leaf.held_by(&taken))
            });
        let mut guarantees = BTreeMap::new();
        leaf_guarantees(&self.root, &mut guarantees);
        let mut within = BTreeMap::new();
        for (path, guaranteed) in guarantees {
            // A leaf the snapshot has no applications for has nothing to give.
            let Some(leaf) = self.leaves.get(path) else {
                continue;
            };
            let chosen = select_within_leaf(
                leaf,
                guaranteed,
                &taken,
                left,
                self.cluster,
                self.calculator,
                settings,
            );
            if !chosen.is_empty() {
                left = left.saturating_sub(leaf.held_by(&chosen.iter().copied().collect()));
                within.insert(path.to_owned(), chosen);
            }
        }
        within
    }
}

/// Puts every leaf under `queue` with its guarantee into `out`.
fn leaf_guarantees<'a>(queue: &'a PreemptionQueue, out: &mut BTreeMap<&'a str, Resource>) {
    if queue.is_leaf() {
        out.insert(&queue.path, queue.guaranteed);
    }
    for child in &queue.children {
        leaf_guarantees(child, out);
    }
}

/// Pushes the leaves under `queue` whose ideal share exceeds their usage in some dimension and
/// that have pending demand.
fn underserved_leaves(
    queue: &PreemptionQueue,
    assignment: &IdealAssignment,
    out: &mut Vec<String>,
) {
    if !queue.is_leaf() {
        for child in &queue.children {
            underserved_leaves(child, assignment, out);
        }
        return;
    }
    let below_ideal = assignment
        .target(&queue.path)
        .is_some_and(|target| !target.ideal_assigned.saturating_sub(queue.used).is_zero());
    if below_ideal && !queue.pending.is_zero() {
        out.push(queue.path.clone());
    }
}
