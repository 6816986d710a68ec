//! The RM endpoints a client can target.

use yarn_conf::{HostPort, RmEndpoints};

/// One RPC service of a ResourceManager replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RmService {
    /// ApplicationClientProtocol.
    Client,
    /// ApplicationMasterProtocol.
    Scheduler,
    /// ResourceTracker.
    ResourceTracker,
    /// The admin protocol.
    Admin,
}

impl RmService {
    /// The address of this service on `endpoints`' replica.
    pub fn address(self, endpoints: &RmEndpoints) -> &HostPort {
        match self {
            Self::Client => &endpoints.client,
            Self::Scheduler => &endpoints.scheduler,
            Self::ResourceTracker => &endpoints.resource_tracker,
            Self::Admin => &endpoints.admin,
        }
    }
}
