//! [`ElectionTimer`]: the replica's own election timeout, with pre-vote, in place of
//! openraft's (which the replica turns off with `enable_elect = false`).

use std::collections::BTreeMap;
use std::time::Duration;

use openraft::network::RPCOption;
use openraft::{Raft, RaftNetworkFactory, ServerState};
use rand::Rng;
use rand::rngs::StdRng;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::periodic::Periodic;
use crate::config::RaftSettings;
use crate::raft_network::{ElectionHold, ElectionState, PreVoteRequest, RaftGrpcNetworkFactory};
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig, node_id_of};

/// How often the timer looks at the replica's state: fine enough against election timeouts of
/// a few hundred milliseconds, cheap (one message to the local openraft core).
const TICK: Duration = Duration::from_millis(10);

/// What the timer does at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Round {
    /// Nothing yet.
    Wait,
    /// The only voter: elect itself, no one to ask.
    Alone,
    /// Ask every other voter for a pre-vote, and elect on a majority.
    PreVote,
}

/// When elections are due, as openraft 0.9 times them, so that failover takes as long as
/// before: a follower of an elected leader waits the leader lease plus a random timeout
/// between `election_timeout_min` and `election_timeout_max` after its last contact with the
/// leader; a replica following no one waits the random timeout alone; and a replica waits a
/// random timeout between two rounds of its own, so a failed round (split vote, refused
/// pre-vote) is retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ElectionClock {
    lease: Duration,
    started: Instant,
    last_round: Option<Instant>,
    timeout: Duration,
}

impl ElectionClock {
    /// A clock started at `started` with the first random `timeout`.
    pub(crate) fn new(lease: Duration, started: Instant, timeout: Duration) -> Self {
        Self {
            lease,
            started,
            last_round: None,
            timeout,
        }
    }

    /// What to do at `now` in `state`, `holding` elections or not.
    pub(crate) fn round(&self, state: &ElectionState, holding: bool, now: Instant) -> Round {
        if !state.voter || state.server_state == ServerState::Leader || holding {
            return Round::Wait;
        }
        if self
            .last_round
            .is_some_and(|last| now.saturating_duration_since(last) < self.timeout)
        {
            return Round::Wait;
        }
        if state.voters == 1 {
            return Round::Alone;
        }
        let contact = state
            .vote_renewed
            .map_or(self.started, |renewed| renewed.max(self.started));
        let wait = if state.vote_committed {
            self.lease + self.timeout
        } else {
            self.timeout
        };
        if now.saturating_duration_since(contact) >= wait {
            Round::PreVote
        } else {
            Round::Wait
        }
    }

    /// Records a round run at `now` and the next random `timeout`.
    pub(crate) fn ran(&mut self, now: Instant, timeout: Duration) {
        self.last_round = Some(now);
        self.timeout = timeout;
    }
}

/// Starts elections for one replica: after its election timeout it asks the other voters for
/// a pre-vote and calls openraft's election only with a majority of grants.
///
/// Guarantees: the replica never raises its term unless a majority of voters, itself included,
/// would vote for it now, except when it is the only voter, so a replica cut off from the group
/// keeps its term; the timer never starts an election while the replica leads, is a learner, or
/// holds elections for a leadership transfer ([`ElectionHold`]); and it ends when `shutdown`
/// is cancelled or the openraft core stops.
///
/// Its random timeouts come from `rng`, seeded from the operating system in a replica and from
/// the seed in the simulation, so that a simulated run replays exactly.
pub(crate) struct ElectionTimer {
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) network: RaftGrpcNetworkFactory,
    pub(crate) rm_id: String,
    pub(crate) settings: RaftSettings,
    pub(crate) hold: ElectionHold,
    pub(crate) rng: StdRng,
}

impl ElectionTimer {
    /// Runs until `shutdown` is cancelled or the openraft core stops.
    pub(crate) async fn run(mut self, shutdown: CancellationToken) {
        let mut clock = ElectionClock::new(
            self.settings.election_timeout_max,
            Instant::now(),
            self.random_timeout(),
        );
        let mut every = Periodic::new(TICK);
        while every.tick(&shutdown).await {
            let Ok(state) = ElectionState::read(&self.raft, &self.rm_id).await else {
                return;
            };
            let now = Instant::now();
            let round = clock.round(&state, self.hold.holding(now, state.term), now);
            if round == Round::Wait {
                continue;
            }
            clock.ran(now, self.random_timeout());
            if round == Round::PreVote {
                if !self.pre_vote(&state).await {
                    continue;
                }
                // The round took a while: a leader may have been elected meanwhile, whose
                // term this election would only disturb.
                let Ok(fresh) = ElectionState::read(&self.raft, &self.rm_id).await else {
                    return;
                };
                if fresh.term != state.term || fresh.vote_renewed != state.vote_renewed {
                    continue;
                }
            }
            tracing::info!(
                rm_id = %self.rm_id,
                term = state.term + 1,
                "election timeout: starting an election"
            );
            if self.raft.trigger().elect().await.is_err() {
                return;
            }
        }
    }

    /// Asks every other voter for a pre-vote; whether a majority, counting this replica,
    /// granted it. Decides as soon as the answers settle it, and counts a voter that has not
    /// answered within `election_timeout_min` as a refusal: a stopped or cut-off peer must not
    /// hold the round up (the gRPC deadline alone does not bound a connection that hangs).
    async fn pre_vote(&mut self, state: &ElectionState) -> bool {
        let request = PreVoteRequest {
            term: state.term + 1,
            last_log_index: state.last_log_index,
        };
        let deadline = self.settings.election_timeout_min;
        let option = RPCOption::new(deadline);
        let mut asks = JoinSet::new();
        for (id, node) in self.other_voters() {
            let client = self.network.new_client(id, &node).await;
            let option = option.clone();
            asks.spawn(async move {
                let answer = tokio::time::timeout(deadline, client.pre_vote(&request, option))
                    .await
                    .map_err(|_| format!("no answer within {deadline:?}"))
                    .and_then(|answer| answer.map_err(|err| err.to_string()));
                (node.rm_id, answer)
            });
        }
        let needed = state.voters / 2 + 1;
        let mut granted = 1_usize;
        let mut pending = asks.len();
        let mut refusals = Vec::new();
        while granted < needed && granted + pending >= needed {
            let Some(joined) = asks.join_next().await else {
                break;
            };
            pending -= 1;
            match joined {
                Ok((_, Ok(()))) => granted += 1,
                Ok((peer, Err(err))) => refusals.push(format!("{peer}: {err}")),
                Err(err) => refusals.push(err.to_string()),
            }
        }
        asks.abort_all();
        let won = granted >= needed;
        if !won {
            tracing::debug!(
                rm_id = %self.rm_id,
                term = request.term,
                granted,
                voters = state.voters,
                ?refusals,
                "pre-vote lost; not starting an election"
            );
        }
        won
    }

    fn other_voters(&self) -> BTreeMap<RmNodeId, RmNode> {
        let me = node_id_of(&self.rm_id);
        let metrics = self.raft.metrics().borrow().clone();
        let membership = metrics.membership_config.membership();
        membership
            .voter_ids()
            .filter(|id| *id != me)
            .filter_map(|id| membership.get_node(&id).map(|node| (id, node.clone())))
            .collect()
    }

    fn random_timeout(&mut self) -> Duration {
        let min = self.settings.election_timeout_min;
        let max = self.settings.election_timeout_max.max(min);
        if min == max {
            return min;
        }
        self.rng.random_range(min..max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEASE: Duration = Duration::from_millis(300);
    const TIMEOUT: Duration = Duration::from_millis(250);

    fn follower(renewed: Instant) -> ElectionState {
        ElectionState {
            server_state: ServerState::Follower,
            term: 3,
            vote_committed: true,
            vote_renewed: Some(renewed),
            voter: true,
            voters: 3,
            last_log_index: Some(7),
        }
    }

    #[test]
    fn a_follower_waits_the_lease_and_a_timeout_after_its_leader_went_quiet() {
        let start = Instant::now();
        let clock = ElectionClock::new(LEASE, start, TIMEOUT);
        let state = follower(start);
        let almost = start + LEASE + TIMEOUT - Duration::from_millis(1);
        assert_eq!(clock.round(&state, false, almost), Round::Wait);
        assert_eq!(
            clock.round(&state, false, start + LEASE + TIMEOUT),
            Round::PreVote
        );
        assert_eq!(
            clock.round(&state, true, start + LEASE + TIMEOUT),
            Round::Wait,
            "holding for a transfer"
        );
    }

    #[test]
    fn a_replica_following_no_one_waits_a_timeout_then_retries_after_another() {
        let start = Instant::now();
        let mut clock = ElectionClock::new(LEASE, start, TIMEOUT);
        let state = ElectionState {
            vote_committed: false,
            vote_renewed: None,
            ..follower(start)
        };
        assert_eq!(clock.round(&state, false, start + TIMEOUT), Round::PreVote);
        clock.ran(start + TIMEOUT, TIMEOUT);
        assert_eq!(
            clock.round(&state, false, start + TIMEOUT + TIMEOUT / 2),
            Round::Wait
        );
        assert_eq!(
            clock.round(&state, false, start + TIMEOUT * 2),
            Round::PreVote
        );
    }

    #[test]
    fn leaders_and_learners_never_elect_and_a_single_voter_elects_alone() {
        let start = Instant::now();
        let clock = ElectionClock::new(LEASE, start, TIMEOUT);
        let late = start + Duration::from_secs(10);
        let leader = ElectionState {
            server_state: ServerState::Leader,
            ..follower(start)
        };
        assert_eq!(clock.round(&leader, false, late), Round::Wait);
        let learner = ElectionState {
            server_state: ServerState::Learner,
            voter: false,
            ..follower(start)
        };
        assert_eq!(clock.round(&learner, false, late), Round::Wait);
        let alone = ElectionState {
            voters: 1,
            ..follower(start)
        };
        assert_eq!(clock.round(&alone, false, start), Round::Alone);
    }
}
