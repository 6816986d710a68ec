//! No acknowledged allocation is lost by a failover.
//!
//! Evidence: the workload asks the RM (through the failover client) for each running attempt's
//! containers about once a second. For every failover and every attempt listed both before the
//! fault and after the new leader's first write, each container of the earlier list must be in
//! the later one, unless it ended in between (a NodeManager listed it COMPLETE, or no
//! NodeManager still runs it). A container missing from the new leader's list while its
//! NodeManager still runs it is an allocation the failover lost.

use std::collections::BTreeSet;

use super::{CheckInput, Verdict, listing, seconds};
use crate::history::ContainerList;

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let lists = input.history.container_lists();
    let mut compared = 0_usize;
    let mut kept = 0_usize;
    let mut ended = 0_usize;
    let mut problems = Vec::new();
    for failover in input.failovers {
        let Some(first_write) = failover.first_write_ms else {
            continue;
        };
        let attempts: BTreeSet<(&str, i32)> = lists
            .iter()
            .map(|list| (list.application_id, list.attempt))
            .collect();
        for (application_id, attempt) in attempts {
            let of_attempt = |list: &&ContainerList<'_>| {
                list.application_id == application_id && list.attempt == attempt
            };
            let before = lists
                .iter()
                .filter(of_attempt)
                .rfind(|list| list.complete_ms <= failover.injected_at_ms);
            let after = lists
                .iter()
                .filter(of_attempt)
                .find(|list| list.invoke_ms >= first_write);
            let (Some(before), Some(after)) = (before, after) else {
                continue;
            };
            for container in before.containers.iter().filter(|c| c.state != "COMPLETE") {
                compared += 1;
                if after.containers.iter().any(|c| c.id == container.id) {
                    kept += 1;
                } else if let Some(node) = still_running(input, &container.id, after.complete_ms) {
                    problems.push(format!(
                        "{} of {application_id} was listed at {} before {} #{} but not by \
                         {} at {}, while {node} still ran it",
                        container.id,
                        seconds(before.complete_ms),
                        failover.fault,
                        failover.seq,
                        failover.first_writer.as_deref().unwrap_or("the new leader"),
                        seconds(after.complete_ms)
                    ));
                } else {
                    ended += 1;
                }
            }
        }
    }
    if !problems.is_empty() {
        return Verdict::Violated(listing(&problems));
    }
    if compared == 0 {
        return Verdict::NotExercised(format!(
            "no attempt was listed both before and after one of the {} failovers",
            input.failovers.len()
        ));
    }
    Verdict::Held(format!(
        "{compared} allocations listed before a failover were looked for after it: {kept} \
         still listed by the new leader, {ended} had ended; none lost"
    ))
}

/// The NodeManager whose first listing at or after `at_ms` shows `container_id` RUNNING.
fn still_running(input: &CheckInput<'_>, container_id: &str, at_ms: u64) -> Option<String> {
    let mut nodes_seen = BTreeSet::new();
    for snapshot in input
        .observations
        .node_snapshots
        .iter()
        .filter(|snapshot| snapshot.at_ms >= at_ms)
    {
        if !nodes_seen.insert(snapshot.node.as_str()) {
            continue;
        }
        if snapshot
            .containers
            .iter()
            .any(|c| c.id == container_id && c.state == "RUNNING")
        {
            return Some(snapshot.node.clone());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Scenario, container, view};
    use super::*;

    #[test]
    fn allocations_listed_by_the_new_leader_or_ended_hold() {
        let mut scenario = Scenario::new();
        let (kept, ended) = (container(1, 2, 1), container(1, 3, 1));
        scenario
            .rm_list(1, 9_000, &[(&kept, 1), (&ended, 2)])
            .failover(0, 10_000, 11_000, "rm2")
            .rm_list(1, 11_500, &[(&kept, 1)])
            .snapshot(
                11_600,
                2,
                vec![view(&ended, "COMPLETE", "GUARANTEED", 256, 0)],
            );
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Held(_)), "{verdict:?}");
        assert!(verdict.evidence().contains("1 still listed"), "{verdict:?}");
        assert!(verdict.evidence().contains("1 had ended"), "{verdict:?}");
    }

    #[test]
    fn an_allocation_the_new_leader_forgot_while_it_runs_is_a_violation() {
        let mut scenario = Scenario::new();
        let lost = container(1, 2, 1);
        scenario
            .rm_list(1, 9_000, &[(&lost, 1)])
            .failover(0, 10_000, 11_000, "rm2")
            .rm_list(1, 11_500, &[])
            .snapshot(
                12_000,
                1,
                vec![view(&lost, "RUNNING", "GUARANTEED", 256, -1000)],
            );
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(
            verdict.evidence().contains("nm1 still ran it"),
            "{verdict:?}"
        );
    }

    #[test]
    fn without_lists_on_both_sides_of_a_failover_nothing_is_exercised() {
        let mut scenario = Scenario::new();
        scenario
            .failover(0, 10_000, 11_000, "rm2")
            .rm_list(1, 11_500, &[]);
        assert!(matches!(check(&scenario.input()), Verdict::NotExercised(_)));
    }
}
