//! Raft's pre-vote (Ongaro's thesis, section 9.6), which openraft 0.9 lacks: a replica asks its
//! peers whether they would vote for it before it starts an election and raises its term.
//!
//! Without it a replica cut off from the group keeps starting elections, its term climbs, and
//! when the partition heals its higher term deposes a healthy leader (chaos seed 401,
//! `isolate-follower`). With it a cut-off replica never gathers a majority of pre-votes, so its
//! term stays put and it rejoins as a follower.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A replica's question to a peer: would you vote for me now?
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreVoteRequest {
    /// The term the asking replica would start an election in (its current term plus one).
    pub term: u64,
    /// The index of the last entry in the asking replica's log, `None` when it is empty.
    pub last_log_index: Option<u64>,
}

/// A peer's answer to [`PreVoteRequest`]: granted, or why not.
pub type PreVoteResponse = Result<(), PreVoteRefusal>;

/// Why a replica would not vote for the asker now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum PreVoteRefusal {
    /// The asked replica is the leader.
    #[error("{rm_id} leads term {term}")]
    Leader { rm_id: String, term: u64 },
    /// The asked replica heard from its leader within the leader lease, so openraft would
    /// refuse the real vote too.
    #[error("{rm_id} heard from its leader {silence_ms} ms ago, within the {lease_ms} ms lease")]
    LeaderAlive {
        rm_id: String,
        silence_ms: u64,
        lease_ms: u64,
    },
    /// The asked replica's log is longer than the asker's, so the asker could not win.
    #[error("{rm_id} has log entries up to {own:?}, past the asker's {asker:?}")]
    LogBehind {
        rm_id: String,
        own: Option<u64>,
        asker: Option<u64>,
    },
    /// The leader is handing leadership to another replica and asked this one to stay out of
    /// the way (see [`HoldElection`]).
    #[error("{rm_id} holds elections for a leadership transfer")]
    Holding { rm_id: String },
}

/// A leader's request to a voter that is not the target of a leadership transfer: start no
/// election, and grant no pre-vote, for `duration` or until a leader of a term above `term`
/// is seen, whichever comes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldElection {
    /// The transferring leader's term.
    pub term: u64,
    /// How long to hold at most; a receiver caps it at [`HoldElection::max_duration`] under
    /// its own timings, so no sender can keep it out of elections for longer.
    pub duration: Duration,
}

impl HoldElection {
    /// How many `TimeoutNow` rounds a leadership transfer makes at most.
    pub const TRANSFER_ATTEMPTS: u32 = 3;

    /// The longest hold a leadership transfer needs under these Raft timings: each attempt
    /// waits out the leader lease (an election timeout plus a heartbeat that may be in flight),
    /// then up to two election timeouts for the target to win.
    pub fn max_duration(election_timeout_max: Duration, heartbeat_interval: Duration) -> Duration {
        let lease = election_timeout_max + heartbeat_interval;
        let round = election_timeout_max * 2;
        (lease + round) * Self::TRANSFER_ATTEMPTS
    }

    /// This request with its duration capped at `bound`.
    pub(crate) fn capped(self, bound: Duration) -> Self {
        Self {
            duration: self.duration.min(bound),
            ..self
        }
    }
}

/// What the asked replica knows about itself when it answers a pre-vote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VoterView {
    /// Its rm-id, quoted in refusals.
    pub(crate) rm_id: String,
    /// Whether it is the leader.
    pub(crate) leading: bool,
    /// Its current term.
    pub(crate) term: u64,
    /// How long since it last heard from a leader it follows; `None` when it follows none
    /// (its vote is not committed), which openraft treats as an expired lease.
    pub(crate) silence: Option<Duration>,
    /// The index of its last log entry.
    pub(crate) last_log_index: Option<u64>,
    /// Whether it holds elections for a leadership transfer.
    pub(crate) holding: bool,
}

/// Whether a replica in `view` grants `request`, with openraft's leader lease `lease`.
///
/// Grants exactly when openraft would not refuse the real vote for the lease (the check that
/// matters for disruption) and the asker's log is at least as long. Comparing indexes only, not
/// the terms of the last entries, can let a replica with a stale tail through; its election then
/// fails on openraft's full log check, which is what happens without pre-vote, so safety never
/// depends on this answer.
pub(crate) fn grant(
    view: &VoterView,
    request: &PreVoteRequest,
    lease: Duration,
) -> Result<(), PreVoteRefusal> {
    let rm_id = || view.rm_id.clone();
    if view.leading {
        return Err(PreVoteRefusal::Leader {
            rm_id: rm_id(),
            term: view.term,
        });
    }
    if view.holding {
        return Err(PreVoteRefusal::Holding { rm_id: rm_id() });
    }
    if let Some(silence) = view.silence
        && silence <= lease
    {
        return Err(PreVoteRefusal::LeaderAlive {
            rm_id: rm_id(),
            silence_ms: millis(silence),
            lease_ms: millis(lease),
        });
    }
    if request.last_log_index < view.last_log_index {
        return Err(PreVoteRefusal::LogBehind {
            rm_id: rm_id(),
            own: view.last_log_index,
            asker: request.last_log_index,
        });
    }
    Ok(())
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEASE: Duration = Duration::from_millis(300);

    fn follower() -> VoterView {
        VoterView {
            rm_id: "rm2".to_owned(),
            leading: false,
            term: 4,
            silence: Some(Duration::from_millis(400)),
            last_log_index: Some(10),
            holding: false,
        }
    }

    fn ask(last_log_index: Option<u64>) -> PreVoteRequest {
        PreVoteRequest {
            term: 5,
            last_log_index,
        }
    }

    #[test]
    fn a_follower_whose_leader_went_quiet_grants_an_asker_as_long() {
        assert_eq!(grant(&follower(), &ask(Some(10)), LEASE), Ok(()));
        assert_eq!(grant(&follower(), &ask(Some(12)), LEASE), Ok(()));
        let leaderless = VoterView {
            silence: None,
            ..follower()
        };
        assert_eq!(grant(&leaderless, &ask(Some(10)), LEASE), Ok(()));
    }

    #[test]
    fn a_follower_that_heard_from_its_leader_within_the_lease_refuses() {
        let view = VoterView {
            silence: Some(LEASE),
            ..follower()
        };
        let refusal = grant(&view, &ask(Some(10)), LEASE).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "rm2 heard from its leader 300 ms ago, within the 300 ms lease"
        );
    }

    #[test]
    fn the_leader_a_holding_voter_and_a_longer_log_refuse() {
        let leader = VoterView {
            leading: true,
            ..follower()
        };
        assert!(matches!(
            grant(&leader, &ask(Some(10)), LEASE),
            Err(PreVoteRefusal::Leader { term: 4, .. })
        ));
        let holding = VoterView {
            holding: true,
            ..follower()
        };
        assert!(matches!(
            grant(&holding, &ask(Some(10)), LEASE),
            Err(PreVoteRefusal::Holding { .. })
        ));
        assert_eq!(
            grant(&follower(), &ask(Some(9)), LEASE),
            Err(PreVoteRefusal::LogBehind {
                rm_id: "rm2".to_owned(),
                own: Some(10),
                asker: Some(9)
            })
        );
        assert!(grant(&follower(), &ask(None), LEASE).is_err());
    }
}
