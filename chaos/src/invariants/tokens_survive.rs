//! Tokens issued before a failover still validate after it.
//!
//! The evidence is the token probe's calls (see the token_probe module). A failover (a fault
//! that took the leader away, followed by a committed write) is crossed by a token when a probe
//! call invoked after that first write presented a token the probe held before the fault was
//! injected: an ApplicationMasterProtocol call for the AMRMToken, a container start for the
//! container token and NM token. The invariant is violated by any probe call refused for its
//! credentials, and by any task container of the workload that failed on a token (from its
//! ApplicationMaster's diagnostics).

use super::{CheckInput, Verdict, listing};
use crate::failover::Failover;
use crate::history::{Operation, OperationKind, Outcome};

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let mut problems = Vec::new();
    for operation in &input.history.operations {
        if let Outcome::Refused { error } = &operation.outcome {
            problems.push(format!(
                "{} at {} ms refused its token: {error}",
                describe(operation),
                operation.invoke_ms
            ));
        }
    }
    for app in &input.observations.applications {
        let Some(report) = &app.report else { continue };
        for result in yarn_applications::dshell::parse_diagnostics(&report.diagnostics) {
            if result.diagnostics.to_ascii_lowercase().contains("token") {
                problems.push(format!(
                    "{} of {} failed on a token: {}",
                    result.container_id, app.application_id, result.diagnostics
                ));
            }
        }
    }
    if !problems.is_empty() {
        return Verdict::Violated(listing(&problems));
    }
    let failovers: Vec<&Failover> = input
        .failovers
        .iter()
        .filter(|failover| failover.first_write_ms.is_some())
        .collect();
    if failovers.is_empty() {
        return Verdict::NotExercised("no failover completed; no token was refused".to_owned());
    }
    let mut amrm_crossed = 0_usize;
    let mut container_crossed = 0_usize;
    let mut uncrossed = Vec::new();
    for failover in &failovers {
        let amrm = crossing(input, failover, |kind| {
            matches!(kind, OperationKind::ProbeAmCall { .. })
        });
        let container = crossing(input, failover, |kind| {
            matches!(kind, OperationKind::ProbeStartContainer { .. })
        });
        amrm_crossed += usize::from(amrm);
        container_crossed += usize::from(container);
        if !amrm && !container {
            uncrossed.push(format!(
                "#{} at {} ms",
                failover.seq, failover.injected_at_ms
            ));
        }
    }
    let summary = format!(
        "of {} failovers, {amrm_crossed} were crossed by the probe's AMRMToken and \
         {container_crossed} by a container token and NM token it held from before the fault; \
         no token was refused",
        failovers.len()
    );
    if amrm_crossed + container_crossed == 0 {
        return Verdict::NotExercised(format!(
            "{summary}; no probe call presented a token from before a failover after it"
        ));
    }
    if uncrossed.is_empty() {
        Verdict::Held(summary)
    } else {
        Verdict::Held(format!("{summary}; not crossed: {}", listing(&uncrossed)))
    }
}

/// Whether a successful probe call of the kind `wanted` accepts, invoked after `failover`'s
/// first write, presented a token obtained before the fault was injected.
fn crossing(
    input: &CheckInput<'_>,
    failover: &Failover,
    wanted: impl Fn(&OperationKind) -> bool,
) -> bool {
    let Some(first_write) = failover.first_write_ms else {
        return false;
    };
    input.history.operations.iter().any(|operation| {
        wanted(&operation.kind)
            && operation.outcome.is_ok()
            && operation.invoke_ms >= first_write
            && token_ms(&operation.kind).is_some_and(|token| token < failover.injected_at_ms)
    })
}

/// When the token a probe call presented was obtained.
fn token_ms(kind: &OperationKind) -> Option<u64> {
    match kind {
        OperationKind::ProbeAmCall { token_ms, .. }
        | OperationKind::ProbeStartContainer { token_ms, .. } => Some(*token_ms),
        _ => None,
    }
}

/// A refused call, named for the evidence.
fn describe(operation: &Operation) -> String {
    match &operation.kind {
        OperationKind::ProbeAmCall {
            rpc,
            application_id,
            ..
        } => format!("the probe's {rpc} for {application_id}"),
        OperationKind::ProbeStartContainer {
            container_id,
            node_id,
            ..
        } => format!("the probe's start of {container_id} on {node_id}"),
        _ => format!("{}'s operation #{}", operation.process, operation.id),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Scenario, container, diagnostics_line};
    use super::*;

    #[test]
    fn tokens_held_across_a_failover_and_accepted_after_it_hold() {
        let mut scenario = Scenario::new();
        scenario
            .failover(0, 5_000, 6_000, "rm2")
            .probe_am_call(1_000, 7_000, true)
            .probe_start(&container(1, 2, 0), 4_000, 8_000, true);
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Held(_)), "{verdict:?}");
        assert!(
            verdict
                .evidence()
                .starts_with("of 1 failovers, 1 were crossed by the probe's AMRMToken and 1"),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_refused_probe_call_is_a_violation() {
        let mut refused_am = Scenario::new();
        refused_am
            .failover(0, 5_000, 6_000, "rm2")
            .probe_am_call(1_000, 7_000, false);
        let verdict = check(&refused_am.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(
            verdict.evidence().contains("the probe's allocate"),
            "{verdict:?}"
        );

        let mut refused_start = Scenario::new();
        refused_start.failover(0, 5_000, 6_000, "rm2").probe_start(
            &container(1, 2, 0),
            4_000,
            8_000,
            false,
        );
        let verdict = check(&refused_start.input());
        assert!(
            verdict.evidence().contains("the probe's start of"),
            "{verdict:?}"
        );
        assert!(!verdict.passed());
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
    fn tokens_obtained_after_the_fault_or_calls_before_the_new_leader_prove_nothing() {
        let mut scenario = Scenario::new();
        scenario
            .failover(0, 5_000, 6_000, "rm2")
            // Obtained after the fault was injected.
            .probe_am_call(5_500, 7_000, true)
            // Presented before the new leader's first write.
            .probe_start(&container(1, 2, 0), 4_000, 5_800, true);
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::NotExercised(_)), "{verdict:?}");

        let quiet = Scenario::new();
        assert!(matches!(check(&quiet.input()), Verdict::NotExercised(_)));
    }
}
