//! All replicas converge to the same state.
//!
//! Evidence: after healing, every replica's GetServiceStatus, asked until they agree or the
//! settle deadline passes. They must all answer, name one leader in one term (which reports
//! ACTIVE), and report the same last applied log index. The RM exposes no digest of its state
//! machine, so equal applied indexes of one Raft log (whose entries `apply` deterministically)
//! stand in for equal states: a replica that applied an entry differently would go unnoticed.

use std::collections::BTreeSet;

use super::{CheckInput, Verdict};
use crate::harness::observations::ReplicaStatus;

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    if input.observations.replicas.is_empty() {
        return Verdict::NotExercised("no replica was asked after healing".to_owned());
    }
    match replicas_agree(&input.observations.replicas) {
        Ok(evidence) => Verdict::Held(evidence),
        Err(evidence) => Verdict::Violated(evidence),
    }
}

/// Whether `statuses` show converged replicas: every one answered, all name the same leader in
/// the same term, that leader (and only it) reports ACTIVE, and all applied the same index.
/// `Ok` with the agreed values, or `Err` saying what differs.
///
/// # Errors
///
/// A description of the first disagreement found.
pub fn replicas_agree(statuses: &[ReplicaStatus]) -> Result<String, String> {
    let mut answers = Vec::new();
    for status in statuses {
        match &status.answer {
            Ok(answer) => answers.push((status.rm_id.as_str(), answer)),
            Err(error) => return Err(format!("{} did not answer: {error}", status.rm_id)),
        }
    }
    let describe = || {
        answers
            .iter()
            .map(|(rm_id, answer)| {
                format!(
                    "{rm_id}: term {} leader {} applied {}{}",
                    answer.term,
                    if answer.leader_rm_id.is_empty() {
                        "none"
                    } else {
                        &answer.leader_rm_id
                    },
                    answer.last_applied_index,
                    if answer.active { " ACTIVE" } else { "" }
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let views: BTreeSet<(u64, &str)> = answers
        .iter()
        .map(|(_, answer)| (answer.term, answer.leader_rm_id.as_str()))
        .collect();
    let indexes: BTreeSet<u64> = answers
        .iter()
        .map(|(_, answer)| answer.last_applied_index)
        .collect();
    let active: Vec<&str> = answers
        .iter()
        .filter(|(_, answer)| answer.active)
        .map(|(rm_id, _)| *rm_id)
        .collect();
    let [(term, leader)] = views.into_iter().collect::<Vec<_>>()[..] else {
        return Err(format!(
            "replicas disagree on term or leader: {}",
            describe()
        ));
    };
    if leader.is_empty() || active != [leader] {
        return Err(format!(
            "the agreed leader is not the one replica reporting ACTIVE: {}",
            describe()
        ));
    }
    let [index] = indexes.into_iter().collect::<Vec<_>>()[..] else {
        return Err(format!(
            "replicas applied different indexes: {}",
            describe()
        ));
    };
    Ok(format!(
        "{} replicas agree: leader {leader} in term {term}, last applied index {index}",
        answers.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::Scenario;
    use super::*;

    #[test]
    fn replicas_with_one_leader_term_and_index_hold() {
        let mut scenario = Scenario::new();
        scenario.replicas(&[
            ("rm1", 5, "rm2", 812),
            ("rm2", 5, "rm2", 812),
            ("rm3", 5, "rm2", 812),
        ]);
        assert_eq!(
            check(&scenario.input()),
            Verdict::Held("3 replicas agree: leader rm2 in term 5, last applied index 812".into())
        );
    }

    #[test]
    fn a_replica_behind_or_in_another_term_is_a_violation() {
        let mut behind = Scenario::new();
        behind.replicas(&[
            ("rm1", 5, "rm2", 800),
            ("rm2", 5, "rm2", 812),
            ("rm3", 5, "rm2", 812),
        ]);
        let verdict = check(&behind.input());
        assert!(
            verdict.evidence().contains("different indexes"),
            "{verdict:?}"
        );
        assert!(!verdict.passed());

        let mut split = Scenario::new();
        split.replicas(&[("rm1", 4, "rm1", 812), ("rm2", 5, "rm2", 812)]);
        assert!(check(&split.input()).evidence().contains("disagree"));
    }

    #[test]
    fn a_silent_replica_is_a_violation() {
        let mut scenario = Scenario::new();
        scenario.replicas(&[("rm1", 5, "rm1", 10)]);
        scenario.observations.replicas.push(ReplicaStatus {
            rm_id: "rm2".into(),
            answer: Err("connection refused".into()),
        });
        let verdict = check(&scenario.input());
        assert!(
            verdict.evidence().contains("rm2 did not answer"),
            "{verdict:?}"
        );
    }
}
