//! [`LocalityDelay`]: delay scheduling, the CapacityScheduler's rule for how long an ask waits
//! for a node-local container before it takes a rack-local one, and for a rack-local one before
//! it takes any node.

use crate::error::SchedulerError;
use crate::property_reader::PropertyReader;

/// `yarn.scheduler.capacity.node-locality-delay`: missed scheduling opportunities before an ask
/// with a host preference takes a rack-local container.
pub const NODE_LOCALITY_DELAY_KEY: &str = "yarn.scheduler.capacity.node-locality-delay";
/// `yarn.scheduler.capacity.rack-locality-additional-delay`: missed opportunities, beyond the
/// node-locality delay, before it takes an off-switch one; -1 lets the number of asks decide.
pub const RACK_LOCALITY_ADDITIONAL_DELAY_KEY: &str =
    "yarn.scheduler.capacity.rack-locality-additional-delay";
/// `yarn.scheduler.capacity.rack-locality-full-reset`: whether a rack-local container starts
/// the wait again, as a node-local one does.
pub const RACK_LOCALITY_FULL_RESET_KEY: &str = "yarn.scheduler.capacity.rack-locality-full-reset";

/// Every key [`LocalityDelay`] reads.
pub(crate) const LOCALITY_DELAY_KEYS: [&str; 3] = [
    NODE_LOCALITY_DELAY_KEY,
    RACK_LOCALITY_ADDITIONAL_DELAY_KEY,
    RACK_LOCALITY_FULL_RESET_KEY,
];

const DELAY: &str = "a whole number of scheduling opportunities";

/// How local a container is to the asks it was placed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NodeType {
    /// On a host the ask named.
    NodeLocal,
    /// On a rack the ask named (or the rack of a host it named), not on a named host.
    RackLocal,
    /// Anywhere else.
    OffSwitch,
}

/// Hadoop's delay scheduling, as `RegularContainerAllocator.canAssign` decides it.
///
/// A scheduling opportunity is a NodeManager heartbeat while an ask waits: the number a key
/// missed is the count of heartbeats since it began waiting for locality (the first time a pass
/// found none of its named hosts with room), until a container resets it. Both delays are capped
/// by the number of nodes, so a small cluster never waits for more heartbeats than one round of
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalityDelay {
    /// `node-locality-delay`: 40.
    pub node_locality_delay: i64,
    /// `rack-locality-additional-delay`: -1.
    pub rack_locality_additional_delay: i64,
    /// `rack-locality-full-reset`: true.
    pub rack_locality_full_reset: bool,
}

impl Default for LocalityDelay {
    fn default() -> Self {
        Self {
            node_locality_delay: 40,
            rack_locality_additional_delay: -1,
            rack_locality_full_reset: true,
        }
    }
}

/// What a key asks for, as the off-switch rule weighs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocationAsks {
    /// Distinct places with an outstanding ask: hosts, racks and `*`.
    pub unique_locations: usize,
    /// Containers still wanted.
    pub outstanding: u32,
}

impl LocalityDelay {
    /// Reads the three keys, taking Hadoop's defaults for those unset.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] naming the key for a value that is not a whole number,
    /// or not a boolean. Any number is taken, as Hadoop takes it: a negative delay is none.
    pub(crate) fn from_reader(reader: &PropertyReader<'_>) -> Result<Self, SchedulerError> {
        let defaults = Self::default();
        let delay = |key: &str, default: i64| {
            reader
                .parse::<i64>(key, DELAY)
                .map(|value| value.unwrap_or(default))
        };
        let full_reset = reader
            .boolean(RACK_LOCALITY_FULL_RESET_KEY)?
            .unwrap_or(defaults.rack_locality_full_reset);
        Ok(Self {
            node_locality_delay: delay(NODE_LOCALITY_DELAY_KEY, defaults.node_locality_delay)?,
            rack_locality_additional_delay: delay(
                RACK_LOCALITY_ADDITIONAL_DELAY_KEY,
                defaults.rack_locality_additional_delay,
            )?,
            rack_locality_full_reset: full_reset,
        })
    }

    /// Whether a key that missed `missed` opportunities may take a rack-local container on a
    /// cluster of `nodes` nodes: once it missed more than `node-locality-delay` of them (at most
    /// one per node).
    pub fn allows_rack_local(&self, missed: u64, nodes: usize) -> bool {
        capped(self.node_locality_delay, nodes) < i128::from(missed)
    }

    /// Whether a key that missed `missed` opportunities may take an off-switch container.
    ///
    /// A key that asks for nothing but `*` never waits. With `rack-locality-additional-delay`
    /// set, it waits for more than the two delays together (at most one per node). Otherwise
    /// the wait grows with the containers it still wants and the share of the cluster its
    /// named places make: `outstanding * min((unique_locations - 1) / nodes, 1)`, at most
    /// one per node.
    pub fn allows_off_switch(&self, missed: u64, nodes: usize, asks: LocationAsks) -> bool {
        if asks.unique_locations <= 1 {
            return true;
        }
        if nodes == 0 {
            return false;
        }
        let missed = i128::from(missed);
        if self.rack_locality_additional_delay > -1 {
            let delay = self
                .node_locality_delay
                .saturating_add(self.rack_locality_additional_delay);
            return missed > capped(delay, nodes);
        }
        #[expect(
            clippy::cast_precision_loss,
            reason = "Hadoop computes the factor in floating point; counts are far below 2^52"
        )]
        let (named, cluster) = ((asks.unique_locations - 1) as f64, nodes as f64);
        let factor = (named / cluster).min(1.0);
        let wait = (f64::from(asks.outstanding) * factor).min(cluster);
        #[expect(
            clippy::cast_precision_loss,
            reason = "a missed count above 2^52 is past any wait either way"
        )]
        let missed = missed as f64;
        wait < missed
    }

    /// Whether a container of `node_type` starts its key's wait again. An off-switch container
    /// never does, so a key that reached any node keeps placing there without waiting again; a
    /// rack-local one does unless `rack-locality-full-reset` is false.
    pub fn resets_after(&self, node_type: NodeType) -> bool {
        match node_type {
            NodeType::NodeLocal => true,
            NodeType::RackLocal => self.rack_locality_full_reset,
            NodeType::OffSwitch => false,
        }
    }
}

/// `delay` capped by the number of nodes, widened so no count overflows.
fn capped(delay: i64, nodes: usize) -> i128 {
    i128::from(delay).min(i128::try_from(nodes).unwrap_or(i128::MAX))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn asks(unique_locations: usize, outstanding: u32) -> LocationAsks {
        LocationAsks {
            unique_locations,
            outstanding,
        }
    }

    #[test]
    fn rack_local_waits_for_the_delay_capped_by_the_cluster() {
        let delay = LocalityDelay::default();
        assert!(!delay.allows_rack_local(40, 100));
        assert!(delay.allows_rack_local(41, 100));
        // Three nodes: three missed heartbeats are not enough, a fourth is.
        assert!(!delay.allows_rack_local(3, 3));
        assert!(delay.allows_rack_local(4, 3));
        let off = LocalityDelay {
            node_locality_delay: -1,
            ..LocalityDelay::default()
        };
        assert!(off.allows_rack_local(0, 100));
    }

    #[test]
    fn off_switch_waits_by_the_asks_unless_the_additional_delay_is_set() {
        let delay = LocalityDelay::default();
        // Only `*`: no wait.
        assert!(delay.allows_off_switch(0, 100, asks(1, 5)));
        // One host, its rack and `*` on 100 nodes, 10 containers: 10 * 2/100 = 0.2.
        assert!(!delay.allows_off_switch(0, 100, asks(3, 10)));
        assert!(delay.allows_off_switch(1, 100, asks(3, 10)));
        // Many places: the factor is capped at 1 and the wait at the cluster size.
        assert!(!delay.allows_off_switch(4, 4, asks(50, 1000)));
        assert!(delay.allows_off_switch(5, 4, asks(50, 1000)));
        let additional = LocalityDelay {
            rack_locality_additional_delay: 10,
            ..LocalityDelay::default()
        };
        assert!(!additional.allows_off_switch(50, 100, asks(3, 1)));
        assert!(additional.allows_off_switch(51, 100, asks(3, 1)));
        assert!(!additional.allows_off_switch(7, 7, asks(3, 1)));
        assert!(additional.allows_off_switch(8, 7, asks(3, 1)));
        assert!(!delay.allows_off_switch(100, 0, asks(3, 1)));
    }

    #[test]
    fn only_node_local_and_by_default_rack_local_containers_reset_the_wait() {
        let delay = LocalityDelay::default();
        assert!(delay.resets_after(NodeType::NodeLocal));
        assert!(delay.resets_after(NodeType::RackLocal));
        assert!(!delay.resets_after(NodeType::OffSwitch));
        let partial = LocalityDelay {
            rack_locality_full_reset: false,
            ..delay
        };
        assert!(!partial.resets_after(NodeType::RackLocal));
    }

    #[test]
    fn keys_are_read_with_hadoop_defaults_and_bad_values_named() {
        let read = |pairs: &[(&str, &str)]| {
            let map: BTreeMap<String, String> = pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            LocalityDelay::from_reader(&PropertyReader::new(&map))
        };
        assert_eq!(read(&[]).unwrap(), LocalityDelay::default());
        let set = read(&[
            (NODE_LOCALITY_DELAY_KEY, "-1"),
            (RACK_LOCALITY_ADDITIONAL_DELAY_KEY, " 5 "),
            (RACK_LOCALITY_FULL_RESET_KEY, "FALSE"),
        ])
        .unwrap();
        assert_eq!(
            set,
            LocalityDelay {
                node_locality_delay: -1,
                rack_locality_additional_delay: 5,
                rack_locality_full_reset: false,
            }
        );
        for (key, value) in [
            (NODE_LOCALITY_DELAY_KEY, "forty"),
            (RACK_LOCALITY_FULL_RESET_KEY, "yes"),
        ] {
            let message = read(&[(key, value)]).unwrap_err().to_string();
            assert!(
                message.contains(key) && message.contains(value),
                "{message}"
            );
        }
    }
}
