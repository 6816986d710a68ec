//! [`NotLeader`]: the refusal of a replica that is not the serving leader.

use std::fmt;

use yarn_proto::LeaderHint;

/// A call this replica did not execute because it is not the serving leader, with where the
/// leader's same service is when the replica knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotLeader {
    /// The refusing replica's rm-id.
    pub replica: String,
    /// The service the caller used (`client`, `admin`, ...), named in the message.
    pub service: &'static str,
    /// The rm-id of the leader the replica knows of, if any.
    pub leader: Option<String>,
    /// The leader's address of the same service, when the leader is a configured member.
    pub hint: Option<LeaderHint>,
}

impl fmt::Display for NotLeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let replica = &self.replica;
        match (&self.hint, &self.leader) {
            (Some(hint), _) => write!(
                f,
                "{replica} is not the active ResourceManager; the {} service of the leader {} is \
                 at {}",
                self.service, hint.rm_id, hint.address
            ),
            (None, Some(id)) => write!(
                f,
                "{replica} is not the active ResourceManager; the leader is {id}, which is not in \
                 this replica's yarn.resourcemanager.ha.rm-ids"
            ),
            (None, None) => write!(
                f,
                "{replica} is not the active ResourceManager and knows of no leader (an election \
                 is under way or the leader's first entry is not applied yet)"
            ),
        }
    }
}
