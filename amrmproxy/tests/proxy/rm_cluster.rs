//! Real ResourceManager clusters in this process (`yarn_test_support::rm_cluster`), with
//! stand-in NodeManagers registered through the ResourceTracker protocol (their containers are
//! allocated, never launched: nothing listens at their addresses), failover-aware client
//! settings, and the cluster timestamp the serving leader chose.

use std::sync::Arc;

use yarn_client::{Idempotency, RmClient, RmClientConfig, RmService};
use yarn_proto::pb;
use yarn_proto::pb::resource_tracker_client::ResourceTrackerClient;
use yarn_security::Role;
use yarn_test_support::pki::Pki;
use yarn_test_support::rm_cluster::{Layout, RmCluster, node_registration};

/// Starts replicas `<name>1` to `<name><members>` of cluster `name`, each with the RM
/// certificate of `pki` named by its rm-id.
pub async fn start(pki: &Arc<Pki>, name: &str, members: usize) -> RmCluster {
    let layout = Layout {
        name,
        members,
        spares: 0,
        extra: &[],
        one_at_a_time: false,
    };
    let mut cluster = RmCluster::new(Arc::clone(pki), layout).await;
    cluster.start_members().await;
    cluster
}

/// Client settings with the certificate of `role`/`name`: every replica, short failover
/// pauses and enough failovers to ride out an election.
pub fn client_config(cluster: &RmCluster, role: Role, name: &str) -> RmClientConfig {
    let mut conf = cluster.client_conf(role, name);
    conf.set("yarn.client.failover-sleep-base-ms", "20");
    conf.set("yarn.client.failover-sleep-max-ms", "200");
    conf.set("yarn.client.failover-max-attempts", "100");
    RmClientConfig::from_conf(&conf).expect("RM client settings")
}

/// The cluster timestamp in the ids `cluster` hands out.
pub async fn cluster_timestamp(cluster: &RmCluster) -> i64 {
    let leader = cluster.serving_leader(None).await;
    cluster
        .replica(leader)
        .state()
        .read(|state| state.cluster_timestamp_ms)
}

/// Registers NodeManager `host:45454` offering `memory_mb` and `vcores`, with the
/// certificate of `host` (a NodeManager may speak only for itself).
pub async fn register_node(cluster: &RmCluster, host: &str, memory_mb: i64, vcores: i32) {
    let tracker = RmClient::new(
        &client_config(cluster, Role::NodeManager, host),
        RmService::ResourceTracker,
    );
    let request = node_registration(host, memory_mb, vcores);
    let response = tracker
        .call(Idempotency::Idempotent, |channel| {
            let request = request.clone();
            async move {
                ResourceTrackerClient::new(channel)
                    .register_node_manager(request)
                    .await
            }
        })
        .await
        .unwrap_or_else(|e| panic!("register {host}: {e}"));
    assert_eq!(
        response.node_action(),
        pb::NodeActionProto::Normal,
        "{}",
        response.diagnostics_message
    );
}
