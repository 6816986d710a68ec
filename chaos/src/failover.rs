//! [`Failover`]: how long the cluster could not commit a write after each fault that took its
//! leader away.

use serde::{Deserialize, Serialize};

use crate::fault::Fault;
use crate::observations::WriteSample;
use crate::timeline::{FaultStatus, TimelineEntry};

/// One fault that took the leader away, and the first write committed after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failover {
    /// The fault's position in the schedule.
    pub seq: usize,
    /// The fault.
    pub fault: Fault,
    /// The leader it took away.
    pub old_leader: String,
    /// When it was injected.
    pub injected_at_ms: u64,
    /// When the first write invoked after the injection was committed, if one was before the
    /// run ended.
    pub first_write_ms: Option<u64>,
    /// The replica that committed it.
    pub first_writer: Option<String>,
    /// `first_write_ms - injected_at_ms`: how long no write could commit.
    pub unavailable_ms: Option<u64>,
}

impl Failover {
    /// Whether a replica other than the old leader committed the first write.
    pub fn leader_changed(&self) -> bool {
        self.first_writer
            .as_deref()
            .is_some_and(|writer| writer != self.old_leader)
    }
}

/// The failovers of `timeline`: every injected fault that targeted the leader, with the first
/// prober write *invoked* after the injection by a replica other than the old leader (or, when
/// leadership never moved or the whole group crashed, by any replica). Pure.
///
/// The unavailability is the gap in committed writes that ends with that write: it starts at
/// the injection, or at the last write committed after it (a transferring leader keeps
/// committing until it hands over; a write sent just before a partition may still commit).
pub fn failovers(timeline: &[TimelineEntry], writes: &[WriteSample]) -> Vec<Failover> {
    timeline
        .iter()
        .filter(|entry| entry.status == FaultStatus::Injected && entry.targets_leader)
        .filter_map(|entry| {
            let injected_at_ms = entry.injected_at_ms?;
            let old_leader = entry.leader_before.clone()?;
            let after = || writes.iter().filter(|w| w.invoked_ms >= injected_at_ms);
            // After a crash of the whole group the old leader may lead again, in its old term
            // (openraft resumes a leadership its committed vote records); its first commit ends
            // the outage as well as another replica's would.
            let any_writer = entry.fault.is_group_crash();
            let first = after()
                .filter(|write| any_writer || write.rm_id != old_leader)
                .min_by_key(|write| write.at_ms)
                .or_else(|| after().min_by_key(|write| write.at_ms));
            let unavailable_ms = first.map(|first| {
                let gap_start = writes
                    .iter()
                    .filter(|write| write.at_ms < first.at_ms)
                    .map(|write| write.at_ms)
                    .max()
                    .unwrap_or(0)
                    .max(injected_at_ms);
                first.at_ms.saturating_sub(gap_start)
            });
            Some(Failover {
                seq: entry.seq,
                fault: entry.fault,
                old_leader,
                injected_at_ms,
                first_write_ms: first.map(|write| write.at_ms),
                first_writer: first.map(|write| write.rm_id.clone()),
                unavailable_ms,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::ScheduledFault;

    fn entry(seq: usize, fault: Fault, at: u64, targets_leader: bool) -> TimelineEntry {
        let scheduled = ScheduledFault {
            seq,
            at_ms: at,
            fault,
            hold_ms: 1000,
            pick: 0,
        };
        let mut entry =
            TimelineEntry::not_injected(&scheduled, FaultStatus::Injected, String::new());
        entry.reason = None;
        entry.injected_at_ms = Some(at);
        entry.leader_before = Some("rm1".into());
        entry.targets_leader = targets_leader;
        entry
    }

    fn write(invoked_ms: u64, at_ms: u64, rm_id: &str) -> WriteSample {
        WriteSample {
            invoked_ms,
            at_ms,
            rm_id: rm_id.into(),
            application_id: String::new(),
        }
    }

    #[test]
    fn the_first_write_sent_after_the_fault_ends_the_unavailability() {
        let timeline = [
            entry(0, Fault::KillLeader, 1_000, true),
            entry(1, Fault::KillNm, 5_000, false),
        ];
        let writes = [
            // Sent before the kill, answered after: not evidence of a new leader.
            write(990, 1_010, "rm1"),
            write(1_200, 1_750, "rm2"),
            write(1_800, 1_820, "rm2"),
        ];
        let failovers = failovers(&timeline, &writes);
        assert_eq!(failovers.len(), 1, "only leader faults count");
        let failover = &failovers[0];
        // The old leader still committed at 1 010 ms: the gap runs from there.
        assert_eq!(failover.unavailable_ms, Some(740));
        assert_eq!(failover.first_writer.as_deref(), Some("rm2"));
        assert!(failover.leader_changed());
    }

    #[test]
    fn a_transfer_is_timed_from_the_old_leaders_last_write_to_the_new_ones_first() {
        let timeline = [entry(0, Fault::TransferLeadership, 1_000, true)];
        let writes = [
            write(1_010, 1_030, "rm1"),
            write(1_080, 1_100, "rm1"),
            write(1_150, 1_400, "rm3"),
        ];
        let failover = &failovers(&timeline, &writes)[0];
        assert_eq!(failover.first_writer.as_deref(), Some("rm3"));
        assert_eq!(failover.unavailable_ms, Some(300));

        let stayed = [write(1_010, 1_030, "rm1")];
        let failover = &failovers(&timeline, &stayed)[0];
        assert!(!failover.leader_changed());
        assert_eq!(failover.unavailable_ms, Some(30));
    }

    #[test]
    fn a_group_crash_ends_with_the_first_commit_whoever_leads() {
        let timeline = [
            entry(0, Fault::KillAllRms, 1_000, true),
            entry(1, Fault::TransferLeadership, 9_000, true),
        ];
        let writes = [
            write(990, 995, "rm1"),
            // The old leader leads again after the restart.
            write(2_500, 2_900, "rm1"),
            write(9_000, 9_200, "rm2"),
        ];
        let found = failovers(&timeline, &writes);
        assert_eq!(found[0].first_write_ms, Some(2_900));
        assert_eq!(found[0].unavailable_ms, Some(1_900));
        assert!(!found[0].leader_changed());
        assert_eq!(found[1].first_writer.as_deref(), Some("rm2"));
    }

    #[test]
    fn a_fault_followed_by_no_write_has_no_unavailability_figure() {
        let failovers = failovers(&[entry(0, Fault::IsolateLeader, 1_000, true)], &[]);
        assert_eq!(failovers[0].unavailable_ms, None);
        assert!(!failovers[0].leader_changed());
    }
}
