//! [`History`]: what a simulated run did and saw, in order, and the invariants checked on it
//! as it happens.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use yarn_applications::dshell::{ContainerResult, EXIT_STATUS_INVALID, parse_diagnostics};
use yarn_rm_ha::node_id_of;

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
    /// Every replica seen serving as leader in each term.
    serving: BTreeMap<u64, BTreeSet<String>>,
    /// Where and at what size each container id was launched.
    launched: BTreeMap<String, (String, u64)>,
    /// Each ended application's final state and status, and its diagnostics.
    ended: BTreeMap<String, Ended>,
    /// The NodeManager hosts that rebooted.
    rebooted: BTreeSet<String>,
}

/// What a replica was seen doing in a term.
#[derive(Debug, Clone, Copy)]
enum Role {
    /// openraft's leader.
    Leading,
    /// Serving as leader: leader gate open, leader services running.
    Serving,
}

/// How an application ended, as its final report said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ended {
    pub(crate) state: String,
    pub(crate) status: String,
    pub(crate) diagnostics: String,
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

    /// Records that `rm_id` was seen leading `term`. Violation: a replica with a greater node
    /// id was seen leading the same term before, so a leader id went backwards (openraft's
    /// leader ids are (term, node id), and several replicas may lead one term in turn).
    pub(crate) fn leader_seen(&self, at: Duration, rm_id: &str, term: u64) {
        self.seen_in_term(at, rm_id, term, Role::Leading);
    }

    /// Records that replica `rm_id` was seen serving as leader of `term` (its leader gate open,
    /// its leader services running). Violation: as for [`leader_seen`](Self::leader_seen).
    pub(crate) fn serving_seen(&self, at: Duration, rm_id: &str, term: u64) {
        self.seen_in_term(at, rm_id, term, Role::Serving);
    }

    fn seen_in_term(&self, at: Duration, rm_id: &str, term: u64, role: Role) {
        let mut recorded = self.lock();
        let seen = match role {
            Role::Leading => &mut recorded.leaders,
            Role::Serving => &mut recorded.serving,
        }
        .entry(term)
        .or_default();
        if !seen.insert(rm_id.to_owned()) {
            return;
        }
        // openraft's leader ids are (term, node id): within a term, a candidate with a greater
        // node id may win after another led, never one with a smaller id.
        let overtaken: Vec<String> = seen
            .iter()
            .filter(|other| *other != rm_id && node_id_of(other) > node_id_of(rm_id))
            .cloned()
            .collect();
        let (doing, did) = match role {
            Role::Leading => ("leads", "led"),
            Role::Serving => ("serves as leader of", "served as leader of"),
        };
        recorded
            .trace
            .push(line(at, &format!("{rm_id} {doing} term {term}")));
        if !overtaken.is_empty() {
            let violation = format!(
                "{rm_id} {did} term {term} after {}, whose node ids are greater: a leader id \
                 went backwards",
                overtaken.join(", ")
            );
            recorded.violations.push(line(at, &violation));
        }
    }

    /// Records that a NodeManager launched container `container_id` on `node` with
    /// `memory_mb`. Violation: the id was launched before on another node or at another size,
    /// so it was issued twice (a node refuses a second start of an id it runs).
    pub(crate) fn launched(&self, container_id: &str, node: &str, memory_mb: u64) {
        let at = turmoil::sim_elapsed().unwrap_or_default();
        let mut recorded = self.lock();
        recorded.trace.push(line(
            at,
            &format!("{node} launched {container_id} ({memory_mb} MB)"),
        ));
        let this = (node.to_owned(), memory_mb);
        match recorded.launched.get(container_id) {
            Some(first) if *first != this => {
                let violation = format!(
                    "container id {container_id} was issued twice: launched on {} with {} MB, \
                     then on {node} with {memory_mb} MB",
                    first.0, first.1
                );
                recorded.violations.push(line(at, &violation));
            }
            Some(_) => {}
            None => {
                recorded.launched.insert(container_id.to_owned(), this);
            }
        }
    }

    /// Records that NodeManager host `node` rebooted (or came back from its reboot), and that
    /// `applications` may lose containers there: they had containers live on it by some
    /// replica's state.
    pub(crate) fn struck_by_reboot(
        &self,
        at: Duration,
        node: &str,
        applications: BTreeSet<String>,
    ) {
        let mut recorded = self.lock();
        recorded.rebooted.insert(node.to_owned());
        for application in applications {
            if recorded.ended.contains_key(&application) {
                continue;
            }
            recorded.trace.push(line(
                at,
                &format!("{application} may lose containers on {node}"),
            ));
        }
    }

    /// Whether a failed run is explained by reboots: its `diagnostics` list a failed task,
    /// and every failed task is a start that failed on a node that rebooted (it was down). A
    /// task whose container was lost with its node ran again, so it is not one; nor is any
    /// task whose command ran and failed.
    pub(crate) fn failed_only_on_rebooted_nodes(&self, diagnostics: &str) -> bool {
        let recorded = self.lock();
        let failed: Vec<ContainerResult> = parse_diagnostics(diagnostics)
            .into_iter()
            .filter(|result| !result.succeeded())
            .collect();
        !failed.is_empty()
            && failed.iter().all(|result| {
                let host = result.node.split(':').next().unwrap_or_default();
                result.exit_status == EXIT_STATUS_INVALID && recorded.rebooted.contains(host)
            })
    }

    /// Records the final report of `application`.
    pub(crate) fn application_ended(
        &self,
        at: Duration,
        application: &str,
        state: &str,
        status: &str,
        diagnostics: &str,
    ) {
        let mut recorded = self.lock();
        recorded.trace.push(line(
            at,
            &format!("{application} ended {state} with final status {status}"),
        ));
        recorded.ended.insert(
            application.to_owned(),
            Ended {
                state: state.to_owned(),
                status: status.to_owned(),
                diagnostics: diagnostics.to_owned(),
            },
        );
    }

    /// The applications that ended, with how.
    pub(crate) fn ended(&self) -> BTreeMap<String, Ended> {
        self.lock().ended.clone()
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
        // rm3's node id is greater than rm2's: rm3 may follow rm2 within a term, not precede it.
        assert!(node_id_of("rm3") > node_id_of("rm2"));
        history.leader_seen(at, "rm2", 3);
        history.leader_seen(at, "rm3", 3);
        assert!(history.violations().is_empty());
        history.leader_seen(at, "rm3", 4);
        history.leader_seen(at, "rm2", 4);
        history.acknowledged(at, "rm2", 2);
        let violations = history.violations();
        assert_eq!(violations.len(), 2, "{violations:?}");
        assert!(
            violations[0].contains("rm2 led term 4 after rm3"),
            "{violations:?}"
        );
        assert!(violations[1].contains("sequence number 2 acknowledged twice"));
        assert_eq!(history.greatest_acknowledged(), Some(2));
        assert_eq!(history.trace()[0], "    1.500s  rm1 leads term 2");
    }
}
