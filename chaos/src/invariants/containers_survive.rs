//! Containers running before an RM failover are still running after it.
//!
//! Evidence: NodeManager listings. For every failover, the containers each NodeManager listed
//! RUNNING just before the fault are followed until 10 s after the new leader's first write:
//! each must still run or have ended on its own (exit 0, or stopped by its ApplicationMaster,
//! after its application finished, or by the NodeManager's queue for a GUARANTEED one). An end
//! as ABORTED, KILLED_BY_RESOURCEMANAGER or any other status means the failover killed it.
//! Nodes hit by a fault of their own around the failover are left out.

use super::{CheckInput, Verdict, listing, node_fault_windows, seconds};

/// How long after the new leader's first write a container may still be killed because of the
/// failover (NodeManager resync, re-registration, reconciliation).
const FOLLOW_MS: u64 = 10_000;

/// Exit statuses of containers that ended for reasons other than a failover: success, stopped
/// by the ApplicationMaster, outlived its application, or made room for GUARANTEED work.
const ENDED_ON_THEIR_OWN: [i32; 4] = [0, -105, -107, -108];

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let windows = node_fault_windows(input);
    let snapshots = &input.observations.node_snapshots;
    let mut followed = 0_usize;
    let mut problems = Vec::new();
    for failover in input.failovers {
        let Some(first_write) = failover.first_write_ms else {
            continue;
        };
        let until = first_write + FOLLOW_MS;
        for node in input.observations.nodes.keys() {
            let faulted = windows.iter().any(|(faulted, from, to, _)| {
                faulted == node && *from <= until && failover.injected_at_ms <= *to
            });
            if faulted {
                continue;
            }
            let of_node = || snapshots.iter().filter(|s| &s.node == node);
            let Some(before) = of_node().rfind(|s| s.at_ms <= failover.injected_at_ms) else {
                continue;
            };
            for running in before.containers.iter().filter(|c| c.state == "RUNNING") {
                followed += 1;
                let ended = of_node()
                    .filter(|s| s.at_ms > failover.injected_at_ms && s.at_ms <= until)
                    .flat_map(|s| s.containers.iter().map(move |c| (s.at_ms, c)))
                    .find(|(_, c)| c.id == running.id && c.state == "COMPLETE");
                if let Some((at, container)) = ended
                    && !ENDED_ON_THEIR_OWN.contains(&container.exit_code)
                {
                    problems.push(format!(
                        "{} on {node}, running before {} #{} at {}, ended with exit status {} \
                         at {}",
                        running.id,
                        failover.fault,
                        failover.seq,
                        seconds(failover.injected_at_ms),
                        container.exit_code,
                        seconds(at)
                    ));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Verdict::Violated(listing(&problems));
    }
    if followed == 0 {
        return Verdict::NotExercised(format!(
            "no container was running before any of the {} failovers on an unfaulted node",
            input.failovers.len()
        ));
    }
    Verdict::Held(format!(
        "{followed} containers running before a failover were followed to 10 s past the new \
         leader's first write; none was killed"
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Scenario, container, view};
    use super::*;
    use crate::fault::Fault;

    #[test]
    fn containers_that_keep_running_or_finish_normally_hold() {
        let mut scenario = Scenario::new();
        let (a, b) = (container(1, 1, 0), container(1, 2, 0));
        scenario
            .snapshot(
                9_000,
                1,
                vec![
                    view(&a, "RUNNING", "GUARANTEED", 128, -1000),
                    view(&b, "RUNNING", "OPPORTUNISTIC", 128, -1000),
                ],
            )
            .failover(0, 10_000, 10_800, "rm2")
            .snapshot(
                12_000,
                1,
                vec![
                    view(&a, "RUNNING", "GUARANTEED", 128, -1000),
                    view(&b, "COMPLETE", "OPPORTUNISTIC", 128, 0),
                ],
            );
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Held(_)), "{verdict:?}");
        assert!(
            verdict.evidence().starts_with("2 containers"),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_container_killed_by_the_new_leader_is_a_violation() {
        let mut scenario = Scenario::new();
        let id = container(1, 2, 0);
        scenario
            .snapshot(
                9_000,
                1,
                vec![view(&id, "RUNNING", "GUARANTEED", 128, -1000)],
            )
            .failover(0, 10_000, 10_800, "rm2")
            .snapshot(
                11_500,
                1,
                vec![view(&id, "COMPLETE", "GUARANTEED", 128, -106)],
            );
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(
            verdict.evidence().contains("exit status -106"),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_node_with_its_own_fault_is_left_out() {
        let mut scenario = Scenario::new();
        let id = container(1, 2, 0);
        scenario
            .snapshot(
                9_000,
                1,
                vec![view(&id, "RUNNING", "GUARANTEED", 128, -1000)],
            )
            .failover(0, 10_000, 10_800, "rm2")
            .node_fault(1, Fault::PauseNm, 1, 10_500, 12_000)
            .snapshot(
                11_500,
                1,
                vec![view(&id, "COMPLETE", "GUARANTEED", 128, -100)],
            );
        assert!(matches!(check(&scenario.input()), Verdict::NotExercised(_)));
    }
}
