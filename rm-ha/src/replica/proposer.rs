//! Raft proposals and read barriers on behalf of RPC handlers.

use tonic::Status;

use super::leader_gate::LeaderGate;
use super::raft_proposer::{ProposeError, RaftProposer};
use crate::state_machine::{RmCommand, RmResponse};

/// Turns a handler's command into a committed, applied result, or into the right status,
/// through the replica's one [`RaftProposer`].
///
/// Guarantees on the statuses, which clients rely on to decide whether to resend:
/// - a refusal carrying the not-leader marker ([`LeaderGate::refusal`]) means the command was
///   not appended to any log that can commit;
/// - `UNAVAILABLE` without the marker (the deadline passed, Raft stopped) means the outcome is
///   unknown: the command may still commit.
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
    pub(crate) async fn propose(&self, command: RmCommand) -> Result<RmResponse, Status> {
        self.gate.require_leader()?;
        self.raft
            .propose(command)
            .await
            .map_err(|err| self.status(err))
    }

    /// Waits until this replica is confirmed leader by a quorum and has applied everything
    /// committed so far, so a read that follows sees every acknowledged write.
    ///
    /// # Errors
    ///
    /// The not-leader refusal when another replica leads; `UNAVAILABLE` when no quorum
    /// answered in time.
    pub(crate) async fn read_barrier(&self) -> Result<(), Status> {
        self.gate.require_leader()?;
        self.raft
            .read_barrier()
            .await
            .map_err(|err| self.status(err))
    }

    /// The one mapping of proposal errors to statuses.
    fn status(&self, err: ProposeError) -> Status {
        match err {
            ProposeError::NotLeader { leader } => self.gate.refusal(leader.as_deref()),
            ProposeError::OutcomeUnknown { .. } | ProposeError::Unavailable { .. } => {
                Status::unavailable(err.to_string())
            }
            ProposeError::Internal { .. } => Status::internal(err.to_string()),
        }
    }
}
