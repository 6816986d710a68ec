//! Intra-queue preemption as tables, after the cases of Hadoop's
//! `TestProportionalCapacityPreemptionPolicyIntraQueue*`: a leaf's applications (user, priority,
//! containers held, containers asked for) in, the containers each gives up out.

use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

use crate::ordering_policy::OrderingPolicy;
use crate::preemption::{
    IntraQueueOrder, IntraQueueSettings, LeafContainers, PreemptionQueue, PreemptionSettings,
    PreemptionSnapshot, RunningApplication, RunningContainer, select_within_leaf,
};
use crate::{Resource, ResourceCalculator};

fn units(units: u64) -> Resource {
    Resource::new(units, u32::try_from(units).expect("small"))
}

/// One application of a table: its user and priority, how many one-unit containers it holds
/// (the first its AM) and how many more it asks for. Rows are in submission order.
#[derive(Clone, Copy)]
struct Row {
    user: &'static str,
    priority: i32,
    held: u64,
    asks: u64,
}

const fn row(user: &'static str, priority: i32, held: u64, asks: u64) -> Row {
    Row {
        user,
        priority,
        held,
        asks,
    }
}

fn leaf(rows: &[Row], user_limit: u64) -> LeafContainers {
    let applications: Vec<RunningApplication> = rows
        .iter()
        .zip(0..)
        .map(|(row, number)| {
            let id = ApplicationId::new(1, number);
            let attempt = ApplicationAttemptId::new(id, 1);
            RunningApplication {
                id,
                priority: row.priority,
                user: row.user.to_owned(),
                pending: units(row.asks),
                containers: (0..row.held)
                    .map(|sequence| RunningContainer {
                        id: ContainerId::new(attempt, 0, i64::try_from(sequence).expect("small"))
                            .expect("valid id"),
                        priority: 1,
                        resource: units(1),
                        is_am: sequence == 0,
                    })
                    .collect(),
            }
        })
        .collect();
    let user_limits = rows
        .iter()
        .map(|row| (row.user.to_owned(), units(user_limit)))
        .collect();
    LeafContainers {
        applications,
        user_limits,
        ..LeafContainers::default()
    }
}

/// Everything in one round: the whole guarantee may go.
fn eager(order: IntraQueueOrder) -> IntraQueueSettings {
    IntraQueueSettings {
        minimum_threshold: 0.5,
        max_allowable_limit: 1.0,
        order,
    }
}

/// How many containers each row gives up, in a leaf guaranteed `guaranteed` units of a
/// 100-unit cluster.
fn given(
    leaf: &LeafContainers,
    guaranteed: u64,
    allowed: u64,
    settings: &IntraQueueSettings,
) -> Vec<usize> {
    let chosen = select_within_leaf(
        leaf,
        units(guaranteed),
        &BTreeSet::new(),
        units(allowed),
        units(100),
        ResourceCalculator::Default,
        settings,
    );
    per_row(leaf, &chosen)
}

fn per_row(leaf: &LeafContainers, chosen: &[ContainerId]) -> Vec<usize> {
    let mut counts = vec![0; leaf.applications.len()];
    for id in chosen {
        let index = leaf
            .applications
            .iter()
            .position(|app| app.id == id.application_id())
            .expect("a container of the leaf");
        assert!(
            !leaf.applications[index]
                .containers
                .iter()
                .any(|c| c.id == *id && c.is_am),
            "an AM was taken: {id}"
        );
        counts[index] += 1;
    }
    counts
}

#[test]
fn priority_tables() {
    // (what it shows, applications, guarantee, what each gives up)
    let cases: [(&str, Vec<Row>, u64, Vec<usize>); 6] = [
        (
            "a higher-priority application takes what it asks for from a lower one",
            vec![row("u", 1, 50, 0), row("u", 3, 10, 20)],
            60,
            vec![20, 0],
        ),
        (
            "lowest priority gives first, then the next",
            vec![row("u", 1, 15, 0), row("u", 2, 30, 0), row("u", 5, 5, 25)],
            50,
            vec![14, 10, 0],
        ),
        (
            "equal priorities never take from each other, however early",
            vec![row("u", 2, 5, 30), row("u", 2, 45, 0)],
            50,
            vec![0, 0],
        ),
        (
            "among equals the latest submitted gives first",
            vec![row("u", 1, 20, 0), row("u", 1, 20, 0), row("u", 4, 10, 10)],
            50,
            vec![0, 10, 0],
        ),
        (
            "an application gives nothing it would get back (its AM stays)",
            vec![row("u", 1, 10, 0), row("u", 3, 40, 30)],
            50,
            vec![9, 0],
        ),
        (
            "nothing goes for an application that asks for nothing",
            vec![row("u", 1, 40, 0), row("u", 3, 10, 0)],
            50,
            vec![0, 0],
        ),
    ];
    for (what, rows, guaranteed, expected) in cases {
        let leaf = leaf(&rows, 100);
        let priority_first = eager(IntraQueueOrder::PriorityFirst);
        assert_eq!(
            given(&leaf, guaranteed, 100, &priority_first),
            expected,
            "{what}"
        );
        // Under userlimit_first a user within its limit gives nothing, even to its own more
        // important applications.
        let user_limit_first = eager(IntraQueueOrder::UserLimitFirst);
        let none = vec![0; rows.len()];
        assert_eq!(
            given(&leaf, guaranteed, 100, &user_limit_first),
            none,
            "{what}"
        );
    }
    // Above its limit, the user gives down to it under userlimit_first.
    let rows = [row("u", 1, 50, 0), row("u", 3, 10, 20)];
    assert_eq!(
        given(
            &leaf(&rows, 52),
            60,
            100,
            &eager(IntraQueueOrder::UserLimitFirst)
        ),
        vec![7, 0]
    );
}

#[test]
fn fair_leaves_take_from_those_above_an_equal_share() {
    let fair = |rows: &[Row], user_limit: u64| LeafContainers {
        ordering_policy: OrderingPolicy::Fair {
            size_based_weight: false,
        },
        ..leaf(rows, user_limit)
    };
    // (what it shows, applications, user limit, what each gives up)
    let four = vec![
        row("u", 1, 25, 0),
        row("u", 1, 35, 0),
        row("u", 1, 40, 0),
        row("u", 1, 1, 30),
    ];
    let cases: [(&str, Vec<Row>, u64, Vec<usize>); 6] = [
        (
            "the biggest give down to an equal share (26 of 101) what a newcomer lacks",
            four.clone(),
            200,
            vec![0, 9, 14, 0],
        ),
        (
            "a share is no more than the user's limit split among its applications (25 of 100)",
            four,
            100,
            vec![0, 9, 15, 0],
        ),
        (
            "a more important application gives nothing to a less important one",
            vec![row("u", 5, 50, 10), row("u", 1, 10, 40)],
            100,
            vec![0, 0],
        ),
        (
            "a less important application gives down to an equal share",
            vec![row("u", 1, 50, 0), row("u", 5, 10, 40)],
            100,
            vec![20, 0],
        ),
        (
            "within a user, the share is its limit split among its applications",
            vec![
                row("alice", 1, 40, 0),
                row("alice", 1, 20, 0),
                row("bob", 1, 1, 40),
            ],
            30,
            vec![20, 0, 0],
        ),
        (
            "one application alone keeps everything",
            vec![row("u", 1, 60, 40)],
            100,
            vec![0],
        ),
    ];
    for (what, rows, user_limit, expected) in cases {
        for order in [
            IntraQueueOrder::UserLimitFirst,
            IntraQueueOrder::PriorityFirst,
        ] {
            assert_eq!(
                given(&fair(&rows, user_limit), 100, 100, &eager(order)),
                expected,
                "{what}"
            );
        }
    }
    // The round's limit still holds.
    let rows = [row("u", 1, 50, 0), row("u", 1, 10, 40)];
    assert_eq!(
        given(
            &fair(&rows, 100),
            100,
            5,
            &eager(IntraQueueOrder::UserLimitFirst)
        ),
        vec![5, 0]
    );
}

#[test]
fn user_limit_tables() {
    // Two users of one priority, each limited to 25 units: alice holds 40 with 10 more asked,
    // bob holds 5 and asks for 20. Either way alice gives only what she holds above her limit
    // (she keeps 26: a container that would take her to it stays, as in Hadoop).
    let rows = [row("alice", 1, 40, 10), row("bob", 1, 5, 20)];
    let limited = leaf(&rows, 25);
    for order in [
        IntraQueueOrder::UserLimitFirst,
        IntraQueueOrder::PriorityFirst,
    ] {
        assert_eq!(
            given(&limited, 50, 100, &eager(order)),
            vec![14, 0],
            "{order:?}"
        );
    }
    // No user above the limit: nothing moves between users of one priority.
    assert_eq!(
        given(
            &leaf(&rows, 60),
            50,
            100,
            &eager(IntraQueueOrder::UserLimitFirst)
        ),
        vec![0, 0]
    );
    // A more important application of a user within his limit starves: under userlimit_first
    // alice, within hers, keeps everything; under priority_first she gives what bob lacks up
    // to his limit of 40.
    let rows = [row("alice", 1, 30, 0), row("bob", 5, 20, 30)];
    let by_limit = leaf(&rows, 40);
    assert_eq!(
        given(&by_limit, 50, 100, &eager(IntraQueueOrder::UserLimitFirst)),
        vec![0, 0]
    );
    assert_eq!(
        given(&by_limit, 50, 100, &eager(IntraQueueOrder::PriorityFirst)),
        vec![20, 0]
    );
    // Three users: under userlimit_first alice, above her limit, gives first and carol,
    // within hers, not at all; under priority_first carol gives first (all but her AM).
    let rows = [
        row("carol", 1, 10, 0),
        row("alice", 2, 30, 0),
        row("bob", 9, 10, 10),
    ];
    assert_eq!(
        given(
            &leaf(&rows, 25),
            50,
            100,
            &eager(IntraQueueOrder::UserLimitFirst)
        ),
        vec![0, 4, 0]
    );
    assert_eq!(
        given(
            &leaf(&rows, 25),
            50,
            100,
            &eager(IntraQueueOrder::PriorityFirst)
        ),
        vec![5, 5, 0]
    );
}

#[test]
fn limits_of_a_round() {
    let rows = [row("u", 1, 50, 0), row("u", 3, 10, 40)];
    let full = leaf(&rows, 100);
    let settings = eager(IntraQueueOrder::PriorityFirst);
    // Below the minimum threshold of its guarantee, a leaf does nothing: 60 of 200 is under
    // half.
    assert_eq!(given(&full, 200, 100, &settings), vec![0, 0]);
    let lower = IntraQueueSettings {
        minimum_threshold: 0.25,
        ..settings
    };
    assert_eq!(given(&full, 200, 100, &lower), vec![40, 0]);
    // max-allowable-limit of the guarantee, and what is left of the round's allowance.
    let capped = IntraQueueSettings {
        max_allowable_limit: 0.2,
        ..settings
    };
    assert_eq!(given(&full, 60, 100, &capped), vec![12, 0]);
    assert_eq!(given(&full, 60, 7, &settings), vec![7, 0]);
    // Disabled for the leaf.
    let disabled = LeafContainers {
        intra_queue_preemption_disabled: true,
        ..full.clone()
    };
    assert_eq!(given(&disabled, 60, 100, &settings), vec![0, 0]);
    // Containers already taken for another queue count as gone from the division, and as
    // given: the leaf gives at most max-allowable-limit of its guarantee less them (half of
    // 40 less the 10 taken), and never one of them again.
    let taken: BTreeSet<ContainerId> = full.applications[0].containers[40..]
        .iter()
        .map(|c| c.id)
        .collect();
    let half = IntraQueueSettings {
        max_allowable_limit: 0.5,
        ..settings
    };
    let chosen = select_within_leaf(
        &full,
        units(40),
        &taken,
        units(100),
        units(100),
        ResourceCalculator::Default,
        &half,
    );
    assert!(chosen.iter().all(|id| !taken.contains(id)));
    assert_eq!(per_row(&full, &chosen), vec![10, 0]);
    // The threshold counts what the leaf gives other queues: 22 of a guarantee of 40 is over
    // half, though 19 are left once 3 go elsewhere.
    let small = leaf(&[row("u", 1, 12, 0), row("u", 3, 10, 10)], 100);
    let taken: BTreeSet<ContainerId> = small.applications[0].containers[9..]
        .iter()
        .map(|c| c.id)
        .collect();
    let chosen = select_within_leaf(
        &small,
        units(40),
        &taken,
        units(100),
        units(100),
        ResourceCalculator::Default,
        &settings,
    );
    assert_eq!(
        per_row(&small, &chosen),
        vec![8, 0],
        "all but the AM and the taken"
    );
}

#[test]
fn a_round_takes_within_leaves_after_across_them_and_names_both() {
    // root.a (guarantee 50) holds 60 in a low-priority application and has a high-priority
    // one asking for 20; root.b (guarantee 50) holds 40 and asks for 10. Across queues a gives
    // 10 to b; within a, the low-priority application gives 20 more.
    let a = leaf(&[row("u", 1, 50, 0), row("u", 4, 10, 20)], 100);
    let b = leaf(&[row("v", 1, 40, 10)], 100);
    let root = PreemptionQueue::parent(
        "root",
        units(100),
        units(100),
        false,
        vec![
            PreemptionQueue::leaf("root.a", units(50), units(100), units(60), units(20), false),
            PreemptionQueue::leaf("root.b", units(50), units(100), units(40), units(10), false),
        ],
    );
    let snapshot = PreemptionSnapshot {
        root,
        leaves: BTreeMap::from([("root.a".to_owned(), a.clone()), ("root.b".to_owned(), b)]),
        cluster: units(100),
        calculator: ResourceCalculator::Default,
    };
    let across_only = PreemptionSettings {
        total_preemption_per_round: 1.0,
        max_ignored_over_capacity: 0.0,
        natural_termination_factor: 1.0,
        intra_queue: None,
    };
    let decision = snapshot.decide(&across_only);
    assert_eq!(per_row(&a, &decision.chosen["root.a"]), vec![10, 0]);
    assert_eq!(decision.for_queues, vec!["root.b".to_owned()]);

    let both = PreemptionSettings {
        intra_queue: Some(eager(IntraQueueOrder::PriorityFirst)),
        ..across_only
    };
    let decision = snapshot.decide(&both);
    let chosen = &decision.chosen["root.a"];
    assert_eq!(per_row(&a, chosen), vec![30, 0]);
    let unique: BTreeSet<_> = chosen.iter().collect();
    assert_eq!(unique.len(), chosen.len(), "no container chosen twice");
    assert_eq!(
        decision.for_queues,
        vec!["root.a".to_owned(), "root.b".to_owned()]
    );
    // The round's allowance covers both: 15 in all.
    let tight = PreemptionSettings {
        total_preemption_per_round: 0.15,
        ..both
    };
    let decision = snapshot.decide(&tight);
    assert_eq!(per_row(&a, &decision.chosen["root.a"]), vec![15, 0]);
}
