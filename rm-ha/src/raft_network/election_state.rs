//! [`ElectionState`]: what a replica's openraft core knows that decides elections.

use openraft::error::Fatal;
use openraft::{Raft, ServerState};
use tokio::time::Instant;

use super::election_hold::ElectionHold;
use super::pre_vote::VoterView;
use crate::raft_types::{RmNodeId, RmTypeConfig, node_id_of};

/// One consistent reading of a replica's election state, taken inside its openraft core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ElectionState {
    /// Leader, candidate, follower or learner.
    pub(crate) server_state: ServerState,
    /// The term of the replica's vote.
    pub(crate) term: u64,
    /// Whether the vote is for an elected leader (openraft's "committed" vote).
    pub(crate) vote_committed: bool,
    /// When the vote was last granted or renewed: openraft renews it on every AppendEntries or
    /// snapshot chunk from the leader, so this is the last contact with the leader.
    pub(crate) vote_renewed: Option<Instant>,
    /// Whether this replica is a voter of the effective membership.
    pub(crate) voter: bool,
    /// How many voters the effective membership has.
    pub(crate) voters: usize,
    /// The index of the last entry in the replica's log.
    pub(crate) last_log_index: Option<u64>,
}

impl ElectionState {
    /// Reads the state of the replica `rm_id` from its core.
    ///
    /// # Errors
    ///
    /// openraft's [`Fatal`] when the core has stopped.
    pub(crate) async fn read(
        raft: &Raft<RmTypeConfig>,
        rm_id: &str,
    ) -> Result<Self, Fatal<RmNodeId>> {
        let me = node_id_of(rm_id);
        let last_log_index = raft.metrics().borrow().last_log_index;
        raft.with_raft_state(move |st| {
            let vote = st.vote_ref();
            let membership = st.membership_state.effective();
            Self {
                server_state: st.server_state,
                term: vote.leader_id.get_term(),
                vote_committed: vote.committed,
                vote_renewed: st.vote_last_modified(),
                voter: membership.voter_ids().any(|id| id == me),
                voters: membership.voter_ids().count(),
                last_log_index,
            }
        })
        .await
    }

    /// How long since the replica last heard from the leader it follows, at `now`; `None` when
    /// it follows none.
    pub(crate) fn silence(&self, now: Instant) -> Option<std::time::Duration> {
        self.vote_committed
            .then(|| {
                self.vote_renewed
                    .map(|renewed| now.saturating_duration_since(renewed))
            })
            .flatten()
    }

    /// The replica as a pre-vote sees it at `now`.
    pub(crate) fn voter_view(&self, rm_id: &str, now: Instant, hold: &ElectionHold) -> VoterView {
        VoterView {
            rm_id: rm_id.to_owned(),
            leading: self.server_state == ServerState::Leader,
            term: self.term,
            silence: self.silence(now),
            last_log_index: self.last_log_index,
            holding: hold.holding(now, self.term),
        }
    }
}

/// The pre-vote view of the replica `rm_id` now.
///
/// # Errors
///
/// openraft's [`Fatal`] when the core has stopped.
pub(crate) async fn voter_view(
    raft: &Raft<RmTypeConfig>,
    rm_id: &str,
    hold: &ElectionHold,
) -> Result<VoterView, Fatal<RmNodeId>> {
    let state = ElectionState::read(raft, rm_id).await?;
    Ok(state.voter_view(rm_id, Instant::now(), hold))
}
