//! [`OpportunisticAsk`]: an application attempt's ask for OPPORTUNISTIC containers.

use crate::Resource;

/// One OPPORTUNISTIC `ResourceRequest`: `num_containers` containers of `capability` at
/// `resource_name`.
///
/// Asks are grouped by scheduler key `(priority, allocation_request_id)`, as YARN groups them.
/// Each key has exactly one `"*"` ask whose count is the total still wanted, and optionally
/// host asks and rack asks (names starting with `/`, YARN's rule) that say where the
/// containers are preferred. Every ask of a key has the `"*"` ask's capability.
///
/// Only the `"*"` ask's `relax_locality` is consulted: when false, the key's containers go only
/// to the hosts and racks it names. The flag on host and rack asks has no effect (YARN's
/// opportunistic allocator consults the flag on no ask at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpportunisticAsk {
    /// Container priority: lower numbers are served first.
    pub priority: i32,
    /// Lets an AM tell containers of different asks apart (-1 when unused).
    pub allocation_request_id: i64,
    /// `"*"`, a host name, or a rack name starting with `/`.
    pub resource_name: String,
    /// How many containers are still wanted (0 cancels the ask).
    pub num_containers: u32,
    /// Size of each container, already normalized by the caller.
    pub capability: Resource,
    /// On the `"*"` ask: whether containers may go to nodes the key does not name.
    pub relax_locality: bool,
}

impl OpportunisticAsk {
    /// The resource name meaning "any node".
    pub const ANY: &'static str = yarn_proto::ANY;

    /// An ask at `resource_name` with allocation request id -1 and relaxed locality, the
    /// defaults of YARN's `ResourceRequest`.
    pub fn new(
        priority: i32,
        resource_name: &str,
        capability: Resource,
        num_containers: u32,
    ) -> Self {
        Self {
            priority,
            allocation_request_id: -1,
            resource_name: resource_name.to_string(),
            num_containers,
            capability,
            relax_locality: true,
        }
    }

    /// Whether this is the key's `"*"` ask.
    pub fn is_any(&self) -> bool {
        self.resource_name == Self::ANY
    }

    /// Whether this names a rack rather than a host.
    pub fn is_rack(&self) -> bool {
        self.resource_name.starts_with('/')
    }

    /// The scheduler key: asks are served in ascending order of it.
    pub fn scheduler_key(&self) -> (i32, i64) {
        (self.priority, self.allocation_request_id)
    }
}
