//! The classic cases of Hadoop's proportional policy tests (`TestProportionalCapacityPreemptionPolicy`)
//! as tables, in the shape Hadoop writes them: one column per queue in depth-first order (root
//! first), rows for the absolute guarantee, maximum, usage, demand and number of child queues;
//! out, what each leaf gives back. Hadoop's tests count preemption requests for one-unit
//! containers, which is the amount a leaf gives back.

use crate::preemption::{IdealAssignment, PreemptionQueue, PreemptionSettings};
use crate::{Resource, ResourceCalculator};

/// `units` of memory and as many cores: the memory-only calculator looks at memory alone.
fn units(units: u64) -> Resource {
    Resource::new(units, u32::try_from(units).expect("small"))
}

/// A queue tree in Hadoop's test notation. Columns are named by letter after the root
/// (`root.a`, `root.a.b`, ...); `maximum` empty means the whole cluster for every queue.
#[derive(Default)]
struct Matrix<'a> {
    guaranteed: &'a [u64],
    maximum: &'a [u64],
    used: &'a [u64],
    pending: &'a [u64],
    subqueues: &'a [usize],
    /// Columns with `disable_preemption`.
    disabled: &'a [usize],
}

impl Matrix<'_> {
    /// The cluster is the sum of the leaves' guarantees, as in Hadoop's mock.
    fn cluster(&self) -> Resource {
        let leaves = (1..self.guaranteed.len()).filter(|&c| self.children(c) == 0);
        units(leaves.map(|c| self.guaranteed[c]).sum())
    }

    /// How many child queues `column` has; a flat tree when no row says.
    fn children(&self, column: usize) -> usize {
        match (column, self.subqueues.get(column)) {
            (_, Some(&count)) => count,
            (0, None) => self.guaranteed.len() - 1,
            (_, None) => 0,
        }
    }

    fn tree(&self) -> PreemptionQueue {
        let mut next = 0;
        self.queue(&mut next, "")
    }

    fn queue(&self, next: &mut usize, parent: &str) -> PreemptionQueue {
        let column = *next;
        *next += 1;
        let path = if column == 0 {
            "root".to_owned()
        } else {
            let letter = char::from(b'a' + u8::try_from(column - 1).expect("few queues"));
            format!("{parent}.{letter}")
        };
        let cluster = self.cluster().memory_mb;
        let maximum = units(self.maximum.get(column).copied().unwrap_or(cluster));
        let guaranteed = units(self.guaranteed[column]);
        let disabled = self.disabled.contains(&column);
        match self.children(column) {
            0 => PreemptionQueue::leaf(
                path,
                guaranteed,
                maximum,
                units(self.used[column]),
                units(self.pending[column]),
                disabled,
            ),
            count => {
                let children = (0..count).map(|_| self.queue(next, &path)).collect();
                PreemptionQueue::parent(path, guaranteed, maximum, disabled, children)
            }
        }
    }
}

/// The settings of Hadoop's policy tests: the whole over-served amount in one round, no
/// natural termination, the default dead zone of 10%.
fn eager() -> PreemptionSettings {
    PreemptionSettings {
        total_preemption_per_round: 1.0,
        max_ignored_over_capacity: 0.1,
        natural_termination_factor: 1.0,
        intra_queue: None,
    }
}

fn compute(matrix: &Matrix<'_>, settings: &PreemptionSettings) -> IdealAssignment {
    IdealAssignment::compute(
        &matrix.tree(),
        matrix.cluster(),
        ResourceCalculator::Default,
        settings,
    )
}

/// Runs a round and checks that exactly the leaves in `expected` give back, and how much.
fn assert_gives_back(
    matrix: &Matrix<'_>,
    settings: &PreemptionSettings,
    expected: &[(&str, u64)],
) -> IdealAssignment {
    let assignment = compute(matrix, settings);
    let given: Vec<(&str, u64)> = assignment
        .to_obtain()
        .map(|(path, amount)| (path, amount.memory_mb))
        .collect();
    assert_eq!(given, expected, "the leaves giving back, and how much");
    assignment
}

fn ideal(assignment: &IdealAssignment, path: &str) -> u64 {
    assignment
        .target(path)
        .unwrap_or_else(|| panic!("{path} has no target"))
        .ideal_assigned
        .memory_mb
}

#[test]
fn queues_that_keep_within_their_share_give_nothing_back() {
    // Hadoop's testIgnore: b and c are above their guarantees, but a asks for nothing.
    let matrix = Matrix {
        guaranteed: &[100, 40, 40, 20],
        used: &[100, 0, 60, 40],
        pending: &[0, 0, 0, 0],
        ..Matrix::default()
    };
    assert_gives_back(&matrix, &eager(), &[]);
}

#[test]
fn an_idle_guarantee_is_shared_in_proportion_and_the_queue_above_its_share_gives_back() {
    // testProportionalPreemption: d's idle 30 go to the queues that ask, by their guarantees.
    // a's share comes to 20 of its 30, so it gives back 10 to c, which asks for its guarantee.
    let matrix = Matrix {
        guaranteed: &[100, 10, 40, 20, 30],
        used: &[100, 30, 60, 10, 0],
        pending: &[45, 20, 5, 20, 0],
        ..Matrix::default()
    };
    let assignment = assert_gives_back(&matrix, &eager(), &[("root.a", 10)]);
    let shares: Vec<u64> = ["root.a", "root.b", "root.c", "root.d"]
        .iter()
        .map(|path| ideal(&assignment, path))
        .collect();
    assert_eq!(shares, vec![20, 60, 20, 0]);
}

#[test]
fn a_queue_asking_for_its_guarantee_takes_it_back_from_the_queue_above_its_own() {
    // testPreemptCycle: a asks for 10 of its idle guarantee; c holds 40 against 20 and b's
    // 60 against 40 is its share of the rest, so c gives back the 10.
    let matrix = Matrix {
        guaranteed: &[100, 40, 40, 20],
        used: &[100, 0, 60, 40],
        pending: &[10, 10, 0, 0],
        ..Matrix::default()
    };
    let assignment = assert_gives_back(&matrix, &eager(), &[("root.c", 10)]);
    assert_eq!(
        ["root.a", "root.b", "root.c"].map(|path| ideal(&assignment, path)),
        [10, 60, 30]
    );
}

#[test]
fn a_queue_held_back_by_its_maximum_capacity_leaves_the_rest_where_it_is() {
    // testMaxCap: b may not grow past 45, so a keeps the 55 it holds.
    let matrix = Matrix {
        guaranteed: &[100, 40, 40, 20],
        maximum: &[100, 100, 45, 100],
        used: &[100, 55, 45, 0],
        pending: &[20, 10, 10, 0],
        ..Matrix::default()
    };
    assert_gives_back(&matrix, &eager(), &[]);
    // A queue never takes from another beyond the larger of its guarantee and what it uses:
    // below its guarantee, b takes back up to it, and c gives back 10.
    let below = Matrix {
        maximum: &[],
        used: &[100, 0, 30, 70],
        pending: &[20, 0, 20, 0],
        ..matrix
    };
    assert_gives_back(&below, &eager(), &[("root.c", 10)]);
}

#[test]
fn a_queue_within_the_dead_zone_gives_nothing_back() {
    // testDeadzone: b is 2 above its share and c 1, both within 10% of their guarantees.
    let matrix = Matrix {
        guaranteed: &[100, 40, 40, 20],
        used: &[100, 39, 43, 21],
        pending: &[10, 10, 0, 0],
        ..Matrix::default()
    };
    let assignment = assert_gives_back(&matrix, &eager(), &[]);
    let over = |path| assignment.target(path).map(|t| t.to_preempt.memory_mb);
    assert_eq!((over("root.b"), over("root.c")), (Some(2), Some(1)));
    // Without a dead zone both give back.
    let strict = PreemptionSettings {
        max_ignored_over_capacity: 0.0,
        ..eager()
    };
    assert_gives_back(&matrix, &strict, &[("root.b", 2), ("root.c", 1)]);
}

#[test]
fn a_queue_with_preemption_disabled_keeps_its_extra_and_the_others_give_back() {
    // testPerQueueDisablePreemption: a asks for 10. With b's preemption disabled all 10 come
    // from c; enabled, b gives back 4 and c 6.
    let matrix = Matrix {
        guaranteed: &[100, 55, 25, 20],
        used: &[100, 0, 54, 46],
        pending: &[10, 10, 0, 0],
        disabled: &[2],
        ..Matrix::default()
    };
    assert_gives_back(&matrix, &eager(), &[("root.c", 10)]);
    let enabled = Matrix {
        disabled: &[],
        ..matrix
    };
    assert_gives_back(&enabled, &eager(), &[("root.b", 4), ("root.c", 6)]);
}

#[test]
fn natural_termination_and_the_round_limit_slow_the_pace() {
    let matrix = Matrix {
        guaranteed: &[100, 10, 40, 20, 30],
        used: &[100, 30, 60, 10, 0],
        pending: &[45, 20, 5, 20, 0],
        ..Matrix::default()
    };
    // A fifth of the 10 a is over-served by, per round.
    let natural = PreemptionSettings {
        natural_termination_factor: 0.2,
        ..eager()
    };
    assert_gives_back(&matrix, &natural, &[("root.a", 2)]);
    // At most 5% of the cluster per round: the 10 are scaled to 5.
    let limited = PreemptionSettings {
        total_preemption_per_round: 0.05,
        ..eager()
    };
    assert_gives_back(&matrix, &limited, &[("root.a", 5)]);
    // testNaturalTermination: nothing to give back stays nothing, whatever the factor.
    let balanced = Matrix {
        guaranteed: &[100, 40, 40, 20],
        used: &[100, 55, 45, 0],
        pending: &[20, 10, 10, 0],
        ..Matrix::default()
    };
    let slow = PreemptionSettings {
        natural_termination_factor: 0.1,
        ..eager()
    };
    assert_gives_back(&balanced, &slow, &[]);
}

#[test]
fn a_parent_below_its_guarantee_takes_it_back_from_another_subtree() {
    // testHierarchical: root -> a (b, c), d (e, f). f asks for 10 of d's guarantee; d's e
    // uses it all, and a is 10 above its own, of which b is the leaf above its share.
    let matrix = Matrix {
        guaranteed: &[200, 100, 50, 50, 100, 10, 90],
        used: &[200, 110, 60, 50, 90, 90, 0],
        pending: &[10, 0, 0, 0, 10, 0, 10],
        subqueues: &[2, 2, 0, 0, 2, 0, 0],
        ..Matrix::default()
    };
    assert_gives_back(&matrix, &eager(), &[("root.a.b", 10)]);
}

#[test]
fn a_queue_without_a_guarantee_gets_only_what_the_others_leave() {
    // testZeroGuar: b has no guarantee; c and the d subtree take first, and nothing is taken
    // from b while what it holds is not wanted.
    let matrix = Matrix {
        guaranteed: &[199, 100, 0, 99, 100, 10, 90],
        used: &[170, 80, 60, 20, 90, 90, 0],
        pending: &[10, 0, 0, 0, 10, 0, 10],
        subqueues: &[2, 2, 0, 0, 2, 0, 0],
        ..Matrix::default()
    };
    let assignment = compute(&matrix, &eager());
    assert!(
        assignment.to_obtain().all(|(path, _)| path != "root.a.b"),
        "nothing from root.a.b: {:?}",
        assignment.to_obtain().collect::<Vec<_>>()
    );
    // When a queue with a guarantee wants all of it, the one without gives everything back.
    let flat = Matrix {
        guaranteed: &[100, 100, 0],
        used: &[100, 60, 40],
        pending: &[40, 40, 0],
        ..Matrix::default()
    };
    assert_gives_back(&flat, &eager(), &[("root.b", 40)]);
}

#[test]
fn equal_queues_give_back_alike() {
    // c takes the 20 it asks for, and the other 20 of its share go back to a and b alike.
    let matrix = Matrix {
        guaranteed: &[100, 30, 30, 40],
        used: &[100, 50, 50, 0],
        pending: &[40, 10, 10, 20],
        ..Matrix::default()
    };
    assert_gives_back(&matrix, &eager(), &[("root.a", 10), ("root.b", 10)]);
}

#[test]
fn under_drf_a_queue_never_takes_more_than_it_is_offered_in_any_dimension() {
    // A cluster of 100 MB and 10 cores. b holds 9 cores against a guarantee of 5; a asks for
    // 40 MB and 4 cores. The first offer to a is 45 MB and 3 cores, and a's demand of 40 MB
    // and 4 cores is the smaller by dominant share, but a takes only the 3 cores offered; the
    // fourth comes from b's share, so b gives back 3 cores.
    let cluster = Resource::new(100, 10);
    let leaf = |path, used, pending| {
        PreemptionQueue::leaf(path, Resource::new(50, 5), cluster, used, pending, false)
    };
    let tree = PreemptionQueue::parent(
        "root",
        cluster,
        cluster,
        false,
        vec![
            leaf("root.a", Resource::ZERO, Resource::new(40, 4)),
            leaf("root.b", Resource::new(10, 9), Resource::ZERO),
        ],
    );
    let assignment = IdealAssignment::compute(
        &tree,
        cluster,
        ResourceCalculator::DominantResource,
        &eager(),
    );
    let target = |path| assignment.target(path).copied().expect("a target");
    assert_eq!(target("root.a").ideal_assigned, Resource::new(40, 4));
    assert_eq!(target("root.b").ideal_assigned, Resource::new(10, 6));
    assert_eq!(target("root.b").to_obtain, Resource::new(0, 3));
}

/// Under a `priority-utilization` parent (Hadoop's relative priority): spare resources go to
/// the higher priority among queues above their guarantees, so the lower gives back what
/// utilization would have split between them.
#[test]
fn a_higher_priority_keeps_what_is_spare_above_its_guarantee() {
    // c asks for 20 of its idle 40; a and b hold 50 each on guarantees of 30.
    let matrix = Matrix {
        guaranteed: &[100, 30, 30, 40],
        used: &[100, 50, 50, 0],
        pending: &[40, 20, 20, 20],
        ..Matrix::default()
    };
    let by_use = assert_gives_back(&matrix, &eager(), &[("root.a", 10), ("root.b", 10)]);
    assert_eq!(
        (ideal(&by_use, "root.a"), ideal(&by_use, "root.b")),
        (40, 40)
    );

    let mut tree = matrix.tree();
    tree.children[1] = tree.children[1].clone().with_relative_priority(5);
    let by_priority = IdealAssignment::compute(
        &tree,
        matrix.cluster(),
        ResourceCalculator::Default,
        &eager(),
    );
    let given: Vec<(&str, u64)> = by_priority
        .to_obtain()
        .map(|(path, amount)| (path, amount.memory_mb))
        .collect();
    assert_eq!(given, [("root.a", 20)]);
    assert_eq!(ideal(&by_priority, "root.b"), 50);
}
