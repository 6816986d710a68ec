//! Every application whose ApplicationMaster kept running finishes SUCCEEDED.
//!
//! Evidence: the final report of every acknowledged application. One still on its first attempt
//! kept its ApplicationMaster through every fault; its distributed-shell tasks only `sleep`, so
//! nothing but a fault can fail them. A NodeManager fault can legitimately fail a task (its
//! container starts time out, or its process dies with the node), so an application that had a
//! container on a NodeManager faulted while it ran is excused, and named as such; so is one
//! whose only failed tasks are OPPORTUNISTIC containers preempted for GUARANTEED work, which
//! YARN does whenever a node is full.

use super::{CheckInput, Verdict, excuse, listing};

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let mut kept = 0_usize;
    let mut succeeded = 0_usize;
    let mut excused = Vec::new();
    let mut problems = Vec::new();
    let acknowledged = input.history.acknowledged_submissions();
    for app in &input.observations.applications {
        if !acknowledged.contains_key(app.application_id.as_str()) {
            continue;
        }
        let Some(report) = app.report.as_ref().filter(|report| report.is_final()) else {
            continue;
        };
        if report.attempt != 1 {
            continue;
        }
        kept += 1;
        if report.succeeded() {
            succeeded += 1;
        } else if let Some(excuse) = excuse(input, &app.application_id) {
            excused.push(format!("{} ({excuse})", app.application_id));
        } else {
            let first_line = report.diagnostics.lines().next().unwrap_or_default();
            problems.push(format!(
                "{} ended {}/{} on its first attempt: {first_line}",
                app.application_id, report.state, report.final_status
            ));
        }
    }
    if !problems.is_empty() {
        return Verdict::Violated(listing(&problems));
    }
    if kept == 0 {
        return Verdict::NotExercised(
            "no acknowledged application ended on its first attempt".to_owned(),
        );
    }
    let mut evidence =
        format!("{kept} applications ended on their first attempt: {succeeded} SUCCEEDED");
    if !excused.is_empty() {
        evidence.push_str(&format!(
            ", {} excused: {}",
            excused.len(),
            listing(&excused)
        ));
    }
    Verdict::Held(evidence)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Scenario, container, diagnostics_line, view};
    use super::*;
    use crate::fault::Fault;

    #[test]
    fn first_attempts_that_succeed_hold_and_retried_ones_are_not_held_to_it() {
        let mut scenario = Scenario::new();
        scenario
            .submit(1, 1_000, true)
            .report(1, "FINISHED", "SUCCEEDED", 1, "", 20_000)
            .submit(2, 1_000, true)
            .report(2, "FAILED", "FAILED", 2, "AM container lost", 20_000);
        let verdict = check(&scenario.input());
        assert_eq!(
            verdict,
            Verdict::Held("1 applications ended on their first attempt: 1 SUCCEEDED".into())
        );
    }

    #[test]
    fn an_application_the_harness_killed_itself_is_excused_and_named() {
        let mut scenario = Scenario::new();
        scenario
            .submit(1, 1_000, true)
            .harness_kill(1, 15_000)
            .report(
                1,
                "KILLED",
                "KILLED",
                1,
                "Application application_1_0001 was killed by user yarn-admin",
                20_000,
            );
        let verdict = check(&scenario.input());
        assert!(verdict.passed(), "{verdict:?}");
        assert!(
            verdict.evidence().contains("killed by the harness"),
            "{verdict:?}"
        );
        // The same kill not made by the harness is a violation.
        let mut unexplained = Scenario::new();
        unexplained.submit(1, 1_000, true).report(
            1,
            "KILLED",
            "KILLED",
            1,
            "Application application_1_0001 was killed by user mallory",
            20_000,
        );
        assert!(matches!(check(&unexplained.input()), Verdict::Violated(_)));
    }

    #[test]
    fn a_first_attempt_failing_without_a_node_fault_is_a_violation() {
        let mut scenario = Scenario::new();
        scenario.submit(1, 1_000, true).report(
            1,
            "FINISHED",
            "FAILED",
            1,
            "1 of 2 containers succeeded",
            20_000,
        );
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(
            verdict.evidence().contains("FINISHED/FAILED"),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_failure_from_opportunistic_preemption_alone_is_excused_but_not_with_other_failures() {
        let preempted = diagnostics_line(&container(1, 2, 0), 1, -108, "killed for room");
        let mut scenario = Scenario::new();
        scenario
            .submit(1, 1_000, true)
            .report(1, "FINISHED", "FAILED", 1, &preempted, 20_000);
        let verdict = check(&scenario.input());
        assert!(
            verdict.evidence().contains("preempted for GUARANTEED"),
            "{verdict:?}"
        );
        assert!(verdict.passed());

        let lost = diagnostics_line(&container(1, 3, 0), 1, -100, "lost");
        let mut both = Scenario::new();
        both.submit(1, 1_000, true).report(
            1,
            "FINISHED",
            "FAILED",
            1,
            &format!("{preempted}\n{lost}"),
            20_000,
        );
        assert!(!check(&both.input()).passed());
    }

    #[test]
    fn a_failure_on_a_faulted_node_is_excused_and_named() {
        let mut scenario = Scenario::new();
        scenario
            .submit(1, 1_000, true)
            .snapshot(
                2_000,
                2,
                vec![view(
                    &container(1, 1, 0),
                    "RUNNING",
                    "GUARANTEED",
                    128,
                    -1000,
                )],
            )
            .node_fault(3, Fault::KillNm, 2, 5_000, 7_000)
            .report(1, "FINISHED", "FAILED", 1, "", 20_000);
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Held(_)), "{verdict:?}");
        assert!(
            verdict.evidence().contains("nm2 hit by kill-nm #3"),
            "{verdict:?}"
        );
    }
}
