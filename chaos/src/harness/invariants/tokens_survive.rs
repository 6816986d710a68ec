//! Tokens issued before a failover still validate after it.
//!
//! The harness cannot watch a token being checked, so this is an approximation, stated as such
//! in the report: an application whose first attempt was submitted before a failover and ended
//! after the new leader's first write registered its ApplicationMaster with the AMRMToken the
//! old leader issued, and the new leader had to accept that token (re-registration) and the
//! NodeManagers the container tokens of both leaders; such an application must finish
//! SUCCEEDED (NodeManager faults and preemption excuse it, as for surviving
//! ApplicationMasters). Besides, no
//! task container of any application may have failed with a token refusal in its diagnostics.

use super::{CheckInput, Verdict, application_window, excuse, listing};

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let mut problems = Vec::new();
    for app in &input.observations.applications {
        let Some(report) = &app.report else { continue };
        for result in yarn_client::dshell::parse_diagnostics(&report.diagnostics) {
            if result.diagnostics.to_ascii_lowercase().contains("token") {
                problems.push(format!(
                    "{} of {} failed on a token: {}",
                    result.container_id, app.application_id, result.diagnostics
                ));
            }
        }
    }
    let acknowledged = input.history.acknowledged_submissions();
    let mut spanning = 0_usize;
    let mut excused = 0_usize;
    for app in &input.observations.applications {
        let Some(acknowledgement) = acknowledged.get(app.application_id.as_str()) else {
            continue;
        };
        let Some(report) = app
            .report
            .as_ref()
            .filter(|r| r.is_final() && r.attempt == 1)
        else {
            continue;
        };
        let (_, ended) = application_window(input, &app.application_id);
        let spans = input.failovers.iter().any(|failover| {
            failover.first_write_ms.is_some_and(|first_write| {
                acknowledgement.complete_ms <= failover.injected_at_ms && first_write <= ended
            })
        });
        if !spans {
            continue;
        }
        spanning += 1;
        if report.succeeded() {
            continue;
        }
        match excuse(input, &app.application_id) {
            Some(_) => excused += 1,
            None => problems.push(format!(
                "{} spanned a failover on its first attempt and ended {}/{}",
                app.application_id, report.state, report.final_status
            )),
        }
    }
    if !problems.is_empty() {
        return Verdict::Violated(listing(&problems));
    }
    if spanning == 0 {
        return Verdict::NotExercised(
            "no application's first attempt spanned a failover; no token refusal was reported"
                .to_owned(),
        );
    }
    Verdict::Held(format!(
        "approximated: {spanning} applications kept their first attempt across a failover \
         ({} SUCCEEDED with the tokens issued before it, {excused} excused by NodeManager \
         faults or preemption); no container failed on a token",
        spanning - excused
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Scenario, container, diagnostics_line};
    use super::*;

    #[test]
    fn an_application_succeeding_across_a_failover_holds() {
        let mut scenario = Scenario::new();
        scenario
            .submit(1, 1_000, true)
            .failover(0, 5_000, 6_000, "rm2")
            .report(1, "FINISHED", "SUCCEEDED", 1, "", 12_000);
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Held(_)), "{verdict:?}");
        assert!(
            verdict
                .evidence()
                .starts_with("approximated: 1 applications")
        );
    }

    #[test]
    fn a_token_refusal_in_any_diagnostics_is_a_violation() {
        let mut scenario = Scenario::new();
        let line = diagnostics_line(
            &container(1, 2, 1),
            1,
            -1000,
            "start refused: invalid container token: unknown master key 7",
        );
        scenario
            .submit(1, 1_000, true)
            .report(1, "FINISHED", "FAILED", 1, &line, 12_000);
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(
            verdict.evidence().contains("failed on a token"),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_spanning_application_that_failed_is_a_violation_and_none_spanning_is_not_exercised() {
        let mut scenario = Scenario::new();
        scenario
            .submit(1, 1_000, true)
            .failover(0, 5_000, 6_000, "rm2")
            .report(1, "FAILED", "FAILED", 1, "not registered", 12_000);
        assert!(!check(&scenario.input()).passed());

        let mut quiet = Scenario::new();
        quiet
            .submit(1, 1_000, true)
            .report(1, "FINISHED", "SUCCEEDED", 1, "", 3_000)
            .failover(0, 5_000, 6_000, "rm2");
        assert!(matches!(check(&quiet.input()), Verdict::NotExercised(_)));
    }
}
