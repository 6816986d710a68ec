//! No application id is handed out twice.
//!
//! Every GetNewApplication is one committed Raft entry that advances the id counter, so an id
//! handed out again means a committed entry was lost: a replica acknowledged a write it had not
//! made durable, or a new leader started from an older state. The ids come from the write
//! prober (several a second on the leader) and from the workload's own GetNewApplication
//! answers.

use std::collections::BTreeMap;

use super::{CheckInput, Verdict, listing};
use crate::history::{OperationKind, OperationResult, Outcome};

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    // Each id with every (when, who) that was given it.
    let mut given: BTreeMap<&str, Vec<(u64, String)>> = BTreeMap::new();
    for write in &input.observations.write_samples {
        if !write.application_id.is_empty() {
            given
                .entry(write.application_id.as_str())
                .or_default()
                .push((write.at_ms, format!("the write prober on {}", write.rm_id)));
        }
    }
    for operation in &input.history.operations {
        if let (
            OperationKind::GetNewApplication,
            Outcome::Ok {
                result: OperationResult::Application { application_id },
            },
        ) = (&operation.kind, &operation.outcome)
        {
            given
                .entry(application_id.as_str())
                .or_default()
                .push((operation.complete_ms, operation.process.clone()));
        }
    }
    let problems: Vec<String> = given
        .iter()
        .filter(|(_, receivers)| receivers.len() > 1)
        .map(|(id, receivers)| {
            let who: Vec<String> = receivers
                .iter()
                .map(|(at_ms, whom)| format!("{whom} at {at_ms} ms"))
                .collect();
            format!(
                "{id} was handed out {} times: {}",
                who.len(),
                who.join(", ")
            )
        })
        .collect();
    if !problems.is_empty() {
        return Verdict::Violated(listing(&problems));
    }
    if given.is_empty() {
        return Verdict::NotExercised("no GetNewApplication answer was recorded".to_owned());
    }
    Verdict::Held(format!(
        "{} application ids handed out, each once",
        given.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::Scenario;
    use super::*;

    #[test]
    fn ids_handed_out_once_hold_and_an_id_handed_out_again_is_a_violation() {
        let mut scenario = Scenario::new();
        scenario
            .prober_write(1_000, "rm1", 1)
            .prober_write(1_100, "rm1", 2)
            .new_application(1_200, 3);
        let verdict = check(&scenario.input());
        assert_eq!(
            verdict,
            Verdict::Held("3 application ids handed out, each once".to_owned())
        );

        // The group crashed and came back without the entry that gave out id 2.
        scenario.prober_write(5_000, "rm2", 2);
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(
            verdict.evidence().contains("handed out 2 times")
                && verdict
                    .evidence()
                    .contains("the write prober on rm2 at 5000 ms"),
            "{verdict:?}"
        );
    }

    #[test]
    fn an_id_the_workload_and_the_prober_both_got_is_a_violation() {
        let mut scenario = Scenario::new();
        scenario
            .prober_write(1_000, "rm1", 4)
            .new_application(2_000, 4);
        assert!(!check(&scenario.input()).passed());
        assert!(matches!(
            check(&Scenario::new().input()),
            Verdict::NotExercised(_)
        ));
    }
}
