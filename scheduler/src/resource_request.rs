//! [`ResourceRequest`]: an application's ask for containers.

use serde::{Deserialize, Serialize};

use crate::Resource;

/// An ask for `num_containers` containers of `capability`, as YARN's `ResourceRequest`.
///
/// Asks are keyed by `(priority, allocation_request_id, resource_name)`: a new ask with the same
/// key replaces the earlier one (so `num_containers = 0` cancels it). Lower `priority` numbers
/// are served first, as with YARN container priorities.
///
/// A resource name starting with `/` names a rack (YARN's network locations all do); any other
/// but `"*"` names a host.
///
/// Locality, per `(priority, allocation_request_id)`:
/// - with a `"*"` ask, its count is the total still wanted; host and rack asks only say where
///   the containers are preferred. A container counts against the ask of its host and of its
///   rack, when they have one, and against `"*"`. It goes to a named host first; after
///   `node-locality-delay` missed opportunities to a named rack whose ask has `relax_locality`;
///   and after the off-switch delay anywhere, if the `"*"` ask has `relax_locality` (see
///   [`LocalityDelay`](crate::LocalityDelay));
/// - without a `"*"` ask, each host or rack ask stands alone: with `relax_locality = false` its
///   containers go only there, with `true` there first and anywhere else, after the same
///   delays, when it has no room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceRequest {
    /// Container priority: lower numbers first.
    pub priority: i32,
    /// Lets an AM tell containers of different asks apart (-1 when unused).
    pub allocation_request_id: i64,
    /// `"*"` for anywhere, a rack (`/...`) or a host name.
    pub resource_name: String,
    /// Size of each container, before normalization.
    pub capability: Resource,
    /// How many containers are still wanted.
    pub num_containers: u32,
    /// Whether the ask may be satisfied away from the named location.
    pub relax_locality: bool,
    /// The partition asked for (one label; blank: the application's default). Read on the
    /// `"*"` ask only, as Hadoop does: it places every container of the key.
    pub node_label_expression: String,
}

impl ResourceRequest {
    /// The resource name meaning "any node".
    pub const ANY: &'static str = yarn_proto::ANY;

    /// An ask for `num_containers` containers of `capability` anywhere.
    pub fn any(priority: i32, capability: Resource, num_containers: u32) -> Self {
        Self {
            priority,
            allocation_request_id: -1,
            resource_name: Self::ANY.to_string(),
            capability,
            num_containers,
            relax_locality: true,
            node_label_expression: String::new(),
        }
    }

    /// An ask for containers on `host`, relaxable or strict.
    pub fn on_host(
        priority: i32,
        host: &str,
        capability: Resource,
        num_containers: u32,
        relax_locality: bool,
    ) -> Self {
        Self {
            priority,
            allocation_request_id: -1,
            resource_name: host.to_string(),
            capability,
            num_containers,
            relax_locality,
            node_label_expression: String::new(),
        }
    }

    /// Whether this is an off-switch (`"*"`) ask.
    pub fn is_any(&self) -> bool {
        self.resource_name == Self::ANY
    }

    /// Whether the ask names a rack.
    pub fn is_rack(&self) -> bool {
        self.resource_name.starts_with('/')
    }
}
