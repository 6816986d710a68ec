//! Raft proposals and read barriers on behalf of RPC handlers.

use std::time::Duration;

use openraft::Raft;
use openraft::error::{CheckIsLeaderError, ClientWriteError, RaftError};
use tonic::Status;

use super::leader_gate::LeaderGate;
use crate::raft_types::RmTypeConfig;
use crate::state_machine::{RmCommand, RmResponse};

/// Turns a handler's command into a committed, applied result, or into the right status.
///
/// Guarantees on the statuses, which clients rely on to decide whether to resend:
/// - a refusal carrying the not-leader marker ([`LeaderGate::refusal`]) means the command was
///   not appended to any log that can commit (openraft answers `ForwardToLeader` only before
///   appending, or after the entry was truncated away);
/// - `UNAVAILABLE` without the marker (the deadline passed, Raft stopped) means the outcome is
///   unknown: the command may still commit.
#[derive(Clone)]
pub(crate) struct Proposer {
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) gate: LeaderGate,
    pub(crate) timeout: Duration,
}

impl Proposer {
    /// Proposes `command` and returns what applying it produced.
    ///
    /// # Errors
    ///
    /// As described on the type.
    pub(crate) async fn propose(&self, command: RmCommand) -> Result<RmResponse, Status> {
        self.gate.require_leader()?;
        match tokio::time::timeout(self.timeout, self.raft.client_write(command)).await {
            Ok(Ok(reply)) => Ok(reply.data),
            Ok(Err(RaftError::APIError(ClientWriteError::ForwardToLeader(forward)))) => {
                let leader = forward.leader_node.map(|node| node.rm_id);
                Err(self.gate.refusal(leader.as_deref()))
            }
            Ok(Err(RaftError::APIError(ClientWriteError::ChangeMembershipError(err)))) => {
                Err(Status::internal(format!(
                    "a command was refused as a membership change: {err}"
                )))
            }
            Ok(Err(RaftError::Fatal(fatal))) => Err(Status::unavailable(format!(
                "the Raft node stopped ({fatal}); the outcome of this call is unknown"
            ))),
            Err(_) => Err(Status::unavailable(format!(
                "the change did not commit within {:?}; its outcome is unknown",
                self.timeout
            ))),
        }
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
        match tokio::time::timeout(self.timeout, self.raft.ensure_linearizable()).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(RaftError::APIError(CheckIsLeaderError::ForwardToLeader(forward)))) => {
                let leader = forward.leader_node.map(|node| node.rm_id);
                Err(self.gate.refusal(leader.as_deref()))
            }
            Ok(Err(RaftError::APIError(CheckIsLeaderError::QuorumNotEnough(err)))) => Err(
                Status::unavailable(format!("cannot confirm leadership with a quorum: {err}")),
            ),
            Ok(Err(RaftError::Fatal(fatal))) => Err(Status::unavailable(format!(
                "the Raft node stopped: {fatal}"
            ))),
            Err(_) => Err(Status::unavailable(format!(
                "cannot confirm leadership with a quorum within {:?}",
                self.timeout
            ))),
        }
    }
}
