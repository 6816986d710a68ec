//! Containers the ApplicationMaster gave back, until the RM reports them completed.

use std::collections::BTreeMap;

use yarn_proto::pb;

use crate::container_key::ContainerKey;

/// YARN's `release` and `pendingRelease` sets: releases not yet sent, and releases sent but not
/// yet seen completed.
///
/// A release is sent once; it is sent again only after a resync, since a new leader may not have
/// applied it. It is forgotten when the container's completion arrives.
#[derive(Debug, Clone, Default)]
pub(crate) struct PendingReleases {
    to_send: BTreeMap<ContainerKey, pb::ContainerIdProto>,
    unconfirmed: BTreeMap<ContainerKey, pb::ContainerIdProto>,
}

impl PendingReleases {
    /// Queues the release of `container_id`; releasing it again before its completion arrives
    /// changes nothing.
    pub(crate) fn release(&mut self, container_id: pb::ContainerIdProto) {
        let key = ContainerKey::of(&container_id);
        if !self.unconfirmed.contains_key(&key) {
            self.to_send.insert(key, container_id);
        }
    }

    /// The releases to send, in id order.
    pub(crate) fn to_send(&self) -> Vec<pb::ContainerIdProto> {
        self.to_send.values().cloned().collect()
    }

    /// Records that the RM received `sent`.
    pub(crate) fn acknowledge(&mut self, sent: &[pb::ContainerIdProto]) {
        for container_id in sent {
            let key = ContainerKey::of(container_id);
            if let Some(container_id) = self.to_send.remove(&key) {
                self.unconfirmed.insert(key, container_id);
            }
        }
    }

    /// Forgets the release of a container whose completion arrived.
    pub(crate) fn completed(&mut self, key: &ContainerKey) {
        self.to_send.remove(key);
        self.unconfirmed.remove(key);
    }

    /// Queues every unconfirmed release again, for a new leader that may not have applied them.
    pub(crate) fn resend_all(&mut self) {
        self.to_send.append(&mut self.unconfirmed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: i64) -> pb::ContainerIdProto {
        pb::ContainerIdProto {
            app_id: None,
            app_attempt_id: Some(pb::ApplicationAttemptIdProto {
                application_id: Some(pb::ApplicationIdProto {
                    id: 1,
                    cluster_timestamp: 5,
                }),
                attempt_id: 1,
            }),
            id: n,
        }
    }

    #[test]
    fn a_release_is_sent_until_acknowledged_then_again_after_each_resync_until_completed() {
        let mut releases = PendingReleases::default();
        releases.release(id(1));
        releases.release(id(2));
        let sent = releases.to_send();
        assert_eq!(sent, [id(1), id(2)]);
        assert_eq!(
            releases.to_send(),
            sent,
            "not acknowledged yet: still to send"
        );

        releases.acknowledge(&sent);
        assert!(releases.to_send().is_empty());
        releases.release(id(1));
        assert!(releases.to_send().is_empty(), "already released");

        releases.resend_all();
        assert_eq!(releases.to_send(), [id(1), id(2)]);
        releases.acknowledge(&[id(1), id(2)]);

        releases.completed(&ContainerKey::of(&id(1)));
        releases.resend_all();
        assert_eq!(releases.to_send(), [id(2)], "completed: no longer re-sent");
    }

    #[test]
    fn a_completion_before_sending_drops_the_release() {
        let mut releases = PendingReleases::default();
        releases.release(id(3));
        releases.completed(&ContainerKey::of(&id(3)));
        assert!(releases.to_send().is_empty());
    }
}
