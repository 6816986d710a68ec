//! Raft proposals and read barriers on behalf of the RM's operations.

use std::sync::Arc;

use super::leader_gate::LeaderGate;
use super::leadership::Leadership;
use super::raft_proposer::{ProposeError, RaftProposer};
use crate::operations::RmError;
use crate::state_machine::{RmCommand, RmResponse};

/// Turns an operation's command into a committed, applied result, or into the right
/// [`RmError`], through the replica's one [`RaftProposer`].
///
/// Guarantees on the errors, which clients rely on to decide whether to resend:
/// - [`RmError::NotLeader`] means the command was not appended to any log that can commit;
/// - [`RmError::Unavailable`] (the deadline passed, Raft stopped answering) means the outcome
///   is unknown: the command may still commit.
#[derive(Clone)]
pub(crate) struct Proposer {
    pub(crate) raft: RaftProposer,
    pub(crate) gate: LeaderGate,
}

impl Proposer {
    /// Proposes `command` and returns what applying it produced.
    ///
    /// # Errors
    ///
    /// As described on the type.
    pub(crate) async fn propose(&self, command: RmCommand) -> Result<RmResponse, RmError> {
        self.gate.require_leader()?;
        self.raft
            .propose(command)
            .await
            .map_err(|err| self.error(err))
    }

    /// Waits until this replica is confirmed leader by a quorum and has applied everything
    /// committed so far, so a read that follows sees every acknowledged write; returns the
    /// leadership serving once the barrier passed (not the one before it: a leadership that
    /// ended while the barrier waited, even if this replica leads again, holds soft state no
    /// read should use).
    ///
    /// # Errors
    ///
    /// [`RmError::NotLeader`] when another replica leads, before or after the barrier;
    /// [`RmError::Unavailable`] when no quorum answered in time.
    pub(crate) async fn read_barrier(&self) -> Result<Arc<Leadership>, RmError> {
        self.gate.require_leader()?;
        self.raft
            .read_barrier()
            .await
            .map_err(|err| self.error(err))?;
        self.gate.require_leader()
    }

    /// The one mapping of proposal errors to the operations' errors.
    fn error(&self, err: ProposeError) -> RmError {
        match err {
            ProposeError::NotLeader { leader } => self.gate.refusal(leader.as_deref()).into(),
            ProposeError::OutcomeUnknown { .. } | ProposeError::Unavailable { .. } => {
                RmError::unavailable(err.to_string())
            }
            ProposeError::Internal { .. } => RmError::internal(err.to_string()),
        }
    }
}
