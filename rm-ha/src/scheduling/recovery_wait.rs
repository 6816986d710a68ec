//! [`RecoveryWait`]: when a new leader may start allocating.

use std::collections::BTreeSet;
use std::time::Duration;

use tokio::time::Instant;
use yarn_proto::ids::NodeId;

use crate::state_machine::RmState;

/// YARN's work-preserving recovery wait, for one leadership.
///
/// A new leader knows the containers of the replicated state but not yet the nodes' free
/// resources; allocating before the nodes that hold live containers have re-registered could
/// place containers on resources those containers still use. Scheduling therefore waits until
/// every such node has registered again or `wait`
/// (`yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms`) has passed, whichever
/// comes first. Once over, it stays over. Pure: times are passed in.
#[derive(Debug, Clone)]
pub struct RecoveryWait {
    awaited: BTreeSet<String>,
    deadline: Instant,
}

impl RecoveryWait {
    /// The wait of a leadership that began at `started` over `state`.
    pub fn new(state: &RmState, started: Instant, wait: Duration) -> Self {
        let awaited = state
            .containers
            .iter()
            .filter(|record| record.is_live())
            .map(|record| record.node.clone())
            .collect();
        Self {
            awaited,
            deadline: started + wait,
        }
    }

    /// Whether scheduling may run at `now`, given the nodes registered so far.
    pub fn is_over<'a>(
        &mut self,
        now: Instant,
        registered: impl IntoIterator<Item = &'a NodeId>,
    ) -> bool {
        if self.awaited.is_empty() {
            return true;
        }
        for node in registered {
            self.awaited.remove(&node.to_string());
        }
        if now >= self.deadline {
            tracing::warn!(
                missing = ?self.awaited,
                "work-preserving recovery: scheduling starts before these nodes resynced"
            );
            self.awaited.clear();
        }
        self.awaited.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::running_application;

    fn state_with_containers_on(nodes: &[&str], completed_on: &str) -> RmState {
        let containers: Vec<(i64, &str)> = (1..)
            .zip(nodes.iter().copied().chain([completed_on]))
            .collect();
        let completed = i64::try_from(containers.len()).expect("a few containers");
        running_application(&containers, &[completed])
    }

    fn id(node: &str) -> NodeId {
        node.parse().unwrap()
    }

    #[test]
    fn waits_for_nodes_with_live_containers_or_the_deadline() {
        let start = Instant::now();
        let wait = Duration::from_secs(10);
        let state = state_with_containers_on(&["nm1:8041", "nm2:8041"], "nm3:8041");
        let mut recovery = RecoveryWait::new(&state, start, wait);
        assert!(!recovery.is_over(start, &[id("nm1:8041"), id("nm3:8041")]));
        assert!(
            recovery.is_over(start, &[id("nm2:8041")]),
            "nm1 was seen before"
        );

        let mut timed = RecoveryWait::new(&state, start, wait);
        assert!(!timed.is_over(start + wait - Duration::from_millis(1), &[]));
        assert!(timed.is_over(start + wait, &[]));
        assert!(timed.is_over(start, &[]), "once over, it stays over");

        let fresh = RmState::default();
        assert!(RecoveryWait::new(&fresh, start, wait).is_over(start, &[]));
    }
}
