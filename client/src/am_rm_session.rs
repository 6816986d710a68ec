//! The ApplicationMaster's side of the allocate protocol as pure state: what the next request
//! carries, what a response means, and what a resync resets.

use std::collections::HashSet;

use yarn_proto::pb;

use crate::AllocateOutcome;
use crate::blacklist::Blacklist;
use crate::container_key::ContainerKey;
use crate::nm_token_cache::NmTokenCache;
use crate::outstanding_asks::OutstandingAsks;
use crate::pending_releases::PendingReleases;
use crate::pending_updates::{PendingUpdates, answered_updates};

/// One application attempt's allocate bookkeeping, without I/O.
///
/// - Each request carries what changed since the last acknowledged one: the full count of each
///   changed ask, releases not yet sent, blacklist changes, and the last response's id.
/// - A request whose outcome is unknown (the call failed without a definitive answer) is sent
///   again unchanged before anything newer: the RM treats it as a duplicate if it did execute it,
///   and then ignores its body, so newer changes must not ride on it.
/// - A response is acknowledged against the request it answers; allocated containers and
///   completions are delivered once each, whatever a new leader repeats.
/// - A resync (the RM lost the registration) resets the response id and marks everything
///   outstanding to be sent again.
///
/// Remembers one id per container allocated or completed in the attempt, to deliver each once.
///
/// [`AmRmClient`](crate::AmRmClient) drives it over gRPC; it is public so that an
/// ApplicationMaster on another transport (Hadoop IPC, as in `yarn-ha bench allocate`) keeps
/// the same bookkeeping: call [`next_request`](Self::next_request), send it, and hand the answer
/// to [`on_response`](Self::on_response) or, on a definitive refusal, call
/// [`refused`](Self::refused).
#[derive(Debug)]
pub struct AmRmSession {
    amrm_token: pb::TokenProto,
    response_id: i32,
    asks: OutstandingAsks,
    releases: PendingReleases,
    blacklist: Blacklist,
    updates: PendingUpdates,
    /// The last request built and not yet answered.
    in_flight: Option<pb::AllocateRequestProto>,
    delivered_allocations: HashSet<ContainerKey>,
    delivered_completions: HashSet<ContainerKey>,
    nm_tokens: NmTokenCache,
    headroom: Option<pb::ResourceProto>,
    num_cluster_nodes: i32,
}

impl AmRmSession {
    /// A session calling with `amrm_token`, storing NM tokens into `nm_tokens`.
    pub fn new(amrm_token: pb::TokenProto, nm_tokens: NmTokenCache) -> Self {
        Self {
            amrm_token,
            response_id: 0,
            asks: OutstandingAsks::default(),
            releases: PendingReleases::default(),
            blacklist: Blacklist::default(),
            updates: PendingUpdates::default(),
            in_flight: None,
            delivered_allocations: HashSet::new(),
            delivered_completions: HashSet::new(),
            nm_tokens,
            headroom: None,
            num_cluster_nodes: 0,
        }
    }

    /// The AMRMToken to present, the newest the RM sent.
    pub fn amrm_token(&self) -> &pb::TokenProto {
        &self.amrm_token
    }

    /// Takes in a (re-)registration: NM tokens of earlier attempts, and their containers, which
    /// are never to be delivered as new allocations.
    pub fn registered(&mut self, response: &pb::RegisterApplicationMasterResponseProto) {
        self.nm_tokens
            .insert_all(&response.nm_tokens_from_previous_attempts);
        for container in &response.containers_from_previous_attempts {
            if let Some(id) = &container.id {
                self.delivered_allocations.insert(ContainerKey::of(id));
            }
        }
    }

    /// See [`OutstandingAsks::add`].
    pub fn add_container_request(&mut self, request: pb::ResourceRequestProto) {
        self.asks.add(request);
    }

    /// See [`OutstandingAsks::remove`].
    pub fn remove_container_request(&mut self, request: &pb::ResourceRequestProto) {
        self.asks.remove(request);
    }

    /// Queues the release of `container_id`, unless its completion was already delivered.
    pub fn release_assigned_container(&mut self, container_id: pb::ContainerIdProto) {
        if !self
            .delivered_completions
            .contains(&ContainerKey::of(&container_id))
        {
            self.releases.release(container_id);
        }
    }

    /// See [`Blacklist::update`].
    pub fn update_blacklist(&mut self, additions: Vec<String>, removals: Vec<String>) {
        self.blacklist.update(additions, removals);
    }

    /// See [`PendingUpdates::request`].
    pub fn request_container_update(&mut self, request: pb::UpdateContainerRequestProto) {
        self.updates.request(request);
    }

    /// The request to send now, with `progress` clamped into `[0, 1]` (NaN as 0): the
    /// unanswered one again if there is one, otherwise a new one with every pending change.
    pub fn next_request(&mut self, progress: f32) -> pb::AllocateRequestProto {
        let progress = if progress.is_nan() {
            0.0
        } else {
            progress.clamp(0.0, 1.0)
        };
        let request = self
            .in_flight
            .get_or_insert_with(|| pb::AllocateRequestProto {
                ask: self.asks.to_send(),
                release: self.releases.to_send(),
                blacklist_request: self.blacklist.to_send(),
                response_id: self.response_id,
                progress,
                update_requests: self.updates.to_send(),
            });
        request.progress = progress;
        request.clone()
    }

    /// Forgets the unanswered request after the RM refused it definitively (so it did not apply
    /// it); its changes stay pending and go into the next request.
    pub fn refused(&mut self) {
        self.in_flight = None;
    }

    /// Applies the response to the unanswered request and returns the news in it.
    pub fn on_response(&mut self, response: pb::AllocateResponseProto) -> AllocateOutcome {
        if let Some(sent) = self.in_flight.take() {
            self.asks.acknowledge(&sent.ask);
            self.releases.acknowledge(&sent.release);
            if let Some(blacklist) = &sent.blacklist_request {
                self.blacklist.acknowledge(blacklist);
            }
            self.updates.acknowledge(&sent.update_requests);
        }
        for id in answered_updates(&response) {
            self.updates.answered(&ContainerKey::of(id));
        }
        self.response_id = response.response_id;
        if let Some(token) = response.am_rm_token {
            self.amrm_token = token;
        }
        self.nm_tokens.insert_all(&response.nm_tokens);
        if response.limit.is_some() {
            self.headroom = response.limit;
        }
        self.num_cluster_nodes = response.num_cluster_nodes;

        let mut allocated = Vec::new();
        for container in response.allocated_containers {
            let Some(id) = &container.id else {
                tracing::warn!(
                    ?container,
                    "allocate response has a container without an id"
                );
                continue;
            };
            if self.delivered_allocations.insert(ContainerKey::of(id)) {
                self.asks.allocated(&container);
                allocated.push(container);
            }
        }
        let mut completed = Vec::new();
        for status in response.completed_container_statuses {
            let Some(id) = &status.container_id else {
                tracing::warn!(?status, "allocate response has a completion without an id");
                continue;
            };
            let key = ContainerKey::of(id);
            if self.delivered_completions.insert(key) {
                self.releases.completed(&key);
                self.updates.answered(&key);
                completed.push(status);
            }
        }
        AllocateOutcome {
            allocated,
            completed,
            updated: response.updated_containers,
            update_errors: response.update_errors,
            updated_nodes: response.updated_nodes,
            preemption: response.preempt,
            shutdown_requested: response.a_m_command == pb::AmCommandProto::AmShutdown as i32,
            resynced: false,
        }
    }

    /// Resets for a leader that holds no registration: response id 0, nothing in flight, and
    /// every outstanding ask, unconfirmed release and blacklisted node to be sent again.
    pub fn resync(&mut self) {
        self.response_id = 0;
        self.in_flight = None;
        self.asks.resend_all();
        self.releases.resend_all();
        self.blacklist.resend_all();
        self.updates.resend_all();
    }

    /// The asks still wanted.
    pub fn outstanding(&self) -> Vec<pb::ResourceRequestProto> {
        self.asks.outstanding()
    }

    /// The last headroom the RM reported.
    pub fn headroom(&self) -> Option<&pb::ResourceProto> {
        self.headroom.as_ref()
    }

    /// The cluster size the RM last reported.
    pub fn num_cluster_nodes(&self) -> i32 {
        self.num_cluster_nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yarn_proto::ANY;

    fn token(password: u8) -> pb::TokenProto {
        pb::TokenProto {
            identifier: vec![1],
            password: vec![password],
            kind: "YARN_AM_RM_TOKEN".to_owned(),
            service: String::new(),
        }
    }

    fn session() -> AmRmSession {
        AmRmSession::new(token(0), NmTokenCache::new())
    }

    fn ask(name: &str, count: i32) -> pb::ResourceRequestProto {
        pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority: 1 }),
            resource_name: name.to_owned(),
            capability: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                resource_value_map: Default::default(),
            }),
            num_containers: count,
            ..Default::default()
        }
    }

    fn container_id(n: i64) -> pb::ContainerIdProto {
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

    fn container(n: i64, host: &str) -> pb::ContainerProto {
        pb::ContainerProto {
            id: Some(container_id(n)),
            node_id: Some(pb::NodeIdProto {
                host: host.to_owned(),
                port: 8041,
            }),
            resource: ask(ANY, 1).capability,
            priority: Some(pb::PriorityProto { priority: 1 }),
            allocation_request_id: Some(0),
            ..Default::default()
        }
    }

    fn completion(n: i64) -> pb::ContainerStatusProto {
        pb::ContainerStatusProto {
            container_id: Some(container_id(n)),
            state: pb::ContainerStateProto::CComplete as i32,
            exit_status: Some(0),
            ..Default::default()
        }
    }

    fn response(response_id: i32) -> pb::AllocateResponseProto {
        pb::AllocateResponseProto {
            response_id,
            ..Default::default()
        }
    }

    fn counts(asks: &[pb::ResourceRequestProto]) -> Vec<(String, i32)> {
        asks.iter()
            .map(|ask| (ask.resource_name.clone(), ask.num_containers))
            .collect()
    }

    fn ids(containers: &[pb::ContainerProto]) -> Vec<i64> {
        containers
            .iter()
            .map(|c| c.id.as_ref().unwrap().id)
            .collect()
    }

    #[test]
    fn requests_carry_only_changes_and_echo_the_last_response_id() {
        let mut session = session();
        session.add_container_request(ask(ANY, 2));
        let first = session.next_request(0.1);
        assert_eq!(first.response_id, 0);
        assert_eq!(counts(&first.ask), [(ANY.to_owned(), 2)]);
        session.on_response(response(1));

        let second = session.next_request(0.2);
        assert_eq!(second.response_id, 1);
        assert!(second.ask.is_empty(), "nothing changed: {second:?}");
        assert!(second.release.is_empty());
        assert_eq!(second.blacklist_request, None);
    }

    #[test]
    fn progress_is_clamped() {
        let mut session = session();
        assert_eq!(session.next_request(1.5).progress, 1.0);
        assert_eq!(session.next_request(-1.0).progress, 0.0);
        assert_eq!(session.next_request(f32::NAN).progress, 0.0);
        assert_eq!(session.next_request(0.5).progress, 0.5);
    }

    #[test]
    fn an_unanswered_request_is_resent_unchanged_and_later_changes_wait_for_the_next() {
        let mut session = session();
        session.add_container_request(ask(ANY, 2));
        let first = session.next_request(0.1);
        // The call failed without an answer; meanwhile the AM asks for more.
        session.add_container_request(ask(ANY, 1));
        session.update_blacklist(vec!["h9".to_owned()], vec![]);
        let again = session.next_request(0.3);
        assert_eq!(
            again,
            pb::AllocateRequestProto {
                progress: 0.3,
                ..first
            }
        );

        session.on_response(response(1));
        let next = session.next_request(0.4);
        assert_eq!(next.response_id, 1);
        assert_eq!(counts(&next.ask), [(ANY.to_owned(), 3)]);
        assert_eq!(
            next.blacklist_request.unwrap().blacklist_additions,
            ["h9".to_owned()]
        );
    }

    #[test]
    fn a_refused_request_is_rebuilt_with_everything_pending() {
        let mut session = session();
        session.add_container_request(ask(ANY, 2));
        session.next_request(0.1);
        session.refused();
        session.add_container_request(ask(ANY, 1));
        let rebuilt = session.next_request(0.1);
        assert_eq!(counts(&rebuilt.ask), [(ANY.to_owned(), 3)]);
        assert_eq!(rebuilt.response_id, 0);
    }

    #[test]
    fn a_container_handed_out_again_is_not_returned_twice_nor_charged_twice() {
        let mut session = session();
        session.add_container_request(ask(ANY, 3));
        session.next_request(0.0);
        let mut first = response(1);
        first.allocated_containers = vec![container(1, "h1"), container(2, "h2")];
        let outcome = session.on_response(first.clone());
        assert_eq!(ids(&outcome.allocated), [1, 2]);
        assert_eq!(counts(&session.outstanding()), [(ANY.to_owned(), 1)]);

        // A new leader repeats container 2 beside a new one.
        session.next_request(0.0);
        let mut again = response(2);
        again.allocated_containers = vec![container(2, "h2"), container(3, "h1")];
        let outcome = session.on_response(again);
        assert_eq!(ids(&outcome.allocated), [3]);
        assert!(session.outstanding().is_empty());
    }

    #[test]
    fn completions_are_delivered_once_and_end_their_releases() {
        let mut session = session();
        session.release_assigned_container(container_id(4));
        assert_eq!(session.next_request(0.0).release, [container_id(4)]);
        let mut first = response(1);
        first.completed_container_statuses = vec![completion(4)];
        assert_eq!(
            session.on_response(first.clone()).completed,
            [completion(4)]
        );

        session.next_request(0.0);
        first.response_id = 2;
        assert!(session.on_response(first).completed.is_empty());

        session.release_assigned_container(container_id(4));
        session.resync();
        assert!(
            session.next_request(0.0).release.is_empty(),
            "a completed container is never released again"
        );
    }

    #[test]
    fn previous_attempts_containers_are_never_delivered_as_new() {
        let mut session = session();
        session.registered(&pb::RegisterApplicationMasterResponseProto {
            containers_from_previous_attempts: vec![container(7, "h1")],
            nm_tokens_from_previous_attempts: vec![pb::NmTokenProto {
                node_id: container(7, "h1").node_id,
                token: Some(token(7)),
            }],
            ..Default::default()
        });
        session.next_request(0.0);
        let mut repeated = response(1);
        repeated.allocated_containers = vec![container(7, "h1")];
        assert!(session.on_response(repeated).allocated.is_empty());
        assert_eq!(session.nm_tokens.get_for_address("h1:8041"), Some(token(7)));
    }

    #[test]
    fn a_resync_resends_every_outstanding_ask_release_and_blacklist_entry_from_response_id_zero() {
        let mut session = session();
        session.add_container_request(ask(ANY, 3));
        session.add_container_request(ask("h1", 1));
        session.release_assigned_container(container_id(8));
        session.update_blacklist(vec!["bad".to_owned()], vec![]);
        session.next_request(0.0);
        let mut answered = response(5);
        answered.allocated_containers = vec![container(1, "h1")];
        session.on_response(answered);
        assert_eq!(session.next_request(0.0).ask, [], "all acknowledged");

        session.resync();
        let resent = session.next_request(0.0);
        assert_eq!(resent.response_id, 0);
        assert_eq!(
            counts(&resent.ask),
            [(ANY.to_owned(), 2)],
            "what is still wanted, after the allocation"
        );
        assert_eq!(resent.release, [container_id(8)]);
        assert_eq!(
            resent.blacklist_request.unwrap().blacklist_additions,
            ["bad".to_owned()]
        );

        session.on_response(response(1));
        let after = session.next_request(0.0);
        assert!(
            after.ask.is_empty() && after.release.is_empty(),
            "{after:?}"
        );
        assert_eq!(after.blacklist_request, None);
    }

    #[test]
    fn a_container_update_rides_until_the_rm_answers_it_even_across_a_resync() {
        let promote = |n| pb::UpdateContainerRequestProto {
            container_version: Some(0),
            container_id: Some(container_id(n)),
            update_type: Some(pb::ContainerUpdateTypeProto::PromoteExecutionType as i32),
            capability: None,
            execution_type: pb::ExecutionTypeProto::Guaranteed as i32,
        };
        let mut session = session();
        session.request_container_update(promote(1));
        session.request_container_update(promote(2));
        assert_eq!(session.next_request(0.0).update_requests.len(), 2);
        session.on_response(response(1));
        assert!(session.next_request(0.0).update_requests.is_empty());

        let mut answered = response(2);
        answered.updated_containers = vec![pb::UpdatedContainerProto {
            update_type: Some(pb::ContainerUpdateTypeProto::PromoteExecutionType as i32),
            container: Some(container(1, "h1")),
        }];
        let outcome = session.on_response(answered);
        assert_eq!(outcome.updated.len(), 1);

        session.resync();
        let resent = session.next_request(0.0).update_requests;
        assert_eq!(
            resent
                .iter()
                .map(|u| u.container_id.unwrap().id)
                .collect::<Vec<_>>(),
            [2],
            "only the unanswered update goes to the new leader"
        );
    }

    #[test]
    fn a_resync_discards_the_unanswered_request() {
        let mut session = session();
        session.add_container_request(ask(ANY, 1));
        session.next_request(0.0);
        session.on_response(response(3));
        session.add_container_request(ask(ANY, 1));
        let unanswered = session.next_request(0.0);
        assert_eq!(unanswered.response_id, 3);
        session.resync();
        let resent = session.next_request(0.0);
        assert_eq!(resent.response_id, 0);
        assert_eq!(counts(&resent.ask), [(ANY.to_owned(), 2)]);
    }

    #[test]
    fn a_new_amrm_token_headroom_and_nm_tokens_are_adopted() {
        let mut session = session();
        session.next_request(0.0);
        let mut answer = response(1);
        answer.am_rm_token = Some(token(42));
        answer.limit = Some(pb::ResourceProto {
            memory: 4096,
            virtual_cores: 4,
            resource_value_map: Default::default(),
        });
        answer.num_cluster_nodes = 3;
        answer.nm_tokens = vec![pb::NmTokenProto {
            node_id: container(1, "h1").node_id,
            token: Some(token(1)),
        }];
        answer.a_m_command = pb::AmCommandProto::AmShutdown as i32;
        let outcome = session.on_response(answer);
        assert!(outcome.shutdown_requested);
        assert_eq!(session.amrm_token(), &token(42));
        assert_eq!(session.headroom().unwrap().memory, 4096);
        assert_eq!(session.num_cluster_nodes(), 3);
        assert_eq!(session.nm_tokens.get_for_address("h1:8041"), Some(token(1)));

        session.next_request(0.0);
        assert!(!session.on_response(response(2)).shutdown_requested);
        assert_eq!(session.amrm_token(), &token(42), "kept when none is sent");
        assert_eq!(
            session.headroom().unwrap().memory,
            4096,
            "kept when none is sent"
        );
    }
}
