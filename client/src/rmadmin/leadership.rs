//! Where leadership goes when rmadmin moves a replica to standby.

use yarn_proto::pb::GetClusterMembershipResponseProto;

use crate::Error;

/// The voter to hand leadership to so that `rm_id` becomes standby: `None` when `rm_id` does not
/// lead (it is standby already, nothing to do), otherwise the first voter of `membership`, in
/// the order the server lists them, other than `rm_id`.
///
/// # Errors
///
/// [`Error::NoTransferTarget`] when `rm_id` leads and is the only voter.
pub fn standby_transfer_target(
    membership: &GetClusterMembershipResponseProto,
    rm_id: &str,
) -> Result<Option<String>, Error> {
    if membership.leader_rm_id != rm_id {
        return Ok(None);
    }
    let voters = membership.members.iter().filter(|m| m.voter);
    match voters.clone().find(|m| m.rm_id != rm_id) {
        Some(target) => Ok(Some(target.rm_id.clone())),
        None => Err(Error::NoTransferTarget {
            rm_id: rm_id.to_owned(),
            voters: voters.map(|m| m.rm_id.clone()).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::pb::RaftMemberProto;

    use super::*;

    fn membership(leader: &str, members: &[(&str, bool)]) -> GetClusterMembershipResponseProto {
        GetClusterMembershipResponseProto {
            members: members
                .iter()
                .map(|(rm_id, voter)| RaftMemberProto {
                    rm_id: (*rm_id).into(),
                    raft_address: format!("{rm_id}:8035"),
                    voter: *voter,
                })
                .collect(),
            leader_rm_id: leader.into(),
            current_term: 4,
        }
    }

    #[test]
    fn a_follower_is_already_standby() {
        let m = membership("rm1", &[("rm1", true), ("rm2", true)]);
        assert_eq!(standby_transfer_target(&m, "rm2").unwrap(), None);
        let leaderless = membership("", &[("rm1", true), ("rm2", true)]);
        assert_eq!(standby_transfer_target(&leaderless, "rm1").unwrap(), None);
    }

    #[test]
    fn the_leader_hands_over_to_the_first_other_voter_skipping_learners() {
        let m = membership(
            "rm1",
            &[("rm1", true), ("rm4", false), ("rm3", true), ("rm2", true)],
        );
        assert_eq!(
            standby_transfer_target(&m, "rm1").unwrap(),
            Some("rm3".to_owned())
        );
    }

    #[test]
    fn a_sole_voter_cannot_step_down() {
        let m = membership("rm1", &[("rm1", true), ("rm2", false)]);
        let err = standby_transfer_target(&m, "rm1").unwrap_err();
        assert!(
            matches!(&err, Error::NoTransferTarget { voters, .. } if voters == &["rm1"]),
            "{err:?}"
        );
        assert!(err.to_string().contains("no other voter"), "{err}");
    }
}
