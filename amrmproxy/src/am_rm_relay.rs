//! [`AmRmRelay`]: what the proxy must remember of an ApplicationMaster's conversation with the
//! ResourceManager to hide an RM failover from it (Hadoop's `AMRMClientRelayer`).

use std::collections::{BTreeMap, BTreeSet};

use yarn_client::{AskKey, answered_updates};
use yarn_proto::ANY;
use yarn_proto::ids::ContainerId;
use yarn_proto::pb;

use crate::Error;
use crate::stored_state::{decode_record, encode_record};

/// One application attempt's relayed allocate bookkeeping, without I/O.
///
/// The AM sends only what changed since its last heartbeat, and a new RM leader knows nothing
/// of what the old one was asked. So the relay keeps the AM's full picture:
/// - every outstanding ask (replaced by key as the RM does, minus the containers allocated
///   since), every release not yet confirmed by a completion, the blacklist, and every
///   container update not yet answered;
/// - the registration, to register again on the AM's behalf.
///
/// When the RM answers "not registered", the proxy registers again and sends
/// [`AmRmRelay::resync_request`]: everything outstanding, from response id 0.
///
/// Response ids stay the AM's: the relay adds an offset to the RM's ids on the way back and
/// subtracts it on the way in. The offset is 0 until a hidden re-registration, which restarts
/// the RM's count at 0 while the AM's continues, so the AM's duplicate detection (a request
/// whose id is one less than the last response's is a duplicate) keeps working across
/// failovers.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct AmRmRelay {
    registration: Option<(pb::RegisterApplicationMasterRequestProto, bool)>,
    response_id_offset: i32,
    last_response_id: Option<i32>,
    asks: BTreeMap<AskKey, pb::ResourceRequestProto>,
    releases: BTreeMap<ContainerId, pb::ContainerIdProto>,
    blacklist: BTreeSet<String>,
    updates: BTreeMap<ContainerId, pb::UpdateContainerRequestProto>,
    /// Containers already charged to the asks: a new leader hands out every live container of
    /// the attempt again after a re-registration, and those must not be charged twice.
    charged: BTreeSet<ContainerId>,
}

impl AmRmRelay {
    /// Records an AM's registration, `distributed` when it went through the distributed
    /// scheduling protocol. The AM counts response ids from 0 again after registering, so the
    /// offset is reset.
    pub(crate) fn registered(
        &mut self,
        request: &pb::RegisterApplicationMasterRequestProto,
        distributed: bool,
    ) {
        self.registration = Some((request.clone(), distributed));
        self.response_id_offset = 0;
        self.last_response_id = None;
    }

    /// The remembered registration and whether it was a distributed-scheduling one.
    pub(crate) fn registration(
        &self,
    ) -> Option<(&pb::RegisterApplicationMasterRequestProto, bool)> {
        self.registration
            .as_ref()
            .map(|(request, distributed)| (request, *distributed))
    }

    /// Takes in the AM's `request` and returns it as the RM must see it: unchanged, except its
    /// response id in the RM's count.
    pub(crate) fn request_for_rm(
        &mut self,
        mut request: pb::AllocateRequestProto,
    ) -> pb::AllocateRequestProto {
        self.record(&request);
        request.response_id = request.response_id.wrapping_sub(self.response_id_offset);
        request
    }

    /// The AM's `request` after the RM lost the registration and it was registered again: every
    /// outstanding ask, unconfirmed release, blacklisted place and unanswered update, from the
    /// RM's response id 0. From now on the offset maps the RM's count onto the AM's.
    pub(crate) fn resync_request(
        &mut self,
        request: pb::AllocateRequestProto,
    ) -> pb::AllocateRequestProto {
        self.record(&request);
        self.response_id_offset = request.response_id;
        pb::AllocateRequestProto {
            ask: self.asks.values().cloned().collect(),
            release: self.releases.values().copied().collect(),
            blacklist_request: (!self.blacklist.is_empty()).then(|| {
                pb::ResourceBlacklistRequestProto {
                    blacklist_additions: self.blacklist.iter().cloned().collect(),
                    blacklist_removals: Vec::new(),
                }
            }),
            response_id: 0,
            progress: request.progress,
            update_requests: self.updates.values().cloned().collect(),
        }
    }

    /// Puts the RM's `response` in the AM's terms (its response id) and, unless it repeats a
    /// response already relayed, charges its containers to the asks and settles the releases
    /// and updates it answers.
    pub(crate) fn response_for_am(&mut self, response: &mut pb::AllocateResponseProto) {
        response.response_id = response.response_id.wrapping_add(self.response_id_offset);
        let fresh = self
            .last_response_id
            .is_none_or(|last| response.response_id.wrapping_sub(last) > 0);
        if !fresh {
            return;
        }
        self.last_response_id = Some(response.response_id);
        for container in &response.allocated_containers {
            let Some(id) = container.id.and_then(|id| ContainerId::try_from(id).ok()) else {
                continue;
            };
            if self.charged.insert(id) {
                self.charge(container);
            }
        }
        for status in &response.completed_container_statuses {
            if let Some(id) = status
                .container_id
                .and_then(|id| ContainerId::try_from(id).ok())
            {
                self.releases.remove(&id);
                self.updates.remove(&id);
            }
        }
        for id in answered_updates(response) {
            if let Ok(id) = ContainerId::try_from(*id) {
                self.updates.remove(&id);
            }
        }
    }

    /// The relay as persisted.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let (registration, distributed) = match &self.registration {
            Some((request, distributed)) => (Some(request.clone()), *distributed),
            None => (None, false),
        };
        encode_record(&StoredRelay {
            registration,
            distributed,
            response_id_offset: self.response_id_offset,
            last_response_id: self.last_response_id,
            asks: self.asks.values().cloned().collect(),
            releases: self.releases.values().copied().collect(),
            blacklist: self.blacklist.iter().cloned().collect(),
            updates: self.updates.values().cloned().collect(),
            charged: self.charged.iter().map(|id| (*id).into()).collect(),
        })
    }

    /// Reads a relay written by [`encode`](Self::encode).
    pub(crate) fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let stored: StoredRelay = decode_record("relayed AM session", bytes)?;
        let mut relay = Self {
            registration: stored
                .registration
                .map(|request| (request, stored.distributed)),
            response_id_offset: stored.response_id_offset,
            last_response_id: stored.last_response_id,
            charged: stored
                .charged
                .into_iter()
                .filter_map(|id| ContainerId::try_from(id).ok())
                .collect(),
            ..Self::default()
        };
        relay.record(&pb::AllocateRequestProto {
            ask: stored.asks,
            release: stored.releases,
            blacklist_request: Some(pb::ResourceBlacklistRequestProto {
                blacklist_additions: stored.blacklist,
                blacklist_removals: Vec::new(),
            }),
            update_requests: stored.updates,
            ..Default::default()
        });
        Ok(relay)
    }

    /// Folds the AM's changes into the full picture.
    fn record(&mut self, request: &pb::AllocateRequestProto) {
        for ask in &request.ask {
            let key = AskKey::of(ask);
            if ask.num_containers > 0 {
                self.asks.insert(key, ask.clone());
            } else {
                self.asks.remove(&key);
            }
        }
        for release in &request.release {
            if let Ok(id) = ContainerId::try_from(*release) {
                self.releases.insert(id, *release);
            }
        }
        if let Some(blacklist) = &request.blacklist_request {
            self.blacklist
                .extend(blacklist.blacklist_additions.iter().cloned());
            for removed in &blacklist.blacklist_removals {
                self.blacklist.remove(removed);
            }
        }
        for update in &request.update_requests {
            if let Some(id) = update
                .container_id
                .and_then(|id| ContainerId::try_from(id).ok())
            {
                self.updates.insert(id, update.clone());
            }
        }
    }

    /// Takes one off the `*` ask and the host ask that `container` satisfies, as the RM did
    /// when it allocated it: same priority and allocation request id, chosen as
    /// [`AskKey::charged_for`] does (its own execution type first; another one only for an ask
    /// that does not enforce its type, which an RM without opportunistic allocation serves
    /// with GUARANTEED containers).
    fn charge(&mut self, container: &pb::ContainerProto) {
        let host = container
            .node_id
            .as_ref()
            .map(|node| node.host.clone())
            .filter(|host| !host.is_empty());
        for name in std::iter::once(ANY.to_owned()).chain(host) {
            let candidates = self
                .asks
                .iter()
                .filter(|(key, _)| key.may_place(container, &name));
            let chosen = AskKey::charged_for(candidates, container).cloned();
            if let Some(key) = chosen {
                let exhausted = self.asks.get_mut(&key).is_some_and(|ask| {
                    ask.num_containers -= 1;
                    ask.num_containers <= 0
                });
                if exhausted {
                    self.asks.remove(&key);
                }
            }
        }
    }

    /// The outstanding asks, for tests.
    #[cfg(test)]
    fn outstanding(&self) -> Vec<(String, i32)> {
        self.asks
            .values()
            .map(|ask| (ask.resource_name.clone(), ask.num_containers))
            .collect()
    }
}

#[derive(Clone, PartialEq, prost::Message)]
struct StoredRelay {
    #[prost(message, optional, tag = "1")]
    registration: Option<pb::RegisterApplicationMasterRequestProto>,
    #[prost(bool, tag = "2")]
    distributed: bool,
    #[prost(int32, tag = "3")]
    response_id_offset: i32,
    #[prost(int32, optional, tag = "4")]
    last_response_id: Option<i32>,
    #[prost(message, repeated, tag = "5")]
    asks: Vec<pb::ResourceRequestProto>,
    #[prost(message, repeated, tag = "6")]
    releases: Vec<pb::ContainerIdProto>,
    #[prost(string, repeated, tag = "7")]
    blacklist: Vec<String>,
    #[prost(message, repeated, tag = "8")]
    updates: Vec<pb::UpdateContainerRequestProto>,
    #[prost(message, repeated, tag = "9")]
    charged: Vec<pb::ContainerIdProto>,
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;

    fn attempt() -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(5, 1), 1)
    }

    fn ask(name: &str, count: i32) -> pb::ResourceRequestProto {
        pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority: 1 }),
            resource_name: name.to_owned(),
            capability: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                ..Default::default()
            }),
            num_containers: count,
            ..Default::default()
        }
    }

    fn container_id(n: i64) -> pb::ContainerIdProto {
        ContainerId::from_raw(attempt(), n).unwrap().into()
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

    fn allocate(response_id: i32, asks: Vec<pb::ResourceRequestProto>) -> pb::AllocateRequestProto {
        pb::AllocateRequestProto {
            ask: asks,
            response_id,
            ..Default::default()
        }
    }

    #[test]
    fn response_ids_pass_through_until_a_resync_then_keep_the_ams_count() {
        let mut relay = AmRmRelay::default();
        relay.registered(&Default::default(), false);
        assert_eq!(relay.request_for_rm(allocate(0, vec![])).response_id, 0);
        let mut response = pb::AllocateResponseProto {
            response_id: 1,
            ..Default::default()
        };
        relay.response_for_am(&mut response);
        assert_eq!(response.response_id, 1);

        // The RM lost the registration after the AM's response 6: the RM counts from 0 again.
        let resync = relay.resync_request(allocate(6, vec![]));
        assert_eq!(resync.response_id, 0);
        let mut response = pb::AllocateResponseProto {
            response_id: 1,
            ..Default::default()
        };
        relay.response_for_am(&mut response);
        assert_eq!(response.response_id, 7, "the AM sees its own count go on");
        // The AM's next request (7) and a duplicate of it (6) map onto the RM's count.
        assert_eq!(relay.request_for_rm(allocate(7, vec![])).response_id, 1);
        assert_eq!(relay.request_for_rm(allocate(6, vec![])).response_id, 0);
    }

    #[test]
    fn a_resync_resends_every_outstanding_ask_release_and_blacklisted_place_once_charged() {
        let mut relay = AmRmRelay::default();
        relay.registered(&Default::default(), false);
        let mut first = allocate(0, vec![ask(ANY, 3), ask("h1", 2), ask("h9", 1)]);
        first.release = vec![container_id(40)];
        first.blacklist_request = Some(pb::ResourceBlacklistRequestProto {
            blacklist_additions: vec!["bad1".to_owned(), "bad2".to_owned()],
            blacklist_removals: Vec::new(),
        });
        relay.request_for_rm(first);
        let mut response = pb::AllocateResponseProto {
            response_id: 1,
            allocated_containers: vec![container(1, "h1")],
            ..Default::default()
        };
        relay.response_for_am(&mut response);
        // The same response again (a duplicate answer) charges nothing more.
        relay.response_for_am(&mut response.clone());
        assert_eq!(
            relay.outstanding(),
            [
                ("*".to_owned(), 2),
                ("h1".to_owned(), 1),
                ("h9".to_owned(), 1)
            ]
        );

        // The AM cancels h9 and unblacklists bad2; the release of 40 completes.
        let mut second = allocate(1, vec![ask("h9", 0)]);
        second.blacklist_request = Some(pb::ResourceBlacklistRequestProto {
            blacklist_additions: Vec::new(),
            blacklist_removals: vec!["bad2".to_owned()],
        });
        relay.request_for_rm(second);
        let mut response = pb::AllocateResponseProto {
            response_id: 2,
            completed_container_statuses: vec![pb::ContainerStatusProto {
                container_id: Some(container_id(40)),
                ..Default::default()
            }],
            ..Default::default()
        };
        relay.response_for_am(&mut response);

        let mut third = allocate(2, vec![]);
        third.release = vec![container_id(41)];
        let resync = relay.resync_request(third);
        assert_eq!(
            resync
                .ask
                .iter()
                .map(|a| (a.resource_name.as_str(), a.num_containers))
                .collect::<Vec<_>>(),
            [("*", 2), ("h1", 1)]
        );
        assert_eq!(resync.release, [container_id(41)]);
        assert_eq!(
            resync.blacklist_request.unwrap().blacklist_additions,
            ["bad1"]
        );
    }

    #[test]
    fn a_guaranteed_container_answers_an_unenforced_opportunistic_ask_only() {
        let opportunistic = |priority, enforce| pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority }),
            execution_type_request: Some(pb::ExecutionTypeRequestProto {
                execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
                enforce_execution_type: enforce,
            }),
            ..ask(ANY, 2)
        };
        let mut relay = AmRmRelay::default();
        relay.registered(&Default::default(), false);
        relay.request_for_rm(allocate(
            0,
            vec![opportunistic(1, false), opportunistic(2, true)],
        ));
        // An RM without opportunistic allocation serves the unenforced ask with GUARANTEED
        // containers; it never serves the enforced one.
        let mut guaranteed = container(1, "h1");
        guaranteed.execution_type = pb::ExecutionTypeProto::Guaranteed.into();
        let mut other_priority = guaranteed.clone();
        other_priority.id = Some(container_id(2));
        other_priority.priority = Some(pb::PriorityProto { priority: 2 });
        relay.response_for_am(&mut pb::AllocateResponseProto {
            response_id: 1,
            allocated_containers: vec![guaranteed, other_priority],
            ..Default::default()
        });
        assert_eq!(
            relay
                .resync_request(allocate(1, vec![]))
                .ask
                .iter()
                .map(|a| (a.priority.unwrap().priority, a.num_containers))
                .collect::<Vec<_>>(),
            [(1, 1), (2, 2)]
        );
    }

    #[test]
    fn the_relay_survives_encoding() {
        let mut relay = AmRmRelay::default();
        let registration = pb::RegisterApplicationMasterRequestProto {
            host: "am-host".to_owned(),
            rpc_port: 7,
            tracking_url: "http://am".to_owned(),
        };
        relay.registered(&registration, true);
        let mut request = allocate(0, vec![ask(ANY, 2)]);
        request.release = vec![container_id(3)];
        relay.request_for_rm(request);
        relay.resync_request(allocate(4, vec![]));
        let decoded = AmRmRelay::decode(&relay.encode()).unwrap();
        assert_eq!(decoded, relay);
        assert_eq!(decoded.registration(), Some((&registration, true)));
    }

    #[test]
    fn a_container_a_new_leader_hands_out_again_is_charged_once() {
        let mut relay = AmRmRelay::default();
        relay.registered(&Default::default(), false);
        relay.request_for_rm(allocate(0, vec![ask(ANY, 10)]));
        let answer = |response_id, containers: &[i64]| pb::AllocateResponseProto {
            response_id,
            allocated_containers: containers.iter().map(|n| container(*n, "h1")).collect(),
            ..Default::default()
        };
        relay.response_for_am(&mut answer(1, &[2, 3]));
        assert_eq!(relay.outstanding(), [(ANY.to_owned(), 8)]);
        // A failover: the proxy registers again and resyncs, and the new leader's fresh session
        // hands out every live container of the attempt again, 2 and 3 among them.
        assert_eq!(
            relay.resync_request(allocate(1, vec![])).ask[0].num_containers,
            8
        );
        relay.response_for_am(&mut answer(1, &[2, 3]));
        assert_eq!(
            relay.outstanding(),
            [(ANY.to_owned(), 8)],
            "containers handed out again were charged again"
        );
        relay.response_for_am(&mut answer(2, &[4, 5, 6, 7, 8, 9, 10]));
        assert_eq!(relay.outstanding(), [(ANY.to_owned(), 1)]);
        // The next failover asks for the one container still missing, also after the node
        // manager restarted the proxy from its store.
        let mut relay = AmRmRelay::decode(&relay.encode()).unwrap();
        relay.response_for_am(&mut answer(3, &[2, 3, 4]));
        assert_eq!(
            relay.resync_request(allocate(3, vec![])).ask[0].num_containers,
            1
        );
    }
}
