//! Whether a receiver hears one Raft message from an authenticated peer: a certificate proves
//! a name, not a membership, and a member speaks only for itself.

use crate::raft_types::{RmNodeId, node_id_of};
use std::collections::BTreeMap;
use std::fmt;

use super::wire::Rpc;

/// Where the receiver's list of members came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MembersSource {
    /// The latest membership config in its log (or snapshot), committed or not, together with
    /// `yarn.resourcemanager.ha.rm-ids`: a replica whose log is behind a membership change (it
    /// was down while a member was added, or it restarts from an older snapshot, or it is a
    /// learner catching up from the group's first entries) must still hear a leader its log
    /// does not name yet, and the configuration, which lists every member, names it.
    LogAndConfiguration,
    /// `yarn.resourcemanager.ha.rm-ids` alone: a replica with no Raft state yet knows no
    /// membership, and must still hear the group's leader to receive one.
    Configuration,
}

impl fmt::Display for MembersSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MembersSource::LogAndConfiguration => {
                "its log's latest membership or yarn.resourcemanager.ha.rm-ids"
            }
            MembersSource::Configuration => "yarn.resourcemanager.ha.rm-ids (it has no Raft state)",
        })
    }
}

/// What the receiver knows when it decides, read from its Raft metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReceiverView {
    /// Voters and learners, by node id, with their rm-ids.
    pub(crate) members: BTreeMap<RmNodeId, String>,
    /// Where `members` came from.
    pub(crate) source: MembersSource,
    /// The receiver's current term.
    pub(crate) term: u64,
    /// The leader of `term` the receiver follows or is: its vote, once committed.
    pub(crate) leader: Option<RmNodeId>,
    /// The last leader whose AppendEntries the receiver heard. A leadership transfer's
    /// TimeoutNow may follow a first attempt whose election failed, after which the receiver
    /// follows nobody in a higher term of its own: the leader it last heard may still ask.
    pub(crate) last_heard_leader: Option<RmNodeId>,
}

/// The members a receiver hears: those of its log's latest membership (`logged`) and the
/// `configured` ones, with where they came from.
pub(crate) fn known_members<'a>(
    logged: impl Iterator<Item = (RmNodeId, &'a str)>,
    configured: &BTreeMap<RmNodeId, String>,
) -> (BTreeMap<RmNodeId, String>, MembersSource) {
    let mut members = configured.clone();
    let mut logged_any = false;
    for (id, rm_id) in logged {
        logged_any = true;
        members.insert(id, rm_id.to_owned());
    }
    let source = if logged_any {
        MembersSource::LogAndConfiguration
    } else {
        MembersSource::Configuration
    };
    (members, source)
}

/// What one message claims about who sent it, taken from its decoded payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// AppendEntries and InstallSnapshot carry the sender's leader vote.
    Leader {
        rpc: Rpc,
        voted_for: Option<RmNodeId>,
    },
    /// Vote carries the candidate's vote.
    Candidate { voted_for: Option<RmNodeId> },
    /// PreVote names nobody but its sender.
    PreVote,
    /// TimeoutNow must come from the leader the receiver follows.
    TimeoutNow,
    /// HoldElection must come from the leader the receiver follows, for the receiver's term.
    HoldElection { term: u64 },
}

impl Claim {
    fn rpc(&self) -> Rpc {
        match self {
            Claim::Leader { rpc, .. } => *rpc,
            Claim::Candidate { .. } => Rpc::Vote,
            Claim::PreVote => Rpc::PreVote,
            Claim::TimeoutNow => Rpc::TimeoutNow,
            Claim::HoldElection { .. } => Rpc::HoldElection,
        }
    }
}

/// Why a receiver would not hear a peer. Every refusal changes nothing on the receiver.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PeerRefusal {
    /// The sender is neither a voter nor a learner the receiver knows.
    #[error(
        "{rpc} from {sender:?} refused: {sender:?} is not a voter or learner of {known_from} \
         ({members})"
    )]
    NotAMember {
        rpc: Rpc,
        sender: String,
        known_from: MembersSource,
        members: String,
    },
    /// The payload speaks for another node than the authenticated sender.
    #[error("{rpc} from {sender:?} refused: its payload speaks for {claimed}, not for its sender")]
    ForgedIdentity {
        rpc: Rpc,
        sender: String,
        claimed: String,
    },
    /// TimeoutNow or HoldElection from a member that is not the leader the receiver follows.
    #[error(
        "{rpc} from {sender:?} refused: only the leader of term {term} may send it, and the \
         receiver follows {leader}"
    )]
    NotTheLeader {
        rpc: Rpc,
        sender: String,
        term: u64,
        leader: String,
    },
    /// HoldElection for another term than the receiver's.
    #[error(
        "HoldElection from {sender:?} refused: it is for term {asked} but the receiver is in \
         term {term}"
    )]
    OtherTerm {
        sender: String,
        asked: u64,
        term: u64,
    },
}

/// Whether `view`'s receiver hears `claim` from the authenticated `sender`.
///
/// Guarantees: the sender is a voter or learner of the receiver's membership, or a configured
/// member; a leader's or candidate's vote in the payload names the sender itself; HoldElection
/// comes only from the leader of the receiver's current term, for that term; TimeoutNow only
/// from that leader, or, while the receiver follows no leader, from the last leader it heard.
pub(crate) fn check(view: &ReceiverView, sender: &str, claim: Claim) -> Result<(), PeerRefusal> {
    let rpc = claim.rpc();
    let sender_id = node_id_of(sender);
    if view
        .members
        .get(&sender_id)
        .is_none_or(|rm_id| rm_id != sender)
    {
        return Err(PeerRefusal::NotAMember {
            rpc,
            sender: sender.to_owned(),
            known_from: view.source,
            members: list(view.members.values()),
        });
    }
    let forged = |voted_for: Option<RmNodeId>| PeerRefusal::ForgedIdentity {
        rpc,
        sender: sender.to_owned(),
        claimed: voted_for.map_or_else(|| "no node".to_owned(), |id| view.name(id)),
    };
    match claim {
        Claim::Leader { voted_for, .. } | Claim::Candidate { voted_for }
            if voted_for != Some(sender_id) =>
        {
            Err(forged(voted_for))
        }
        Claim::Leader { .. } | Claim::Candidate { .. } | Claim::PreVote => Ok(()),
        Claim::TimeoutNow if view.leader.is_none() && view.last_heard_leader == Some(sender_id) => {
            Ok(())
        }
        Claim::TimeoutNow | Claim::HoldElection { .. } if view.leader != Some(sender_id) => {
            Err(PeerRefusal::NotTheLeader {
                rpc,
                sender: sender.to_owned(),
                term: view.term,
                leader: view
                    .leader
                    .map_or_else(|| "no leader".to_owned(), |id| view.name(id)),
            })
        }
        Claim::HoldElection { term } if term != view.term => Err(PeerRefusal::OtherTerm {
            sender: sender.to_owned(),
            asked: term,
            term: view.term,
        }),
        Claim::TimeoutNow | Claim::HoldElection { .. } => Ok(()),
    }
}

impl ReceiverView {
    /// `id` as an rm-id when the receiver knows it, else as a node id.
    fn name(&self, id: RmNodeId) -> String {
        self.members.get(&id).map_or_else(
            || format!("node {id} (not a member)"),
            |rm_id| format!("{rm_id:?}"),
        )
    }
}

fn list<'a>(names: impl Iterator<Item = &'a String>) -> String {
    let mut names: Vec<&str> = names.map(String::as_str).collect();
    names.sort_unstable();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> ReceiverView {
        ReceiverView {
            members: ["rm1", "rm2", "rm3"]
                .into_iter()
                .map(|id| (node_id_of(id), id.to_owned()))
                .collect(),
            source: MembersSource::LogAndConfiguration,
            term: 4,
            leader: Some(node_id_of("rm1")),
            last_heard_leader: Some(node_id_of("rm1")),
        }
    }

    fn leader(rpc: Rpc, of: &str) -> Claim {
        Claim::Leader {
            rpc,
            voted_for: Some(node_id_of(of)),
        }
    }

    #[test]
    fn a_non_member_is_refused_whatever_it_sends() {
        for claim in [
            leader(Rpc::AppendEntries, "rm9"),
            leader(Rpc::InstallSnapshot, "rm9"),
            Claim::Candidate {
                voted_for: Some(node_id_of("rm9")),
            },
            Claim::PreVote,
            Claim::TimeoutNow,
            Claim::HoldElection { term: 4 },
        ] {
            let refusal = check(&view(), "rm9", claim).unwrap_err();
            assert!(
                matches!(refusal, PeerRefusal::NotAMember { .. }),
                "{claim:?}: {refusal}"
            );
            assert!(
                refusal
                    .to_string()
                    .contains("\"rm9\" is not a voter or learner")
                    && refusal.to_string().contains("rm1, rm2, rm3"),
                "{refusal}"
            );
        }
    }

    #[test]
    fn a_member_speaks_only_for_itself() {
        assert_eq!(
            check(&view(), "rm1", leader(Rpc::AppendEntries, "rm1")),
            Ok(())
        );
        let refusal = check(&view(), "rm2", leader(Rpc::AppendEntries, "rm1")).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "AppendEntries from \"rm2\" refused: its payload speaks for \"rm1\", not for its sender"
        );
        let replayed = Claim::Candidate {
            voted_for: Some(node_id_of("rm3")),
        };
        assert!(matches!(
            check(&view(), "rm2", replayed),
            Err(PeerRefusal::ForgedIdentity { rpc: Rpc::Vote, .. })
        ));
        let unknown = Claim::Leader {
            rpc: Rpc::InstallSnapshot,
            voted_for: Some(node_id_of("rm9")),
        };
        assert!(
            check(&view(), "rm2", unknown)
                .unwrap_err()
                .to_string()
                .contains("(not a member)")
        );
        assert_eq!(check(&view(), "rm3", Claim::PreVote), Ok(()));
    }

    #[test]
    fn a_name_that_only_shares_a_node_id_is_not_a_member() {
        let mut spoofed = view();
        spoofed.members.insert(node_id_of("rm9"), "rm8".to_owned());
        assert!(matches!(
            check(&spoofed, "rm9", Claim::PreVote),
            Err(PeerRefusal::NotAMember { .. })
        ));
    }

    #[test]
    fn only_the_followed_leader_may_ask_for_an_election_or_a_hold() {
        assert_eq!(check(&view(), "rm1", Claim::TimeoutNow), Ok(()));
        assert_eq!(
            check(&view(), "rm1", Claim::HoldElection { term: 4 }),
            Ok(())
        );
        let refusal = check(&view(), "rm2", Claim::TimeoutNow).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "TimeoutNow from \"rm2\" refused: only the leader of term 4 may send it, and the \
             receiver follows \"rm1\""
        );
        let leaderless = ReceiverView {
            leader: None,
            last_heard_leader: None,
            ..view()
        };
        assert!(
            check(&leaderless, "rm1", Claim::HoldElection { term: 4 })
                .unwrap_err()
                .to_string()
                .contains("follows no leader")
        );
        assert_eq!(
            check(&view(), "rm1", Claim::HoldElection { term: 9 }),
            Err(PeerRefusal::OtherTerm {
                sender: "rm1".to_owned(),
                asked: 9,
                term: 4
            })
        );
    }

    #[test]
    fn a_replica_behind_a_membership_change_hears_a_configured_leader_its_log_does_not_name() {
        let named = |ids: &[&str]| -> BTreeMap<RmNodeId, String> {
            ids.iter()
                .map(|id| (node_id_of(id), (*id).to_owned()))
                .collect()
        };
        // rm2 was down while rm4 joined and rm1 left; its log still holds {rm1, rm2, rm3}.
        let logged = named(&["rm1", "rm2", "rm3"]);
        let configured = named(&["rm2", "rm3", "rm4"]);
        let (members, source) = known_members(
            logged.iter().map(|(id, rm_id)| (*id, rm_id.as_str())),
            &configured,
        );
        assert_eq!(source, MembersSource::LogAndConfiguration);
        let behind = ReceiverView {
            members,
            source,
            term: 3,
            leader: None,
            last_heard_leader: None,
        };
        assert_eq!(
            check(&behind, "rm4", leader(Rpc::AppendEntries, "rm4")),
            Ok(())
        );
        assert_eq!(
            check(&behind, "rm1", leader(Rpc::AppendEntries, "rm1")),
            Ok(())
        );
        assert!(check(&behind, "rm9", leader(Rpc::AppendEntries, "rm9")).is_err());
        let (_, fresh) = known_members(std::iter::empty(), &configured);
        assert_eq!(fresh, MembersSource::Configuration);
    }

    #[test]
    fn after_a_failed_transfer_attempt_the_last_leader_heard_may_ask_again() {
        // The target's election failed: it is in a term of its own and follows nobody.
        let candidate = ReceiverView {
            term: 5,
            leader: None,
            ..view()
        };
        assert_eq!(check(&candidate, "rm1", Claim::TimeoutNow), Ok(()));
        assert!(matches!(
            check(&candidate, "rm2", Claim::TimeoutNow),
            Err(PeerRefusal::NotTheLeader { .. })
        ));
        assert!(matches!(
            check(&candidate, "rm1", Claim::HoldElection { term: 5 }),
            Err(PeerRefusal::NotTheLeader { .. })
        ));
        // Once it follows another leader, the earlier one may not.
        let moved_on = ReceiverView {
            leader: Some(node_id_of("rm2")),
            ..candidate
        };
        assert!(check(&moved_on, "rm1", Claim::TimeoutNow).is_err());
    }

    #[test]
    fn a_replica_without_raft_state_hears_its_configured_peers_only() {
        let fresh = ReceiverView {
            members: BTreeMap::from([(node_id_of("rm1"), "rm1".to_owned())]),
            source: MembersSource::Configuration,
            term: 0,
            leader: None,
            last_heard_leader: None,
        };
        assert_eq!(
            check(&fresh, "rm1", leader(Rpc::AppendEntries, "rm1")),
            Ok(())
        );
        let refusal = check(&fresh, "rm9", leader(Rpc::AppendEntries, "rm9")).unwrap_err();
        assert!(
            refusal
                .to_string()
                .contains("yarn.resourcemanager.ha.rm-ids"),
            "{refusal}"
        );
    }
}
