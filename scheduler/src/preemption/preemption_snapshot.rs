//! [`PreemptionSnapshot`]: everything one preemption round decides from, and the round itself.

use std::collections::BTreeMap;

use yarn_proto::ids::ContainerId;

use crate::preemption::{
    IdealAssignment, LeafContainers, PreemptionQueue, PreemptionSettings, select_candidates,
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
    /// The registered nodes' resources together.
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
    /// The leaves below their ideal share that still ask for more, in path order: the queues
    /// the round reclaims resources for.
    pub for_queues: Vec<String>,
}

impl PreemptionSnapshot {
    /// Runs one round of the proportional policy: the ideal assignment, then the containers
    /// that give back what the leaves owe, at most `total_preemption_per_round` of the cluster.
    pub fn decide(&self, settings: &PreemptionSettings) -> PreemptionDecision {
        let assignment =
            IdealAssignment::compute(&self.root, self.cluster, self.calculator, settings);
        let chosen = select_candidates(
            &assignment,
            &self.leaves,
            settings.allowance(self.cluster),
            self.cluster,
            self.calculator,
        );
        let mut for_queues = Vec::new();
        underserved_leaves(&self.root, &assignment, &mut for_queues);
        PreemptionDecision {
            assignment,
            chosen,
            for_queues,
        }
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
