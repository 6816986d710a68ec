//! What the heartbeat loop needs from the rest of the NodeManager.

use yarn_proto::pb;

/// The NodeManager's containers and keys as the heartbeat loop reports and updates them.
///
/// Implemented by the container manager; every method is quick and non-blocking, since the
/// loop calls them between RPCs.
pub trait NodeStatusSource: Send + Sync + 'static {
    /// Every container the node runs or queues, and those completed but not yet acknowledged by
    /// the RM, for a (re-)registration.
    fn nm_container_statuses(&self) -> Vec<pb::NmContainerStatusProto>;

    /// The container statuses and opportunistic queue status for one heartbeat.
    fn heartbeat_status(
        &self,
    ) -> (
        Vec<pb::ContainerStatusProto>,
        pb::OpportunisticContainersStatusProto,
    );

    /// The container-token and NM-token master keys the node holds.
    fn last_known_keys(&self) -> (Option<pb::MasterKeyProto>, Option<pb::MasterKeyProto>);

    /// Installs keys the RM sent (either may be absent: unchanged).
    fn install_keys(&self, container: Option<&pb::MasterKeyProto>, nm: Option<&pb::MasterKeyProto>);

    /// Carries out the rest of a normal heartbeat response: containers to clean up, completed
    /// containers the RM has recorded, the opportunistic queuing limit.
    fn apply_heartbeat_response(&self, response: &pb::NodeHeartbeatResponseProto);
}
