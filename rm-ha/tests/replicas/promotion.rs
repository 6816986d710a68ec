//! Container promotion (YARN's PROMOTE_EXECUTION_TYPE update) on three replicas over mutual
//! TLS, played by the test as the AM: an OPPORTUNISTIC container placed by the leader becomes
//! GUARANTEED with version 1 and a fresh container token, the queue is charged for it, bad
//! update requests get YARN's reasons, and a demotion takes it back to OPPORTUNISTIC.

use prost::Message;
use yarn_proto::ids::{ApplicationAttemptId, ContainerId};
use yarn_proto::pb;

use crate::applications::{
    AmExchange, allocate_until, amrm_token, ask, queue_used_mb, register_am, report_queue, submit,
};
use crate::support::{new_cluster, register_node};

fn update(
    id: pb::ContainerIdProto,
    version: i32,
    update_type: pb::ContainerUpdateTypeProto,
) -> pb::UpdateContainerRequestProto {
    pb::UpdateContainerRequestProto {
        container_version: Some(version),
        container_id: Some(id),
        update_type: Some(update_type.into()),
        execution_type: match update_type {
            pb::ContainerUpdateTypeProto::DemoteExecutionType => {
                pb::ExecutionTypeProto::Opportunistic
            }
            _ => pb::ExecutionTypeProto::Guaranteed,
        }
        .into(),
        ..Default::default()
    }
}

fn promote(id: pb::ContainerIdProto, version: i32) -> pb::UpdateContainerRequestProto {
    update(
        id,
        version,
        pb::ContainerUpdateTypeProto::PromoteExecutionType,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opportunistic_container_is_promoted_with_a_new_token_and_charged_to_its_queue() {
    let mut cluster = new_cluster(
        3,
        0,
        &[(
            "yarn.resourcemanager.opportunistic-container-allocation.enabled",
            "true",
        )],
    )
    .await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;
    let app = submit(&cluster, "promote").await;
    let attempt = ApplicationAttemptId::new(app, 1);
    let token = amrm_token(&cluster, app).await;
    let leader = register_am(&cluster, &token).await;
    report_queue(&cluster, leader, 10).await;

    let opportunistic = pb::ResourceRequestProto {
        execution_type_request: Some(pb::ExecutionTypeRequestProto {
            execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
            enforce_execution_type: true,
        }),
        ..ask(1)
    };
    let (got, _, response_id) =
        allocate_until(&cluster, leader, &token, 0, vec![opportunistic], 1).await;
    let container = &got[0];
    assert_eq!(
        container.execution_type(),
        pb::ExecutionTypeProto::Opportunistic
    );
    assert_eq!(container.version, 0);
    let id = container.id.expect("an id");
    assert_eq!(
        queue_used_mb(&cluster, "default").await,
        1024,
        "the AM only"
    );
    let counted = crate::distributed_scheduling::metrics(&cluster).await;
    assert_eq!(
        (
            counted.num_opportunistic_containers_requested_centrally,
            counted.num_opportunistic_containers_allocated_centrally,
            counted.num_opportunistic_containers_allocated_distributed
        ),
        (1, 1, 0)
    );

    // Promote it; the update arrives once a scheduling pass grants it.
    let mut am = AmExchange::new(&cluster, leader, &token, response_id).await;
    let updated = am.update_until_applied(vec![promote(id, 0)]).await;
    assert_eq!(
        updated.update_type,
        Some(pb::ContainerUpdateTypeProto::PromoteExecutionType.into())
    );
    let promoted = updated.container.expect("the container");
    assert_eq!(promoted.id, Some(id));
    assert_eq!(promoted.version, 1);
    assert_eq!(
        promoted.execution_type(),
        pb::ExecutionTypeProto::Guaranteed
    );
    let token_identifier = pb::ContainerTokenIdentifierProto::decode(
        promoted
            .container_token
            .expect("a container token")
            .identifier
            .as_slice(),
    )
    .expect("a container token identifier");
    assert_eq!(token_identifier.version, 1);
    assert_eq!(
        token_identifier.execution_type(),
        pb::ExecutionTypeProto::Guaranteed
    );
    assert_eq!(token_identifier.container_id, Some(id));
    assert_eq!(
        queue_used_mb(&cluster, "default").await,
        2048,
        "the promoted container counts against the queue"
    );

    // Refusals, with YARN's reasons.
    let unknown = ContainerId::new(attempt, ContainerId::try_from(id).unwrap().epoch(), 999)
        .unwrap()
        .into();
    let requests = vec![promote(id, 5), promote(unknown, 0)];
    let response = am.update(requests.clone()).await;
    let errors: Vec<_> = response
        .update_errors
        .iter()
        .map(|e| {
            (
                e.reason.as_str(),
                e.current_container_version,
                e.update_request.clone(),
            )
        })
        .collect();
    assert_eq!(
        errors,
        vec![
            (
                "INCORRECT_CONTAINER_VERSION_ERROR",
                Some(1),
                Some(requests[0].clone())
            ),
            ("INVALID_CONTAINER_ID", None, Some(requests[1].clone())),
        ]
    );
    let already = am.update(vec![promote(id, 1)]).await;
    assert_eq!(
        already
            .update_errors
            .iter()
            .map(|e| e.reason.as_str())
            .collect::<Vec<_>>(),
        vec!["CONTAINER_ALREADY_GUARANTEED"]
    );
    // Demotion needs no room: it is committed within the call that asks for it.
    let demoted = am
        .update(vec![update(
            id,
            1,
            pb::ContainerUpdateTypeProto::DemoteExecutionType,
        )])
        .await;
    assert!(demoted.update_errors.is_empty(), "{demoted:?}");
    let updated = demoted.updated_containers.first().expect("the demotion");
    assert_eq!(
        updated.update_type,
        Some(pb::ContainerUpdateTypeProto::DemoteExecutionType.into())
    );
    let container = updated.container.as_ref().expect("the container");
    assert_eq!(
        (container.version, container.execution_type()),
        (2, pb::ExecutionTypeProto::Opportunistic)
    );
    crate::support::eventually("the queue to be uncharged", || async {
        (queue_used_mb(&cluster, "default").await == 1024).then_some(())
    })
    .await;
    let counted = cluster.replica(leader).state().read(|state| {
        state
            .containers
            .of_application(app.id)
            .filter(|record| !record.is_am)
            .map(|record| (record.execution_type, state.containers.version(&record.key)))
            .collect::<Vec<_>>()
    });
    assert_eq!(
        counted,
        vec![(yarn_rm_ha::state_machine::ExecutionType::Opportunistic, 2)],
        "both updates committed"
    );
    for index in 0..3 {
        cluster.stop(index).await;
    }
}
