//! [`select_candidates`]: which running containers a round takes back from each leaf.

use std::cmp::{Ordering, Reverse};
use std::collections::BTreeMap;

use yarn_proto::ids::ContainerId;

use crate::preemption::{IdealAssignment, LeafContainers, RunningApplication, RunningContainer};
use crate::{Resource, ResourceCalculator};

/// Chooses, for every leaf `assignment` takes resources back from, the containers that give
/// them, as Hadoop's FIFO candidates selector does; returns them by leaf path, each leaf's in
/// the order chosen.
///
/// Guarantees:
/// - the least important applications give first: the lowest priority, and among equals, in a
///   leaf ordered `fair`, the one furthest along, then the latest submitted; within an
///   application the least important containers first (the
///   greatest priority number), and among equals the most recently allocated;
/// - ApplicationMasters are passed over, and taken only after every other container of the
///   leaf, while the ApplicationMasters passed over hold more than the leaf's AM limit;
/// - a leaf stops giving once what it gave covers what it owes (the last container may
///   overshoot), and all leaves together give at most `allowed`: a container that does not fit
///   in what is left of it is passed over;
/// - leaves are visited in path order, so the same inputs give the same choice.
pub fn select_candidates(
    assignment: &IdealAssignment,
    leaves: &BTreeMap<String, LeafContainers>,
    allowed: Resource,
    cluster: Resource,
    calculator: ResourceCalculator,
) -> BTreeMap<String, Vec<ContainerId>> {
    let mut budget = Budget {
        allowed,
        cluster,
        calculator,
    };
    let mut selected = BTreeMap::new();
    for (path, to_obtain) in assignment.to_obtain() {
        let Some(leaf) = leaves.get(path) else {
            continue;
        };
        let chosen = budget.select_from(leaf, to_obtain);
        if !chosen.is_empty() {
            selected.insert(path.to_owned(), chosen);
        }
    }
    selected
}

/// What is left of the round's allowance, shared by every leaf.
struct Budget {
    allowed: Resource,
    cluster: Resource,
    calculator: ResourceCalculator,
}

impl Budget {
    fn positive(&self, r: Resource) -> bool {
        self.calculator.compare(self.cluster, r, Resource::ZERO) == Ordering::Greater
    }

    fn select_from(&mut self, leaf: &LeafContainers, to_obtain: Resource) -> Vec<ContainerId> {
        let mut remaining = to_obtain;
        let mut chosen = Vec::new();
        let mut passed_over = Vec::new();
        let mut passed_over_size = Resource::ZERO;

        // The reverse of the leaf's serving order: the least important application first, then,
        // under the fair policy, the one furthest along, then the newest.
        let policy = leaf.ordering_policy;
        let magnitude = |app: &RunningApplication| {
            policy.magnitude(app.used(), app.used().saturating_add(app.pending))
        };
        let mut applications: Vec<(f64, &RunningApplication)> = leaf
            .applications
            .iter()
            .map(|app| (magnitude(app), app))
            .collect();
        applications.sort_by(|(magnitude_a, a), (magnitude_b, b)| {
            a.priority
                .cmp(&b.priority)
                .then(magnitude_b.total_cmp(magnitude_a))
                .then(b.id.cmp(&a.id))
        });
        for (_, application) in applications {
            if !self.positive(remaining) {
                break;
            }
            let mut containers: Vec<&RunningContainer> = application.containers.iter().collect();
            containers.sort_by_key(|c| (Reverse(c.priority), Reverse(c.id)));
            for container in containers {
                if container.is_am {
                    passed_over.push(container);
                    passed_over_size = passed_over_size.saturating_add(container.resource);
                } else {
                    self.take(container, &mut remaining, &mut chosen);
                }
            }
        }
        for am in passed_over {
            let above_limit =
                self.calculator
                    .compare(self.cluster, passed_over_size, leaf.am_limit)
                    == Ordering::Greater;
            if !self.positive(remaining) || !above_limit {
                break;
            }
            if self.take(am, &mut remaining, &mut chosen) {
                passed_over_size = passed_over_size.saturating_sub(am.resource);
            }
        }
        chosen
    }

    /// Takes `container` if the leaf still owes something and it fits in the allowance.
    fn take(
        &mut self,
        container: &RunningContainer,
        remaining: &mut Resource,
        chosen: &mut Vec<ContainerId>,
    ) -> bool {
        if !self.positive(*remaining) || !self.calculator.fits_in(container.resource, self.allowed)
        {
            return false;
        }
        *remaining = remaining.saturating_sub(container.resource);
        self.allowed = self.allowed.saturating_sub(container.resource);
        chosen.push(container.id);
        true
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;
    use crate::ordering_policy::OrderingPolicy;
    use crate::preemption::{PreemptionQueue, PreemptionSettings};

    fn units(units: u64) -> Resource {
        Resource::new(units, u32::try_from(units).expect("small"))
    }

    /// The applications of Hadoop's mock: `count` applications (ids 0, 1, ... in submission
    /// order) sharing `used` in containers of `size`, the first container of each its AM.
    fn applications(count: i32, used: u64, size: u64) -> Vec<RunningApplication> {
        let each = used.div_ceil(u64::try_from(count).expect("positive"));
        (0..count)
            .map(|number| {
                let id = ApplicationId::new(1, number);
                let attempt = ApplicationAttemptId::new(id, 1);
                let containers = (0..each.div_ceil(size))
                    .map(|sequence| RunningContainer {
                        id: ContainerId::new(attempt, 0, i64::try_from(sequence).expect("small"))
                            .expect("valid id"),
                        priority: if sequence == 0 { 0 } else { 1 },
                        resource: units(size),
                        is_am: sequence == 0,
                    })
                    .collect();
                RunningApplication {
                    id,
                    priority: 0,
                    user: "user".to_owned(),
                    pending: Resource::ZERO,
                    containers,
                }
            })
            .collect()
    }

    /// Hadoop's test settings: everything in one round, no natural termination.
    fn eager() -> PreemptionSettings {
        PreemptionSettings {
            total_preemption_per_round: 1.0,
            max_ignored_over_capacity: 0.1,
            natural_termination_factor: 1.0,
            intra_queue: None,
        }
    }

    /// Two leaves, `root.a` using everything and `root.b` asking for `b_pending`; the
    /// containers chosen from `root.a`, counted per application (index = submission order),
    /// and how many of them are ApplicationMasters.
    fn preempt_from_a(
        a_guaranteed: u64,
        b_pending: u64,
        leaf: LeafContainers,
        allowed: u64,
    ) -> (Vec<usize>, usize) {
        let tree = PreemptionQueue::parent(
            "root",
            units(100),
            units(100),
            false,
            vec![
                PreemptionQueue::leaf(
                    "root.a",
                    units(a_guaranteed),
                    units(100),
                    units(100),
                    units(20),
                    false,
                ),
                PreemptionQueue::leaf(
                    "root.b",
                    units(100 - a_guaranteed),
                    units(100),
                    units(0),
                    units(b_pending),
                    false,
                ),
            ],
        );
        let cluster = units(100);
        let assignment =
            IdealAssignment::compute(&tree, cluster, ResourceCalculator::Default, &eager());
        let count = leaf.applications.len();
        let leaves = BTreeMap::from([("root.a".to_owned(), leaf.clone())]);
        let selected = select_candidates(
            &assignment,
            &leaves,
            units(allowed),
            cluster,
            ResourceCalculator::Default,
        );
        let chosen = selected.get("root.a").cloned().unwrap_or_default();
        let mut per_application = vec![0; count];
        let mut ams = 0;
        for id in &chosen {
            let index = leaf
                .applications
                .iter()
                .position(|app| app.id == id.application_id())
                .expect("a container of the leaf");
            per_application[index] += 1;
            ams += usize::from(
                leaf.applications[index]
                    .containers
                    .iter()
                    .any(|c| c.id == *id && c.is_am),
            );
        }
        (per_application, ams)
    }

    #[test]
    fn the_latest_applications_give_first_and_their_ams_are_spared() {
        // Hadoop's testSkipAMContainer: four applications of 25 one-unit containers fill a,
        // which owes 50; the newest two give 24 each and the next 2, and no AM is taken.
        let leaf = LeafContainers {
            applications: applications(4, 100, 1),
            am_limit: Resource::ZERO,
            ..LeafContainers::default()
        };
        assert_eq!(preempt_from_a(50, 50, leaf, 100), (vec![0, 2, 24, 24], 0));
    }

    #[test]
    fn under_fair_ordering_the_application_using_most_gives_first() {
        // The oldest of two applications holds 60 units, the newest 40; a owes some. Under fifo
        // the newest gives; under fair, the reverse of its serving order, the one using most.
        let mut applications = applications(2, 100, 1);
        let moved: Vec<RunningContainer> = applications[1].containers.drain(40..).collect();
        let oldest = ApplicationAttemptId::new(applications[0].id, 1);
        applications[0]
            .containers
            .extend(moved.into_iter().map(|container| RunningContainer {
                id: ContainerId::new(oldest, 0, 1_000 + container.id.sequence()).expect("valid id"),
                ..container
            }));
        let leaf = |ordering_policy| LeafContainers {
            applications: applications.clone(),
            am_limit: Resource::ZERO,
            ordering_policy,
            ..LeafContainers::default()
        };
        let fifo = preempt_from_a(90, 10, leaf(OrderingPolicy::Fifo), 100).0;
        assert!(fifo[0] == 0 && fifo[1] > 0, "{fifo:?}");
        let fair = OrderingPolicy::Fair {
            size_based_weight: false,
        };
        assert_eq!(
            preempt_from_a(90, 10, leaf(fair), 100).0,
            [fifo[1], 0],
            "the same amount, from the other application"
        );
    }

    #[test]
    fn ams_go_last_and_only_while_those_passed_over_exceed_the_am_limit() {
        // testPreemptSkippedAMContainers: a owes 90, its four applications hold 80 in task
        // containers of 5 and 20 in AMs; the AMs of the two newest make up the rest.
        let leaf = LeafContainers {
            applications: applications(4, 100, 5),
            am_limit: Resource::ZERO,
            ..LeafContainers::default()
        };
        assert_eq!(preempt_from_a(10, 90, leaf, 100), (vec![4, 4, 5, 5], 2));
        // testAMResourcePercentForSkippedAMContainers: an AM limit of 5 still lets 10 of the
        // 20 in AMs go; one of 15 keeps the second AM.
        let limited = LeafContainers {
            applications: applications(4, 100, 5),
            am_limit: units(5),
            ..LeafContainers::default()
        };
        assert_eq!(preempt_from_a(10, 90, limited, 100), (vec![4, 4, 5, 5], 2));
        let generous = LeafContainers {
            applications: applications(4, 100, 5),
            am_limit: units(15),
            ..LeafContainers::default()
        };
        assert_eq!(preempt_from_a(10, 90, generous, 100), (vec![4, 4, 4, 5], 1));
    }

    #[test]
    fn the_allowance_bounds_what_all_leaves_give_and_priorities_order_the_rest() {
        // Only 30 may go this round although a owes 50.
        let leaf = LeafContainers {
            applications: applications(4, 100, 1),
            am_limit: Resource::ZERO,
            ..LeafContainers::default()
        };
        assert_eq!(preempt_from_a(50, 50, leaf, 30), (vec![0, 0, 6, 24], 0));
        // A more important application gives last, whatever its age; within an application
        // the containers asked for at the least important priority go first.
        let mut applications = applications(2, 40, 1);
        applications[1].priority = 5;
        applications[0].containers[3].priority = 9;
        let leaf = LeafContainers {
            applications,
            am_limit: Resource::ZERO,
            ..LeafContainers::default()
        };
        // a holds 40 against a guarantee of 30, and b asks for its own back: a owes 10.
        let cluster = units(100);
        let assignment = IdealAssignment::compute(
            &PreemptionQueue::parent(
                "root",
                cluster,
                cluster,
                false,
                vec![
                    PreemptionQueue::leaf("root.a", units(30), cluster, units(40), units(0), false),
                    PreemptionQueue::leaf(
                        "root.b",
                        units(70),
                        cluster,
                        units(60),
                        units(20),
                        false,
                    ),
                ],
            ),
            cluster,
            ResourceCalculator::Default,
            &eager(),
        );
        let leaves = BTreeMap::from([("root.a".to_owned(), leaf.clone())]);
        let chosen = select_candidates(
            &assignment,
            &leaves,
            cluster,
            cluster,
            ResourceCalculator::Default,
        );
        let first = leaf.applications[0].containers[3].id;
        assert_eq!(chosen["root.a"].len(), 10);
        assert_eq!(
            chosen["root.a"].first(),
            Some(&first),
            "the least important container of the less important application"
        );
        assert!(
            chosen["root.a"]
                .iter()
                .all(|id| id.application_id() == leaf.applications[0].id),
            "the more important application gives nothing while the other can"
        );
    }
}
