//! [`ProxyRoute`]: one front of a proxied cluster layout and where it leads.

use serde::{Deserialize, Serialize};

/// A front address of a proxied layout: the port every daemon but `destination` (and every
/// client) dials to reach one endpoint of `destination`, and the real address that endpoint
/// listens on. A proxy listening on `listen` and forwarding to `upstream` makes the cluster
/// work as if unproxied; one that holds or delays bytes makes a network fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyRoute {
    /// The ResourceManager whose endpoint this is (its rm id).
    pub destination: String,
    /// The endpoint's service name as `cluster.json` names it (`client`, `scheduler`,
    /// `resource-tracker`, `admin`, `raft`).
    pub service: String,
    /// The front, `127.0.0.1:<port>`, named in the other daemons' configuration.
    pub listen: String,
    /// The real address, `127.0.0.1:<port>`, named only in `destination`'s own configuration.
    pub upstream: String,
}
