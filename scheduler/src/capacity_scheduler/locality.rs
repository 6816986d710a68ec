//! Where one ask's next container goes: on a named host, else on a named rack once the key has
//! waited `node-locality-delay` opportunities, else anywhere once it has waited the off-switch
//! delay ([`LocalityDelay`](crate::LocalityDelay)).

use std::collections::BTreeSet;

use yarn_proto::ids::NodeId;

use super::CapacityScheduler;
use super::nodes::is_blacklisted;
use crate::Resource;
use crate::ask_table::KeyAsks;
use crate::locality_delay::NodeType;

/// What a pass can do with one ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum AskPlacement {
    /// A node with room, and how local it is.
    Placed(NodeId, NodeType),
    /// None of the places the ask may go yet has room, and it may go further once it has
    /// waited: the key waits for locality. `anywhere` when it is the off-switch delay that
    /// holds it back, which in Hadoop skips the rest of the application.
    Waiting {
        /// Whether the off-switch delay refused it.
        anywhere: bool,
    },
    /// No node where the ask may go has room.
    Unplaced,
}

impl CapacityScheduler {
    /// Finds a node of `partition` for one container of `asks` (of size `capability`) that the
    /// attempt's `blacklist` does not rule out, as Hadoop tries a node: a named host, then a named rack
    /// whose ask relaxes to it, then anywhere if `"*"` relaxes; the rack and off-switch steps
    /// only once the key missed enough opportunities. A size no node fits is remembered in
    /// `unplaceable` for the rest of the pass.
    pub(super) fn place_ask(
        &self,
        asks: &KeyAsks,
        capability: Resource,
        partition: &str,
        blacklist: &BTreeSet<String>,
        unplaceable: &mut Vec<Resource>,
    ) -> AskPlacement {
        let fits_on = |node_id: &NodeId| {
            self.nodes.get(node_id).is_some_and(|node| {
                Self::same_partition(node.partition(), partition)
                    && !is_blacklisted(blacklist, node)
                    && self.can_place(node, capability)
            })
        };
        let on_host = asks
            .preferred_hosts()
            .find_map(|host| self.nodes_by_host.get(host)?.iter().find(|id| fits_on(id)));
        if let Some(node) = on_host {
            return AskPlacement::Placed(node.clone(), NodeType::NodeLocal);
        }
        let delay = self.conf.locality_delay();
        let nodes = self.nodes.len();
        let missed = asks.missed(self.scheduling_opportunities);
        let mut waiting = None;
        if asks.names_racks() {
            if delay.allows_rack_local(missed, nodes) {
                if let Some(node) = self.find_node_on_racks(asks, capability, partition, blacklist)
                {
                    return AskPlacement::Placed(node, NodeType::RackLocal);
                }
            } else if asks.preferred_racks().next().is_some() {
                waiting = Some(false);
            }
        }
        if asks.may_go_anywhere() {
            if delay.allows_off_switch(missed, nodes, asks.location_asks()) {
                let anywhere = if blacklist.is_empty() {
                    self.find_any_node(capability, partition, unplaceable)
                } else {
                    self.find_node_outside(capability, partition, blacklist)
                };
                if let Some(node) = anywhere {
                    return AskPlacement::Placed(node, NodeType::OffSwitch);
                }
            } else {
                waiting = Some(true);
            }
        }
        waiting.map_or(AskPlacement::Unplaced, |anywhere| AskPlacement::Waiting {
            anywhere,
        })
    }

    /// The node with the most free memory that fits `capability` on one of the racks `asks`
    /// relaxes to, outside `blacklist`; a rack holding every node (all on `/default-rack`)
    /// costs what an off-switch search does.
    fn find_node_on_racks(
        &self,
        asks: &KeyAsks,
        capability: Resource,
        partition: &str,
        blacklist: &BTreeSet<String>,
    ) -> Option<NodeId> {
        let racks: BTreeSet<&str> = asks.preferred_racks().collect();
        if racks.is_empty() {
            return None;
        }
        self.most_free_node_where(capability, |node| {
            Self::same_partition(node.partition(), partition)
                && racks.contains(node.rack())
                && !is_blacklisted(blacklist, node)
        })
    }
}
