//! [`AskTable`]: an attempt's outstanding asks, keyed as YARN keys them.

use std::collections::BTreeMap;

use crate::Resource;
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
    /// cancels it). Takes O(log n) in the asks held, so an allocate's asks are applied in
    /// n log n.
    pub(crate) fn update(&mut self, ask: ResourceRequest) {
        let key = (ask.priority, ask.allocation_request_id);
        let entry = self.keys.entry(key).or_default();
        if ask.is_any() {
            entry.any = Some(ask);
        } else if ask.num_containers == 0 {
            // A host ask for nothing is no preference: dropping it keeps every host ask held
            // outstanding, so emptiness below is a length check, not a scan.
            entry.hosts.remove(&ask.resource_name);
        } else {
            entry.hosts.insert(ask.resource_name.clone(), ask);
        }
        let any_wanted = entry.any.as_ref().is_some_and(|any| any.num_containers > 0);
        if !any_wanted && entry.hosts.is_empty() {
            self.keys.remove(&key);
        }
    }

    /// Whether any container is still wanted.
    pub(crate) fn has_outstanding(&self) -> bool {
        self.keys.values().any(|asks| asks.outstanding() > 0)
    }

    /// Keys with containers still wanted, in serving order, from `first` on (all of them when
    /// `None`).
    pub(crate) fn pending_from(
        &self,
        first: Option<AskKey>,
    ) -> impl Iterator<Item = (AskKey, &KeyAsks)> {
        let from = first.map_or(std::ops::Bound::Unbounded, std::ops::Bound::Included);
        self.keys
            .range((from, std::ops::Bound::Unbounded))
            .filter(|(_, asks)| asks.outstanding() > 0)
            .map(|(key, asks)| (*key, asks))
    }

    /// Records a container placed on `host` for `key`, and returns the asks it was taken from,
    /// each for one container, for [`restore`](Self::restore).
    pub(crate) fn record_allocation(&mut self, key: AskKey, host: &str) -> Vec<ResourceRequest> {
        self.keys
            .get_mut(&key)
            .map_or_else(Vec::new, |asks| asks.record_allocation(host))
    }

    /// Gives back one container to `ask`'s ask (same key and resource name), or holds `ask`
    /// again when that ask is gone (met or cancelled since): YARN's recovery of the requests
    /// of a container its AM never acquired, which adds to whatever the AM asks now.
    pub(crate) fn restore(&mut self, ask: ResourceRequest) {
        let entry = self
            .keys
            .entry((ask.priority, ask.allocation_request_id))
            .or_default();
        let held = if ask.is_any() {
            entry.any.as_mut()
        } else {
            entry.hosts.get_mut(&ask.resource_name)
        };
        match held {
            Some(held) => {
                held.num_containers = held.num_containers.saturating_add(ask.num_containers)
            }
            None if ask.is_any() => entry.any = Some(ask),
            None => {
                entry.hosts.insert(ask.resource_name.clone(), ask);
            }
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

    fn record_allocation(&mut self, host: &str) -> Vec<ResourceRequest> {
        let local = self.take_one(host);
        let mut taken: Vec<ResourceRequest> = local.iter().cloned().collect();
        match &mut self.any {
            Some(any) => {
                any.num_containers = any.num_containers.saturating_sub(1);
                taken.push(ResourceRequest {
                    num_containers: 1,
                    ..any.clone()
                });
            }
            None if local.is_some() => {}
            None => {
                let relaxed = self
                    .hosts
                    .values()
                    .find(|ask| ask.relax_locality)
                    .map(|ask| ask.resource_name.clone());
                taken.extend(relaxed.and_then(|relaxed| self.take_one(&relaxed)));
            }
        }
        taken
    }

    /// Takes one container off `host`'s ask, dropping the ask once it wants none; returns
    /// what was taken (the ask, for one container), if the host had an ask.
    fn take_one(&mut self, host: &str) -> Option<ResourceRequest> {
        let ask = self.hosts.get_mut(host)?;
        ask.num_containers = ask.num_containers.saturating_sub(1);
        let taken = ResourceRequest {
            num_containers: 1,
            ..ask.clone()
        };
        if ask.num_containers == 0 {
            self.hosts.remove(host);
        }
        Some(taken)
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
        let (key, asks) = table.pending_from(None).next().unwrap();
        assert_eq!(asks.outstanding(), 2);
        assert_eq!(asks.preferred_hosts().collect::<Vec<_>>(), vec!["h1"]);
        table.record_allocation(key, "h1");
        let (_, asks) = table.pending_from(None).next().unwrap();
        assert_eq!(asks.outstanding(), 1);
        assert_eq!(asks.preferred_hosts().count(), 0);
        table.record_allocation(key, "h9");
        assert!(!table.has_outstanding());
    }

    #[test]
    fn strict_host_asks_stay_on_their_host_and_zero_cancels() {
        let mut table = AskTable::default();
        table.update(ResourceRequest::on_host(3, "h1", GIB, 2, false));
        let (_, asks) = table.pending_from(None).next().unwrap();
        assert!(!asks.may_go_anywhere());
        table.update(ResourceRequest::on_host(3, "h1", GIB, 0, false));
        assert!(!table.has_outstanding());
        assert_eq!(table.pending_from(None).count(), 0);
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
        let keys: Vec<AskKey> = table.pending_from(None).map(|(key, _)| key).collect();
        assert_eq!(keys, vec![(5, 1), (5, 2), (7, -1)]);
    }
}
