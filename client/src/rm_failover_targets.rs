//! Which RM replica a client calls next.

use yarn_conf::RmHaConfig;
use yarn_proto::LeaderHint;

use crate::RmService;

/// The replicas a client may call for one service, and which one it calls now.
///
/// Pure state: callers report outcomes and ask for the next target; backoff and deadlines belong
/// to the RPC layer. Without hints it rotates through `yarn.resourcemanager.ha.rm-ids` in order
/// like Hadoop's `ConfiguredRMFailoverProxyProvider`; a follower's [`LeaderHint`] naming a known
/// member jumps straight to it, so one failed call usually costs one extra round trip, not a
/// walk through every replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RmFailoverTargets {
    targets: Vec<(String, String)>,
    current: usize,
}

impl RmFailoverTargets {
    /// Targets for `service` on every member of `ha`, starting at the first.
    pub fn new(ha: &RmHaConfig, service: RmService) -> Self {
        let targets = ha
            .members
            .iter()
            .map(|m| (m.rm_id.clone(), service.address(m).to_string()))
            .collect();
        Self {
            targets,
            current: 0,
        }
    }

    /// The rm id and `host:port` to call now.
    pub fn current(&self) -> (&str, &str) {
        let (id, address) = &self.targets[self.current];
        (id, address)
    }

    /// Moves to the next replica after a call failed without a hint; returns the new target.
    pub fn fail_over(&mut self) -> (&str, &str) {
        self.current = (self.current + 1) % self.targets.len();
        self.current()
    }

    /// Moves to the next replica only if `failed_rm_id` is still the current one; returns the
    /// target to call now. Concurrent calls that fail on the same replica thus move the rotation
    /// once, not once each, which would skip healthy replicas.
    pub fn fail_over_from(&mut self, failed_rm_id: &str) -> (&str, &str) {
        if self.targets[self.current].0 == failed_rm_id {
            self.fail_over()
        } else {
            self.current()
        }
    }

    /// The address to call `rm_id` at (a followed hint's, once one named it), if it is a member.
    pub fn address_of(&self, rm_id: &str) -> Option<&str> {
        self.targets
            .iter()
            .find(|(id, _)| id == rm_id)
            .map(|(_, address)| address.as_str())
    }

    /// Whether `rm_id` is one of the configured replicas.
    pub fn contains(&self, rm_id: &str) -> bool {
        self.address_of(rm_id).is_some()
    }

    /// Follows a follower's hint. A hint naming a configured member moves to it, with the
    /// hinted address (the leader knows its own address better than a stale config); a hint
    /// naming an unknown id is ignored and the rotation continues, because trusting it would let
    /// one misconfigured replica send every client outside the cluster.
    pub fn follow_hint(&mut self, hint: &LeaderHint) -> (&str, &str) {
        match self.targets.iter().position(|(id, _)| *id == hint.rm_id) {
            Some(index) => {
                self.targets[index].1 = hint.address.clone();
                self.current = index;
                self.current()
            }
            None => self.fail_over(),
        }
    }
}

#[cfg(test)]
mod tests {
    use yarn_conf::Configuration;

    use super::*;

    fn targets() -> RmFailoverTargets {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", "rm1,rm2,rm3");
        for (id, host) in [("rm1", "h1"), ("rm2", "h2"), ("rm3", "h3")] {
            conf.set(&format!("yarn.resourcemanager.hostname.{id}"), host);
        }
        RmFailoverTargets::new(&RmHaConfig::from_conf(&conf).unwrap(), RmService::Admin)
    }

    #[test]
    fn rotates_through_rm_ids_in_order() {
        let mut t = targets();
        assert_eq!(t.current(), ("rm1", "h1:8033"));
        assert_eq!(t.fail_over(), ("rm2", "h2:8033"));
        assert_eq!(t.fail_over(), ("rm3", "h3:8033"));
        assert_eq!(t.fail_over(), ("rm1", "h1:8033"));
    }

    #[test]
    fn follows_hints_for_members_only() {
        let mut t = targets();
        let hint = LeaderHint {
            rm_id: "rm3".into(),
            address: "10.0.0.3:8033".into(),
        };
        assert_eq!(t.follow_hint(&hint), ("rm3", "10.0.0.3:8033"));
        let stranger = LeaderHint {
            rm_id: "rm9".into(),
            address: "evil:8033".into(),
        };
        assert_eq!(t.follow_hint(&stranger), ("rm1", "h1:8033"));
        assert_eq!(t.address_of("rm3"), Some("10.0.0.3:8033"));
        assert!(t.contains("rm2"));
        assert!(!t.contains("rm9"));
    }

    #[test]
    fn concurrent_failures_on_one_replica_move_the_rotation_once() {
        let mut t = targets();
        assert_eq!(t.fail_over_from("rm1"), ("rm2", "h2:8033"));
        assert_eq!(t.fail_over_from("rm1"), ("rm2", "h2:8033"));
        assert_eq!(t.fail_over_from("rm2"), ("rm3", "h3:8033"));
    }
}
