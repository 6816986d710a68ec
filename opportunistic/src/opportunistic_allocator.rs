//! [`OpportunisticContainerAllocator`]: places OPPORTUNISTIC containers on least-loaded nodes.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::{Error, Locality, OpportunisticAsk, OpportunisticPlacement, RemoteNode};

/// Places an application attempt's OPPORTUNISTIC asks on candidate nodes, the logic shared by
/// the RM's centralized allocator and the NM's distributed scheduler (YARN's
/// `OpportunisticContainerAllocator`).
///
/// One call serves scheduler keys in ascending `(priority, allocation_request_id)` order, lower
/// priority numbers first as everywhere else in YARN (YARN's own opportunistic allocator walks
/// its key map the other way round). For each key it places containers in three phases:
/// 1. node-local: on candidates whose host has an outstanding host ask;
/// 2. rack-local: on candidates whose rack has an outstanding rack ask;
/// 3. off-switch: on any candidate, only if the `"*"` ask relaxes locality.
///
/// Within a phase containers are spread round-robin: each round gives at most one container to
/// each node that fits, and a round only goes to the nodes with the fewest containers from this
/// call so far, so 10 containers over 5 nodes give 2 each. Rounds continue until the key is
/// satisfied, the per-heartbeat cap is reached or no candidate can take more.
///
/// A candidate is skipped in every phase when its host or its rack is in the blacklist, and
/// once it has received its [`queue_room`](RemoteNode::queue_room) in this call. Nodes whose
/// queue is full are expected to be absent already: the monitor leaves them out.
///
/// Counting follows YARN: a node-local placement takes one from the host ask and one from the
/// `"*"` ask, a rack-local one from the rack ask and the `"*"` ask, an off-switch one from the
/// `"*"` ask only. No key ever gets more containers than its `"*"` ask wants.
///
/// Each round starts at a cursor that this allocator keeps across calls: after the node that
/// got the last container. Where YARN starts at a random node so that heartbeats between two
/// sorts do not all pile onto the first one, this rotation does the same deterministically:
/// the same allocator state and input always give the same output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpportunisticContainerAllocator {
    max_allocations_per_heartbeat: Option<u32>,
    next_node: usize,
}

/// What one [`OpportunisticContainerAllocator::allocate`] call decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpportunisticAllocation {
    /// The containers to create, in the order they were placed.
    pub placements: Vec<OpportunisticPlacement>,
    /// Every ask still outstanding after these placements, with decremented counts: the
    /// caller's new ask table. Keys whose `"*"` ask is satisfied are gone entirely, as are host
    /// and rack asks down to zero. Ordered by scheduler key, then `"*"`, hosts, racks by name.
    pub remaining: Vec<OpportunisticAsk>,
}

/// The validated asks of one scheduler key.
struct KeyAsks {
    any: OpportunisticAsk,
    hosts: BTreeMap<String, OpportunisticAsk>,
    racks: BTreeMap<String, OpportunisticAsk>,
}

/// The asks of one scheduler key as they arrive, before validation.
#[derive(Default)]
struct KeyAsksBuilder {
    any: Option<OpportunisticAsk>,
    hosts: BTreeMap<String, OpportunisticAsk>,
    racks: BTreeMap<String, OpportunisticAsk>,
}

impl OpportunisticContainerAllocator {
    /// An allocator placing at most `max_allocations_per_heartbeat` containers per call, or
    /// any number with `None` (the
    /// `yarn.resourcemanager.opportunistic.max.container-allocation.per.am.heartbeat` default
    /// of -1; the caller maps non-positive values to `None`).
    pub fn new(max_allocations_per_heartbeat: Option<u32>) -> Self {
        Self {
            max_allocations_per_heartbeat,
            next_node: 0,
        }
    }

    /// Places containers for `asks`, the attempt's complete set of outstanding OPPORTUNISTIC
    /// asks, on `nodes`, the least-loaded list in its order, avoiding the hosts and racks in
    /// `blacklist`.
    ///
    /// Errors, checked before anything is placed or the cursor moves:
    /// [`Error::DuplicateAsk`] for two asks with the same key and resource name,
    /// [`Error::MissingAnyAsk`] for a key without a `"*"` ask,
    /// [`Error::CapabilityMismatch`] for a host or rack ask sized unlike its `"*"` ask, and
    /// [`Error::DuplicateCandidateNode`] for a node listed twice.
    pub fn allocate(
        &mut self,
        asks: &[OpportunisticAsk],
        nodes: &[RemoteNode],
        blacklist: &BTreeSet<String>,
    ) -> Result<OpportunisticAllocation, Error> {
        let mut keys = group_asks(asks)?;
        let mut seen = HashSet::new();
        if let Some(node) = nodes
            .iter()
            .find(|node| !seen.insert(node.node_id.as_str()))
        {
            return Err(Error::DuplicateCandidateNode {
                node_id: node.node_id.clone(),
            });
        }

        let mut placer = Placer {
            nodes,
            blacklisted: nodes
                .iter()
                .map(|node| blacklist.contains(&node.host) || blacklist.contains(&node.rack))
                .collect(),
            room: nodes.iter().map(|node| node.queue_room).collect(),
            placed: vec![0; nodes.len()],
            budget: self.max_allocations_per_heartbeat,
            cursor: self.next_node,
            placements: Vec::new(),
        };
        for key in keys.values_mut() {
            placer.spread(key, Locality::NodeLocal);
            placer.spread(key, Locality::RackLocal);
            if key.any.relax_locality {
                placer.spread(key, Locality::OffSwitch);
            }
        }
        self.next_node = placer.cursor;

        let remaining = keys
            .into_values()
            .filter(|key| key.any.num_containers > 0)
            .flat_map(|key| {
                let located = key.hosts.into_values().chain(key.racks.into_values());
                std::iter::once(key.any).chain(located.filter(|ask| ask.num_containers > 0))
            })
            .collect();
        Ok(OpportunisticAllocation {
            placements: placer.placements,
            remaining,
        })
    }
}

/// Groups asks by scheduler key and checks that every key is well formed.
fn group_asks(asks: &[OpportunisticAsk]) -> Result<BTreeMap<(i32, i64), KeyAsks>, Error> {
    let mut builders: BTreeMap<(i32, i64), KeyAsksBuilder> = BTreeMap::new();
    for ask in asks {
        let builder = builders.entry(ask.scheduler_key()).or_default();
        let duplicate = if ask.is_any() {
            builder.any.replace(ask.clone()).is_some()
        } else {
            let by_name = if ask.is_rack() {
                &mut builder.racks
            } else {
                &mut builder.hosts
            };
            match by_name.entry(ask.resource_name.clone()) {
                Entry::Occupied(_) => true,
                Entry::Vacant(slot) => {
                    slot.insert(ask.clone());
                    false
                }
            }
        };
        if duplicate {
            return Err(Error::DuplicateAsk {
                priority: ask.priority,
                allocation_request_id: ask.allocation_request_id,
                resource_name: ask.resource_name.clone(),
            });
        }
    }

    let mut keys = BTreeMap::new();
    for ((priority, allocation_request_id), builder) in builders {
        let any = builder.any.ok_or(Error::MissingAnyAsk {
            priority,
            allocation_request_id,
        })?;
        if let Some(odd) = builder
            .hosts
            .values()
            .chain(builder.racks.values())
            .find(|ask| ask.capability != any.capability)
        {
            return Err(Error::CapabilityMismatch {
                priority,
                allocation_request_id,
                resource_name: odd.resource_name.clone(),
                expected: any.capability,
                found: odd.capability,
            });
        }
        keys.insert(
            (priority, allocation_request_id),
            KeyAsks {
                any,
                hosts: builder.hosts,
                racks: builder.racks,
            },
        );
    }
    Ok(keys)
}

impl KeyAsks {
    /// The host or rack ask a placement on `node` in this phase counts against; `None` for
    /// off-switch, which counts against `"*"` only.
    fn located(&self, node: &RemoteNode, locality: Locality) -> Option<&OpportunisticAsk> {
        match locality {
            Locality::NodeLocal => self.hosts.get(&node.host),
            Locality::RackLocal => self.racks.get(&node.rack),
            Locality::OffSwitch => None,
        }
    }

    fn located_mut(
        &mut self,
        node: &RemoteNode,
        locality: Locality,
    ) -> Option<&mut OpportunisticAsk> {
        match locality {
            Locality::NodeLocal => self.hosts.get_mut(&node.host),
            Locality::RackLocal => self.racks.get_mut(&node.rack),
            Locality::OffSwitch => None,
        }
    }

    /// Whether a container of this key may go to `node` in this phase.
    fn wants(&self, node: &RemoteNode, locality: Locality) -> bool {
        self.any.num_containers > 0
            && (locality == Locality::OffSwitch
                || self
                    .located(node, locality)
                    .is_some_and(|ask| ask.num_containers > 0))
    }
}

/// The bookkeeping of one allocation call.
struct Placer<'a> {
    nodes: &'a [RemoteNode],
    blacklisted: Vec<bool>,
    room: Vec<Option<u32>>,
    /// Containers placed on each node in this call, over all keys and phases.
    placed: Vec<u32>,
    budget: Option<u32>,
    cursor: usize,
    placements: Vec<OpportunisticPlacement>,
}

impl Placer<'_> {
    fn can_take(&self, index: usize) -> bool {
        !self.blacklisted[index] && self.room[index] != Some(0)
    }

    fn budget_left(&self) -> bool {
        self.budget != Some(0)
    }

    /// Places `key`'s containers in one locality phase, round by round.
    fn spread(&mut self, key: &mut KeyAsks, locality: Locality) {
        let len = self.nodes.len();
        while self.budget_left() {
            // A round serves only the least-served nodes that fit, so a node never gets a
            // second container before every other fitting node has had one.
            let Some(level) = (0..len)
                .filter(|&i| self.can_take(i) && key.wants(&self.nodes[i], locality))
                .map(|i| self.placed[i])
                .min()
            else {
                return;
            };
            let start = self.cursor % len;
            for step in 0..len {
                let i = (start + step) % len;
                if self.placed[i] > level
                    || !self.can_take(i)
                    || !key.wants(&self.nodes[i], locality)
                {
                    continue;
                }
                self.place(key, i, locality);
                if !self.budget_left() {
                    return;
                }
            }
        }
    }

    fn place(&mut self, key: &mut KeyAsks, index: usize, locality: Locality) {
        let node = &self.nodes[index];
        // `wants` held for this node, so every count decremented here is positive.
        if let Some(ask) = key.located_mut(node, locality) {
            ask.num_containers -= 1;
        }
        key.any.num_containers -= 1;
        if let Some(room) = &mut self.room[index] {
            *room -= 1;
        }
        if let Some(budget) = &mut self.budget {
            *budget -= 1;
        }
        self.placed[index] += 1;
        self.cursor = index + 1;
        self.placements.push(OpportunisticPlacement {
            priority: key.any.priority,
            allocation_request_id: key.any.allocation_request_id,
            node_id: node.node_id.clone(),
            host: node.host.clone(),
            capability: key.any.capability,
            locality,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Resource;

    const GIB: Resource = Resource::new(1024, 1);

    fn node(host: &str, rack: &str) -> RemoteNode {
        RemoteNode {
            node_id: format!("{host}:8041"),
            host: host.to_string(),
            rack: rack.to_string(),
            queue_room: None,
        }
    }

    fn nodes(count: usize) -> Vec<RemoteNode> {
        (1..=count).map(|i| node(&format!("h{i}"), "/r1")).collect()
    }

    fn ask(resource_name: &str, num_containers: u32) -> OpportunisticAsk {
        OpportunisticAsk::new(1, resource_name, GIB, num_containers)
    }

    fn strict(num_containers: u32) -> OpportunisticAsk {
        OpportunisticAsk {
            relax_locality: false,
            ..ask("*", num_containers)
        }
    }

    fn allocate(
        allocator: &mut OpportunisticContainerAllocator,
        asks: &[OpportunisticAsk],
        nodes: &[RemoteNode],
    ) -> OpportunisticAllocation {
        allocator.allocate(asks, nodes, &BTreeSet::new()).unwrap()
    }

    fn placed_with_locality(allocation: &OpportunisticAllocation) -> Vec<(&str, Locality)> {
        allocation
            .placements
            .iter()
            .map(|placement| (placement.host.as_str(), placement.locality))
            .collect()
    }

    fn placed_hosts(allocation: &OpportunisticAllocation) -> Vec<&str> {
        allocation
            .placements
            .iter()
            .map(|placement| placement.host.as_str())
            .collect()
    }

    #[test]
    fn node_local_first_then_rack_local_then_off_switch() {
        let candidates = [
            node("h1", "/r1"),
            node("h2", "/r1"),
            node("h3", "/r2"),
            node("h4", "/r2"),
        ];
        let asks = [ask("*", 4), ask("/r1", 1), ask("h3", 1)];
        let out = allocate(
            &mut OpportunisticContainerAllocator::new(None),
            &asks,
            &candidates,
        );
        let placed = placed_with_locality(&out);
        // h3 for the host ask; h1, the first /r1 node after h3 in rotation, for the rack ask;
        // then the two nodes without a container yet, off-switch.
        assert_eq!(
            placed,
            [
                ("h3", Locality::NodeLocal),
                ("h1", Locality::RackLocal),
                ("h2", Locality::OffSwitch),
                ("h4", Locality::OffSwitch),
            ]
        );
        assert!(out.remaining.is_empty());
        let placement = &out.placements[0];
        assert_eq!(
            (
                placement.node_id.as_str(),
                placement.priority,
                placement.allocation_request_id,
                placement.capability
            ),
            ("h3:8041", 1, -1, GIB)
        );
    }

    #[test]
    fn strict_locality_keeps_containers_on_named_hosts_and_racks() {
        let candidates = [node("h1", "/r1"), node("h2", "/r1"), node("h3", "/r2")];
        let asks = [strict(4), ask("h2", 1), ask("/r2", 1), ask("h9", 2)];
        let out = allocate(
            &mut OpportunisticContainerAllocator::new(None),
            &asks,
            &candidates,
        );
        assert_eq!(placed_hosts(&out), ["h2", "h3"]);
        // The node-local and rack-local placements each took one from "*" too; the host ask
        // for h9, which is no candidate, stays outstanding.
        assert_eq!(out.remaining, [strict(2), ask("h9", 2)]);

        // The same asks with relaxed locality also go off-switch.
        let mut relaxed = asks.clone();
        relaxed[0].relax_locality = true;
        let out = allocate(
            &mut OpportunisticContainerAllocator::new(None),
            &relaxed,
            &candidates,
        );
        assert_eq!(placed_hosts(&out), ["h2", "h3", "h1", "h2"]);
        assert!(out.remaining.is_empty());
    }

    #[test]
    fn host_asks_take_several_containers_spread_over_their_hosts() {
        let asks = [strict(5), ask("h1", 3), ask("h3", 1)];
        let out = allocate(
            &mut OpportunisticContainerAllocator::new(None),
            &asks,
            &nodes(3),
        );
        assert_eq!(placed_hosts(&out), ["h1", "h3", "h1", "h1"]);
        assert!(
            out.placements
                .iter()
                .all(|placement| placement.locality == Locality::NodeLocal)
        );
        assert_eq!(out.remaining, [strict(1)]);
    }

    #[test]
    fn off_switch_spreads_one_container_per_node_per_round() {
        let out = allocate(
            &mut OpportunisticContainerAllocator::new(None),
            &[ask("*", 10)],
            &nodes(5),
        );
        assert_eq!(
            placed_hosts(&out),
            ["h1", "h2", "h3", "h4", "h5", "h1", "h2", "h3", "h4", "h5"]
        );

        let out = allocate(
            &mut OpportunisticContainerAllocator::new(None),
            &[ask("*", 3)],
            &nodes(5),
        );
        assert_eq!(placed_hosts(&out), ["h1", "h2", "h3"]);
    }

    #[test]
    fn queue_room_caps_containers_per_node() {
        let mut candidates = nodes(3);
        candidates[0].queue_room = Some(1);
        candidates[1].queue_room = Some(0);
        let out = allocate(
            &mut OpportunisticContainerAllocator::new(None),
            &[ask("*", 4), ask("h2", 1)],
            &candidates,
        );
        // h2 has no room even for its own host ask; h1 takes one, and h3, whose room is
        // unknown, takes the rest.
        assert_eq!(placed_hosts(&out), ["h1", "h3", "h3", "h3"]);
        assert!(out.remaining.is_empty());
    }

    #[test]
    fn blacklisted_hosts_and_racks_are_skipped_in_every_phase() {
        let candidates = [
            node("h1", "/r1"),
            node("h2", "/r1"),
            node("h3", "/r2"),
            node("h4", "/r3"),
        ];
        let blacklist: BTreeSet<String> = ["h1".to_string(), "/r2".to_string()].into();
        let asks = [ask("*", 5), ask("h1", 1), ask("h3", 1), ask("/r1", 2)];
        let out = OpportunisticContainerAllocator::new(None)
            .allocate(&asks, &candidates, &blacklist)
            .unwrap();
        let placed = placed_with_locality(&out);
        // No node-local placement (h1 blacklisted by host, h3 by rack); both rack-local ones on
        // h2, the only /r1 node left; off-switch only on h4 and h2.
        assert_eq!(
            placed,
            [
                ("h2", Locality::RackLocal),
                ("h2", Locality::RackLocal),
                ("h4", Locality::OffSwitch),
                ("h4", Locality::OffSwitch),
                ("h2", Locality::OffSwitch),
            ]
        );
        assert!(out.remaining.is_empty());
    }

    #[test]
    fn per_heartbeat_cap_applies_across_keys_in_priority_order() {
        let low = OpportunisticAsk::new(7, "*", GIB, 2);
        let mut later = OpportunisticAsk::new(3, "*", GIB, 2);
        later.allocation_request_id = 9;
        let mut earlier = OpportunisticAsk::new(3, "*", GIB, 2);
        earlier.allocation_request_id = 4;
        let asks = [low.clone(), later.clone(), earlier];
        let out = allocate(
            &mut OpportunisticContainerAllocator::new(Some(3)),
            &asks,
            &nodes(5),
        );
        let keys: Vec<(i32, i64)> = out
            .placements
            .iter()
            .map(|placement| (placement.priority, placement.allocation_request_id))
            .collect();
        assert_eq!(keys, [(3, 4), (3, 4), (3, 9)]);
        later.num_containers = 1;
        assert_eq!(out.remaining, [later, low]);

        let out = allocate(
            &mut OpportunisticContainerAllocator::new(Some(0)),
            &asks,
            &nodes(5),
        );
        assert!(out.placements.is_empty());
        assert_eq!(out.remaining.len(), 3);
    }

    #[test]
    fn rotation_continues_across_calls() {
        let mut allocator = OpportunisticContainerAllocator::new(None);
        let first = allocate(&mut allocator, &[ask("*", 2)], &nodes(5));
        let second = allocate(&mut allocator, &[ask("*", 4)], &nodes(5));
        assert_eq!(placed_hosts(&first), ["h1", "h2"]);
        assert_eq!(placed_hosts(&second), ["h3", "h4", "h5", "h1"]);
    }

    #[test]
    fn same_state_and_input_give_the_same_output() {
        let candidates: Vec<RemoteNode> = (1..=12)
            .map(|i| node(&format!("h{i}"), &format!("/r{}", i % 3)))
            .collect();
        let mut asks = vec![ask("*", 40), ask("/r1", 5), ask("/r2", 3)];
        asks.extend((1..=12).step_by(2).map(|i| ask(&format!("h{i}"), 2)));
        let mut high = OpportunisticAsk::new(0, "*", Resource::new(2048, 2), 7);
        high.allocation_request_id = 3;
        asks.push(high);
        let mut allocator = OpportunisticContainerAllocator::new(Some(50));
        allocate(&mut allocator, &[ask("*", 5)], &candidates);
        let mut copy = allocator.clone();
        let first = allocate(&mut allocator, &asks, &candidates);
        let second = allocate(&mut copy, &asks, &candidates);
        assert_eq!(first, second);
        assert_eq!(allocator, copy);
        assert_eq!(first.placements.len(), 47);
    }

    #[test]
    fn no_candidates_means_nothing_placed_and_everything_remains() {
        let asks = [ask("*", 2), ask("h1", 1)];
        let out = allocate(&mut OpportunisticContainerAllocator::new(None), &asks, &[]);
        assert!(out.placements.is_empty());
        assert_eq!(out.remaining, asks);
    }

    #[test]
    fn malformed_input_is_rejected_before_anything_is_placed() {
        let mut allocator = OpportunisticContainerAllocator::new(None);
        let err = |allocator: &mut OpportunisticContainerAllocator,
                   asks: &[OpportunisticAsk],
                   nodes: &[RemoteNode]| {
            allocator
                .allocate(asks, nodes, &BTreeSet::new())
                .unwrap_err()
        };

        let missing = err(&mut allocator, &[ask("h1", 1)], &nodes(1));
        assert_eq!(
            missing,
            Error::MissingAnyAsk {
                priority: 1,
                allocation_request_id: -1
            }
        );
        assert!(missing.to_string().contains("priority 1"), "{missing}");

        let duplicate = err(&mut allocator, &[ask("*", 1), ask("*", 2)], &nodes(1));
        assert!(
            matches!(&duplicate, Error::DuplicateAsk { resource_name, .. } if resource_name == "*"),
            "{duplicate}"
        );

        let mut big = ask("/r1", 1);
        big.capability = Resource::new(4096, 2);
        let mismatch = err(&mut allocator, &[big, ask("*", 1)], &nodes(1));
        assert_eq!(
            mismatch.to_string(),
            "opportunistic ask at priority 1, allocation request id -1, resource \"/r1\" has \
             capability <memory:4096, vCores:2>: expected <memory:1024, vCores:1>, the \
             capability of the \"*\" ask"
        );

        let twice = [node("h1", "/r1"), node("h1", "/r1")];
        let repeated = err(&mut allocator, &[ask("*", 1)], &twice);
        assert_eq!(
            repeated,
            Error::DuplicateCandidateNode {
                node_id: "h1:8041".to_string()
            }
        );

        // None of the failed calls moved the rotation.
        let out = allocate(&mut allocator, &[ask("*", 1)], &nodes(3));
        assert_eq!(placed_hosts(&out), ["h1"]);
    }
}
