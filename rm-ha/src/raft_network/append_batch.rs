//! Bounding the bytes of one AppendEntries, so that a batch of large entries cannot outlast the
//! call's deadline on every retry.

use openraft::LogId;
use openraft::raft::{AppendEntriesRequest, AppendEntriesResponse};

use crate::raft_types::{RmNodeId, RmTypeConfig};

/// How many bytes of entries one AppendEntries carries at most, unless its first entry alone is
/// larger (it then travels alone). openraft 0.9 batches up to `max_payload_entries` (300)
/// entries whatever their size and gives the call one heartbeat interval; 300 submissions of a
/// megabyte each never arrived in time and were resent forever. A mebibyte crosses loopback or
/// a LAN and reaches a follower's disk well inside the default 50 ms heartbeat.
pub const MAX_APPEND_BYTES: usize = 1024 * 1024;

/// An AppendEntries cut to the byte budget, with what to tell openraft when the peer accepts it.
#[derive(Debug)]
pub(crate) struct BoundedAppend {
    /// The request to send: the original, or a prefix of its entries.
    pub(crate) request: AppendEntriesRequest<RmTypeConfig>,
    /// The log id of the last entry sent when later ones were left for the next call.
    cut_after: Option<LogId<RmNodeId>>,
}

impl BoundedAppend {
    /// Keeps the longest prefix of `request`'s entries whose encoded size stays within `budget`
    /// bytes, and at least one entry so that replication always progresses.
    ///
    /// Sending a prefix is sound: the follower commits at most up to the last entry it accepted
    /// from this leader, whatever `leader_commit` says, and the leader sends the rest next.
    pub(crate) fn new(mut request: AppendEntriesRequest<RmTypeConfig>, budget: usize) -> Self {
        // One entry or none always travels whole: no need to size it on this hot path.
        if request.entries.len() <= 1 {
            return Self {
                request,
                cut_after: None,
            };
        }
        let mut bytes = 0_usize;
        let mut keep = 0;
        for entry in &request.entries {
            // An entry that cannot be sized cannot be encoded either; the encoder names it.
            let size = postcard::experimental::serialized_size(entry).unwrap_or(0);
            if keep > 0 && bytes.saturating_add(size) > budget {
                break;
            }
            bytes = bytes.saturating_add(size);
            keep += 1;
        }
        if keep == request.entries.len() {
            return Self {
                request,
                cut_after: None,
            };
        }
        request.entries.truncate(keep);
        let cut_after = request.entries.last().map(|entry| entry.log_id);
        Self { request, cut_after }
    }

    /// The peer's answer to the request sent, as openraft must read it: a success for a prefix
    /// matches only up to the prefix's last entry.
    pub(crate) fn answer(
        &self,
        response: AppendEntriesResponse<RmNodeId>,
    ) -> AppendEntriesResponse<RmNodeId> {
        match (response, self.cut_after) {
            (AppendEntriesResponse::Success, Some(last)) => {
                AppendEntriesResponse::PartialSuccess(Some(last))
            }
            (response, _) => response,
        }
    }
}

#[cfg(test)]
mod tests {
    use openraft::{Entry, EntryPayload, Vote};

    use super::*;
    use crate::state_machine::{CommandV1, RmCommand};

    fn entry(index: u64, bytes: usize) -> Entry<RmTypeConfig> {
        let properties = [("k".to_owned(), "x".repeat(bytes))].into();
        Entry {
            log_id: LogId::new(openraft::CommittedLeaderId::new(1, 7), index),
            payload: EntryPayload::Normal(RmCommand::V1(CommandV1::SetQueueConfiguration {
                expected: 0,
                properties,
            })),
        }
    }

    fn request(sizes: &[usize]) -> AppendEntriesRequest<RmTypeConfig> {
        AppendEntriesRequest {
            vote: Vote::new_committed(1, 7),
            prev_log_id: None,
            entries: sizes
                .iter()
                .enumerate()
                .map(|(i, size)| entry(i as u64 + 1, *size))
                .collect(),
            leader_commit: None,
        }
    }

    #[test]
    fn a_batch_within_the_budget_travels_whole_and_its_success_is_whole() {
        let bounded = BoundedAppend::new(request(&[100, 100, 100]), 1_000);
        assert_eq!(bounded.request.entries.len(), 3);
        assert_eq!(
            bounded.answer(AppendEntriesResponse::Success),
            AppendEntriesResponse::Success
        );
    }

    #[test]
    fn a_large_batch_is_cut_and_its_success_matches_only_what_was_sent() {
        let bounded = BoundedAppend::new(request(&[400, 400, 400, 400]), 1_000);
        assert_eq!(bounded.request.entries.len(), 2);
        let last = bounded.request.entries[1].log_id;
        assert_eq!(last.index, 2);
        assert_eq!(
            bounded.answer(AppendEntriesResponse::Success),
            AppendEntriesResponse::PartialSuccess(Some(last))
        );
        // Refusals pass through untouched.
        assert_eq!(
            bounded.answer(AppendEntriesResponse::Conflict),
            AppendEntriesResponse::Conflict
        );
    }

    #[test]
    fn an_entry_above_the_budget_travels_alone() {
        let bounded = BoundedAppend::new(request(&[5_000, 10]), 1_000);
        assert_eq!(bounded.request.entries.len(), 1);
        let empty = BoundedAppend::new(request(&[]), 1_000);
        assert!(empty.request.entries.is_empty());
        assert_eq!(
            empty.answer(AppendEntriesResponse::Success),
            AppendEntriesResponse::Success
        );
    }
}
