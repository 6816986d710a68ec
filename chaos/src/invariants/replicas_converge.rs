//! All replicas converge to the same state.
//!
//! Evidence: after healing, with the workload stopped, every replica's GetServiceStatus and
//! GetStateDigest, asked until they all report one applied index or the settle deadline
//! passes. They must all answer, name one leader in one term (which alone reports ACTIVE),
//! report the same applied index, and at that index the same digest of their state machine.
//! The RM reads its digest (a SHA-256 of the replicated state's canonical encoding) together
//! with the index it reflects, so equal indexes with different digests mean that a replica
//! applied an entry differently or restored a snapshot wrongly. Indexes that never converge
//! are a violation too.

use std::collections::{BTreeMap, BTreeSet};

use super::{CheckInput, Verdict};
use crate::observations::{ReplicaAnswer, ReplicaDigest, ReplicaStatus};

/// How many hexadecimal digits of each digest the evidence of a held check shows.
const SHORT_DIGEST: usize = 12;

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let observations = input.observations;
    if observations.replicas.is_empty() {
        return Verdict::NotExercised("no replica was asked after healing".to_owned());
    }
    match replicas_agree(&observations.replicas, &observations.digests) {
        Ok(evidence) => Verdict::Held(evidence),
        Err(evidence) => Verdict::Violated(evidence),
    }
}

/// Whether `statuses` and `digests` show converged replicas: every one answered both, all name
/// the same leader in the same term, that leader (and only it) reports ACTIVE, all applied the
/// same index and report the same digest there. `Ok` with the agreed values and each replica's
/// short digest, or `Err` saying what differs.
///
/// # Errors
///
/// A description of the first disagreement found, naming the replicas (and, for differing
/// digests, the digests).
pub fn replicas_agree(
    statuses: &[ReplicaStatus],
    digests: &[ReplicaDigest],
) -> Result<String, String> {
    match assess(statuses, digests) {
        Agreement::Agreed(evidence) => Ok(evidence),
        Agreement::Unsettled(evidence) | Agreement::Diverged(evidence) => Err(evidence),
    }
}

/// Whether asking again is pointless: the replicas agree, or they report one applied index
/// with different digests, which no later answer can mend.
pub fn replicas_settled(statuses: &[ReplicaStatus], digests: &[ReplicaDigest]) -> bool {
    !matches!(assess(statuses, digests), Agreement::Unsettled(_))
}

/// How far the replicas' answers agree.
enum Agreement {
    /// Everything agrees; the evidence.
    Agreed(String),
    /// A replica did not answer, or they differ in leader, term or applied index: they may
    /// still be catching up.
    Unsettled(String),
    /// One applied index, different digests: a replica's state diverged.
    Diverged(String),
}

/// One replica's answers to both calls.
struct Answers<'a> {
    rm_id: &'a str,
    status: &'a ReplicaAnswer,
    applied_index: u64,
    applied_term: u64,
    digest: &'a str,
}

fn assess(statuses: &[ReplicaStatus], digests: &[ReplicaDigest]) -> Agreement {
    let digest_of: BTreeMap<&str, &ReplicaDigest> = digests
        .iter()
        .map(|digest| (digest.rm_id.as_str(), digest))
        .collect();
    let mut answers = Vec::new();
    for status in statuses {
        let rm_id = status.rm_id.as_str();
        let answer = match &status.answer {
            Ok(answer) => answer,
            Err(error) => return Agreement::Unsettled(format!("{rm_id} did not answer: {error}")),
        };
        let digest = match digest_of.get(rm_id).map(|digest| &digest.answer) {
            Some(Ok(digest)) => digest,
            Some(Err(error)) => {
                return Agreement::Unsettled(format!(
                    "{rm_id} did not report its state digest: {error}"
                ));
            }
            None => {
                return Agreement::Unsettled(format!("{rm_id} was not asked for its state digest"));
            }
        };
        answers.push(Answers {
            rm_id,
            status: answer,
            applied_index: digest.applied_index,
            applied_term: digest.applied_term,
            digest: &digest.digest,
        });
    }
    let describe = || {
        answers
            .iter()
            .map(|a| {
                format!(
                    "{}: term {} leader {} applied {}{}",
                    a.rm_id,
                    a.status.term,
                    if a.status.leader_rm_id.is_empty() {
                        "none"
                    } else {
                        &a.status.leader_rm_id
                    },
                    a.applied_index,
                    if a.status.active { " ACTIVE" } else { "" }
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let views: BTreeSet<(u64, &str)> = answers
        .iter()
        .map(|a| (a.status.term, a.status.leader_rm_id.as_str()))
        .collect();
    let [(term, leader)] = views.into_iter().collect::<Vec<_>>()[..] else {
        return Agreement::Unsettled(format!(
            "replicas disagree on term or leader: {}",
            describe()
        ));
    };
    let active: Vec<&str> = answers
        .iter()
        .filter(|a| a.status.active)
        .map(|a| a.rm_id)
        .collect();
    if leader.is_empty() || active != [leader] {
        return Agreement::Unsettled(format!(
            "the agreed leader is not the one replica reporting ACTIVE: {}",
            describe()
        ));
    }
    let indexes: BTreeSet<u64> = answers.iter().map(|a| a.applied_index).collect();
    let [index] = indexes.into_iter().collect::<Vec<_>>()[..] else {
        return Agreement::Unsettled(format!(
            "replicas applied different indexes: {}",
            describe()
        ));
    };
    // The entry's term belongs to the compared state: one index in two terms is two logs.
    let states: BTreeSet<(u64, &str)> =
        answers.iter().map(|a| (a.applied_term, a.digest)).collect();
    if states.len() > 1 {
        let each = answers
            .iter()
            .map(|a| format!("{} term {} digest {}", a.rm_id, a.applied_term, a.digest))
            .collect::<Vec<_>>()
            .join(", ");
        return Agreement::Diverged(format!(
            "replicas applied index {index} to different states: {each}"
        ));
    }
    let each = answers
        .iter()
        .map(|a| format!("{} {}", a.rm_id, short(a.digest)))
        .collect::<Vec<_>>()
        .join(", ");
    Agreement::Agreed(format!(
        "{} replicas agree: leader {leader} in term {term}; at applied index {index}: {each}",
        answers.len()
    ))
}

/// The first [`SHORT_DIGEST`] characters of `digest`.
fn short(digest: &str) -> &str {
    digest
        .char_indices()
        .nth(SHORT_DIGEST)
        .map_or(digest, |(end, _)| &digest[..end])
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Scenario, fixture_digest};
    use super::*;
    use crate::observations::StateDigestAnswer;

    fn three_agreeing() -> Scenario {
        let mut scenario = Scenario::new();
        scenario.replicas(&[
            ("rm1", 5, "rm2", 812),
            ("rm2", 5, "rm2", 812),
            ("rm3", 5, "rm2", 812),
        ]);
        scenario
    }

    #[test]
    fn replicas_with_one_leader_term_index_and_digest_hold() {
        let scenario = three_agreeing();
        let short = &fixture_digest(812)[..SHORT_DIGEST];
        assert_eq!(
            check(&scenario.input()),
            Verdict::Held(format!(
                "3 replicas agree: leader rm2 in term 5; at applied index 812: rm1 {short}, \
                 rm2 {short}, rm3 {short}"
            ))
        );
        let observations = &scenario.observations;
        assert!(replicas_settled(
            &observations.replicas,
            &observations.digests
        ));
    }

    #[test]
    fn different_digests_at_one_index_are_a_violation_naming_replicas_and_digests() {
        let mut scenario = three_agreeing();
        let odd = "f".repeat(64);
        scenario.digest("rm3", &odd);
        let verdict = check(&scenario.input());
        assert!(!verdict.passed(), "{verdict:?}");
        let evidence = verdict.evidence();
        assert!(
            evidence.contains("applied index 812 to different states"),
            "{evidence}"
        );
        assert!(
            evidence.contains(&format!("rm3 term 5 digest {odd}")),
            "{evidence}"
        );
        assert!(
            evidence.contains(&format!("rm1 term 5 digest {}", fixture_digest(812))),
            "{evidence}"
        );
        // No later answer can mend it, so the harness stops asking.
        let observations = &scenario.observations;
        assert!(replicas_settled(
            &observations.replicas,
            &observations.digests
        ));
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
        assert!(
            verdict
                .evidence()
                .contains("rm1: term 5 leader rm2 applied 800")
        );
        assert!(!verdict.passed());
        let observations = &behind.observations;
        assert!(!replicas_settled(
            &observations.replicas,
            &observations.digests
        ));

        let mut split = Scenario::new();
        split.replicas(&[("rm1", 4, "rm1", 812), ("rm2", 5, "rm2", 812)]);
        assert!(check(&split.input()).evidence().contains("disagree"));
    }

    #[test]
    fn a_silent_replica_or_a_missing_digest_is_a_violation() {
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

        let mut scenario = three_agreeing();
        scenario.observations.digests[1].answer = Err("DeadlineExceeded".into());
        let verdict = check(&scenario.input());
        assert!(
            verdict
                .evidence()
                .contains("rm2 did not report its state digest: DeadlineExceeded"),
            "{verdict:?}"
        );

        let mut scenario = three_agreeing();
        scenario.observations.digests.pop();
        assert!(
            check(&scenario.input())
                .evidence()
                .contains("rm3 was not asked for its state digest")
        );
    }

    #[test]
    fn equal_digests_are_compared_only_at_one_index() {
        // A replica reporting the others' digest at another index has not caught up; the
        // digests say nothing about each other.
        let mut scenario = three_agreeing();
        scenario.observations.digests[0].answer = Ok(StateDigestAnswer {
            applied_index: 811,
            applied_term: 5,
            digest: fixture_digest(812),
        });
        let verdict = check(&scenario.input());
        assert!(
            verdict.evidence().contains("different indexes"),
            "{verdict:?}"
        );
    }
}
