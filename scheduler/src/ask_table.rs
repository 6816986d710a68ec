//! [`AskTable`]: an attempt's outstanding asks, keyed as YARN keys them.

use std::collections::BTreeMap;

use crate::Resource;
use crate::locality_delay::LocationAsks;
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

/// The asks of one scheduler key: the off-switch ask, the host and rack asks, and since when
/// the key waits for locality.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyAsks {
    any: Option<ResourceRequest>,
    hosts: BTreeMap<String, ResourceRequest>,
    racks: BTreeMap<String, ResourceRequest>,
    /// The scheduler's opportunity count when a pass first found the key without a local place
    /// it may take; `None` when it is not waiting.
    waiting_since: Option<u64>,
}

impl AskTable {
    /// Replaces the ask with the same key and resource name (an ask for zero containers
    /// cancels it). Takes O(log n) in the asks held, so an allocate's asks are applied in
    /// n log n. A key's wait for locality outlives new asks for it, as Hadoop's count does.
    pub(crate) fn update(&mut self, ask: ResourceRequest) {
        let key = (ask.priority, ask.allocation_request_id);
        let entry = self.keys.entry(key).or_default();
        if ask.is_any() {
            entry.any = Some(ask);
        } else {
            let places = if ask.is_rack() {
                &mut entry.racks
            } else {
                &mut entry.hosts
            };
            if ask.num_containers == 0 {
                // An ask for nothing is no preference: dropping it keeps every place held
                // outstanding, so emptiness below is a length check, not a scan.
                places.remove(&ask.resource_name);
            } else {
                places.insert(ask.resource_name.clone(), ask);
            }
        }
        let any_wanted = entry.any.as_ref().is_some_and(|any| any.num_containers > 0);
        if !any_wanted && entry.hosts.is_empty() && entry.racks.is_empty() {
            self.keys.remove(&key);
        }
    }

    /// Whether any container is still wanted.
    pub(crate) fn has_outstanding(&self) -> bool {
        self.keys.values().any(|asks| asks.outstanding() > 0)
    }

    /// Whether any container is still wanted in `partition`.
    pub(crate) fn has_outstanding_in(&self, partition: &str) -> bool {
        self.keys
            .values()
            .any(|asks| asks.outstanding() > 0 && asks.partition() == partition)
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

    /// Starts `key`'s wait for locality at opportunity `now`, unless it already waits.
    pub(crate) fn start_waiting(&mut self, key: AskKey, now: u64) {
        if let Some(asks) = self.keys.get_mut(&key) {
            asks.waiting_since.get_or_insert(now);
        }
    }

    /// Records a container placed on `host` in `rack` for `key`, ending the key's wait when
    /// `reset`, and returns the asks it was taken from, each for one container, for
    /// [`restore`](Self::restore).
    pub(crate) fn record_allocation(
        &mut self,
        key: AskKey,
        host: &str,
        rack: &str,
        reset: bool,
    ) -> Vec<ResourceRequest> {
        let Some(asks) = self.keys.get_mut(&key) else {
            return Vec::new();
        };
        if reset {
            asks.waiting_since = None;
        }
        asks.record_allocation(host, rack)
    }

    /// Gives back one container to `ask`'s ask (same key and resource name), or holds `ask`
    /// again when that ask is gone (met or cancelled since): YARN's recovery of the requests
    /// of a container its AM never acquired, which adds to whatever the AM asks now.
    pub(crate) fn restore(&mut self, ask: ResourceRequest) {
        let entry = self
            .keys
            .entry((ask.priority, ask.allocation_request_id))
            .or_default();
        if ask.is_any() {
            match &mut entry.any {
                Some(held) => {
                    held.num_containers = held.num_containers.saturating_add(ask.num_containers);
                }
                None => entry.any = Some(ask),
            }
            return;
        }
        let places = if ask.is_rack() {
            &mut entry.racks
        } else {
            &mut entry.hosts
        };
        match places.get_mut(&ask.resource_name) {
            Some(held) => {
                held.num_containers = held.num_containers.saturating_add(ask.num_containers);
            }
            None => {
                places.insert(ask.resource_name.clone(), ask);
            }
        }
    }
}

impl KeyAsks {
    /// The partition the key's containers go to: its off-switch ask's label, or for host and
    /// rack asks standing alone, theirs (the application's default).
    pub(crate) fn partition(&self) -> &str {
        self.any
            .as_ref()
            .or_else(|| self.places().next())
            .map_or("", |ask| ask.node_label_expression.as_str())
    }

    /// Containers still wanted for this key: the `"*"` count, or without one the sum of the
    /// host and rack asks.
    pub(crate) fn outstanding(&self) -> u32 {
        match &self.any {
            Some(any) => any.num_containers,
            None => self
                .places()
                .fold(0u32, |sum, ask| sum.saturating_add(ask.num_containers)),
        }
    }

    /// The container size: that of the `"*"` ask, else of the first outstanding host or rack
    /// ask (asks of one key share a size, as YARN requires).
    pub(crate) fn capability(&self) -> Resource {
        match &self.any {
            Some(any) => any.capability,
            None => self
                .places()
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

    /// Whether any rack is named.
    pub(crate) fn names_racks(&self) -> bool {
        !self.racks.is_empty()
    }

    /// Racks with an outstanding ask that lets containers go anywhere on them: Hadoop's
    /// `canDelayTo(rack)`.
    pub(crate) fn preferred_racks(&self) -> impl Iterator<Item = &str> {
        self.racks
            .values()
            .filter(|ask| ask.num_containers > 0 && ask.relax_locality)
            .map(|ask| ask.resource_name.as_str())
    }

    /// Whether containers may go to places nobody named: Hadoop's `canDelayTo("*")`.
    pub(crate) fn may_go_anywhere(&self) -> bool {
        match &self.any {
            Some(any) => any.relax_locality,
            None => self
                .places()
                .any(|ask| ask.relax_locality && ask.num_containers > 0),
        }
    }

    /// The places asked for and the containers wanted, as the off-switch delay weighs them:
    /// the named hosts and racks, and `*` (implied when the key has no `"*"` ask, so that a
    /// key naming one place waits as one naming it beside `*` does).
    pub(crate) fn location_asks(&self) -> LocationAsks {
        let named = self.places().filter(|ask| ask.num_containers > 0).count();
        LocationAsks {
            unique_locations: named + 1,
            outstanding: self.outstanding(),
        }
    }

    /// Opportunities missed at opportunity `now`, the pass asking counted as one: Hadoop
    /// counts an offer before it weighs it, so a key's first offer is already one missed.
    pub(crate) fn missed(&self, now: u64) -> u64 {
        self.waiting_since
            .map_or(0, |since| now.saturating_sub(since))
            .saturating_add(1)
    }

    fn places(&self) -> impl Iterator<Item = &ResourceRequest> {
        self.hosts.values().chain(self.racks.values())
    }

    /// With a `"*"` ask, a container counts against its host's ask, its rack's ask and `"*"`,
    /// as Hadoop's node-local allocation does; without one, each ask stands alone, so it counts
    /// against one: its host's, else its rack's, else a relaxed ask that let it go elsewhere.
    fn record_allocation(&mut self, host: &str, rack: &str) -> Vec<ResourceRequest> {
        let Some(any) = &mut self.any else {
            let taken = take_one(&mut self.hosts, host).or_else(|| take_one(&mut self.racks, rack));
            if taken.is_some() {
                return taken.into_iter().collect();
            }
            let relaxed = self
                .places()
                .find(|ask| ask.relax_locality)
                .map(|ask| (ask.is_rack(), ask.resource_name.clone()));
            let taken = match relaxed {
                Some((true, rack)) => take_one(&mut self.racks, &rack),
                Some((false, host)) => take_one(&mut self.hosts, &host),
                None => None,
            };
            return taken.into_iter().collect();
        };
        any.num_containers = any.num_containers.saturating_sub(1);
        let off_switch = ResourceRequest {
            num_containers: 1,
            ..any.clone()
        };
        take_one(&mut self.hosts, host)
            .into_iter()
            .chain(take_one(&mut self.racks, rack))
            .chain([off_switch])
            .collect()
    }
}

/// Takes one container off `name`'s ask in `places`, dropping the ask once it wants none;
/// returns what was taken (the ask, for one container), if `name` had an ask.
fn take_one(places: &mut BTreeMap<String, ResourceRequest>, name: &str) -> Option<ResourceRequest> {
    let ask = places.get_mut(name)?;
    ask.num_containers = ask.num_containers.saturating_sub(1);
    let taken = ResourceRequest {
        num_containers: 1,
        ..ask.clone()
    };
    if ask.num_containers == 0 {
        places.remove(name);
    }
    Some(taken)
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
        table.record_allocation(key, "h1", "/default-rack", true);
        let (_, asks) = table.pending_from(None).next().unwrap();
        assert_eq!(asks.outstanding(), 1);
        assert_eq!(asks.preferred_hosts().count(), 0);
        table.record_allocation(key, "h9", "/default-rack", true);
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
