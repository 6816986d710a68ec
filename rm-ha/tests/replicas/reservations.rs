//! The ReservationSystem on three replicas: reservations are placed in a reservable queue's
//! plan, refused with the reason when they do not fit or break the queue's sharing policy or
//! are malformed, and survive the leader's loss with nothing lost or booked twice.

use std::collections::BTreeMap;

use tonic::Code;
use yarn_proto::ids::{ApplicationId, ReservationId};
use yarn_proto::pb;
use yarn_security::now_ms;
use yarn_test_support::rm_cluster::RmCluster;

use crate::applications::{queue_used_mb, report};
use crate::support::{
    USER, eventually, new_cluster, on_leader, register_node, set_queue_configuration,
    try_submit_with,
};
use crate::test_am::TestAm;

const MINUTE_MS: i64 = 60_000;

/// `root.a` (half the cluster at most, reservable, one user may hold at most half of its plan
/// at once) and `root.b`.
fn queues() -> BTreeMap<String, String> {
    [
        ("root.queues", "a,b"),
        ("root.acl_submit_applications", "*"),
        ("root.a.capacity", "50"),
        // A gang reservation's queue may use the same share of the plan queue's maximum as of
        // its capacity, as in Hadoop: with both equal it holds exactly its reservation.
        ("root.a.maximum-capacity", "50"),
        ("root.a.reservable", "true"),
        ("root.a.instantaneous-max-capacity", "50"),
        ("root.b.capacity", "50"),
    ]
    .into_iter()
    .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), v.to_owned()))
    .collect()
}

/// Three replicas with the ReservationSystem on, one 8 GB node (so `a`'s plan holds 4 GB) and
/// `queues()`.
async fn cluster() -> RmCluster {
    let extra = [("yarn.resourcemanager.reservation-system.enable", "true")];
    let mut cluster = new_cluster(3, 0, &extra).await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;
    set_queue_configuration(&cluster, queues()).await;
    cluster
}

/// `gangs` gangs of `gang` 1 GB containers for ten minutes, between `arrival` and an hour later.
fn definition(arrival: i64, gang: i32, gangs: i32) -> pb::ReservationDefinitionProto {
    pb::ReservationDefinitionProto {
        reservation_requests: Some(pb::ReservationRequestsProto {
            reservation_resources: vec![pb::ReservationRequestProto {
                capability: Some(pb::ResourceProto {
                    memory: 1024,
                    virtual_cores: 1,
                    ..Default::default()
                }),
                num_containers: Some(gang * gangs),
                concurrency: Some(gang),
                duration: Some(10 * MINUTE_MS),
            }],
            interpreter: Some(pb::ReservationRequestInterpreterProto::RAll.into()),
        }),
        arrival,
        deadline: arrival + 60 * MINUTE_MS,
        reservation_name: "nightly".to_owned(),
        ..Default::default()
    }
}

async fn new_reservation(cluster: &RmCluster) -> pb::ReservationIdProto {
    let (_, reply) = on_leader(cluster, "GetNewReservation", |leader| async move {
        let mut client = cluster.client(leader, USER).await;
        client
            .get_new_reservation(pb::GetNewReservationRequestProto {})
            .await
    })
    .await;
    reply.into_inner().reservation_id.expect("an id")
}

/// Submits as `user` on the serving leader: the status of a refusal.
async fn submit(
    cluster: &RmCluster,
    user: &str,
    id: &pb::ReservationIdProto,
    queue: &str,
    definition: pb::ReservationDefinitionProto,
) -> Result<(), tonic::Status> {
    let request = pb::ReservationSubmissionRequestProto {
        queue: queue.to_owned(),
        reservation_definition: Some(definition),
        reservation_id: Some(*id),
    };
    let request = &request;
    let outcome = on_leader(cluster, "SubmitReservation", |leader| async move {
        let mut client = cluster.client(leader, user).await;
        // A refusal is an answer, not a reason to resend.
        Ok(client.submit_reservation(request.clone()).await)
    })
    .await
    .1;
    outcome.map(drop)
}

async fn list(cluster: &RmCluster) -> Vec<pb::ReservationAllocationStateProto> {
    let (_, reply) = on_leader(cluster, "ListReservations", |leader| async move {
        let mut client = cluster.client(leader, USER).await;
        client
            .list_reservations(pb::ReservationListRequestProto {
                queue: "a".to_owned(),
                include_resource_allocations: true,
                ..Default::default()
            })
            .await
    })
    .await;
    reply.into_inner().reservations
}

/// The pieces of one listed reservation: (start, end, memory).
fn pieces(reservation: &pb::ReservationAllocationStateProto) -> Vec<(i64, i64, i64)> {
    reservation
        .allocation_requests
        .iter()
        .map(|piece| {
            let memory = piece.resource.as_ref().map_or(0, |r| r.memory);
            (piece.start_time, piece.end_time, memory)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reservations_are_placed_refused_with_reasons_and_survive_the_leader() {
    let mut cluster = cluster().await;
    // An hour from now, on a whole second (the plan's step).
    let arrival = (now_ms() / 1_000 + 3_600) * 1_000;

    tracing::info!("--- alice reserves two 1 GB containers together, placed as early as allowed");
    let first = new_reservation(&cluster).await;
    submit(&cluster, USER, &first, "a", definition(arrival, 2, 1))
        .await
        .expect("accepted");
    let listed = list(&cluster).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].user, USER);
    assert_eq!(
        pieces(&listed[0]),
        [(arrival, arrival + 10 * MINUTE_MS, 2048)]
    );
    submit(&cluster, USER, &first, "a", definition(arrival, 2, 1))
        .await
        .expect("the same submission again is acknowledged as is");
    let refusal = submit(&cluster, USER, &first, "a", definition(arrival, 1, 1))
        .await
        .unwrap_err();
    assert_eq!(refusal.code(), Code::Aborted, "{refusal:?}");
    assert!(
        refusal
            .message()
            .contains("different reservation definition")
    );

    tracing::info!("--- alice's next goes where she may hold it; what cannot is refused with why");
    let second = new_reservation(&cluster).await;
    submit(&cluster, USER, &second, "a", definition(arrival, 1, 1))
        .await
        .expect("placed after her first");
    let alices_second = list(&cluster)
        .await
        .into_iter()
        .find(|r| r.reservation_id.map(|id| id.id) == Some(second.id));
    assert_eq!(
        pieces(&alices_second.expect("listed")),
        [(arrival + 10 * MINUTE_MS, arrival + 20 * MINUTE_MS, 1024)],
        "the plan has room from the arrival, but alice may hold half of it at once"
    );
    let spare = new_reservation(&cluster).await;
    let refusal = submit(&cluster, USER, &spare, "a", definition(arrival, 3, 1))
        .await
        .unwrap_err();
    assert_eq!(refusal.code(), Code::FailedPrecondition, "{refusal:?}");
    assert!(
        refusal.message().contains("instantaneous-max-capacity"),
        "a gang of 3 GB is more than alice may hold at once: {}",
        refusal.message()
    );
    let whole_hour = |gang: i32| {
        let mut definition = definition(arrival, gang, 1);
        definition
            .reservation_requests
            .as_mut()
            .unwrap()
            .reservation_resources[0]
            .duration = Some(60 * MINUTE_MS);
        definition
    };
    let bobs = new_reservation(&cluster).await;
    submit(&cluster, "bob", &bobs, "a", whole_hour(2))
        .await
        .expect("bob's 2 GB for the whole hour fit beside alice's");
    let refusal = submit(&cluster, "mallory", &spare, "a", whole_hour(1))
        .await
        .unwrap_err();
    assert_eq!(refusal.code(), Code::FailedPrecondition, "{refusal:?}");
    assert!(
        refusal.message().contains("does not fit"),
        "the plan is full for the first ten minutes: {}",
        refusal.message()
    );

    tracing::info!("--- malformed reservations are refused naming the field");
    let mut backwards = definition(arrival, 1, 1);
    backwards.deadline = arrival - MINUTE_MS;
    let refusal = submit(&cluster, "bob", &spare, "a", backwards)
        .await
        .unwrap_err();
    assert_eq!(refusal.code(), Code::InvalidArgument);
    assert!(
        refusal.message().contains("deadline"),
        "{}",
        refusal.message()
    );
    let mut empty = definition(arrival, 1, 1);
    empty
        .reservation_requests
        .as_mut()
        .unwrap()
        .reservation_resources[0]
        .capability = Some(pb::ResourceProto::default());
    let refusal = submit(&cluster, "bob", &spare, "a", empty)
        .await
        .unwrap_err();
    assert!(
        refusal.message().contains("capability"),
        "{}",
        refusal.message()
    );
    let refusal = submit(&cluster, "bob", &spare, "b", definition(arrival, 1, 1))
        .await
        .unwrap_err();
    assert_eq!(refusal.code(), Code::InvalidArgument);
    assert!(
        refusal
            .message()
            .contains("not managed by reservation system")
    );
    let never_handed_out = pb::ReservationIdProto { id: 999, ..spare };
    let refusal = submit(
        &cluster,
        "bob",
        &never_handed_out,
        "a",
        definition(arrival, 1, 1),
    )
    .await
    .unwrap_err();
    assert_eq!(refusal.code(), Code::InvalidArgument, "{refusal:?}");
    assert!(
        refusal.message().contains("is unknown"),
        "{}",
        refusal.message()
    );

    tracing::info!("--- a new leader keeps the plan and books around it");
    let listed_before = list(&cluster).await;
    assert_eq!(listed_before.len(), 3, "alice's two and bob's");
    let leader = cluster.serving_leader(None).await;
    cluster.stop(leader).await;
    // The NodeManager registers with the new leader, as it does after a failover.
    register_node(&cluster, 8192, 8).await;
    assert_eq!(
        list(&cluster).await,
        listed_before,
        "every reservation survived, placed as before"
    );
    let fifth = new_reservation(&cluster).await;
    assert!(fifth.id > spare.id, "ids are never handed out twice");
    submit(&cluster, "mallory", &fifth, "a", definition(arrival, 1, 1))
        .await
        .expect("mallory's fits where the plan still has room");
    let listed = list(&cluster).await;
    let mallorys = listed
        .iter()
        .find(|r| r.user == "mallory")
        .expect("mallory's reservation");
    assert_eq!(
        pieces(mallorys),
        [(arrival + 10 * MINUTE_MS, arrival + 20 * MINUTE_MS, 1024)],
        "the first ten minutes are full, the next have 1 GB left"
    );
    cluster.shutdown().await;
}

/// The serving leader's report of `id`: (state, queue, diagnostics).
async fn placement(cluster: &RmCluster, id: ApplicationId) -> (i32, String, String) {
    let report = report(cluster, id).await;
    (
        report.yarn_application_state,
        report.queue,
        report.diagnostics,
    )
}

/// An unmanaged application submitted to `a`, in reservation `id` when given.
fn in_a(reservation: Option<pb::ReservationIdProto>) -> pb::ApplicationSubmissionContextProto {
    pb::ApplicationSubmissionContextProto {
        queue: Some("a".to_owned()),
        unmanaged_am: true,
        reservation_id: reservation,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_application_runs_in_its_reservation_inside_the_window_and_not_before() {
    let mut cluster = cluster().await;
    // Ten seconds from now, on a whole second (the plan's step), for ten seconds: one gang of
    // two 1 GB containers, half of `a`'s plan.
    let arrival = (now_ms() / 1_000 + 10) * 1_000;
    let mut gang = definition(arrival, 2, 1);
    gang.deadline = arrival + 12_000;
    gang.reservation_requests
        .as_mut()
        .expect("stages")
        .reservation_resources[0]
        .duration = Some(10_000);
    let reservation = new_reservation(&cluster).await;
    submit(&cluster, USER, &reservation, "a", gang)
        .await
        .expect("accepted");
    let name = ReservationId::try_from(reservation)
        .expect("a valid id")
        .to_string();
    let queue = format!("root.a.{name}");

    tracing::info!("--- before the window, an application in the reservation is rejected");
    let (early, _) = try_submit_with(&cluster, in_a(Some(reservation))).await;
    let (state, _, diagnostics) = eventually("the early application's verdict", || async {
        let placed = placement(&cluster, early).await;
        (placed.0 != pb::YarnApplicationStateProto::Submitted as i32
            && placed.0 != pb::YarnApplicationStateProto::New as i32)
            .then_some(placed)
    })
    .await;
    assert_eq!(state, pb::YarnApplicationStateProto::Failed as i32);
    assert!(
        diagnostics.contains(&format!(
            "reservation {name}, which is not currently active"
        )),
        "{diagnostics}"
    );

    tracing::info!("--- without a reservation, an application runs in a's default queue");
    let (plain, _) = TestAm::submit_with(&cluster, in_a(None)).await;
    assert_eq!(placement(&cluster, plain).await.1, "root.a.a-default");

    tracing::info!("--- inside the window, it runs in the reservation's queue, at its size");
    eventually("the reservation's queue", || async {
        let leader = cluster.serving_leader(None).await;
        let mut client = cluster.client(leader, USER).await;
        let request = pb::GetQueueInfoRequestProto {
            queue_name: name.clone(),
            ..Default::default()
        };
        client.get_queue_info(request).await.ok().map(drop)
    })
    .await;
    assert!(now_ms() >= arrival, "no queue before the window");
    let (inside, mut am) = TestAm::submit_with(&cluster, in_a(Some(reservation))).await;
    assert_eq!(placement(&cluster, inside).await.1, queue);
    am.heartbeat(&cluster, 4).await;
    am.until(&cluster, "the reserved gang", |am| am.held.len() == 2)
        .await;
    for _ in 0..10 {
        am.heartbeat(&cluster, 0).await;
    }
    assert_eq!(am.held.len(), 2, "a gang reservation is held to its size");
    assert_eq!(queue_used_mb(&cluster, &name).await, 2048);

    tracing::info!("--- a new leader keeps the reservation's queue and its application");
    let leader = cluster.serving_leader(None).await;
    cluster.stop(leader).await;
    register_node(&cluster, 8192, 8).await;
    let placed = placement(&cluster, inside).await.1;
    assert!(
        placed == queue || (placed == "root.a.a-default" && now_ms() >= arrival + 10_000),
        "{placed}"
    );
    am.heartbeat(&cluster, 0).await;
    assert_eq!(am.held.len(), 2, "its containers survived the failover");

    tracing::info!("--- when the window ends, the application moves to the default queue");
    let moved = eventually("the move on expiry", || async {
        let (state, placed, _) = placement(&cluster, inside).await;
        (placed == "root.a.a-default").then_some(state)
    })
    .await;
    assert_eq!(moved, pb::YarnApplicationStateProto::Running as i32);
    assert!(now_ms() >= arrival + 10_000, "not before the window's end");
    cluster.shutdown().await;
}
