//! The node set: registering, removing, resizing and placing nodes on racks, the heartbeats
//! that count scheduling opportunities, the indexes by free resources and by host that keep
//! node search cheap, the search itself, and the attempts' blacklists that rule nodes out.
//!
//! Every change to a node's free resources goes through [`CapacityScheduler::with_node`], so
//! the free-resource index never drifts from the nodes; keeping that index and everything that
//! reads it here makes the invariant checkable in one file.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};

use super::CapacityScheduler;
use super::scheduling_pass::UNPLACEABLE_MEMORY;
use crate::Resource;
use crate::allocation::Allocation;
use crate::error::SchedulerError;
use crate::node::SchedulerNode;

/// Orders nodes for off-switch placement: most free memory first, then most free cores, then
/// node id, so a pass spreads containers and stays deterministic.
pub(super) type FreeKey = (Reverse<u64>, Reverse<u32>, NodeId);

/// YARN's rack for a node no topology mapping places.
pub const DEFAULT_RACK: &str = "/default-rack";

impl CapacityScheduler {
    /// Registers a node offering `capability` on [`DEFAULT_RACK`].
    ///
    /// # Errors
    ///
    /// [`SchedulerError::DuplicateNode`] if the node is already registered.
    pub fn add_node(
        &mut self,
        node_id: NodeId,
        capability: Resource,
    ) -> Result<(), SchedulerError> {
        self.add_node_on_rack(node_id, DEFAULT_RACK.to_owned(), capability)
    }

    /// Registers a node on `rack` offering `capability`.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::DuplicateNode`] if the node is already registered.
    pub fn add_node_on_rack(
        &mut self,
        node_id: NodeId,
        rack: String,
        capability: Resource,
    ) -> Result<(), SchedulerError> {
        if self.nodes.contains_key(&node_id) {
            return Err(SchedulerError::DuplicateNode { node: node_id });
        }
        let mut node = SchedulerNode::new(node_id.clone(), rack, capability);
        let partition = self.node_labels.partition_of(&node_id).to_owned();
        self.resize_partition(&partition, capability, true);
        node.set_partition(partition);
        self.nodes_by_free.insert(free_key(&node));
        self.nodes_by_host
            .entry(node_id.host.clone())
            .or_default()
            .insert(node_id.clone());
        self.nodes.insert(node_id, node);
        self.update_queue_resources();
        self.activate();
        Ok(())
    }

    /// Removes a node and releases every container on it, returning them in id order (an AM
    /// container among them ends its attempt).
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownNode`].
    pub fn remove_node(&mut self, node_id: &NodeId) -> Result<Vec<Allocation>, SchedulerError> {
        let node = self
            .nodes
            .get(node_id)
            .ok_or_else(|| SchedulerError::UnknownNode {
                node: node_id.clone(),
            })?;
        let on_node: Vec<ContainerId> = node.containers().iter().copied().collect();
        let released = on_node
            .iter()
            .filter_map(|container| self.release_container(container))
            .collect();
        if let Some(node) = self.nodes.remove(node_id) {
            self.nodes_by_free.remove(&free_key(&node));
            unindex(&mut self.nodes_by_host, &node_id.host, node_id);
            self.resize_partition(node.partition(), node.capability(), false);
        }
        self.update_queue_resources();
        self.activate();
        Ok(released)
    }

    /// Changes a node's capability. Containers already there stay, even if they no longer
    /// fit; nothing new is placed until they do.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownNode`].
    pub fn update_node_capability(
        &mut self,
        node_id: &NodeId,
        capability: Resource,
    ) -> Result<(), SchedulerError> {
        let (old, partition) = self
            .with_node(node_id, |node| {
                let old = node.capability();
                node.set_capability(capability);
                (old, node.partition().to_owned())
            })
            .ok_or_else(|| SchedulerError::UnknownNode {
                node: node_id.clone(),
            })?;
        self.resize_partition(&partition, old, false);
        self.resize_partition(&partition, capability, true);
        self.update_queue_resources();
        self.activate();
        Ok(())
    }

    /// Moves a node to `rack` (the topology mapping placed it anew when it registered again).
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownNode`].
    pub fn update_node_rack(
        &mut self,
        node_id: &NodeId,
        rack: String,
    ) -> Result<(), SchedulerError> {
        let node = self
            .nodes
            .get_mut(node_id)
            .ok_or_else(|| SchedulerError::UnknownNode {
                node: node_id.clone(),
            })?;
        node.set_rack(rack);
        Ok(())
    }

    /// Counts the scheduling opportunities of heartbeats from `nodes` (one per heartbeat, a
    /// node listed once per heartbeat it sent): each from a node with room for a minimum
    /// allocation is one every waiting ask missed (see [`LocalityDelay`]), as in Hadoop, where a
    /// full node's heartbeat offers nothing. Unknown nodes are skipped.
    ///
    /// [`LocalityDelay`]: crate::LocalityDelay
    /// A heartbeat also starts the node's next round of
    /// [`HeartbeatAssignments`](crate::HeartbeatAssignments).
    pub fn node_heartbeats<'a>(&mut self, nodes: impl IntoIterator<Item = &'a NodeId>) {
        let calculator = self.conf.resource_calculator();
        let minimum = self.conf.settings().minimum_allocation;
        let mut offered = 0u64;
        for node_id in nodes {
            let Some(node) = self.nodes.get_mut(node_id) else {
                continue;
            };
            node.heartbeat();
            if calculator.fits_in(minimum, node.free()) {
                offered = offered.saturating_add(1);
            }
        }
        self.scheduling_opportunities = self.scheduling_opportunities.saturating_add(offered);
    }

    /// Whether a container of `resource` may go on `node` now: it fits the node's free
    /// resources and, under heartbeat-driven scheduling, the node may take another before its
    /// next heartbeat.
    pub(super) fn can_place(&self, node: &SchedulerNode, resource: Resource) -> bool {
        let (assigned, off_switch) = node.assigned_since_heartbeat();
        self.conf
            .resource_calculator()
            .fits_in(resource, node.free())
            && self
                .conf
                .heartbeat_assignments()
                .is_none_or(|limits| limits.allows_another(assigned, off_switch))
    }

    /// Adds and removes blacklisted places (host or rack names) of the current attempt: no
    /// container of its asks is placed on a node whose host or rack is blacklisted. The list
    /// lives with the attempt; a new attempt starts with none, as in YARN.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::UnknownAttempt`].
    pub fn update_blacklist(
        &mut self,
        attempt_id: ApplicationAttemptId,
        additions: &[String],
        removals: &[String],
    ) -> Result<(), SchedulerError> {
        self.current_attempt(attempt_id)?;
        if let Some(attempt) = self
            .applications
            .get_mut(&attempt_id.application_id)
            .and_then(|app| app.attempt.as_mut())
        {
            attempt.blacklist.extend(additions.iter().cloned());
            for place in removals {
                attempt.blacklist.remove(place);
            }
        }
        Ok(())
    }

    /// The current attempt's blacklisted places, in name order; empty for an unknown attempt.
    pub fn blacklist(&self, attempt_id: ApplicationAttemptId) -> Vec<String> {
        self.current_attempt(attempt_id)
            .ok()
            .and_then(|app| app.attempt.as_ref())
            .map(|attempt| attempt.blacklist.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Runs `f` on a node and keeps the free-resource index in step.
    pub(super) fn with_node<T>(
        &mut self,
        node_id: &NodeId,
        f: impl FnOnce(&mut SchedulerNode) -> T,
    ) -> Option<T> {
        let node = self.nodes.get_mut(node_id)?;
        self.nodes_by_free.remove(&free_key(node));
        let result = f(node);
        self.nodes_by_free.insert(free_key(node));
        Some(result)
    }

    /// The node of `partition` with the most free memory that fits `resource` (and may take
    /// another container before its next heartbeat). Free resources and those turns only shrink during a pass, so
    /// a size that found no node is remembered and anything at least as large is refused at
    /// once.
    pub(super) fn find_any_node(
        &self,
        resource: Resource,
        partition: &str,
        unplaceable: &mut Vec<Resource>,
    ) -> Option<NodeId> {
        let calculator = self.conf.resource_calculator();
        if unplaceable
            .iter()
            .any(|known| calculator.fits_in(*known, resource))
        {
            return None;
        }
        for (Reverse(free_memory), _, node_id) in &self.nodes_by_free {
            if *free_memory < resource.memory_mb {
                break;
            }
            let fits = self.nodes.get(node_id).is_some_and(|node| {
                Self::same_partition(node.partition(), partition) && self.can_place(node, resource)
            });
            if fits {
                return Some(node_id.clone());
            }
        }
        if unplaceable.len() < UNPLACEABLE_MEMORY {
            unplaceable.push(resource);
        }
        None
    }

    /// The node of `partition` with the most free memory that fits `resource` and is not
    /// blacklisted. Not
    /// remembered as unplaceable when none is found: another attempt may use the nodes this
    /// one refuses.
    pub(super) fn find_node_outside(
        &self,
        resource: Resource,
        partition: &str,
        blacklist: &BTreeSet<String>,
    ) -> Option<NodeId> {
        self.most_free_node_where(resource, |node| {
            Self::same_partition(node.partition(), partition) && !is_blacklisted(blacklist, node)
        })
    }

    /// The node with the most free memory that `accept`s and may take `resource` now. Walks
    /// the nodes by free memory and stops at the first without enough, so a full cluster costs
    /// nothing.
    pub(super) fn most_free_node_where(
        &self,
        resource: Resource,
        accept: impl Fn(&SchedulerNode) -> bool,
    ) -> Option<NodeId> {
        self.nodes_by_free
            .iter()
            .take_while(|(Reverse(free_memory), _, _)| *free_memory >= resource.memory_mb)
            .filter_map(|(_, _, node_id)| self.nodes.get(node_id))
            .find(|node| accept(node) && self.can_place(node, resource))
            .map(|node| node.node_id().clone())
    }
}

/// Whether an attempt's blacklist rules out `node`: its host or its rack is listed.
pub(super) fn is_blacklisted(blacklist: &BTreeSet<String>, node: &SchedulerNode) -> bool {
    !blacklist.is_empty()
        && (blacklist.contains(&node.node_id().host) || blacklist.contains(node.rack()))
}

/// Takes `node` out of the index entry `name`, dropping the entry once empty.
fn unindex(index: &mut BTreeMap<String, BTreeSet<NodeId>>, name: &str, node: &NodeId) {
    if let Some(nodes) = index.get_mut(name) {
        nodes.remove(node);
        if nodes.is_empty() {
            index.remove(name);
        }
    }
}

fn free_key(node: &SchedulerNode) -> FreeKey {
    let free = node.free();
    (
        Reverse(free.memory_mb),
        Reverse(free.vcores),
        node.node_id().clone(),
    )
}
