//! [`RaftProposer`]: the one way this replica writes to the Raft log, and reads linearizably.

use std::time::Duration;

use openraft::Raft;
use openraft::error::{CheckIsLeaderError, ClientWriteError, RaftError};

use crate::raft_types::RmTypeConfig;
use crate::state_machine::{RmCommand, RmResponse};

/// Proposes commands with one deadline and one error policy. Every write of the leader, by its
/// services and by its RPC handlers (through [`Proposer`](super::proposer::Proposer), which adds
/// the leader check and the statuses), goes through [`propose`](Self::propose); nothing else
/// calls openraft's `client_write`.
///
/// Guarantees on the outcome, which callers rely on to decide whether to resend:
/// - `Ok`: the command committed and was applied; the response is what applying produced;
/// - [`ProposeError::NotLeader`]: the command was not appended to any log that can commit
///   (openraft answers `ForwardToLeader` only before appending, or after the entry was
///   truncated away), so it may be resent anywhere;
/// - [`ProposeError::OutcomeUnknown`]: the deadline passed, no quorum answered or Raft stopped:
///   the command may still commit.
#[derive(Clone)]
pub(crate) struct RaftProposer {
    raft: Raft<RmTypeConfig>,
    timeout: Duration,
    /// How long a read barrier keeps asking a quorum that does not confirm the leadership.
    confirm_window: Duration,
}

/// The pause between two rounds of a read barrier whose quorum did not confirm.
const CONFIRM_RETRY_PAUSE: Duration = Duration::from_millis(10);

/// Why a proposal or a read barrier did not succeed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProposeError {
    /// Another replica leads, or none does; nothing was appended.
    #[error("this replica does not lead{}", leader_named(.leader))]
    NotLeader { leader: Option<String> },
    /// The command may or may not commit.
    #[error("{reason}; the outcome is unknown")]
    OutcomeUnknown { reason: String },
    /// A read barrier could not confirm the leadership; nothing was written.
    #[error("{reason}")]
    Unavailable { reason: String },
    /// openraft took the command for a membership change, which no caller proposes.
    #[error("a command was refused as a membership change: {reason}")]
    Internal { reason: String },
}

fn leader_named(leader: &Option<String>) -> String {
    leader
        .as_ref()
        .map_or_else(String::new, |leader| format!(" ({leader} does)"))
}

impl RaftProposer {
    /// Proposals to `raft`, each bounded by `timeout`; read barriers ask a silent quorum again
    /// for up to `confirm_window` (the election timeout).
    pub(crate) fn new(
        raft: Raft<RmTypeConfig>,
        timeout: Duration,
        confirm_window: Duration,
    ) -> Self {
        Self {
            raft,
            timeout,
            confirm_window,
        }
    }

    /// Proposes `command` and returns what applying it produced.
    ///
    /// # Errors
    ///
    /// As described on the type.
    pub(crate) async fn propose(&self, command: RmCommand) -> Result<RmResponse, ProposeError> {
        match tokio::time::timeout(self.timeout, self.raft.client_write(command)).await {
            Ok(Ok(reply)) => Ok(reply.data),
            Ok(Err(RaftError::APIError(ClientWriteError::ForwardToLeader(forward)))) => {
                Err(ProposeError::NotLeader {
                    leader: forward.leader_node.map(|node| node.rm_id),
                })
            }
            Ok(Err(RaftError::APIError(ClientWriteError::ChangeMembershipError(err)))) => {
                Err(ProposeError::Internal {
                    reason: err.to_string(),
                })
            }
            Ok(Err(RaftError::Fatal(fatal))) => Err(ProposeError::OutcomeUnknown {
                reason: format!("the Raft node stopped ({fatal})"),
            }),
            Err(_) => Err(ProposeError::OutcomeUnknown {
                reason: format!("the change did not commit within {:?}", self.timeout),
            }),
        }
    }

    /// Waits until this replica is confirmed leader by a quorum and has applied everything
    /// committed so far, so a read that follows sees every acknowledged write.
    ///
    /// openraft gives the quorum one heartbeat interval to answer. Followers slowed by a
    /// loaded machine miss that often enough to refuse reads of a healthy leader, so an
    /// unconfirmed round is tried again, for up to the election timeout (`confirm_window`):
    /// a quorum that stays silent that long has had time to elect another leader, and the
    /// caller is better served by a refusal it can take elsewhere.
    ///
    /// # Errors
    ///
    /// [`ProposeError::NotLeader`] when another replica leads; [`ProposeError::Unavailable`]
    /// when no quorum answered within the window, or Raft stopped.
    pub(crate) async fn read_barrier(&self) -> Result<(), ProposeError> {
        let started = tokio::time::Instant::now();
        let give_up = started + self.confirm_window.min(self.timeout);
        loop {
            let round =
                tokio::time::timeout_at(started + self.timeout, self.raft.ensure_linearizable());
            match round.await {
                Ok(Ok(_)) => return Ok(()),
                Ok(Err(RaftError::APIError(CheckIsLeaderError::ForwardToLeader(forward)))) => {
                    return Err(ProposeError::NotLeader {
                        leader: forward.leader_node.map(|node| node.rm_id),
                    });
                }
                Ok(Err(RaftError::APIError(CheckIsLeaderError::QuorumNotEnough(err)))) => {
                    if tokio::time::Instant::now() + CONFIRM_RETRY_PAUSE >= give_up {
                        return Err(ProposeError::Unavailable {
                            reason: format!(
                                "cannot confirm leadership with a quorum within {:?}: {err}",
                                self.confirm_window
                            ),
                        });
                    }
                    // A round refused at once (peers unreachable) is not retried in a spin.
                    tokio::time::sleep(CONFIRM_RETRY_PAUSE).await;
                }
                Ok(Err(RaftError::Fatal(fatal))) => {
                    return Err(ProposeError::Unavailable {
                        reason: format!("the Raft node stopped: {fatal}"),
                    });
                }
                Err(_) => {
                    return Err(ProposeError::Unavailable {
                        reason: format!(
                            "cannot confirm leadership with a quorum within {:?}",
                            self.timeout
                        ),
                    });
                }
            }
        }
    }
}
