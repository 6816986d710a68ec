//! What one allocate heartbeat brought the ApplicationMaster.

use yarn_proto::pb;

/// The news of one [`AmRmClient::allocate`](crate::AmRmClient::allocate): only what the
/// ApplicationMaster has not been given before.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AllocateOutcome {
    /// Containers newly allocated to the attempt. A container is returned once, even when a new
    /// leader hands it out again after a failover.
    pub allocated: Vec<pb::ContainerProto>,
    /// Statuses of containers newly completed, each container's once.
    pub completed: Vec<pb::ContainerStatusProto>,
    /// Containers the RM updated as asked (promoted, demoted, resized), each with its new
    /// version and container token; the ApplicationMaster hands the token to the container's
    /// NodeManager ([`NmClient::update_container`](crate::NmClient::update_container)).
    pub updated: Vec<pb::UpdatedContainerProto>,
    /// Updates the RM refused, with YARN's reason (`INCORRECT_CONTAINER_VERSION_ERROR`, ...).
    pub update_errors: Vec<pb::UpdateContainerErrorProto>,
    /// Nodes whose state changed (lost, unhealthy, decommissioning) since the last response.
    pub updated_nodes: Vec<pb::NodeReportProto>,
    /// Containers the scheduler will take back unless the ApplicationMaster frees resources.
    pub preemption: Option<pb::PreemptionMessageProto>,
    /// The RM told the ApplicationMaster to shut down (`AM_SHUTDOWN`).
    pub shutdown_requested: bool,
    /// The RM no longer knew the attempt (after a failover), so the client registered again and
    /// re-sent every outstanding ask, release and blacklist entry during this call.
    pub resynced: bool,
}
