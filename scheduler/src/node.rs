//! [`SchedulerNode`]: a NodeManager as the scheduler sees it.

use std::collections::BTreeSet;

use yarn_proto::ids::{ContainerId, NodeId};

use crate::Resource;

/// A registered node: its rack, its capability, what is allocated on it and which containers.
///
/// `allocated` may exceed `capability` only after the capability shrank
/// ([`update_node_capability`](crate::CapacityScheduler::update_node_capability)); the
/// scheduler never places a container that does not fit the free resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulerNode {
    node_id: NodeId,
    rack: String,
    /// The node's label, `""` for the default partition.
    partition: String,
    capability: Resource,
    allocated: Resource,
    containers: BTreeSet<ContainerId>,
    /// Containers placed since the node's last heartbeat, and how many were off-switch.
    since_heartbeat: (u32, u32),
}

impl SchedulerNode {
    pub(crate) fn new(node_id: NodeId, rack: String, capability: Resource) -> Self {
        Self {
            node_id,
            rack,
            partition: String::new(),
            capability,
            allocated: Resource::ZERO,
            containers: BTreeSet::new(),
            since_heartbeat: (0, 0),
        }
    }

    /// The node's id.
    pub fn node_id(&self) -> &NodeId {
        &self.node_id
    }

    /// The rack the ResourceManager's topology mapping put it on.
    pub fn rack(&self) -> &str {
        &self.rack
    }

    /// The partition the node is in: its label, or `""` for the default partition.
    pub fn partition(&self) -> &str {
        &self.partition
    }

    pub(crate) fn set_partition(&mut self, partition: String) {
        self.partition = partition;
    }

    /// Total resources the node offers.
    pub fn capability(&self) -> Resource {
        self.capability
    }

    /// Resources of the containers on the node.
    pub fn allocated(&self) -> Resource {
        self.allocated
    }

    /// Capability minus allocation, floored at zero.
    pub fn free(&self) -> Resource {
        self.capability.saturating_sub(self.allocated)
    }

    /// The containers on the node.
    pub fn containers(&self) -> &BTreeSet<ContainerId> {
        &self.containers
    }

    /// Containers placed since the node's last heartbeat, and how many of them off-switch.
    pub fn assigned_since_heartbeat(&self) -> (u32, u32) {
        self.since_heartbeat
    }

    pub(crate) fn record_assignment(&mut self, off_switch: bool) {
        let (assigned, off) = self.since_heartbeat;
        self.since_heartbeat = (
            assigned.saturating_add(1),
            off.saturating_add(u32::from(off_switch)),
        );
    }

    pub(crate) fn heartbeat(&mut self) {
        self.since_heartbeat = (0, 0);
    }

    pub(crate) fn set_rack(&mut self, rack: String) {
        self.rack = rack;
    }

    pub(crate) fn set_capability(&mut self, capability: Resource) {
        self.capability = capability;
    }

    pub(crate) fn add_container(&mut self, container: ContainerId, resource: Resource) {
        if self.containers.insert(container) {
            self.allocated = self.allocated.saturating_add(resource);
        }
    }

    /// Charges a container the node holds at `after` instead of `before`.
    pub(crate) fn resize_container(&mut self, before: Resource, after: Resource) {
        self.allocated = self.allocated.saturating_sub(before).saturating_add(after);
    }

    pub(crate) fn remove_container(&mut self, container: &ContainerId, resource: Resource) {
        if self.containers.remove(container) {
            self.allocated = self.allocated.saturating_sub(resource);
        }
    }
}
