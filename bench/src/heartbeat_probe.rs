//! [`HeartbeatProbe`]: one simulated NodeManager heartbeating the leader, to time what the
//! leader's node tracker costs a heartbeat while something else runs.

use std::time::{Duration, Instant};

use tonic::transport::Channel;
use yarn_proto::pb::resource_tracker_client::ResourceTrackerClient;
use yarn_proto::pb::{self, NodeActionProto};

use crate::probe::Probe;

/// The master keys a registered node holds: with them, a heartbeat's answer carries no key,
/// as a steady node's does.
pub(crate) type NodeKeys = (pb::MasterKeyProto, pb::MasterKeyProto);

/// A registered node's heartbeats, in sequence: each echoes the last response id, as a
/// NodeManager does, so the leader accepts each as new (and never answers a duplicate from its
/// cache). A call succeeds when the leader answers NORMAL.
#[derive(Debug)]
pub(crate) struct HeartbeatProbe {
    client: ResourceTrackerClient<Channel>,
    node: pb::NodeIdProto,
    keys: NodeKeys,
    response_id: i32,
}

impl HeartbeatProbe {
    /// The probe of `node`, registered with the leader `client` talks to, which handed it
    /// `keys`.
    pub(crate) fn new(
        client: ResourceTrackerClient<Channel>,
        node: pb::NodeIdProto,
        keys: NodeKeys,
    ) -> Self {
        Self {
            client,
            node,
            keys,
            response_id: 0,
        }
    }
}

impl Probe for HeartbeatProbe {
    async fn call(&mut self) -> Result<Duration, String> {
        let request = pb::NodeHeartbeatRequestProto {
            node_status: Some(pb::NodeStatusProto {
                node_id: Some(self.node.clone()),
                response_id: self.response_id,
                ..Default::default()
            }),
            last_known_container_token_master_key: Some(self.keys.0.clone()),
            last_known_nm_token_master_key: Some(self.keys.1.clone()),
        };
        let sent = Instant::now();
        let answer = self.client.node_heartbeat(request).await;
        let took = sent.elapsed();
        let answer = answer
            .map_err(|status| format!("{:?}: {}", status.code(), status.message()))?
            .into_inner();
        if answer.node_action() != NodeActionProto::Normal {
            return Err(format!(
                "answered {:?}: {}",
                answer.node_action(),
                answer.diagnostics_message
            ));
        }
        self.response_id = answer.response_id;
        Ok(took)
    }
}
