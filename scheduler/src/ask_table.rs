//! [`AskTable`]: an attempt's outstanding asks, keyed as YARN keys them.

use std::collections::BTreeMap;

use crate::resource::Resource;
use crate::resource_request::ResourceRequest;

/// The scheduler key of an ask: container priority, then allocation request id. Iterating a
/// [`BTreeMap`] by this key yields asks in the order they are served.
pub(crate) type AskKey = (i32, i64);

/// An attempt's outstanding asks, normalized. See [`ResourceRequest`] for the locality rules
/// this table implements.
#[derive(Debug, Clone, Default)]
pub(crate) struct AskTable {
    keys: BTreeMap<AskKey, KeyAsks>,
}

/// The asks of one scheduler key: the off-switch ask and the host asks.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyAsks {
    any: Option<ResourceRequest>,
    hosts: BTreeMap<String, ResourceRequest>,
}

impl AskTable {
    /// Replaces the ask with the same key and resource name (an ask for zero containers
    /// cancels it).
    pub(crate) fn update(&mut self, ask: ResourceRequest) {
        let key = (ask.priority, ask.allocation_request_id);
        let entry = self.keys.entry(key).or_default();
        if ask.is_any() {
            entry.any = Some(ask);
        } else {
            entry.hosts.insert(ask.resource_name.clone(), ask);
        }
        if entry.outstanding() == 0 && entry.hosts.values().all(|h| h.num_containers == 0) {
            self.keys.remove(&key);
        }
    }

    /// Whether any container is still wanted.
    pub(crate) fn has_outstanding(&self) -> bool {
        self.keys.values().any(|asks| asks.outstanding() > 0)
    }

    /// Keys with containers still wanted, in serving order.
    pub(crate) fn pending(&self) -> impl Iterator<Item = (AskKey, &KeyAsks)> {
        self.keys
            .iter()
            .filter(|(_, asks)| asks.outstanding() > 0)
            .map(|(key, asks)| (*key, asks))
    }

    /// Records a container placed on `host` for `key`.
    pub(crate) fn record_allocation(&mut self, key: AskKey, host: &str) {
        if let Some(asks) = self.keys.get_mut(&key) {
            asks.record_allocation(host);
        }
    }
}

impl KeyAsks {
    /// Containers still wanted for this key.
    pub(crate) fn outstanding(&self) -> u32 {
        match &self.any {
            Some(any) => any.num_containers,
            None => self
                .hosts
                .values()
                .fold(0u32, |sum, ask| sum.saturating_add(ask.num_containers)),
        }
    }

    /// The container size: that of the `"*"` ask, else of the first outstanding host ask (asks
    /// of one key share a size, as YARN requires).
    pub(crate) fn capability(&self) -> Resource {
        match &self.any {
            Some(any) => any.capability,
            None => self
                .hosts
                .values()
                .find(|ask| ask.num_containers > 0)
                .map_or(Resource::ZERO, |ask| ask.capability),
        }
    }

    /// Hosts with an outstanding host ask, tried first.
    pub(crate) fn preferred_hosts(&self) -> impl Iterator<Item = &str> {
        self.hosts
            .values()
            .filter(|ask| ask.num_containers > 0)
            .map(|ask| ask.resource_name.as_str())
    }

    /// Whether containers may go to hosts nobody named.
    pub(crate) fn may_go_anywhere(&self) -> bool {
        match &self.any {
            Some(any) => any.relax_locality,
            None => self
                .hosts
                .values()
                .any(|ask| ask.relax_locality && ask.num_containers > 0),
        }
    }

    fn record_allocation(&mut self, host: &str) {
        let local = self
            .hosts
            .get_mut(host)
            .filter(|ask| ask.num_containers > 0)
            .map(|ask| ask.num_containers -= 1)
            .is_some();
        match &mut self.any {
            Some(any) => any.num_containers = any.num_containers.saturating_sub(1),
            None if local => {}
            None => {
                if let Some(relaxed) = self
                    .hosts
                    .values_mut()
                    .find(|ask| ask.relax_locality && ask.num_containers > 0)
                {
                    relaxed.num_containers -= 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: Resource = Resource::new(1024, 1);

    #[test]
    fn off_switch_count_is_the_total_and_host_asks_are_preferences() {
        let mut table = AskTable::default();
        table.update(ResourceRequest::any(1, GIB, 2));
        table.update(ResourceRequest::on_host(1, "h1", GIB, 1, true));
        let (key, asks) = table.pending().next().unwrap();
        assert_eq!(asks.outstanding(), 2);
        assert_eq!(asks.preferred_hosts().collect::<Vec<_>>(), vec!["h1"]);
        table.record_allocation(key, "h1");
        let (_, asks) = table.pending().next().unwrap();
        assert_eq!(asks.outstanding(), 1);
        assert_eq!(asks.preferred_hosts().count(), 0);
        table.record_allocation(key, "h9");
        assert!(!table.has_outstanding());
    }

    #[test]
    fn strict_host_asks_stay_on_their_host_and_zero_cancels() {
        let mut table = AskTable::default();
        table.update(ResourceRequest::on_host(3, "h1", GIB, 2, false));
        let (_, asks) = table.pending().next().unwrap();
        assert!(!asks.may_go_anywhere());
        table.update(ResourceRequest::on_host(3, "h1", GIB, 0, false));
        assert!(!table.has_outstanding());
        assert_eq!(table.pending().count(), 0);
    }

    #[test]
    fn keys_are_served_by_priority_then_allocation_request_id() {
        let mut table = AskTable::default();
        let mut late = ResourceRequest::any(5, GIB, 1);
        late.allocation_request_id = 2;
        let mut early = ResourceRequest::any(5, GIB, 1);
        early.allocation_request_id = 1;
        table.update(late);
        table.update(early);
        table.update(ResourceRequest::any(7, GIB, 1));
        let keys: Vec<AskKey> = table.pending().map(|(key, _)| key).collect();
        assert_eq!(keys, vec![(5, 1), (5, 2), (7, -1)]);
    }
}
