//! NodeManager registration and heartbeats against the leader, and RESYNC after a failover.

use tonic::Code;
use yarn_proto::ids::ContainerId;
use yarn_proto::pb::{self, NodeActionProto};
use yarn_rm_ha::state_machine::{
    ContainerKey, ContainerRecord, ContainerState, LOST_NODE_DIAGNOSTIC,
};
use yarn_test_support::rm_cluster::{RmCluster, node_registration};

use crate::applications;
use crate::support::{
    NM_HOST, USER, eventually, new_cluster, on_leader, register_node_with, set_queue_configuration,
    submit,
};

fn node_id(host: &str) -> Option<pb::NodeIdProto> {
    Some(pb::NodeIdProto {
        host: host.to_owned(),
        port: 45454,
    })
}

fn registration(host: &str) -> pb::RegisterNodeManagerRequestProto {
    pb::RegisterNodeManagerRequestProto {
        node_id: node_id(host),
        http_port: 8042,
        resource: Some(pb::ResourceProto {
            memory: 8192,
            virtual_cores: 8,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn heartbeat(
    response_id: i32,
    keys: Option<(pb::MasterKeyProto, pb::MasterKeyProto)>,
) -> pb::NodeHeartbeatRequestProto {
    let (container, nm) = keys.unzip();
    pb::NodeHeartbeatRequestProto {
        node_status: Some(pb::NodeStatusProto {
            node_id: node_id(NM_HOST),
            response_id,
            ..Default::default()
        }),
        last_known_container_token_master_key: container,
        last_known_nm_token_master_key: nm,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_register_heartbeat_in_sequence_and_resync_after_a_failover() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    let cluster_ref = &cluster;
    let (leader, registered) = on_leader(cluster_ref, "RegisterNodeManager", |leader| async move {
        let mut tracker = cluster_ref.resource_tracker(leader, NM_HOST).await;
        tracker.register_node_manager(registration(NM_HOST)).await
    })
    .await;
    let registered = registered.into_inner();
    assert_eq!(registered.node_action(), NodeActionProto::Normal);
    let epoch = cluster.replica(leader).state().read(|s| s.epoch);
    assert_eq!(registered.rm_identifier, i64::try_from(epoch).unwrap());
    let keys = registered
        .container_token_master_key
        .zip(registered.nm_token_master_key)
        .expect("both master keys at registration");

    let mut tracker = cluster.resource_tracker(leader, NM_HOST).await;
    let first = tracker
        .node_heartbeat(heartbeat(0, None))
        .await
        .expect("a heartbeat")
        .into_inner();
    assert_eq!(first.response_id, 1);
    assert_eq!(first.node_action(), NodeActionProto::Normal);
    assert_eq!(first.next_heart_beat_interval, 1000);
    assert!(
        first.container_token_master_key.is_some(),
        "keys go to a node without them"
    );

    // The node did not see response 1 and sends the same heartbeat: the same answer.
    let again = tracker
        .node_heartbeat(heartbeat(0, None))
        .await
        .expect("a duplicate heartbeat")
        .into_inner();
    assert_eq!(again, first);

    let second = tracker
        .node_heartbeat(heartbeat(1, Some(keys.clone())))
        .await
        .expect("the next heartbeat")
        .into_inner();
    assert_eq!(second.response_id, 2);
    assert!(
        second.container_token_master_key.is_none() && second.nm_token_master_key.is_none(),
        "keys the node already holds are not sent again"
    );

    let stale = tracker
        .node_heartbeat(heartbeat(9, Some(keys.clone())))
        .await
        .expect("an out-of-sequence heartbeat")
        .into_inner();
    assert_eq!(stale.node_action(), NodeActionProto::Resync);

    let impostor = tracker
        .register_node_manager(registration("other-host"))
        .await
        .expect_err("a certificate speaks only for its own host");
    assert_eq!(impostor.code(), Code::PermissionDenied);
    assert!(
        impostor.message().contains("other-host"),
        "{}",
        impostor.message()
    );

    cluster.stop(leader).await;
    let new = cluster.serving_leader(Some(leader)).await;
    let cluster_ref = &cluster;
    let keys = &keys;
    let resync = eventually("the new leader to answer the node", || async move {
        let mut tracker = cluster_ref.resource_tracker(new, NM_HOST).await;
        tracker
            .node_heartbeat(heartbeat(2, Some(keys.clone())))
            .await
            .ok()
    })
    .await
    .into_inner();
    assert_eq!(
        resync.node_action(),
        NodeActionProto::Resync,
        "a new leader holds no heartbeat state and asks the node to re-register"
    );

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

/// Registers [`NM_HOST`] as the NodeManager process started at `incarnation` with the
/// serving leader, reporting no container.
async fn register_incarnation(cluster: &RmCluster, incarnation: i64) {
    register_incarnation_on(cluster, 45454, 8192, incarnation).await;
}

/// Registers node `NM_HOST:port` offering `memory_mb` as the NodeManager process started at
/// `incarnation`, reporting no container.
async fn register_incarnation_on(cluster: &RmCluster, port: i32, memory_mb: i64, incarnation: i64) {
    let mut registration = pb::RegisterNodeManagerRequestProto {
        incarnation,
        ..node_registration(NM_HOST, memory_mb, 8)
    };
    if let Some(node) = registration.node_id.as_mut() {
        node.port = port;
    }
    register_node_with(cluster, registration).await;
}

/// The state of container `key` on replica `index`.
fn state_of(cluster: &RmCluster, index: usize, key: ContainerKey) -> Option<ContainerState> {
    cluster.replica(index).state().read(|state| {
        state
            .containers
            .get(&key)
            .map(|record| record.state.clone())
    })
}

/// The diagnostics of container `key`, once replica `index` holds it completed.
async fn completion_diagnostics(cluster: &RmCluster, index: usize, key: ContainerKey) -> String {
    eventually("the container to complete", || async {
        match state_of(cluster, index, key)? {
            ContainerState::Completed { diagnostics, .. } => Some(diagnostics),
            ContainerState::Allocated => None,
        }
    })
    .await
}

/// The AM container of `application`'s newest attempt, once replica `index` holds it.
async fn am_container(
    cluster: &RmCluster,
    index: usize,
    application: yarn_proto::ids::ApplicationId,
) -> ContainerRecord {
    eventually("the AM container on the node", || async {
        cluster.replica(index).state().read(|state| {
            state
                .containers
                .of_application(application.id)
                .filter(|record| record.is_am && record.is_live())
                .last()
                .cloned()
        })
    })
    .await
}

/// A NodeManager that registers with a newer incarnation and reports nothing restarted without
/// its containers: the AM container the RM placed there completes as lost at once, rather than
/// after the AM expiry, whichever leader the node registered with before. The same incarnation
/// again (a resend, or a registration with a new leader after a failover) changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_restarting_without_its_containers_loses_them_whichever_leader_it_knew() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    register_incarnation(&cluster, 1_000).await;
    let application = submit(&cluster, "on a node that reboots").await;
    let leader = cluster.serving_leader(None).await;
    let first = am_container(&cluster, leader, application).await;
    assert_eq!(first.node, format!("{NM_HOST}:45454"));

    register_incarnation(&cluster, 1_000).await;
    assert_eq!(
        state_of(&cluster, leader, first.key),
        Some(ContainerState::Allocated),
        "a resent registration is the same process"
    );

    register_incarnation(&cluster, 2_000).await;
    let lost = completion_diagnostics(&cluster, leader, first.key).await;
    assert_eq!(lost, LOST_NODE_DIAGNOSTIC);

    // The next attempt's AM lands on the node again; a new leader then hears the same
    // process register, and later a restarted one.
    let second = am_container(&cluster, leader, application).await;
    assert_ne!(second.key, first.key);
    cluster.stop(leader).await;
    let successor = cluster.serving_leader(Some(leader)).await;
    register_incarnation(&cluster, 2_000).await;
    assert_eq!(
        state_of(&cluster, successor, second.key),
        Some(ContainerState::Allocated),
        "a new leader hearing the same process changes nothing"
    );
    register_incarnation(&cluster, 3_000).await;
    let lost = completion_diagnostics(&cluster, successor, second.key).await;
    assert_eq!(lost, LOST_NODE_DIAGNOSTIC);

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

/// Task containers the leader placed on a node that then restarted without them, before the AM
/// was handed them, are allocated again without the AM asking again (YARN's
/// `recoverResourceRequestForContainer`): the AM hears of the lost ones' completion and gets as
/// many new containers as it asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_lost_before_their_am_acquired_them_are_allocated_again() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    let queues = [
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("maximum-am-resource-percent", "1.0"),
    ]
    .into_iter()
    .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), v.to_owned()))
    .collect();
    set_queue_configuration(&cluster, queues).await;
    // A node with room for the AM only; the tasks can go only to the second one.
    register_incarnation_on(&cluster, 45454, 1024, 1_000).await;
    let application = applications::submit(&cluster, "tasks on a node that reboots").await;
    let token = applications::amrm_token(&cluster, application).await;
    let leader = applications::register_am(&cluster, &token).await;
    let asked = cluster
        .scheduler(leader, USER)
        .await
        .allocate(applications::with_token(
            pb::AllocateRequestProto {
                ask: vec![applications::ask(2)],
                response_id: 0,
                ..Default::default()
            },
            &token,
        ))
        .await
        .expect("allocate")
        .into_inner();
    assert!(asked.allocated_containers.is_empty(), "no room yet");
    register_incarnation_on(&cluster, 45455, 8192, 1_000).await;
    let tasks_node = format!("{NM_HOST}:45455");
    let placed: Vec<ContainerKey> = eventually("two tasks on the second node", || async {
        let tasks: Vec<ContainerKey> = cluster.replica(leader).state().read(|state| {
            state
                .containers
                .of_application(application.id)
                .filter(|record| !record.is_am && record.is_live() && record.node == tasks_node)
                .map(|record| record.key)
                .collect()
        });
        (tasks.len() == 2).then_some(tasks)
    })
    .await;

    // The node restarts empty before the AM heartbeats again.
    register_incarnation_on(&cluster, 45455, 8192, 2_000).await;
    for key in &placed {
        assert_eq!(
            completion_diagnostics(&cluster, leader, *key).await,
            LOST_NODE_DIAGNOSTIC
        );
    }
    let (again, _, _) =
        applications::allocate_until(&cluster, leader, &token, asked.response_id, vec![], 2).await;
    let lost: Vec<i64> = placed.iter().map(|key| key.container_id).collect();
    for container in &again {
        let id = ContainerId::try_from(container.id.expect("an id")).expect("a valid id");
        assert!(!lost.contains(&id.container_id()), "{id} was lost");
        assert_eq!(container.node_id.as_ref().map(|n| n.port), Some(45455));
    }
    for index in 0..3 {
        cluster.stop(index).await;
    }
}
