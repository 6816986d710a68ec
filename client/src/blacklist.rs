//! The nodes an ApplicationMaster wants no containers on, and the changes the RM has not heard
//! about yet.

use std::collections::BTreeSet;

use yarn_proto::pb;

/// YARN's `blacklistedNodes` with its pending `blacklistAdditions` and `blacklistRemovals`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Blacklist {
    nodes: BTreeSet<String>,
    additions: BTreeSet<String>,
    removals: BTreeSet<String>,
}

impl Blacklist {
    /// Blacklists `additions` and lifts `removals`; a node in both ends up lifted, and a later
    /// change to a node cancels an earlier one not yet sent.
    pub(crate) fn update(&mut self, additions: Vec<String>, removals: Vec<String>) {
        for node in additions {
            self.removals.remove(&node);
            self.nodes.insert(node.clone());
            self.additions.insert(node);
        }
        for node in removals {
            self.additions.remove(&node);
            self.nodes.remove(&node);
            self.removals.insert(node);
        }
    }

    /// The changes to send, `None` when there are none.
    pub(crate) fn to_send(&self) -> Option<pb::ResourceBlacklistRequestProto> {
        if self.additions.is_empty() && self.removals.is_empty() {
            return None;
        }
        Some(pb::ResourceBlacklistRequestProto {
            blacklist_additions: self.additions.iter().cloned().collect(),
            blacklist_removals: self.removals.iter().cloned().collect(),
        })
    }

    /// Records that the RM applied `sent`; a node changed again since stays pending on the
    /// other side.
    pub(crate) fn acknowledge(&mut self, sent: &pb::ResourceBlacklistRequestProto) {
        for node in &sent.blacklist_additions {
            self.additions.remove(node);
        }
        for node in &sent.blacklist_removals {
            self.removals.remove(node);
        }
    }

    /// Sends the whole blacklist again, for a new leader that knows none of it.
    pub(crate) fn resend_all(&mut self) {
        self.additions = self.nodes.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn changes_are_sent_once_and_the_whole_list_again_after_a_resync() {
        let mut blacklist = Blacklist::default();
        assert_eq!(blacklist.to_send(), None);
        blacklist.update(nodes(&["h1", "h2"]), vec![]);
        let sent = blacklist.to_send().unwrap();
        assert_eq!(sent.blacklist_additions, nodes(&["h1", "h2"]));
        blacklist.acknowledge(&sent);
        assert_eq!(blacklist.to_send(), None);

        blacklist.update(vec![], nodes(&["h1"]));
        let sent = blacklist.to_send().unwrap();
        assert_eq!(sent.blacklist_removals, nodes(&["h1"]));
        assert!(sent.blacklist_additions.is_empty());
        blacklist.acknowledge(&sent);

        blacklist.resend_all();
        let resent = blacklist.to_send().unwrap();
        assert_eq!(resent.blacklist_additions, nodes(&["h2"]));
        assert!(resent.blacklist_removals.is_empty());
    }

    #[test]
    fn a_later_change_cancels_an_earlier_unsent_one_and_survives_an_older_acknowledgement() {
        let mut blacklist = Blacklist::default();
        blacklist.update(nodes(&["h1"]), vec![]);
        let sent = blacklist.to_send().unwrap();
        blacklist.update(vec![], nodes(&["h1"]));
        let pending = blacklist.to_send().unwrap();
        assert!(pending.blacklist_additions.is_empty());
        assert_eq!(pending.blacklist_removals, nodes(&["h1"]));

        blacklist.acknowledge(&sent);
        assert_eq!(
            blacklist.to_send(),
            Some(pending),
            "the removal still has to reach the RM"
        );
    }
}
