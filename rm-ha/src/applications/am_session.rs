//! [`AmSession`]: what the leader remembers about one registered application attempt between
//! its allocate calls. Soft state: a new leader starts with none, and the AM registers again.

use std::collections::{BTreeMap, BTreeSet};
use tokio::time::Instant;

use yarn_proto::pb;

use crate::applications::container_updates::UpdateType;
use crate::state_machine::{ContainerRecord, ExecutionType, RmState};

/// How an allocate request's `response_id` relates to the session's last response.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseIdCheck {
    /// The next request: apply it and answer with `response_id + 1`.
    Fresh,
    /// A resend of the request last answered: answer it with that response again, unchanged.
    Duplicate(Box<pb::AllocateResponseProto>),
    /// Neither: the AM lost track of the exchange.
    Invalid {
        /// The id a fresh request must carry.
        expected: i32,
    },
}

/// What changed for an attempt since its last allocate response.
#[derive(Debug, Default)]
pub struct AttemptNews<'a> {
    /// Containers committed for the attempt that the AM has not been given.
    pub allocated: Vec<&'a ContainerRecord>,
    /// Its containers that completed since the AM last heard, AM container excluded.
    pub completed: Vec<&'a ContainerRecord>,
    /// Nodes of `allocated` the AM holds no NM token for yet.
    pub new_nodes: Vec<String>,
    /// Live containers whose update the AM has not been given, each with its version now and
    /// the type of the update the AM asked for (for one it did not ask this session about, a
    /// decrease: the leader rolled back an increase its node never applied).
    pub updated: Vec<(&'a ContainerRecord, i32, UpdateType)>,
}

/// One registered attempt's session on the leader.
///
/// Guarantees: a container is handed to the AM at most once per session and a completion
/// reported at most once per session; the AM client drops the repeats that a new session (after
/// a failover or a re-registration) may bring. Containers an AMRMProxy placed are never handed
/// out (the AM has them from the proxy), but their completions are reported. An update is
/// reported once per version the session saw the container move to, and again only when the
/// AM re-sends the request of an update already applied ([`resend_update`](Self::resend_update)).
#[derive(Debug)]
pub struct AmSession {
    last_response: Option<pb::AllocateResponseProto>,
    delivered: BTreeSet<i64>,
    reported: BTreeSet<i64>,
    nm_tokens_sent: BTreeSet<String>,
    /// The version the AM is known to hold of each live container the session has seen.
    versions: BTreeMap<i64, i32>,
    /// The type of each update the AM asked for, by container and the version it updates
    /// from, until it is reported.
    update_types: BTreeMap<(i64, i32), UpdateType>,
    /// Containers whose current version is to be reported again as an update, of the type the
    /// AM asked for again.
    resent_updates: BTreeMap<i64, UpdateType>,
    last_heard: Instant,
}

impl AmSession {
    /// A session that heard from its AM at `now`.
    pub fn new(now: Instant) -> Self {
        Self {
            last_response: None,
            delivered: BTreeSet::new(),
            reported: BTreeSet::new(),
            nm_tokens_sent: BTreeSet::new(),
            versions: BTreeMap::new(),
            update_types: BTreeMap::new(),
            resent_updates: BTreeMap::new(),
            last_heard: now,
        }
    }

    /// A session, begun at `now`, whose AM already holds the containers `held` (or must be
    /// taken to): they are never handed out in it. For Hadoop's AMRMClient, which passes on
    /// every container it is given and forgets what it had when it registers again after a
    /// failover; as with Hadoop's work-preserving restart, the asks such an AM re-sends make up
    /// for an allocation it never heard of. yarn-ha has no allocation expiry, so that
    /// allocation stays charged until it completes or its application ends.
    pub fn holding(now: Instant, held: impl IntoIterator<Item = i64>) -> Self {
        Self {
            delivered: held.into_iter().collect(),
            ..Self::new(now)
        }
    }

    /// Notes that the AM asked for an update of `update_type` of `container_id` from
    /// `version`, its version then, so that the update is reported, as of that type, whenever
    /// it applies, even before the session next looks.
    pub fn expect_update(&mut self, container_id: i64, version: i32, update_type: UpdateType) {
        self.versions.entry(container_id).or_insert(version);
        self.update_types
            .insert((container_id, version), update_type);
    }

    /// Notes that the AM re-sent the request of an update of `update_type` already applied to
    /// `container_id` (it did not hear of it, for instance across a failover): the next news
    /// report it again.
    pub fn resend_update(&mut self, container_id: i64, update_type: UpdateType) {
        self.resent_updates.insert(container_id, update_type);
    }

    /// Whether the AM's allocate exchange has begun: from then on a registration for the same
    /// attempt with the same leader is another process holding the AM's token, not a retry.
    pub fn exchange_begun(&self) -> bool {
        self.last_response.is_some()
    }

    /// When the AM last called.
    pub fn last_heard(&self) -> Instant {
        self.last_heard
    }

    /// Notes a call from the AM at `now`.
    pub fn heard(&mut self, now: Instant) {
        self.last_heard = now;
    }

    /// Classifies a request's `response_id`: after registration the first request carries 0;
    /// afterwards each carries the last response's id, and the one before that is a resend.
    pub fn check(&self, response_id: i32) -> ResponseIdCheck {
        match &self.last_response {
            None if response_id == 0 => ResponseIdCheck::Fresh,
            None => ResponseIdCheck::Invalid { expected: 0 },
            Some(last) if response_id == last.response_id => ResponseIdCheck::Fresh,
            Some(last) if response_id.wrapping_add(1) == last.response_id => {
                ResponseIdCheck::Duplicate(Box::new(last.clone()))
            }
            Some(last) => ResponseIdCheck::Invalid {
                expected: last.response_id,
            },
        }
    }

    /// Collects `application_seq`'s news for `attempt_id` from `state` and counts it as given.
    pub fn take_news<'a>(
        &mut self,
        state: &'a RmState,
        application_seq: i32,
        attempt_id: i32,
    ) -> AttemptNews<'a> {
        let mut news = AttemptNews::default();
        for record in state.containers.of_application(application_seq) {
            if record.is_am || record.attempt_id != attempt_id {
                continue;
            }
            let id = record.key.container_id;
            if record.is_live() {
                let version = state.containers.version(&record.key);
                let resent = self.resent_updates.remove(&id);
                let known = self.versions.entry(id).or_insert(version);
                if *known < version || resent.is_some() {
                    *known = version;
                    let asked = self.take_update_type(id, version);
                    // Not asked for in this session: the leader's own rollback of an increase
                    // the node never applied (see `UnconfirmedIncreases`).
                    let update_type = resent.or(asked).unwrap_or(match record.execution_type {
                        ExecutionType::Guaranteed => UpdateType::DecreaseResource,
                        ExecutionType::Opportunistic => UpdateType::DemoteExecutionType,
                    });
                    news.updated.push((record, version, update_type));
                }
                let remote = state.containers.is_remotely_allocated(&record.key);
                if self.delivered.insert(id) && !remote {
                    if self.nm_tokens_sent.insert(record.node.clone()) {
                        news.new_nodes.push(record.node.clone());
                    }
                    news.allocated.push(record);
                }
            } else if self.reported.insert(id) {
                // A container that completed before it was ever handed out is reported too,
                // as YARN reports it; its asks are given back (see `handed_out`).
                self.versions.remove(&id);
                self.take_update_type(id, i32::MAX);
                self.resent_updates.remove(&id);
                news.completed.push(record);
            }
        }
        news
    }

    /// Forgets the update types asked for `container_id` from versions below `version`
    /// (reported, or overtaken) and returns the one asked from `version - 1`.
    fn take_update_type(&mut self, container_id: i64, version: i32) -> Option<UpdateType> {
        let asked = self
            .update_types
            .get(&(container_id, version.saturating_sub(1)))
            .copied();
        self.update_types
            .retain(|&(id, from), _| id != container_id || from >= version);
        asked
    }

    /// Whether the AM was handed container `container_id` live in this session, or held it
    /// when the session began: YARN's "acquired". A container that completed before that was
    /// only ever reported completed.
    pub fn handed_out(&self, container_id: i64) -> bool {
        self.delivered.contains(&container_id)
    }

    /// Remembers `response` as the last one, for resends.
    pub fn answered(&mut self, response: pb::AllocateResponseProto) {
        self.last_response = Some(response);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::test_fixtures::{key, running_application};
    use crate::state_machine::{CommandV1, ContainerCompletion, RmCommand};

    fn response(response_id: i32) -> pb::AllocateResponseProto {
        pb::AllocateResponseProto {
            response_id,
            ..Default::default()
        }
    }

    #[test]
    fn a_session_holding_containers_never_hands_them_out() {
        let state = running_application(&[(2, "n1:1"), (3, "n1:1")], &[]);
        let mut session = AmSession::holding(Instant::now(), [key(2).container_id]);
        let news = session.take_news(&state, 1, 1);
        let given: Vec<_> = news.allocated.iter().map(|r| r.key).collect();
        assert_eq!(
            given,
            vec![key(3)],
            "container 2 was held before the session began"
        );
    }

    #[test]
    fn response_ids_follow_the_exchange_and_a_resend_gets_the_same_answer() {
        let mut session = AmSession::new(Instant::now());
        assert_eq!(session.check(0), ResponseIdCheck::Fresh);
        assert_eq!(session.check(1), ResponseIdCheck::Invalid { expected: 0 });
        session.answered(response(1));
        assert_eq!(session.check(1), ResponseIdCheck::Fresh);
        assert_eq!(
            session.check(0),
            ResponseIdCheck::Duplicate(Box::new(response(1)))
        );
        assert_eq!(session.check(5), ResponseIdCheck::Invalid { expected: 1 });
    }

    #[test]
    fn the_exchange_begins_with_the_first_answer() {
        let mut session = AmSession::new(Instant::now());
        assert!(
            !session.exchange_begun(),
            "a registration retried before any allocate"
        );
        session.answered(response(1));
        assert!(session.exchange_begun());
    }

    #[test]
    fn containers_and_completions_are_given_once_with_one_token_per_node() {
        let mut state = running_application(&[(2, "n1:1"), (3, "n1:1"), (4, "n2:1")], &[4]);
        let mut session = AmSession::new(Instant::now());
        let news = session.take_news(&state, 1, 1);
        let allocated: Vec<_> = news.allocated.iter().map(|r| r.key).collect();
        let completed: Vec<_> = news.completed.iter().map(|r| r.key).collect();
        assert_eq!(allocated, vec![key(2), key(3)]);
        assert_eq!(completed, vec![key(4)]);
        assert_eq!(news.new_nodes, vec!["n1:1".to_owned()]);

        let again = session.take_news(&state, 1, 1);
        assert!(again.allocated.is_empty() && again.completed.is_empty());

        state.apply(&RmCommand::V1(CommandV1::CompleteContainers {
            completions: vec![ContainerCompletion {
                key: key(2),
                exit_status: 0,
                diagnostics: String::new(),
            }],
            now_ms: 9,
        }));
        let later = session.take_news(&state, 1, 1);
        assert!(later.allocated.is_empty());
        assert_eq!(
            later.completed.iter().map(|r| r.key).collect::<Vec<_>>(),
            vec![key(2)]
        );
        // Another attempt's containers are not this attempt's news.
        assert!(session.take_news(&state, 1, 2).allocated.is_empty());
    }

    fn remote(below_start: i64) -> ContainerRecord {
        ContainerRecord {
            key: crate::state_machine::ContainerKey {
                application_seq: 1,
                container_id: (1 << 40) - below_start,
            },
            execution_type: crate::state_machine::ExecutionType::Opportunistic,
            is_am: false,
            ..crate::state_machine::test_fixtures::am_container(0, "n2:1")
        }
    }

    fn update(
        state: &mut RmState,
        record: &ContainerRecord,
        version: i32,
        execution_type: crate::state_machine::ExecutionType,
    ) {
        let response = state.apply(&RmCommand::V1(CommandV1::UpdateContainers {
            updates: vec![crate::state_machine::ContainerUpdate {
                key: record.key,
                attempt_id: 1,
                version,
                execution_type,
            }],
        }));
        assert!(
            matches!(response, crate::state_machine::RmResponse::ContainersUpdated { ref rejected, .. } if rejected.is_empty()),
            "{response:?}"
        );
    }

    #[test]
    fn proxy_placed_containers_are_not_handed_out_but_their_end_and_updates_are() {
        use crate::state_machine::ExecutionType::{Guaranteed, Opportunistic};
        let mut state = running_application(&[(2, "n1:1")], &[]);
        let placed = remote(1);
        state.apply(&RmCommand::V1(CommandV1::RecordRemoteContainers {
            containers: vec![placed.clone()],
        }));
        let mut session = AmSession::new(Instant::now());
        let news = session.take_news(&state, 1, 1);
        assert_eq!(
            news.allocated.iter().map(|r| r.key).collect::<Vec<_>>(),
            vec![key(2)],
            "the AM has the proxy's container from the proxy"
        );
        assert!(news.updated.is_empty());

        update(&mut state, &placed, 0, Guaranteed);
        let news = session.take_news(&state, 1, 1);
        assert_eq!(
            news.updated
                .iter()
                .map(|(r, v, t)| (r.key, *v, *t))
                .collect::<Vec<_>>(),
            vec![(placed.key, 1, UpdateType::DecreaseResource)],
            "an update the AM did not ask this session about is the leader's rollback"
        );
        assert!(session.take_news(&state, 1, 1).updated.is_empty(), "once");

        // An update requested and applied before the session looks again is still reported.
        session.expect_update(placed.key.container_id, 1, UpdateType::DecreaseResource);
        update(&mut state, &placed, 1, Opportunistic);
        let news = session.take_news(&state, 1, 1);
        assert_eq!(news.updated.len(), 1);
        assert_eq!(
            news.updated[0].2,
            UpdateType::DecreaseResource,
            "the type the AM asked for is reported"
        );
        // Two updates asked for and applied between two looks: the latest is reported with
        // the type asked from the version before it, and neither type is kept.
        let id = placed.key.container_id;
        session.expect_update(id, 2, UpdateType::PromoteExecutionType);
        session.expect_update(id, 3, UpdateType::DemoteExecutionType);
        update(&mut state, &placed, 2, Guaranteed);
        update(&mut state, &placed, 3, Opportunistic);
        let news = session.take_news(&state, 1, 1);
        assert_eq!(
            news.updated
                .iter()
                .map(|(_, v, t)| (*v, *t))
                .collect::<Vec<_>>(),
            vec![(4, UpdateType::DemoteExecutionType)]
        );
        assert!(session.update_types.is_empty());
        // A new session (after a failover) takes the versions as it finds them, unless the AM
        // re-sends the request of an applied update.
        let mut fresh = AmSession::new(Instant::now());
        assert!(fresh.take_news(&state, 1, 1).updated.is_empty());
        fresh.resend_update(placed.key.container_id, UpdateType::DemoteExecutionType);
        assert_eq!(fresh.take_news(&state, 1, 1).updated.len(), 1);

        state.apply(&RmCommand::V1(CommandV1::CompleteContainers {
            completions: vec![ContainerCompletion {
                key: placed.key,
                exit_status: 0,
                diagnostics: String::new(),
            }],
            now_ms: 9,
        }));
        let news = session.take_news(&state, 1, 1);
        assert_eq!(
            news.completed.iter().map(|r| r.key).collect::<Vec<_>>(),
            vec![placed.key]
        );
    }
}
