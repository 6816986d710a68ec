//! No node ever runs more GUARANTEED resources than its capacity.
//!
//! Evidence: every container listing of every NodeManager (polled about four times a second,
//! kept when it changed); the RUNNING GUARANTEED containers of each listing must fit the
//! node's configured memory and vcores. An excess shorter than the poll interval can be missed.

use std::collections::BTreeMap;

use super::{CheckInput, Verdict, listing, seconds};

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let mut peaks: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let mut problems = Vec::new();
    for snapshot in &input.observations.node_snapshots {
        let Some(node) = input.observations.nodes.get(&snapshot.node) else {
            problems.push(format!(
                "{} listed containers but has no known capacity",
                snapshot.node
            ));
            continue;
        };
        let (memory, vcores) = snapshot
            .containers
            .iter()
            .filter(|container| container.runs_guaranteed())
            .fold((0, 0), |(memory, vcores), container| {
                (memory + container.memory_mb, vcores + container.vcores)
            });
        let peak = peaks.entry(&snapshot.node).or_default();
        *peak = (peak.0.max(memory), peak.1.max(vcores));
        if memory > node.memory_mb || vcores > node.vcores {
            problems.push(format!(
                "{} ran {memory} MB and {vcores} vcores of GUARANTEED containers at {}, over \
                 its {} MB and {} vcores",
                snapshot.node,
                seconds(snapshot.at_ms),
                node.memory_mb,
                node.vcores
            ));
        }
    }
    if !problems.is_empty() {
        return Verdict::Violated(listing(&problems));
    }
    if peaks.values().all(|(memory, _)| *memory == 0) {
        return Verdict::NotExercised("no node listed a running GUARANTEED container".to_owned());
    }
    let peaks: Vec<String> = peaks
        .iter()
        .map(|(node, (memory, vcores))| {
            let capacity = &input.observations.nodes[*node];
            format!(
                "{node} peaked at {memory}/{} MB, {vcores}/{} vcores",
                capacity.memory_mb, capacity.vcores
            )
        })
        .collect();
    Verdict::Held(format!(
        "{} listings checked; {}",
        input.observations.node_snapshots.len(),
        peaks.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Scenario, container, view};
    use super::*;

    #[test]
    fn guaranteed_work_within_capacity_holds_and_opportunistic_work_does_not_count() {
        let mut scenario = Scenario::new();
        scenario.snapshot(
            1_000,
            1,
            vec![
                view(&container(1, 1, 0), "RUNNING", "GUARANTEED", 512, -1000),
                view(&container(1, 2, 0), "RUNNING", "GUARANTEED", 512, -1000),
                view(&container(2, 2, 0), "RUNNING", "OPPORTUNISTIC", 512, -1000),
                view(&container(2, 3, 0), "SCHEDULED", "GUARANTEED", 512, -1000),
            ],
        );
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Held(_)), "{verdict:?}");
        assert!(
            verdict.evidence().contains("nm1 peaked at 1024/1024 MB"),
            "{verdict:?}"
        );
    }

    #[test]
    fn guaranteed_work_over_the_node_is_a_violation() {
        let mut scenario = Scenario::new();
        scenario.snapshot(
            7_000,
            2,
            vec![
                view(&container(1, 1, 0), "RUNNING", "GUARANTEED", 768, -1000),
                view(&container(1, 2, 0), "RUNNING", "GUARANTEED", 512, -1000),
            ],
        );
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(
            verdict.evidence().contains("nm2 ran 1280 MB"),
            "{verdict:?}"
        );
    }
}
