//! Container updates (promotion, demotion, resizing) the ApplicationMaster asked for, until the
//! RM answers them.

use std::collections::BTreeMap;

use yarn_proto::pb;

use crate::container_key::ContainerKey;

/// YARN's `change` and `pendingChange` maps: updates not yet sent, and updates sent but not yet
/// answered, at most one per container.
///
/// A newer request for a container replaces an older one, as in YARN's `AMRMClient`. An update
/// is sent once; it is sent again only after a resync, since a new leader holds no record of it.
/// It is forgotten when the RM answers it, with the updated container or with an error, or when
/// the container completes.
#[derive(Debug, Clone, Default)]
pub(crate) struct PendingUpdates {
    to_send: BTreeMap<ContainerKey, pb::UpdateContainerRequestProto>,
    unanswered: BTreeMap<ContainerKey, pb::UpdateContainerRequestProto>,
}

impl PendingUpdates {
    /// Queues `request`, replacing any update of the same container still pending. A request
    /// without a container id cannot be matched to an answer and is refused by the RM anyway:
    /// it is dropped.
    pub(crate) fn request(&mut self, request: pb::UpdateContainerRequestProto) {
        let Some(key) = request.container_id.as_ref().map(ContainerKey::of) else {
            tracing::warn!(
                ?request,
                "dropping a container update without a container id"
            );
            return;
        };
        self.unanswered.remove(&key);
        self.to_send.insert(key, request);
    }

    /// The updates to send, in container id order.
    pub(crate) fn to_send(&self) -> Vec<pb::UpdateContainerRequestProto> {
        self.to_send.values().cloned().collect()
    }

    /// Records that the RM received `sent`.
    pub(crate) fn acknowledge(&mut self, sent: &[pb::UpdateContainerRequestProto]) {
        for request in sent {
            let Some(key) = request.container_id.as_ref().map(ContainerKey::of) else {
                continue;
            };
            if let Some(request) = self.to_send.remove(&key) {
                self.unanswered.insert(key, request);
            }
        }
    }

    /// Forgets the update of a container the RM answered, or that completed.
    pub(crate) fn answered(&mut self, key: &ContainerKey) {
        self.unanswered.remove(key);
        self.to_send.remove(key);
    }

    /// Queues every unanswered update again, for a new leader that never saw them.
    pub(crate) fn resend_all(&mut self) {
        self.to_send.append(&mut self.unanswered);
    }
}

/// The containers whose update `response` answers, either with the updated container or with
/// an update error, in that order. An answer without a container id names none.
pub fn answered_updates(
    response: &pb::AllocateResponseProto,
) -> impl Iterator<Item = &pb::ContainerIdProto> {
    let updated = response
        .updated_containers
        .iter()
        .filter_map(|updated| updated.container.as_ref().and_then(|c| c.id.as_ref()));
    let refused = response.update_errors.iter().filter_map(|error| {
        error
            .update_request
            .as_ref()
            .and_then(|request| request.container_id.as_ref())
    });
    updated.chain(refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn promote(n: i64, version: i32) -> pb::UpdateContainerRequestProto {
        pb::UpdateContainerRequestProto {
            container_version: Some(version),
            container_id: Some(pb::ContainerIdProto {
                app_id: None,
                app_attempt_id: Some(pb::ApplicationAttemptIdProto {
                    application_id: Some(pb::ApplicationIdProto {
                        id: 1,
                        cluster_timestamp: 5,
                    }),
                    attempt_id: 1,
                }),
                id: n,
            }),
            update_type: Some(pb::ContainerUpdateTypeProto::PromoteExecutionType as i32),
            capability: None,
            execution_type: pb::ExecutionTypeProto::Guaranteed as i32,
        }
    }

    fn ids(requests: &[pb::UpdateContainerRequestProto]) -> Vec<(i64, i32)> {
        requests
            .iter()
            .map(|r| (r.container_id.as_ref().unwrap().id, r.container_version()))
            .collect()
    }

    #[test]
    fn an_update_is_sent_once_then_again_after_a_resync_until_answered() {
        let mut updates = PendingUpdates::default();
        updates.request(promote(2, 0));
        updates.request(promote(3, 0));
        let sent = updates.to_send();
        assert_eq!(ids(&sent), [(2, 0), (3, 0)]);
        updates.acknowledge(&sent);
        assert!(updates.to_send().is_empty());

        updates.answered(&ContainerKey::of(sent[0].container_id.as_ref().unwrap()));
        updates.resend_all();
        assert_eq!(ids(&updates.to_send()), [(3, 0)]);
    }

    #[test]
    fn updated_containers_and_update_errors_both_answer_their_container() {
        let update = promote(2, 0);
        let response = pb::AllocateResponseProto {
            updated_containers: vec![pb::UpdatedContainerProto {
                update_type: update.update_type,
                container: Some(pb::ContainerProto {
                    id: promote(4, 0).container_id,
                    ..Default::default()
                }),
            }],
            update_errors: vec![
                pb::UpdateContainerErrorProto {
                    update_request: Some(update),
                    ..Default::default()
                },
                pb::UpdateContainerErrorProto::default(),
            ],
            ..Default::default()
        };
        let answered: Vec<i64> = answered_updates(&response).map(|id| id.id).collect();
        assert_eq!(answered, [4, 2]);
    }

    #[test]
    fn a_newer_request_for_the_same_container_replaces_the_pending_one() {
        let mut updates = PendingUpdates::default();
        updates.request(promote(2, 0));
        updates.acknowledge(&updates.to_send());
        updates.request(promote(2, 1));
        assert_eq!(ids(&updates.to_send()), [(2, 1)]);
        updates.resend_all();
        assert_eq!(
            ids(&updates.to_send()),
            [(2, 1)],
            "the old one is not resent"
        );
    }

    #[test]
    fn a_request_without_a_container_id_is_dropped() {
        let mut updates = PendingUpdates::default();
        updates.request(pb::UpdateContainerRequestProto::default());
        assert!(updates.to_send().is_empty());
    }
}
