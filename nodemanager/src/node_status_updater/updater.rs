//! The async loop that registers the node and heartbeats at the RM-dictated pace.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use yarn_client::{Idempotency, RmClient};
use yarn_proto::ids::NodeId;
use yarn_proto::pb;
use yarn_proto::pb::resource_tracker_client::ResourceTrackerClient;

use super::{Connection, HeartbeatState, NextStep, NodeStatusSource};

/// Registers with the leader, heartbeats, and follows RESYNC and SHUTDOWN, publishing the
/// node's [`Connection`] for the container manager.
///
/// Calls go through the failover-aware [`RmClient`], so a leader change costs a hint or a
/// backoff, never a lost node. Registration is idempotent by node id and a heartbeat is
/// deduplicated by its response id, so both are resent freely. A call that still fails (every
/// replica unreachable) is retried after the heartbeat interval; running containers are never
/// touched by a lost RM.
pub struct NodeStatusUpdater {
    /// The ResourceTracker client.
    pub client: RmClient,
    /// This node.
    pub node_id: NodeId,
    /// The node's web port.
    pub http_port: i32,
    /// What the node offers.
    pub resource: pb::ResourceProto,
    /// The containers and keys.
    pub source: Arc<dyn NodeStatusSource>,
    /// Where the connection state is published.
    pub connection: watch::Sender<Connection>,
    /// The interval used before the RM has dictated one.
    pub default_interval: Duration,
    /// When this NodeManager process started, in milliseconds since the Unix epoch: sent with
    /// every registration, so that the RM tells a restart (after which an empty report means
    /// the containers are gone) from a resent registration.
    pub incarnation: i64,
}

impl NodeStatusUpdater {
    /// Runs until `shutdown` is cancelled or the RM orders a shutdown; returns the RM's reason
    /// in the latter case.
    pub async fn run(self, shutdown: CancellationToken) -> Option<String> {
        let default_ms = u64::try_from(self.default_interval.as_millis()).unwrap_or(u64::MAX);
        let mut state = HeartbeatState::new(default_ms);
        let mut step = NextStep::Register;
        loop {
            let pause = match &step {
                NextStep::Register => match self.cancellable(&shutdown, self.register()).await? {
                    Ok(response) => {
                        step = state.registered(&response);
                        self.source.install_keys(
                            response.container_token_master_key.as_ref(),
                            response.nm_token_master_key.as_ref(),
                        );
                        self.connection.send_replace(state.connection().clone());
                        if let Connection::Connected { rm_epoch } = state.connection() {
                            tracing::info!(node = %self.node_id, rm_epoch, "registered with the ResourceManager");
                        }
                        continue;
                    }
                    Err(err) => {
                        tracing::warn!(node = %self.node_id, %err, "registration failed; retrying");
                        self.default_interval
                    }
                },
                NextStep::Heartbeat { after_ms } => Duration::from_millis(*after_ms),
                NextStep::ShutDown { diagnostics } => {
                    tracing::error!(node = %self.node_id, %diagnostics, "the ResourceManager ordered a shutdown");
                    self.connection.send_replace(state.connection().clone());
                    return Some(diagnostics.clone());
                }
            };
            tokio::select! {
                () = shutdown.cancelled() => return None,
                () = tokio::time::sleep(pause) => {}
            }
            if matches!(step, NextStep::Heartbeat { .. }) {
                match self
                    .cancellable(&shutdown, self.heartbeat(state.response_id()))
                    .await?
                {
                    Ok(response) => {
                        step = state.heartbeat_answered(&response);
                        match &step {
                            NextStep::Heartbeat { .. } => {
                                self.source.install_keys(
                                    response.container_token_master_key.as_ref(),
                                    response.nm_token_master_key.as_ref(),
                                );
                                self.source.apply_heartbeat_response(&response);
                            }
                            NextStep::Register => {
                                tracing::info!(
                                    node = %self.node_id,
                                    reason = %response.diagnostics_message,
                                    "RESYNC: refusing new containers until registered again"
                                );
                                self.connection.send_replace(state.connection().clone());
                            }
                            NextStep::ShutDown { .. } => {}
                        }
                    }
                    Err(err) => {
                        tracing::warn!(node = %self.node_id, %err, "heartbeat failed; retrying");
                    }
                }
            }
        }
    }

    /// Runs `call` unless `shutdown` comes first: a node that cannot reach any RM must still
    /// stop promptly instead of waiting out the client's whole retry cycle. `None` means stop.
    async fn cancellable<T>(
        &self,
        shutdown: &CancellationToken,
        call: impl std::future::Future<Output = T>,
    ) -> Option<T> {
        tokio::select! {
            () = shutdown.cancelled() => None,
            result = call => Some(result),
        }
    }

    async fn register(&self) -> Result<pb::RegisterNodeManagerResponseProto, yarn_client::Error> {
        let request = pb::RegisterNodeManagerRequestProto {
            node_id: Some((&self.node_id).into()),
            http_port: self.http_port,
            resource: Some(self.resource.clone()),
            physical_resource: Some(self.resource.clone()),
            container_statuses: self.source.nm_container_statuses(),
            incarnation: self.incarnation,
            ..Default::default()
        };
        self.client
            .call(Idempotency::Idempotent, |channel| {
                let request = request.clone();
                async move {
                    ResourceTrackerClient::new(channel)
                        .register_node_manager(request)
                        .await
                }
            })
            .await
    }

    async fn heartbeat(
        &self,
        response_id: i32,
    ) -> Result<pb::NodeHeartbeatResponseProto, yarn_client::Error> {
        let (containers_statuses, opportunistic) = self.source.heartbeat_status();
        let (container_key, nm_key) = self.source.last_known_keys();
        let request = pb::NodeHeartbeatRequestProto {
            node_status: Some(pb::NodeStatusProto {
                node_id: Some((&self.node_id).into()),
                response_id,
                containers_statuses,
                opportunistic_containers_status: Some(opportunistic),
                ..Default::default()
            }),
            last_known_container_token_master_key: container_key,
            last_known_nm_token_master_key: nm_key,
        };
        self.client
            .call(Idempotency::Idempotent, |channel| {
                let request = request.clone();
                async move {
                    ResourceTrackerClient::new(channel)
                        .node_heartbeat(request)
                        .await
                }
            })
            .await
    }
}
