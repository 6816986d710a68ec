//! [`OpportunisticScheduling`]: the leader's outstanding OPPORTUNISTIC asks, per attempt.

use std::collections::{BTreeMap, BTreeSet};

use yarn_opportunistic::{
    OpportunisticAsk, OpportunisticContainerAllocator, OpportunisticPlacement, RemoteNode,
    merge_asks,
};
use yarn_proto::ids::ApplicationAttemptId;

/// The OPPORTUNISTIC asks of every attempt and the allocator that places them, as YARN's
/// `OpportunisticContainerContext` per attempt.
///
/// Soft state, like the CapacityScheduler's asks: a new leader starts empty and the AMs re-send
/// their outstanding asks when they register again. Pure: placements are returned for the
/// caller to number, commit and report.
#[derive(Debug, Clone, Default)]
pub struct OpportunisticScheduling {
    attempts: BTreeMap<ApplicationAttemptId, AttemptAsks>,
}

#[derive(Debug, Clone)]
struct AttemptAsks {
    asks: Vec<OpportunisticAsk>,
    allocator: OpportunisticContainerAllocator,
}

impl OpportunisticScheduling {
    /// Replaces the attempt's asks with the same scheduler key and resource name (a count of 0
    /// cancels one, a `"*"` count of 0 its whole key), as YARN's ask table does. The attempt
    /// gets at most `max_per_pass` containers per scheduling pass (`None`: no cap). Returns how
    /// many containers are newly asked for: by how much each `"*"` ask raises its key's
    /// outstanding count (an AM re-sends what it still wants, so a repeated count adds none).
    ///
    /// # Errors
    ///
    /// The allocator's refusal of the resulting table (a key without a `"*"` ask, host asks
    /// sized unlike their `"*"` ask, one key and name asked twice in `asks`); nothing changes.
    pub fn update_asks(
        &mut self,
        attempt: ApplicationAttemptId,
        asks: Vec<OpportunisticAsk>,
        max_per_pass: Option<u32>,
    ) -> Result<u64, String> {
        if asks.is_empty() {
            return Ok(0);
        }
        let current = self.attempts.get(&attempt).map_or(&[][..], |a| &a.asks[..]);
        let newly_asked: u64 = asks
            .iter()
            .filter(|ask| ask.is_any())
            .map(|ask| {
                let outstanding = current
                    .iter()
                    .find(|old| old.is_any() && old.scheduler_key() == ask.scheduler_key())
                    .map_or(0, |old| old.num_containers);
                u64::from(ask.num_containers.saturating_sub(outstanding))
            })
            .sum();
        let table = merge_asks(current, asks).map_err(|err| err.to_string())?;
        self.attempts
            .entry(attempt)
            .or_insert_with(|| AttemptAsks {
                asks: Vec::new(),
                allocator: OpportunisticContainerAllocator::new(max_per_pass),
            })
            .asks = table;
        Ok(newly_asked)
    }

    /// Forgets the asks of every attempt `is_current` rejects (finished, superseded).
    pub fn retain(&mut self, mut is_current: impl FnMut(ApplicationAttemptId) -> bool) {
        self.attempts.retain(|attempt, _| is_current(*attempt));
    }

    /// Places the outstanding asks of every attempt on `nodes` (the least-loaded list, best
    /// first), avoiding what `blacklist` returns for the attempt, in attempt order. Placed
    /// containers leave the asks.
    pub fn schedule(
        &mut self,
        nodes: &[RemoteNode],
        mut blacklist: impl FnMut(ApplicationAttemptId) -> BTreeSet<String>,
    ) -> Vec<(ApplicationAttemptId, OpportunisticPlacement)> {
        let mut placed = Vec::new();
        if nodes.is_empty() {
            return placed;
        }
        for (attempt, state) in &mut self.attempts {
            if state.asks.is_empty() {
                continue;
            }
            // Validated when the asks were taken, so the allocator does not refuse them.
            if let Ok(allocation) =
                state
                    .allocator
                    .allocate(&state.asks, nodes, &blacklist(*attempt))
            {
                state.asks = allocation.remaining;
                placed.extend(
                    allocation
                        .placements
                        .into_iter()
                        .map(|placement| (*attempt, placement)),
                );
            }
        }
        placed
    }

    /// Containers still wanted by `attempt`, for reports and tests.
    pub fn outstanding(&self, attempt: ApplicationAttemptId) -> u32 {
        self.attempts.get(&attempt).map_or(0, |state| {
            state
                .asks
                .iter()
                .filter(|ask| ask.is_any())
                .map(|ask| ask.num_containers)
                .sum()
        })
    }
}

#[cfg(test)]
mod tests {
    use yarn_opportunistic::Resource;
    use yarn_proto::ids::ApplicationId;

    use super::*;

    fn attempt(n: i32) -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(5, n), 1)
    }

    fn node(host: &str) -> RemoteNode {
        RemoteNode {
            node_id: format!("{host}:8041"),
            host: host.to_owned(),
            rack: "/default-rack".to_owned(),
            queue_room: None,
        }
    }

    fn any(count: u32) -> OpportunisticAsk {
        OpportunisticAsk::new(1, "*", Resource::new(1024, 1), count)
    }

    #[test]
    fn asks_replace_by_key_and_are_placed_once() {
        let mut scheduling = OpportunisticScheduling::default();
        let asked = scheduling.update_asks(attempt(1), vec![any(5)], None);
        assert_eq!(asked, Ok(5));
        let asked = scheduling.update_asks(attempt(1), vec![any(3)], None);
        assert_eq!(asked, Ok(0), "a lower count asks for nothing new");
        assert_eq!(scheduling.outstanding(attempt(1)), 3, "replaced, not added");

        let nodes = [node("h1"), node("h2")];
        let placed = scheduling.schedule(&nodes, |_| BTreeSet::new());
        assert_eq!(placed.len(), 3);
        assert_eq!(scheduling.outstanding(attempt(1)), 0);
        assert!(scheduling.schedule(&nodes, |_| BTreeSet::new()).is_empty());
        let asked = scheduling.update_asks(attempt(1), vec![any(2)], None);
        assert_eq!(asked, Ok(2), "asked again after the placements");
    }

    #[test]
    fn a_host_ask_without_its_any_ask_is_refused_and_blacklists_apply() {
        let mut scheduling = OpportunisticScheduling::default();
        let host_only = OpportunisticAsk::new(1, "h1", Resource::new(1024, 1), 1);
        assert!(
            scheduling
                .update_asks(attempt(1), vec![host_only], Some(1))
                .is_err()
        );
        assert_eq!(scheduling.outstanding(attempt(1)), 0);

        scheduling
            .update_asks(attempt(1), vec![any(2)], Some(1))
            .unwrap();
        let nodes = [node("h1"), node("h2")];
        let blacklist = |_| BTreeSet::from(["h1".to_owned()]);
        let placed = scheduling.schedule(&nodes, blacklist);
        assert_eq!(placed.len(), 1, "capped at one per pass");
        assert_eq!(placed[0].1.host, "h2");
        scheduling.retain(|_| false);
        assert_eq!(scheduling.outstanding(attempt(1)), 0);
    }
}
