//! The ApplicationMaster's table of containers it still wants, and which of its entries the RM
//! has not heard about yet.

use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ANY;
use yarn_proto::pb;

use crate::AskKey;

/// YARN's remote request table: the outstanding count per [`AskKey`], and the keys changed since
/// the RM last acknowledged them.
///
/// The RM replaces an ask by key, so the table sends the full remaining count of each changed
/// key (0 to cancel), never a delta. An entry whose count dropped to 0 stays until that 0 has
/// been acknowledged, then disappears.
#[derive(Debug, Clone, Default)]
pub(crate) struct OutstandingAsks {
    /// Each request's `num_containers` is the count still wanted.
    asks: BTreeMap<AskKey, pb::ResourceRequestProto>,
    changed: BTreeSet<AskKey>,
}

impl OutstandingAsks {
    /// Adds `request.num_containers` containers to its key's count (creating the entry), and
    /// takes the request's other fields (locality relaxation, label, execution type enforcement)
    /// as the key's from now on. Counts of zero or less change nothing.
    pub(crate) fn add(&mut self, request: pb::ResourceRequestProto) {
        if request.num_containers <= 0 {
            return;
        }
        let key = AskKey::of(&request);
        let count = self
            .asks
            .get(&key)
            .map_or(0, |existing| existing.num_containers)
            .saturating_add(request.num_containers);
        self.asks.insert(
            key.clone(),
            pb::ResourceRequestProto {
                num_containers: count,
                ..request
            },
        );
        self.changed.insert(key);
    }

    /// Takes `request.num_containers` containers off its key's count, stopping at 0. A key
    /// that is not outstanding, or a count of zero or less, changes nothing.
    pub(crate) fn remove(&mut self, request: &pb::ResourceRequestProto) {
        if request.num_containers <= 0 {
            return;
        }
        let key = AskKey::of(request);
        let Some(existing) = self.asks.get_mut(&key) else {
            return;
        };
        existing.num_containers = existing
            .num_containers
            .saturating_sub(request.num_containers)
            .max(0);
        self.changed.insert(key);
    }

    /// The asks to send: the current entry of every changed key, in key order.
    pub(crate) fn to_send(&self) -> Vec<pb::ResourceRequestProto> {
        self.changed
            .iter()
            .filter_map(|key| self.asks.get(key).cloned())
            .collect()
    }

    /// Records that the RM applied `sent`. A key stays changed when it changed again after
    /// `sent` was built (its entry differs from what was sent), so the newer count still goes
    /// out.
    pub(crate) fn acknowledge(&mut self, sent: &[pb::ResourceRequestProto]) {
        for request in sent {
            let key = AskKey::of(request);
            if self.asks.get(&key) == Some(request) {
                self.changed.remove(&key);
                if request.num_containers == 0 {
                    self.asks.remove(&key);
                }
            }
        }
    }

    /// Charges a newly allocated `container` to the asks it satisfies: one off the `*` entry and
    /// one off the entry of its host, of the same priority and allocation request id.
    ///
    /// The RM did the same on its side when it allocated, so the entries are not marked changed:
    /// resending the decremented count would only race with the RM's own bookkeeping. A rack
    /// entry is left alone since a container does not name its rack.
    pub(crate) fn allocated(&mut self, container: &pb::ContainerProto) {
        let host = container.node_id.as_ref().map(|node| node.host.as_str());
        self.charge(container, ANY);
        if let Some(host) = host.filter(|host| !host.is_empty()) {
            self.charge(container, host);
        }
    }

    /// Takes one off the best entry named `resource_name` that `container` may satisfy: same
    /// priority and allocation request id (an absent one is YARN's -1), chosen as
    /// [`AskKey::charged_for`] does: never an entry of another execution type that enforces
    /// its own.
    fn charge(&mut self, container: &pb::ContainerProto, resource_name: &str) {
        let candidates = self
            .asks
            .iter()
            .filter(|(key, ask)| key.may_place(container, resource_name) && ask.num_containers > 0);
        let chosen = AskKey::charged_for(candidates, container).cloned();
        let Some(key) = chosen else {
            return;
        };
        let Some(ask) = self.asks.get_mut(&key) else {
            return;
        };
        ask.num_containers -= 1;
        if ask.num_containers == 0 && !self.changed.contains(&key) {
            self.asks.remove(&key);
        }
    }

    /// Marks every entry as changed, for a new leader that knows none of them; entries at 0
    /// are dropped, there being nothing to cancel there.
    pub(crate) fn resend_all(&mut self) {
        self.asks.retain(|_, ask| ask.num_containers > 0);
        self.changed = self.asks.keys().cloned().collect();
    }

    /// The entries still wanted (count above 0), in key order.
    pub(crate) fn outstanding(&self) -> Vec<pb::ResourceRequestProto> {
        self.asks
            .values()
            .filter(|ask| ask.num_containers > 0)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(priority: i32, name: &str, memory: i64, count: i32) -> pb::ResourceRequestProto {
        pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority }),
            resource_name: name.to_owned(),
            capability: Some(pb::ResourceProto {
                memory,
                virtual_cores: 1,
                resource_value_map: Default::default(),
            }),
            num_containers: count,
            allocation_request_id: 0,
            ..Default::default()
        }
    }

    fn container(priority: i32, host: &str, memory: i64) -> pb::ContainerProto {
        pb::ContainerProto {
            node_id: Some(pb::NodeIdProto {
                host: host.to_owned(),
                port: 8041,
            }),
            resource: Some(pb::ResourceProto {
                memory,
                virtual_cores: 1,
                resource_value_map: Default::default(),
            }),
            priority: Some(pb::PriorityProto { priority }),
            allocation_request_id: Some(0),
            ..Default::default()
        }
    }

    fn counts(asks: &[pb::ResourceRequestProto]) -> Vec<(String, i32)> {
        asks.iter()
            .map(|ask| (ask.resource_name.clone(), ask.num_containers))
            .collect()
    }

    #[test]
    fn adding_to_an_existing_key_adds_to_its_count_and_sends_the_total() {
        let mut table = OutstandingAsks::default();
        table.add(ask(1, ANY, 1024, 2));
        table.add(ask(1, ANY, 1024, 3));
        table.add(ask(1, ANY, 2048, 1));
        assert_eq!(
            counts(&table.to_send()),
            [(ANY.to_owned(), 5), (ANY.to_owned(), 1)]
        );
    }

    #[test]
    fn unspecified_and_guaranteed_execution_types_share_a_key() {
        let mut table = OutstandingAsks::default();
        table.add(ask(1, ANY, 1024, 1));
        let mut guaranteed = ask(1, ANY, 1024, 1);
        guaranteed.execution_type_request = Some(pb::ExecutionTypeRequestProto {
            execution_type: pb::ExecutionTypeProto::Guaranteed as i32,
            enforce_execution_type: false,
        });
        table.add(guaranteed);
        assert_eq!(table.outstanding().len(), 1);
        assert_eq!(table.outstanding()[0].num_containers, 2);
    }

    #[test]
    fn acknowledged_keys_are_not_sent_again_until_they_change() {
        let mut table = OutstandingAsks::default();
        table.add(ask(1, ANY, 1024, 2));
        let sent = table.to_send();
        table.acknowledge(&sent);
        assert!(table.to_send().is_empty());
        table.add(ask(1, ANY, 1024, 1));
        assert_eq!(counts(&table.to_send()), [(ANY.to_owned(), 3)]);
    }

    #[test]
    fn a_change_made_after_sending_survives_the_acknowledgement() {
        let mut table = OutstandingAsks::default();
        table.add(ask(1, ANY, 1024, 2));
        let sent = table.to_send();
        table.add(ask(1, ANY, 1024, 1));
        table.acknowledge(&sent);
        assert_eq!(counts(&table.to_send()), [(ANY.to_owned(), 3)]);
    }

    #[test]
    fn cancelling_sends_zero_once_and_then_forgets_the_key() {
        let mut table = OutstandingAsks::default();
        table.add(ask(1, ANY, 1024, 2));
        table.acknowledge(&table.to_send());
        table.remove(&ask(1, ANY, 1024, 5));
        let sent = table.to_send();
        assert_eq!(counts(&sent), [(ANY.to_owned(), 0)]);
        table.acknowledge(&sent);
        assert!(table.to_send().is_empty());
        assert!(table.outstanding().is_empty());
        table.resend_all();
        assert!(
            table.to_send().is_empty(),
            "a cancelled key is not re-asked"
        );
    }

    #[test]
    fn removing_an_unknown_key_changes_nothing() {
        let mut table = OutstandingAsks::default();
        table.remove(&ask(1, ANY, 1024, 1));
        assert!(table.to_send().is_empty());
    }

    #[test]
    fn an_allocation_decrements_the_any_and_host_entries_without_resending_them() {
        let mut table = OutstandingAsks::default();
        table.add(ask(1, ANY, 1024, 3));
        table.add(ask(1, "h1", 1024, 1));
        table.add(ask(1, "/rack1", 1024, 3));
        table.add(ask(2, ANY, 1024, 4));
        table.acknowledge(&table.to_send());

        table.allocated(&container(1, "h1", 1024));
        assert!(table.to_send().is_empty(), "the RM decremented on its side");
        assert_eq!(
            counts(&table.outstanding()),
            [
                (ANY.to_owned(), 2),
                ("/rack1".to_owned(), 3),
                (ANY.to_owned(), 4)
            ],
            "h1 reached 0 and is gone; the rack and the other priority are untouched"
        );
    }

    #[test]
    fn an_allocation_prefers_the_entry_with_its_capability_then_any_of_its_priority() {
        let mut table = OutstandingAsks::default();
        table.add(ask(1, ANY, 1024, 1));
        table.add(ask(1, ANY, 2048, 1));
        table.allocated(&container(1, "h1", 2048));
        assert_eq!(
            table.outstanding()[0].capability.as_ref().unwrap().memory,
            1024
        );

        // Rounded up by the scheduler: no exact capability, still charged.
        table.allocated(&container(1, "h1", 1536));
        assert!(table.outstanding().is_empty());
    }

    #[test]
    fn an_allocation_for_another_allocation_request_id_is_not_charged() {
        let mut table = OutstandingAsks::default();
        table.add(ask(1, ANY, 1024, 1));
        let mut other = container(1, "h1", 1024);
        other.allocation_request_id = Some(7);
        table.allocated(&other);
        other.allocation_request_id = None;
        table.allocated(&other);
        assert_eq!(counts(&table.outstanding()), [(ANY.to_owned(), 1)]);
    }

    #[test]
    fn an_unenforced_opportunistic_entry_takes_a_guaranteed_container_and_an_enforced_one_not() {
        let typed = |priority, enforce| pb::ResourceRequestProto {
            execution_type_request: Some(pb::ExecutionTypeRequestProto {
                execution_type: pb::ExecutionTypeProto::Opportunistic as i32,
                enforce_execution_type: enforce,
            }),
            ..ask(priority, ANY, 1024, 1)
        };
        let mut table = OutstandingAsks::default();
        table.add(typed(1, false));
        table.add(typed(2, true));
        let mut guaranteed = container(1, "h1", 1024);
        guaranteed.execution_type = pb::ExecutionTypeProto::Guaranteed as i32;
        table.allocated(&guaranteed);
        guaranteed.priority = Some(pb::PriorityProto { priority: 2 });
        table.allocated(&guaranteed);
        let left: Vec<i32> = table
            .outstanding()
            .iter()
            .map(|ask| ask.priority.unwrap().priority)
            .collect();
        assert_eq!(left, [2], "the enforced OPPORTUNISTIC ask is still wanted");
    }

    #[test]
    fn resend_all_marks_every_outstanding_entry() {
        let mut table = OutstandingAsks::default();
        table.add(ask(1, ANY, 1024, 2));
        table.add(ask(1, "h1", 1024, 1));
        table.acknowledge(&table.to_send());
        table.resend_all();
        assert_eq!(
            counts(&table.to_send()),
            [(ANY.to_owned(), 2), ("h1".to_owned(), 1)]
        );
    }
}
