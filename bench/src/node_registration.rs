//! [`register_nodes`]: simulated NodeManagers registered with the leader over the
//! ResourceTracker protocol, as real ones register.

use std::time::{Duration, Instant};

use anyhow::Context;
use tonic::transport::Channel;
use yarn_minicluster::NM_HOST;
use yarn_proto::pb::resource_tracker_client::ResourceTrackerClient;
use yarn_proto::pb::{self, NodeActionProto};

use crate::bounded_tasks::run_bounded;
use crate::heartbeat_probe::NodeKeys;
use crate::rest_bench_options::FIRST_NODE_PORT;

/// Registrations in flight at once.
const IN_FLIGHT: usize = 64;

/// How long the first registration may be refused as not ready (a new leader creates the
/// token master keys within a second), and the pause between its tries.
const READY_WAIT: Duration = Duration::from_secs(15);
const READY_PAUSE: Duration = Duration::from_millis(100);

/// What every simulated node offers: Hadoop's NodeManager defaults
/// (`yarn.nodemanager.resource.memory-mb` and `.cpu-vcores`).
const NODE_MB: i64 = 8192;
const NODE_VCORES: i32 = 8;

/// Simulated node number `index` (from 0): on [`NM_HOST`], port [`FIRST_NODE_PORT`] + `index`.
///
/// # Panics
///
/// For an index past the last port, which the options' [`MAX_REST_NODES`] rules out.
///
/// [`MAX_REST_NODES`]: crate::rest_bench_options::MAX_REST_NODES
pub(crate) fn node_id(index: usize) -> pb::NodeIdProto {
    let port = usize::from(FIRST_NODE_PORT) + index;
    pb::NodeIdProto {
        host: NM_HOST.to_owned(),
        port: i32::try_from(port).expect("node ports are bounded by MAX_REST_NODES"),
    }
}

/// Registers nodes `0..count` with the leader `tracker` talks to, each offering 8 GB and 8
/// vcores, and returns the master keys the leader handed out. Node 0 goes first, retried
/// while the leader is not ready; then the others, [`IN_FLIGHT`] at a time over the same
/// connection.
///
/// # Errors
///
/// When a registration fails (node 0: for longer than 15 seconds) or the leader does not
/// answer NORMAL with both master keys.
pub(crate) async fn register_nodes(
    tracker: &ResourceTrackerClient<Channel>,
    count: usize,
) -> anyhow::Result<NodeKeys> {
    let deadline = Instant::now() + READY_WAIT;
    let keys = loop {
        match register(tracker.clone(), 0).await {
            Ok(keys) => break keys,
            Err(err) if Instant::now() < deadline => {
                tracing::debug!("the first registration was refused, trying again: {err:#}");
                tokio::time::sleep(READY_PAUSE).await;
            }
            Err(err) => {
                return Err(err.context(format!("the leader was not ready within {READY_WAIT:?}")));
            }
        }
    };
    run_bounded(1..count, IN_FLIGHT, |index| {
        register(tracker.clone(), index)
    })
    .await?;
    Ok(keys)
}

async fn register(
    mut tracker: ResourceTrackerClient<Channel>,
    index: usize,
) -> anyhow::Result<NodeKeys> {
    let node = node_id(index);
    let name = format!("{}:{}", node.host, node.port);
    let answer = tracker
        .register_node_manager(pb::RegisterNodeManagerRequestProto {
            node_id: Some(node),
            http_port: 8042,
            resource: Some(pb::ResourceProto {
                memory: NODE_MB,
                virtual_cores: NODE_VCORES,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .with_context(|| format!("registering node {name}"))?
        .into_inner();
    anyhow::ensure!(
        answer.node_action() == NodeActionProto::Normal,
        "node {name} was answered {:?}: {}",
        answer.node_action(),
        answer.diagnostics_message
    );
    answer
        .container_token_master_key
        .zip(answer.nm_token_master_key)
        .with_context(|| format!("node {name} got no master keys at registration"))
}
