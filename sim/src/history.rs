//! [`History`]: what a simulated run did and saw, in order, and the invariants checked on it
//! as it happens.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// The trace of one run (faults, leaderships, acknowledged writes, at simulated times) and the
/// invariant violations found so far.
///
/// Every line is a pure function of the seed: two runs of one seed must produce equal traces,
/// which is what makes a failure replayable. Clones share the history; the hosts' writers and
/// the harness both record into it.
#[derive(Clone, Debug, Default)]
pub struct History {
    inner: Arc<Mutex<Recorded>>,
}

#[derive(Debug, Default)]
struct Recorded {
    trace: Vec<String>,
    violations: Vec<String>,
    /// Each acknowledged application sequence number, with who acknowledged it and when.
    acknowledged: BTreeMap<i32, String>,
    /// Every replica seen leading each term.
    leaders: BTreeMap<u64, BTreeSet<String>>,
}

impl History {
    fn lock(&self) -> MutexGuard<'_, Recorded> {
        // Records are pushed whole, so a poisoned history is consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends `event` at simulated time `at` to the trace.
    pub(crate) fn record(&self, at: Duration, event: impl AsRef<str>) {
        self.lock().trace.push(line(at, event.as_ref()));
    }

    /// Records that replica `rm_id` acknowledged the write that reserved sequence number `seq`.
    /// Violation: the number was acknowledged before, which means an acknowledged write was
    /// lost and the counter handed its number out again.
    pub(crate) fn acknowledged(&self, at: Duration, rm_id: &str, seq: i32) {
        let mut recorded = self.lock();
        recorded.trace.push(line(
            at,
            &format!("{rm_id} acknowledged sequence number {seq}"),
        ));
        if let Some(first) = recorded.acknowledged.insert(seq, rm_id.to_owned()) {
            let violation = format!(
                "sequence number {seq} acknowledged twice (by {first}, then by {rm_id}): an \
                 acknowledged write was lost"
            );
            recorded.violations.push(line(at, &violation));
        }
    }

    /// Records that `rm_id` was seen leading `term`. Violation: another replica was seen
    /// leading the same term.
    pub(crate) fn leader_seen(&self, at: Duration, rm_id: &str, term: u64) {
        let mut recorded = self.lock();
        let leaders = recorded.leaders.entry(term).or_default();
        if !leaders.insert(rm_id.to_owned()) {
            return;
        }
        let others: Vec<String> = leaders.iter().filter(|l| *l != rm_id).cloned().collect();
        recorded
            .trace
            .push(line(at, &format!("{rm_id} leads term {term}")));
        if !others.is_empty() {
            let violation = format!("{rm_id} and {} both led term {term}", others.join(", "));
            recorded.violations.push(line(at, &violation));
        }
    }

    /// Records a violation found by the harness at `at`.
    pub(crate) fn violation(&self, at: Duration, violation: impl AsRef<str>) {
        self.lock().violations.push(line(at, violation.as_ref()));
    }

    /// The greatest acknowledged sequence number, if any.
    pub(crate) fn greatest_acknowledged(&self) -> Option<i32> {
        self.lock().acknowledged.keys().next_back().copied()
    }

    /// How many writes were acknowledged.
    pub(crate) fn acknowledged_count(&self) -> usize {
        self.lock().acknowledged.len()
    }

    /// The trace so far.
    pub(crate) fn trace(&self) -> Vec<String> {
        self.lock().trace.clone()
    }

    /// The violations so far.
    pub(crate) fn violations(&self) -> Vec<String> {
        self.lock().violations.clone()
    }
}

fn line(at: Duration, event: &str) -> String {
    let mut line = String::with_capacity(event.len() + 12);
    // Writing to a String cannot fail.
    let _ = write!(line, "{:>9.3}s  {event}", at.as_secs_f64());
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_acknowledged_twice_and_two_leaders_of_one_term_are_violations() {
        let history = History::default();
        let at = Duration::from_millis(1500);
        history.leader_seen(at, "rm1", 2);
        history.leader_seen(at, "rm1", 2);
        history.acknowledged(at, "rm1", 1);
        history.acknowledged(at, "rm1", 2);
        assert!(history.violations().is_empty());
        history.leader_seen(at, "rm2", 3);
        history.leader_seen(at, "rm3", 3);
        history.acknowledged(at, "rm2", 2);
        let violations = history.violations();
        assert_eq!(violations.len(), 2, "{violations:?}");
        assert!(violations[0].contains("rm3 and rm2 both led term 3"));
        assert!(violations[1].contains("sequence number 2 acknowledged twice"));
        assert_eq!(history.greatest_acknowledged(), Some(2));
        assert_eq!(history.trace()[0], "    1.500s  rm1 leads term 2");
    }
}
