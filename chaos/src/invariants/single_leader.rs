//! At most one leader per term.
//!
//! Evidence: every replica's status, polled past the proxies. A replica names the leader of its
//! current term (from one snapshot of its Raft metrics, so term and leader agree; its ACTIVE
//! flag is not used, as it comes from the serving gate, which trails the metrics); two replicas
//! naming different leaders for one term, or two replicas each claiming it, is a split brain.
//! Polling can miss a leader that lived between two polls; it cannot invent one.

use std::collections::{BTreeMap, BTreeSet};

use super::{CheckInput, Verdict, listing, seconds};

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    // term -> leader -> (first time named, by whom)
    let mut named: BTreeMap<u64, BTreeMap<&str, (u64, &str)>> = BTreeMap::new();
    let mut reports = 0_usize;
    for sample in &input.observations.leader_samples {
        // Only the leader the Raft metrics name goes with their term: ACTIVE is the RM's
        // serving gate, which trails leadership changes, so a replica deposed a moment ago
        // still reports ACTIVE beside the next term (seen with leadership transfers).
        let leader = sample.leader_rm_id.as_str();
        if leader.is_empty() {
            continue;
        }
        reports += 1;
        named
            .entry(sample.term)
            .or_default()
            .entry(leader)
            .or_insert((sample.at_ms, sample.rm_id.as_str()));
    }
    if named.is_empty() {
        return Verdict::NotExercised("no replica ever named a leader".to_owned());
    }
    let split: Vec<String> = named
        .iter()
        .filter(|(_, leaders)| leaders.len() > 1)
        .map(|(term, leaders)| {
            let claims: Vec<String> = leaders
                .iter()
                .map(|(leader, (at, by))| format!("{leader} (named by {by} at {})", seconds(*at)))
                .collect();
            format!("term {term} had leaders {}", claims.join(" and "))
        })
        .collect();
    if !split.is_empty() {
        return Verdict::Violated(listing(&split));
    }
    let leaders: BTreeSet<&str> = named.values().flat_map(|l| l.keys().copied()).collect();
    let terms: Vec<String> = named
        .iter()
        .map(|(term, leaders)| {
            let leader = leaders.keys().next().copied().unwrap_or_default();
            format!("{term}:{leader}")
        })
        .collect();
    Verdict::Held(format!(
        "{reports} leader reports over {} terms named one leader per term ({} distinct \
         leaders): {}",
        named.len(),
        leaders.len(),
        listing(&terms)
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::Scenario;
    use super::*;

    #[test]
    fn leaders_in_successive_terms_hold() {
        let mut scenario = Scenario::new();
        scenario
            .leader_sample(100, "rm1", true, 1, "rm1")
            .leader_sample(120, "rm2", false, 1, "rm1")
            .leader_sample(5_000, "rm2", true, 2, "rm2")
            .leader_sample(5_010, "rm1", false, 2, "rm2");
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Held(_)), "{verdict:?}");
        assert!(verdict.evidence().contains("1:rm1"), "{verdict:?}");
    }

    #[test]
    fn two_leaders_in_one_term_are_a_violation() {
        let mut scenario = Scenario::new();
        scenario
            .leader_sample(100, "rm1", true, 3, "rm1")
            .leader_sample(150, "rm2", true, 3, "rm2");
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(verdict.evidence().contains("term 3"), "{verdict:?}");
    }

    #[test]
    fn a_follower_naming_another_leader_for_the_term_is_a_violation_too() {
        let mut scenario = Scenario::new();
        scenario
            .leader_sample(100, "rm1", true, 4, "rm1")
            .leader_sample(150, "rm3", false, 4, "rm2");
        assert!(!check(&scenario.input()).passed());
    }

    #[test]
    fn a_deposed_leader_still_active_beside_the_next_term_is_not_a_second_leader() {
        let mut scenario = Scenario::new();
        scenario
            .leader_sample(100, "rm1", true, 5, "rm1")
            .leader_sample(200, "rm1", true, 6, "rm2")
            .leader_sample(210, "rm2", true, 6, "rm2");
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Held(_)), "{verdict:?}");
    }

    #[test]
    fn without_any_leader_nothing_is_exercised() {
        let mut scenario = Scenario::new();
        scenario.leader_sample(100, "rm1", false, 1, "");
        assert!(matches!(check(&scenario.input()), Verdict::NotExercised(_)));
    }
}
