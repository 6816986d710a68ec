//! Container resizing (YARN's INCREASE_RESOURCE and DECREASE_RESOURCE updates) on three
//! replicas over mutual TLS, played by the test as the AM and the NodeManager: an increase
//! waits for room on the container's node, comes back with version 1 and a container token of
//! the new size, and is charged to the queue; bad targets get their reasons; a decrease is
//! committed within the call that asks for it, frees its share of the queue, and reaches the
//! NodeManager in its heartbeat until the node reports the smaller size.

use yarn_test_support::rm_cluster::{DEADLINE, RmCluster};

use crate::applications::{
    AmExchange, allocate_until, amrm_token, ask, queue_used_mb, register_am, submit,
};
use crate::distributed_scheduling::heartbeat;
use crate::support::{eventually, new_cluster, register_node};
use prost::Message;
use yarn_proto::pb;

fn resize(
    id: pb::ContainerIdProto,
    version: i32,
    update_type: pb::ContainerUpdateTypeProto,
    memory: i64,
) -> pb::UpdateContainerRequestProto {
    pb::UpdateContainerRequestProto {
        container_version: Some(version),
        container_id: Some(id),
        update_type: Some(update_type.into()),
        capability: Some(pb::ResourceProto {
            memory,
            virtual_cores: 1,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The container `id` as the node reports it: running, GUARANTEED, holding `memory` MB.
fn running(id: pb::ContainerIdProto, memory: i64) -> pb::ContainerStatusProto {
    pb::ContainerStatusProto {
        container_id: Some(id),
        state: pb::ContainerStateProto::CRunning.into(),
        capability: Some(pb::ResourceProto {
            memory,
            virtual_cores: 1,
            ..Default::default()
        }),
        execution_type: pb::ExecutionTypeProto::Guaranteed.into(),
        ..Default::default()
    }
}

fn token_memory(container: &pb::ContainerProto) -> i64 {
    let identifier = pb::ContainerTokenIdentifierProto::decode(
        container
            .container_token
            .as_ref()
            .expect("a container token")
            .identifier
            .as_slice(),
    )
    .expect("a container token identifier");
    assert_eq!(identifier.version, container.version);
    identifier.resource.expect("a resource").memory
}

/// Submits an application named `name`, registers its AM and has it allocate one 1 GiB task;
/// returns the serving leader, the task and the AM's exchange.
async fn one_task(cluster: &RmCluster, name: &str) -> (usize, pb::ContainerIdProto, AmExchange) {
    let app = submit(cluster, name).await;
    let token = amrm_token(cluster, app).await;
    let leader = register_am(cluster, &token).await;
    let (got, _, response_id) = allocate_until(cluster, leader, &token, 0, vec![ask(1)], 1).await;
    let am = AmExchange::new(cluster, leader, &token, response_id).await;
    (leader, got[0].id.expect("an id"), am)
}

/// Asks for task `id`, at version 0, to grow to 2 GiB; returns the update once granted.
async fn grow_to_2_gib(am: &mut AmExchange, id: pb::ContainerIdProto) -> pb::UpdatedContainerProto {
    am.update_until_applied(vec![resize(
        id,
        0,
        pb::ContainerUpdateTypeProto::IncreaseResource,
        2048,
    )])
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_container_grows_when_its_node_has_room_and_shrinks_at_once_reaching_its_node() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    // Room for the AM, the task and 1 GiB more.
    register_node(&cluster, 3072, 8).await;
    let (leader, id, mut am) = one_task(&cluster, "resize").await;
    assert_eq!(queue_used_mb(&cluster, "default").await, 2048);

    // Refusals first: the wrong direction, and beyond the maximum allocation.
    let mut reasons = Vec::new();
    for request in [
        resize(id, 0, pb::ContainerUpdateTypeProto::IncreaseResource, 512),
        resize(
            id,
            0,
            pb::ContainerUpdateTypeProto::DecreaseResource,
            1_000_000,
        ),
    ] {
        let response = am.update(vec![request]).await;
        reasons.extend(response.update_errors.into_iter().map(|e| e.reason));
    }
    assert_eq!(
        reasons,
        ["INVALID_RESIZE_TARGET", "RESOURCE_OUTSIDE_ALLOWED_RANGE"]
    );

    // Grow to 2 GiB; the update arrives once a scheduling pass grants it.
    let grown = grow_to_2_gib(&mut am, id).await;
    assert_eq!(
        grown.update_type,
        Some(pb::ContainerUpdateTypeProto::IncreaseResource.into())
    );
    let container = grown.container.expect("the container");
    assert_eq!((container.id, container.version), (Some(id), 1));
    assert_eq!(container.resource.as_ref().map(|r| r.memory), Some(2048));
    assert_eq!(
        token_memory(&container),
        2048,
        "the token carries the new size"
    );
    assert_eq!(
        queue_used_mb(&cluster, "default").await,
        3072,
        "the increase counts against the queue"
    );

    // The node still runs it at 1 GiB: the AM brings an increase, so the heartbeat is silent.
    let quiet = heartbeat(&cluster, leader, 0, vec![running(id, 1024)], (0, 0)).await;
    assert!(quiet.containers_to_update.is_empty(), "{quiet:?}");

    // Shrink, asking for 512 MB: normalized to the minimum allocation, committed within the
    // call.
    let shrunk = am
        .update(vec![resize(
            id,
            1,
            pb::ContainerUpdateTypeProto::DecreaseResource,
            512,
        )])
        .await;
    assert!(shrunk.update_errors.is_empty(), "{shrunk:?}");
    let updated = shrunk.updated_containers.first().expect("the decrease");
    assert_eq!(
        updated.update_type,
        Some(pb::ContainerUpdateTypeProto::DecreaseResource.into())
    );
    let container = updated.container.as_ref().expect("the container");
    assert_eq!(container.version, 2);
    assert_eq!(token_memory(container), 1024);
    eventually("the queue to be uncharged", || async {
        (queue_used_mb(&cluster, "default").await == 2048).then_some(())
    })
    .await;

    // The node, running it at 2 GiB, hears of the decrease until it reports the new size.
    let told = heartbeat(
        &cluster,
        leader,
        quiet.response_id,
        vec![running(id, 2048)],
        (0, 0),
    )
    .await;
    let sent: Vec<_> = told
        .containers_to_update
        .iter()
        .map(|c| (c.id, c.version, token_memory(c)))
        .collect();
    assert_eq!(sent, vec![(Some(id), 2, 1024)]);
    let applied = heartbeat(
        &cluster,
        leader,
        told.response_id,
        vec![running(id, 1024)],
        (0, 0),
    )
    .await;
    assert!(applied.containers_to_update.is_empty(), "{applied:?}");
    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_increase_its_node_never_applies_is_rolled_back_after_the_token_expiry() {
    let expiry = (
        "yarn.resourcemanager.rm.container-allocation.expiry-interval-ms",
        "2000",
    );
    let mut cluster = new_cluster(3, 0, &[expiry]).await;
    cluster.start_members().await;
    register_node(&cluster, 4096, 8).await;
    let (leader, id, mut am) = one_task(&cluster, "rollback").await;
    let grown = grow_to_2_gib(&mut am, id).await;
    assert_eq!(grown.container.map(|c| c.version), Some(1));
    assert_eq!(queue_used_mb(&cluster, "default").await, 3072);

    // The AM never brings the increase to the node, which keeps running it at 1 GiB.
    let mut response_id = 0;
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while queue_used_mb(&cluster, "default").await != 2048 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no rollback within {DEADLINE:?}"
        );
        let answer = heartbeat(
            &cluster,
            leader,
            response_id,
            vec![running(id, 1024)],
            (0, 0),
        )
        .await;
        response_id = answer.response_id;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let rolled_back = am.update_until_applied(Vec::new()).await;
    assert_eq!(
        rolled_back.update_type,
        Some(pb::ContainerUpdateTypeProto::DecreaseResource.into()),
        "the AM hears of the rollback as a decrease"
    );
    let container = rolled_back.container.expect("the container");
    assert_eq!((container.version, token_memory(&container)), (2, 1024));
    for index in 0..3 {
        cluster.stop(index).await;
    }
}
