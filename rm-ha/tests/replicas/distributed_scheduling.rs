//! DistributedSchedulingAMProtocol on three replicas over mutual TLS, played by the test as an
//! NM's AMRMProxy: registration with the epoch's container_id_start and the least-loaded nodes,
//! containers placed by the proxy recorded once (and refused, naming them, when they break a
//! rule), their completion heard from the NodeManager, the counters, the node report's
//! opportunistic load, all of it through a failover, and a second attempt's proxy counting
//! below the first's in the same epoch.

use tonic::Code;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use yarn_proto::pb;
use yarn_proto::token_metadata::refused_remote_containers;
use yarn_test_support::rm_cluster::RmCluster;

use crate::applications::{amrm_token, containers, submit, with_token};
use crate::support::{NM_HOST, USER, eventually, new_cluster, on_leader, register_node};

const DISTRIBUTED: [(&str, &str); 1] =
    [("yarn.nodemanager.distributed-scheduling.enabled", "true")];

fn node_id() -> pb::NodeIdProto {
    pb::NodeIdProto {
        host: NM_HOST.to_owned(),
        port: 45454,
    }
}

/// One heartbeat of the registered node on `leader`, echoing `response_id`, with
/// `statuses` and an opportunistic load of `running` running and `queued` queued containers.
pub(crate) async fn heartbeat(
    cluster: &RmCluster,
    leader: usize,
    response_id: i32,
    statuses: Vec<pb::ContainerStatusProto>,
    (running, queued): (i32, i32),
) -> pb::NodeHeartbeatResponseProto {
    let heartbeat = pb::NodeHeartbeatRequestProto {
        node_status: Some(pb::NodeStatusProto {
            node_id: Some(node_id()),
            response_id,
            containers_statuses: statuses,
            opportunistic_containers_status: Some(pb::OpportunisticContainersStatusProto {
                running_opport_containers: running,
                opport_memory_used: i64::from(running) * 512,
                opport_cores_used: running,
                queued_opport_containers: queued,
                wait_queue_length: queued,
                opport_queue_capacity: 10,
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    cluster
        .resource_tracker(leader, NM_HOST)
        .await
        .node_heartbeat(heartbeat)
        .await
        .expect("a heartbeat answer")
        .into_inner()
}

/// A 512 MB container the proxy placed on the registered node, numbered `raw`.
fn placed(attempt: ApplicationAttemptId, raw: i64) -> pb::ContainerProto {
    pb::ContainerProto {
        id: Some(ContainerId::from_raw(attempt, raw).expect("an id").into()),
        node_id: Some(node_id()),
        resource: Some(pb::ResourceProto {
            memory: 512,
            virtual_cores: 1,
            ..Default::default()
        }),
        priority: Some(pb::PriorityProto { priority: 2 }),
        execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
        ..Default::default()
    }
}

/// Registers the proxy of `token`'s attempt for distributed scheduling on the serving leader.
async fn register_for_distributed_scheduling(
    cluster: &RmCluster,
    token: &pb::TokenProto,
) -> (usize, pb::RegisterDistributedSchedulingAmResponseProto) {
    on_leader(
        cluster,
        "RegisterApplicationMasterForDistributedScheduling",
        |leader| async move {
            let reply = cluster
                .distributed_scheduler(leader, NM_HOST)
                .await
                .register_application_master_for_distributed_scheduling(with_token(
                    pb::RegisterApplicationMasterRequestProto::default(),
                    token,
                ))
                .await?;
            Ok(reply.into_inner())
        },
    )
    .await
}

async fn allocate(
    cluster: &RmCluster,
    leader: usize,
    token: &pb::TokenProto,
    response_id: i32,
    allocated_containers: Vec<pb::ContainerProto>,
) -> Result<pb::DistributedSchedulingAllocateResponseProto, tonic::Status> {
    let request = pb::DistributedSchedulingAllocateRequestProto {
        allocate_request: Some(pb::AllocateRequestProto {
            response_id,
            ..Default::default()
        }),
        allocated_containers,
    };
    cluster
        .distributed_scheduler(leader, NM_HOST)
        .await
        .allocate_for_distributed_scheduling(with_token(request, token))
        .await
        .map(tonic::Response::into_inner)
}

/// The containers of `attempt` the serving leader reports, by raw id.
async fn container_reports(
    cluster: &RmCluster,
    attempt: ApplicationAttemptId,
) -> Vec<(i64, pb::ContainerStateProto, pb::ExecutionTypeProto)> {
    containers(cluster, attempt)
        .await
        .into_iter()
        .map(|report| {
            let id = report.container_id.expect("an id").id;
            (id, report.container_state(), report.execution_type())
        })
        .collect()
}

pub(crate) async fn metrics(cluster: &RmCluster) -> pb::YarnClusterMetricsProto {
    let (_, reply) = on_leader(cluster, "GetClusterMetrics", |leader| async move {
        cluster
            .client(leader, USER)
            .await
            .get_cluster_metrics(pb::GetClusterMetricsRequestProto {})
            .await
    })
    .await;
    reply.into_inner().cluster_metrics.expect("metrics")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_amrmproxys_containers_are_recorded_once_completed_by_the_node_and_kept_by_a_new_leader()
{
    let mut cluster = new_cluster(3, 0, &DISTRIBUTED).await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;
    let leader = cluster.serving_leader(None).await;
    // The node's first heartbeat ranks it among the least-loaded nodes.
    heartbeat(&cluster, leader, 0, Vec::new(), (0, 0)).await;
    let app = submit(&cluster, "distributed").await;
    let attempt = ApplicationAttemptId::new(app, 1);
    let token = amrm_token(&cluster, app).await;

    // Nodes are re-ranked every sorting interval; registering again is idempotent.
    let (leader, registered) = eventually("the node among the nodes for scheduling", || async {
        let (leader, registered) = register_for_distributed_scheduling(&cluster, &token).await;
        (!registered.nodes_for_scheduling.is_empty()).then_some((leader, registered))
    })
    .await;
    let epoch = cluster.replica(leader).state().read(|state| state.epoch);
    let start = i64::try_from(epoch).unwrap() << 40;
    assert_eq!(registered.container_id_start, start);
    assert_eq!(
        registered
            .nodes_for_scheduling
            .iter()
            .map(|node| (node.node_id.clone(), node.http_address.as_str()))
            .collect::<Vec<_>>(),
        vec![(Some(node_id()), "nm-host-1:8042")]
    );
    assert_eq!(registered.min_container_resource.unwrap().memory, 1024);
    assert_eq!(registered.incr_container_resource.unwrap().memory, 1024);
    assert_eq!(registered.max_container_resource.unwrap().memory, 8192);
    assert_eq!(registered.container_token_expiry_interval, 600_000);
    assert_eq!(registered.register_response.unwrap().queue, "root.default");

    // The proxy reports three containers it placed, counting down from the start.
    let three: Vec<_> = (1..=3).map(|n| placed(attempt, start - n)).collect();
    let first = allocate(&cluster, leader, &token, 0, three.clone())
        .await
        .expect("the report is recorded");
    let response = first.allocate_response.expect("an allocate response");
    assert!(
        response.allocated_containers.is_empty(),
        "the AM has the proxy's containers from the proxy"
    );
    assert!(!first.nodes_for_scheduling.is_empty());
    let opportunistic_running =
        |reports: &[(i64, pb::ContainerStateProto, pb::ExecutionTypeProto)], raw: i64| {
            reports.contains(&(
                raw,
                pb::ContainerStateProto::CRunning,
                pb::ExecutionTypeProto::Opportunistic,
            ))
        };
    let reports = container_reports(&cluster, attempt).await;
    for n in 1..=3 {
        assert!(opportunistic_running(&reports, start - n), "{reports:?}");
    }
    assert_eq!(reports.len(), 4, "the AM and the three: {reports:?}");
    let last_issued = cluster
        .replica(leader)
        .state()
        .read(|state| state.containers.last_issued(app.id));
    assert!(
        last_issued.is_some_and(|raw| raw > start),
        "the RM's own sequence is untouched"
    );

    // Reported again: nothing changes.
    let again = allocate(
        &cluster,
        leader,
        &token,
        response.response_id,
        three.clone(),
    )
    .await
    .expect("a repeated report is fine");
    let response_id = again.allocate_response.expect("a response").response_id;
    assert_eq!(container_reports(&cluster, attempt).await.len(), 4);

    // Bogus reports are refused whole, with the rule they break named.
    let other_attempt = ApplicationAttemptId::new(app, 2);
    let mut guaranteed = placed(attempt, start - 11);
    guaranteed.execution_type = pb::ExecutionTypeProto::Guaranteed.into();
    let bogus = [
        (
            vec![
                placed(attempt, start - 10),
                placed(other_attempt, start - 12),
            ],
            "belongs to",
        ),
        (vec![guaranteed], "OPPORTUNISTIC"),
        (vec![placed(attempt, start + 5)], "container_id_start"),
    ];
    for (report, expected) in bogus {
        let ids: Vec<i64> = report.iter().map(|c| c.id.expect("an id").id).collect();
        let refused = allocate(&cluster, leader, &token, response_id, report)
            .await
            .expect_err("a bogus report");
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused}");
        assert!(refused.message().contains(expected), "{refused}");
        // The proxy learns which containers to drop, so a refusal never blocks it for good.
        assert_eq!(refused_remote_containers(&refused), Some(ids), "{refused}");
    }
    assert_eq!(
        container_reports(&cluster, attempt).await.len(),
        4,
        "nothing recorded"
    );

    let counted = metrics(&cluster).await;
    assert_eq!(counted.num_opportunistic_containers_requested_centrally, 0);
    assert_eq!(
        counted.num_opportunistic_containers_allocated_distributed,
        3
    );

    // The node reports one of them completed, one running, and one it started that the proxy
    // has not reported yet: the RM completes the first and leaves the unknown one alone.
    let status = |raw: i64, state: pb::ContainerStateProto| pb::ContainerStatusProto {
        container_id: Some(ContainerId::from_raw(attempt, raw).unwrap().into()),
        state: state.into(),
        exit_status: (state == pb::ContainerStateProto::CComplete).then_some(0),
        ..Default::default()
    };
    let answer = heartbeat(
        &cluster,
        leader,
        1,
        vec![
            status(start - 1, pb::ContainerStateProto::CComplete),
            status(start - 2, pb::ContainerStateProto::CRunning),
            status(start - 20, pb::ContainerStateProto::CRunning),
        ],
        (2, 3),
    )
    .await;
    assert!(answer.containers_to_cleanup.is_empty(), "{answer:?}");
    let done = allocate(&cluster, leader, &token, response_id, Vec::new())
        .await
        .expect("allocate")
        .allocate_response
        .expect("a response");
    let completed: Vec<i64> = done
        .completed_container_statuses
        .iter()
        .map(|status| status.container_id.expect("an id").id)
        .collect();
    assert_eq!(completed, vec![start - 1], "the AM hears of the completion");

    // The node report carries the load of the node's last heartbeat.
    let (_, nodes) = on_leader(&cluster, "GetClusterNodes", |leader| {
        let cluster = &cluster;
        async move {
            cluster
                .client(leader, USER)
                .await
                .get_cluster_nodes(pb::GetClusterNodesRequestProto::default())
                .await
        }
    })
    .await;
    let report = nodes.into_inner().node_reports.pop().expect("the node");
    assert_eq!(
        (
            report.num_running_opportunistic_containers,
            report.num_queued_opportunistic_containers,
            report.opportunistic_memory_used,
            report.opportunistic_vcores_used
        ),
        (2, 3, 1024, 2)
    );

    // A new leader holds the same containers; its counters start afresh, it hands the proxy
    // the new epoch's start, and records the containers counted down from there.
    cluster.stop(leader).await;
    let successor = cluster.serving_leader(Some(leader)).await;
    let reports = eventually("the new leader to report the containers", || async {
        let reports = container_reports(&cluster, attempt).await;
        (reports.len() == 4).then_some(reports)
    })
    .await;
    assert!(reports.contains(&(
        start - 1,
        pb::ContainerStateProto::CComplete,
        pb::ExecutionTypeProto::Opportunistic
    )));
    for n in 2..=3 {
        assert!(opportunistic_running(&reports, start - n), "{reports:?}");
    }
    assert_eq!(
        metrics(&cluster)
            .await
            .num_opportunistic_containers_allocated_distributed,
        0
    );
    let (_, again) = register_for_distributed_scheduling(&cluster, &token).await;
    let new_epoch = cluster.replica(successor).state().read(|state| state.epoch);
    assert!(new_epoch > epoch);
    let new_start = i64::try_from(new_epoch).unwrap() << 40;
    assert_eq!(again.container_id_start, new_start);
    // The node registers with the new leader as a NodeManager does after a RESYNC.
    register_node(&cluster, 8192, 8).await;
    allocate(
        &cluster,
        successor,
        &token,
        0,
        vec![placed(attempt, new_start - 1)],
    )
    .await
    .expect("a container from the new start is recorded");
    let reports = container_reports(&cluster, attempt).await;
    assert!(
        opportunistic_running(&reports, new_start - 1),
        "{reports:?}"
    );
    for index in 0..3 {
        if index != leader {
            cluster.stop(index).await;
        }
    }
}

/// Fails `attempt` through the client protocol, as `yarn applicationattempt -fail` does.
async fn fail_attempt(cluster: &RmCluster, attempt: ApplicationAttemptId) {
    on_leader(cluster, "FailApplicationAttempt", |leader| async move {
        cluster
            .client(leader, USER)
            .await
            .fail_application_attempt(pb::FailApplicationAttemptRequestProto {
                application_attempt_id: Some(attempt.into()),
            })
            .await
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_attempt_counts_below_the_first_attempts_containers_in_the_same_epoch() {
    let mut cluster = new_cluster(3, 0, &DISTRIBUTED).await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;
    let leader = cluster.serving_leader(None).await;
    heartbeat(&cluster, leader, 0, Vec::new(), (0, 0)).await;
    let app = submit(&cluster, "two-attempts").await;
    let first = ApplicationAttemptId::new(app, 1);
    let first_token = amrm_token(&cluster, app).await;
    let (leader, registered) = register_for_distributed_scheduling(&cluster, &first_token).await;
    let epoch = cluster.replica(leader).state().read(|state| state.epoch);
    let start = i64::try_from(epoch).unwrap() << 40;
    assert_eq!(registered.container_id_start, start);
    let theirs: Vec<_> = (1..=3).map(|n| placed(first, start - n)).collect();
    allocate(&cluster, leader, &first_token, 0, theirs)
        .await
        .expect("attempt 1's containers are recorded");

    // Attempt 1 fails; attempt 2's AM registers its proxy under the same leader and epoch.
    fail_attempt(&cluster, first).await;
    let second = ApplicationAttemptId::new(app, 2);
    let second_token = cluster.am_token(second).await;
    let (leader, registered) = register_for_distributed_scheduling(&cluster, &second_token).await;
    assert_eq!(
        cluster.replica(leader).state().read(|state| state.epoch),
        epoch,
        "no failover in between"
    );
    let second_start = registered.container_id_start;
    assert_eq!(
        second_start,
        start - 3,
        "below every id attempt 1's proxy had recorded"
    );

    let ours: Vec<_> = (1..=2).map(|n| placed(second, second_start - n)).collect();
    let response = allocate(&cluster, leader, &second_token, 0, ours)
        .await
        .expect("attempt 2's containers are recorded")
        .allocate_response
        .expect("a response");
    let reports = container_reports(&cluster, second).await;
    for n in 1..=2 {
        assert!(
            reports.contains(&(
                second_start - n,
                pb::ContainerStateProto::CRunning,
                pb::ExecutionTypeProto::Opportunistic
            )),
            "{reports:?}"
        );
    }
    // Attempt 1's containers stay its own (completed with it), and attempt 2 goes on.
    let earlier: Vec<i64> = container_reports(&cluster, first)
        .await
        .into_iter()
        .map(|(raw, _, _)| raw)
        .filter(|raw| *raw < start)
        .collect();
    assert_eq!(earlier, [start - 3, start - 2, start - 1]);
    allocate(
        &cluster,
        leader,
        &second_token,
        response.response_id,
        Vec::new(),
    )
    .await
    .expect("later allocates of attempt 2 are served");
    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resourcemanager_without_opportunistic_allocation_refuses_distributed_scheduling() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;
    let app: ApplicationId = submit(&cluster, "plain").await;
    let token = amrm_token(&cluster, app).await;
    let leader = cluster.serving_leader(None).await;
    let refused = cluster
        .distributed_scheduler(leader, NM_HOST)
        .await
        .register_application_master_for_distributed_scheduling(with_token(
            pb::RegisterApplicationMasterRequestProto::default(),
            &token,
        ))
        .await
        .expect_err("not served");
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused}");
    assert!(
        refused
            .message()
            .contains("yarn.nodemanager.distributed-scheduling.enabled"),
        "{refused}"
    );
    for index in 0..3 {
        cluster.stop(index).await;
    }
}
