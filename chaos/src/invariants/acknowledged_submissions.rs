//! Every acknowledged submission exists after healing and reaches a final state.
//!
//! Evidence: the history's SubmitApplication calls that returned success, and each of those
//! applications' reports asked after healing (waiting up to the run's drain deadline for a final
//! state). Submissions whose outcome the client never learned are not held to it.

use std::collections::BTreeMap;

use super::{CheckInput, Verdict, listing};

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let acknowledged = input.history.acknowledged_submissions();
    if acknowledged.is_empty() {
        return Verdict::NotExercised("no submission was acknowledged".to_owned());
    }
    let mut problems = Vec::new();
    let mut states: BTreeMap<&str, usize> = BTreeMap::new();
    for (application_id, operation) in &acknowledged {
        let found = input
            .observations
            .applications
            .iter()
            .find(|app| app.application_id == *application_id);
        match found.and_then(|app| app.report.as_ref()) {
            Some(report) if report.is_final() => {
                *states.entry(report.state.as_str()).or_default() += 1;
            }
            Some(report) => problems.push(format!(
                "{application_id} (acknowledged at {} ms) is still {} after healing",
                operation.complete_ms, report.state
            )),
            None => problems.push(format!(
                "{application_id} (acknowledged at {} ms) is unknown after healing: {}",
                operation.complete_ms,
                found
                    .and_then(|app| app.error.as_deref())
                    .unwrap_or("never asked about")
            )),
        }
    }
    if !problems.is_empty() {
        return Verdict::Violated(listing(&problems));
    }
    let states: Vec<String> = states
        .iter()
        .map(|(state, count)| format!("{count} {state}"))
        .collect();
    Verdict::Held(format!(
        "{} acknowledged submissions all exist after healing, in final states: {}",
        acknowledged.len(),
        states.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::Scenario;
    use super::*;

    #[test]
    fn acknowledged_applications_that_ended_hold_and_unacknowledged_ones_do_not_count() {
        let mut scenario = Scenario::new();
        scenario
            .submit(1, 1_000, true)
            .submit(2, 2_000, false)
            .report(1, "FINISHED", "SUCCEEDED", 1, "", 9_000);
        let verdict = check(&scenario.input());
        assert_eq!(
            verdict,
            Verdict::Held(
                "1 acknowledged submissions all exist after healing, in final states: 1 FINISHED"
                    .into()
            )
        );
    }

    #[test]
    fn a_lost_acknowledged_submission_is_a_violation() {
        let mut scenario = Scenario::new();
        scenario.submit(1, 1_000, true).missing(1);
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(verdict.evidence().contains("unknown after healing"));
    }

    #[test]
    fn an_acknowledged_application_that_never_ends_is_a_violation() {
        let mut scenario = Scenario::new();
        scenario
            .submit(3, 1_000, true)
            .report(3, "RUNNING", "UNDEFINED", 1, "", 9_000);
        let verdict = check(&scenario.input());
        assert!(verdict.evidence().contains("still RUNNING"), "{verdict:?}");
        assert!(!verdict.passed());
    }
}
