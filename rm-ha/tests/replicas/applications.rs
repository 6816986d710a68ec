//! The ApplicationMaster protocol on three replicas over mutual TLS, played by the test as the
//! AM: AMRMToken authentication, allocation only of committed containers, response-id dedupe,
//! re-registration after a failover without losing or repeating a container, finish, kill, and
//! the end of an AM container whose node never reports it.

use std::collections::BTreeSet;

use tonic::Request;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use yarn_proto::pb::{self, YarnApplicationStateProto};
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, insert_token, is_not_registered};
use yarn_test_support::rm_cluster::{DEADLINE, RmCluster};

use crate::support::{
    NM_HOST, USER, eventually, new_cluster, on_leader, register_node, submit_with,
};

pub(crate) async fn submit(cluster: &RmCluster, name: &str) -> ApplicationId {
    submit_with(
        cluster,
        pb::ApplicationSubmissionContextProto {
            application_name: Some(name.to_owned()),
            resource: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                ..Default::default()
            }),
            ..Default::default()
        },
    )
    .await
}

pub(crate) async fn report(cluster: &RmCluster, id: ApplicationId) -> pb::ApplicationReportProto {
    let (_, report) = on_leader(cluster, "GetApplicationReport", |leader| async move {
        let reply = cluster
            .client(leader, USER)
            .await
            .get_application_report(pb::GetApplicationReportRequestProto {
                application_id: Some(id.into()),
            })
            .await?;
        Ok(reply.into_inner().application_report.expect("a report"))
    })
    .await;
    report
}

/// Waits until the leader has committed the AM container of `id`'s first attempt, then signs
/// the attempt's AMRMToken with the replicated key, as the AM launcher does.
pub(crate) async fn amrm_token(cluster: &RmCluster, id: ApplicationId) -> pb::TokenProto {
    cluster.am_token(ApplicationAttemptId::new(id, 1)).await
}

pub(crate) fn with_token<T>(message: T, token: &pb::TokenProto) -> Request<T> {
    let mut request = Request::new(message);
    insert_token(&mut request, AMRM_TOKEN_METADATA_KEY, token);
    request
}

pub(crate) fn ask(count: i32) -> pb::ResourceRequestProto {
    pb::ResourceRequestProto {
        priority: Some(pb::PriorityProto { priority: 1 }),
        resource_name: "*".to_owned(),
        capability: Some(pb::ResourceProto {
            memory: 1024,
            virtual_cores: 1,
            ..Default::default()
        }),
        num_containers: count,
        ..Default::default()
    }
}

/// Registers as the AM of `token` on the serving leader; returns the leader's index.
pub(crate) async fn register_am(cluster: &RmCluster, token: &pb::TokenProto) -> usize {
    let (leader, _) = on_leader(cluster, "RegisterApplicationMaster", |leader| async move {
        cluster
            .scheduler(leader, USER)
            .await
            .register_application_master(with_token(
                pb::RegisterApplicationMasterRequestProto {
                    host: "am-host".to_owned(),
                    rpc_port: 4242,
                    tracking_url: String::new(),
                },
                token,
            ))
            .await
    })
    .await;
    leader
}

/// Unregisters the attempt of `token` on `leader` with `status` and `diagnostics`.
pub(crate) async fn finish_am(
    cluster: &RmCluster,
    leader: usize,
    token: &pb::TokenProto,
    status: pb::FinalApplicationStatusProto,
    diagnostics: String,
) -> pb::FinishApplicationMasterResponseProto {
    cluster
        .scheduler(leader, USER)
        .await
        .finish_application_master(with_token(
            pb::FinishApplicationMasterRequestProto {
                diagnostics,
                final_application_status: status.into(),
                ..Default::default()
            },
            token,
        ))
        .await
        .expect("finish")
        .into_inner()
}

/// The container reports of `attempt` from the serving leader.
pub(crate) async fn containers(
    cluster: &RmCluster,
    attempt: ApplicationAttemptId,
) -> Vec<pb::ContainerReportProto> {
    let (_, reply) = on_leader(cluster, "GetContainers", |leader| async move {
        cluster
            .client(leader, USER)
            .await
            .get_containers(pb::GetContainersRequestProto {
                application_attempt_id: Some(attempt.into()),
            })
            .await
    })
    .await;
    reply.into_inner().containers
}

/// Heartbeats on `leader` from `response_id` (first with `asks`) until `wanted` containers
/// arrived; returns them, the NM tokens and the last response id.
pub(crate) async fn allocate_until(
    cluster: &RmCluster,
    leader: usize,
    token: &pb::TokenProto,
    mut response_id: i32,
    asks: Vec<pb::ResourceRequestProto>,
    wanted: usize,
) -> (Vec<pb::ContainerProto>, Vec<pb::NmTokenProto>, i32) {
    let mut client = cluster.scheduler(leader, USER).await;
    let mut got = Vec::new();
    let mut nm_tokens = Vec::new();
    let mut asks = asks;
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while got.len() < wanted {
        assert!(
            tokio::time::Instant::now() < deadline,
            "only {} of {wanted} containers within {DEADLINE:?}",
            got.len()
        );
        let request = pb::AllocateRequestProto {
            ask: std::mem::take(&mut asks),
            response_id,
            ..Default::default()
        };
        let response = client
            .allocate(with_token(request, token))
            .await
            .expect("allocate")
            .into_inner();
        response_id = response.response_id;
        got.extend(response.allocated_containers);
        nm_tokens.extend(response.nm_tokens);
        // The scheduling loop commits allocations every few milliseconds.
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    (got, nm_tokens, response_id)
}

/// The client the AM of `token` allocates with on `leader`, and the next response id.
pub(crate) struct AmExchange {
    client: pb::application_master_protocol_client::ApplicationMasterProtocolClient<
        tonic::transport::Channel,
    >,
    token: pb::TokenProto,
    /// The id the next request carries.
    pub(crate) response_id: i32,
}

impl AmExchange {
    pub(crate) async fn new(
        cluster: &RmCluster,
        leader: usize,
        token: &pb::TokenProto,
        response_id: i32,
    ) -> Self {
        Self {
            client: cluster.scheduler(leader, USER).await,
            token: token.clone(),
            response_id,
        }
    }

    /// One allocate carrying `update_requests`.
    pub(crate) async fn update(
        &mut self,
        update_requests: Vec<pb::UpdateContainerRequestProto>,
    ) -> pb::AllocateResponseProto {
        let request = pb::AllocateRequestProto {
            response_id: self.response_id,
            update_requests,
            ..Default::default()
        };
        let response = self
            .client
            .allocate(with_token(request, &self.token))
            .await
            .expect("allocate")
            .into_inner();
        self.response_id = response.response_id;
        response
    }

    /// Sends `update_requests`, then allocates until an update comes back, refusing none.
    pub(crate) async fn update_until_applied(
        &mut self,
        update_requests: Vec<pb::UpdateContainerRequestProto>,
    ) -> pb::UpdatedContainerProto {
        let mut updates = update_requests;
        let deadline = tokio::time::Instant::now() + DEADLINE;
        loop {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no update within {DEADLINE:?}"
            );
            let response = self.update(std::mem::take(&mut updates)).await;
            assert!(response.update_errors.is_empty(), "{response:?}");
            if let Some(updated) = response.updated_containers.into_iter().next() {
                return updated;
            }
            // The scheduling loop grants updates that need room every few milliseconds.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}

fn ids(containers: &[pb::ContainerProto]) -> BTreeSet<ContainerId> {
    containers
        .iter()
        .map(|c| ContainerId::try_from(c.id.expect("an id")).expect("a valid id"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_am_allocates_through_a_failover_without_losing_or_repeating_containers() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    // A roomy node, so that the default queue's AM share (10%) fits every AM of the test.
    register_node(&cluster, 65536, 64).await;
    let app = submit(&cluster, "dshell").await;
    let other = submit(&cluster, "other").await;
    let token = amrm_token(&cluster, app).await;
    let other_token = amrm_token(&cluster, other).await;

    // Calls without a token, or with a token re-pointed at another application, are refused.
    let leader = register_am(&cluster, &token).await;
    let missing = cluster
        .scheduler(leader, USER)
        .await
        .allocate(pb::AllocateRequestProto::default())
        .await
        .expect_err("no token");
    assert_eq!(missing.code(), tonic::Code::Unauthenticated, "{missing}");
    let mut forged = token.clone();
    forged.identifier = other_token.identifier.clone();
    let refused = cluster
        .scheduler(leader, USER)
        .await
        .allocate(with_token(pb::AllocateRequestProto::default(), &forged))
        .await
        .expect_err("a forged token");
    assert_eq!(refused.code(), tonic::Code::Unauthenticated, "{refused}");
    assert_eq!(
        report(&cluster, app).await.yarn_application_state(),
        YarnApplicationStateProto::Running
    );

    let (first, nm_tokens, response_id) =
        allocate_until(&cluster, leader, &token, 0, vec![ask(2)], 2).await;
    assert_eq!(first.len(), 2, "exactly what was asked for: {first:?}");
    for container in &first {
        assert!(container.container_token.is_some());
        assert_eq!(container.node_id.as_ref().unwrap().host, NM_HOST);
    }
    assert_eq!(nm_tokens.len(), 1, "one NM token for the one node");

    // A resend of the last request gets the last response; a response id out of sequence is
    // refused.
    let mut client = cluster.scheduler(leader, USER).await;
    let again = |response_id| pb::AllocateRequestProto {
        response_id,
        ..Default::default()
    };
    let next = client
        .allocate(with_token(again(response_id), &token))
        .await
        .expect("a fresh allocate")
        .into_inner();
    let resent = client
        .allocate(with_token(again(response_id), &token))
        .await
        .expect("a resend")
        .into_inner();
    assert_eq!(next, resent);
    // Headroom: what the attempt may still get, below the cluster and above nothing, since
    // the default queue may grow to the whole 64 GiB node of which 3 GiB are used.
    let headroom = next.limit.expect("headroom in every allocate response");
    assert!(
        headroom.memory > 0 && headroom.memory <= 65536 - 3 * 1024,
        "{headroom:?}"
    );
    let skewed = client
        .allocate(with_token(again(response_id + 7), &token))
        .await
        .expect_err("out of sequence");
    assert_eq!(skewed.code(), tonic::Code::InvalidArgument, "{skewed}");

    // The leader dies. Its successor does not know the AM; after re-registering, the AM gets
    // the committed containers again (same ids, none new) and can release one.
    cluster.stop(leader).await;
    let successor = cluster.serving_leader(Some(leader)).await;
    let unknown = eventually("the successor to answer allocate", || async {
        match cluster
            .scheduler(successor, USER)
            .await
            .allocate(with_token(again(next.response_id), &token))
            .await
        {
            Err(status) if is_not_registered(&status) => Some(status),
            Err(status) if status.code() == tonic::Code::Unavailable => None,
            other => panic!("expected not registered, got {other:?}"),
        }
    })
    .await;
    assert_eq!(unknown.code(), tonic::Code::FailedPrecondition);
    let successor = register_am(&cluster, &token).await;
    let (redelivered, _, response_id) =
        allocate_until(&cluster, successor, &token, 0, Vec::new(), 2).await;
    assert_eq!(ids(&redelivered), ids(&first), "no container lost or new");

    let released = first[0].id.expect("an id");
    let mut client = cluster.scheduler(successor, USER).await;
    let response = client
        .allocate(with_token(
            pb::AllocateRequestProto {
                release: vec![released],
                response_id,
                ..Default::default()
            },
            &token,
        ))
        .await
        .expect("release")
        .into_inner();
    let completed: Vec<_> = response
        .completed_container_statuses
        .iter()
        .map(|s| s.container_id.expect("an id"))
        .collect();
    assert_eq!(completed, vec![released], "the release completes at once");
    assert!(response.allocated_containers.is_empty());

    // Finish, and again: both succeed.
    for _ in 0..2 {
        let succeeded = pb::FinalApplicationStatusProto::AppSucceeded;
        let finished = finish_am(&cluster, successor, &token, succeeded, "done".to_owned()).await;
        assert!(finished.is_unregistered);
    }
    let done = report(&cluster, app).await;
    assert_eq!(
        (
            done.yarn_application_state(),
            done.final_application_status()
        ),
        (
            YarnApplicationStateProto::Finished,
            pb::FinalApplicationStatusProto::AppSucceeded
        )
    );

    // The other application is killed; its attempt and AM container are reported.
    let cluster_ref = &cluster;
    assert!(kill(cluster_ref, other).await, "the kill is completed");
    let killed = report(&cluster, other).await;
    assert_eq!(
        killed.yarn_application_state(),
        YarnApplicationStateProto::Killed
    );
    assert!(
        killed.diagnostics.contains("killed by user"),
        "{}",
        killed.diagnostics
    );
    let (_, attempts) = on_leader(cluster_ref, "GetApplicationAttempts", |leader| async move {
        cluster_ref
            .client(leader, USER)
            .await
            .get_application_attempts(pb::GetApplicationAttemptsRequestProto {
                application_id: Some(other.into()),
            })
            .await
    })
    .await;
    let attempts = attempts.into_inner().application_attempts;
    assert_eq!(attempts.len(), 1);
    assert_eq!(
        attempts[0].yarn_application_attempt_state(),
        pb::YarnApplicationAttemptStateProto::AppAttemptKilled
    );
    assert!(attempts[0].am_container_id.is_some());
    // The killed application's AM can no longer allocate: it is told to shut down.
    let leader = cluster.serving_leader(None).await;
    let shutdown = cluster
        .scheduler(leader, USER)
        .await
        .allocate(with_token(
            pb::AllocateRequestProto::default(),
            &other_token,
        ))
        .await
        .expect("an answer")
        .into_inner();
    assert_eq!(shutdown.a_m_command(), pb::AmCommandProto::AmShutdown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_am_container_its_node_never_reports_completes_an_expiry_after_its_application() {
    let mut cluster = new_cluster(
        3,
        0,
        &[("yarn.am.liveness-monitor.expiry-interval-ms", "1000")],
    )
    .await;
    cluster.start_members().await;
    // The node registers and then never heartbeats: nobody reports the AM process's exit.
    register_node(&cluster, 65536, 64).await;
    let app = submit(&cluster, "dshell").await;
    let token = amrm_token(&cluster, app).await;
    let leader = register_am(&cluster, &token).await;
    let succeeded = pb::FinalApplicationStatusProto::AppSucceeded;
    let finished = finish_am(&cluster, leader, &token, succeeded, String::new()).await;
    assert!(finished.is_unregistered);

    tracing::info!("--- the AM container completes about an expiry interval later");
    let attempt = ApplicationAttemptId::new(app, 1);
    let ended = eventually("the AM container to complete", || async {
        let [am] = containers(&cluster, attempt).await.try_into().ok()?;
        (am.container_state() == pb::ContainerStateProto::CComplete).then_some(am)
    })
    .await;
    assert_eq!(ended.container_exit_status, Some(-100), "YARN's ABORTED");
    assert!(
        ended
            .diagnostics_info
            .starts_with("Container of a completed application"),
        "{}",
        ended.diagnostics_info
    );
    let done = report(&cluster, app).await;
    assert!(
        ended.finish_time >= done.finish_time + 1000,
        "not before the expiry: finished at {}, the application at {}",
        ended.finish_time,
        done.finish_time
    );
}

/// `root.a` and `root.b` open to everyone (b capped at half the cluster), `root.c` STOPPED.
fn movable_queues() -> std::collections::BTreeMap<String, String> {
    [
        ("root.queues", "a,b,c"),
        ("root.acl_submit_applications", " "),
        ("root.acl_administer_queue", " "),
        ("maximum-am-resource-percent", "1.0"),
        ("root.a.capacity", "40"),
        ("root.a.acl_submit_applications", "*"),
        ("root.b.capacity", "40"),
        ("root.b.maximum-capacity", "50"),
        ("root.b.acl_submit_applications", "*"),
        ("root.c.capacity", "20"),
        ("root.c.state", "STOPPED"),
    ]
    .into_iter()
    .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), v.to_owned()))
    .collect()
}

pub(crate) async fn queue_used_mb(cluster: &RmCluster, queue: &str) -> i64 {
    let (_, info) = on_leader(cluster, "GetQueueInfo", |leader| async move {
        let reply = cluster
            .client(leader, USER)
            .await
            .get_queue_info(pb::GetQueueInfoRequestProto {
                queue_name: queue.to_owned(),
                ..Default::default()
            })
            .await?;
        Ok(reply.into_inner().queue_info.expect("a queue"))
    })
    .await;
    info.queue_statistics
        .map_or(0, |statistics| statistics.allocated_memory_mb)
}

/// Moves `id` to `queue` on the serving leader; the leader's definitive answer.
async fn move_to(cluster: &RmCluster, id: ApplicationId, queue: &str) -> Result<(), tonic::Status> {
    let (_, outcome) = on_leader(
        cluster,
        "MoveApplicationAcrossQueues",
        |leader| async move {
            let reply = cluster
                .client(leader, USER)
                .await
                .move_application_across_queues(pb::MoveApplicationAcrossQueuesRequestProto {
                    application_id: Some(id.into()),
                    target_queue: queue.to_owned(),
                })
                .await;
            match reply {
                Ok(_) => Ok(Ok(())),
                Err(status) if status.code() == tonic::Code::Unavailable => Err(status),
                Err(status) if crate::support::not_leader(&status) => Err(status),
                Err(status) => Ok(Err(status)),
            }
        },
    )
    .await;
    outcome
}

async fn update_priority(cluster: &RmCluster, id: ApplicationId, priority: i32) -> i32 {
    let (_, reply) = on_leader(cluster, "UpdateApplicationPriority", |leader| async move {
        cluster
            .client(leader, USER)
            .await
            .update_application_priority(pb::UpdateApplicationPriorityRequestProto {
                application_id: Some(id.into()),
                application_priority: Some(pb::PriorityProto { priority }),
            })
            .await
    })
    .await;
    reply
        .into_inner()
        .application_priority
        .expect("the priority in force")
        .priority
}

/// The caller's rights by queue name.
async fn queue_user_acls(cluster: &RmCluster) -> std::collections::BTreeMap<String, Vec<i32>> {
    let (_, reply) = on_leader(cluster, "GetQueueUserAcls", |leader| async move {
        cluster
            .client(leader, USER)
            .await
            .get_queue_user_acls(pb::GetQueueUserAclsInfoRequestProto {})
            .await
    })
    .await;
    reply
        .into_inner()
        .queue_user_acls
        .into_iter()
        .map(|info| (info.queue_name, info.user_acls))
        .collect()
}

/// Kills `id` on the serving leader; whether the kill is completed.
pub(crate) async fn kill(cluster: &RmCluster, id: ApplicationId) -> bool {
    let (_, reply) = on_leader(cluster, "ForceKillApplication", |leader| async move {
        cluster
            .client(leader, USER)
            .await
            .force_kill_application(pb::KillApplicationRequestProto {
                application_id: Some(id.into()),
                diagnostics: String::new(),
            })
            .await
    })
    .await;
    reply.into_inner().is_kill_completed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_application_moves_queues_with_its_containers_follows_its_blacklist_and_priority() {
    let mut cluster = new_cluster(
        3,
        0,
        &[
            ("yarn.acl.enable", "true"),
            ("yarn.cluster.max-application-priority", "10"),
        ],
    )
    .await;
    cluster.start_members().await;
    crate::support::set_queue_configuration(&cluster, movable_queues()).await;
    register_node(&cluster, 8192, 8).await;
    let id = submit_with(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            queue: Some("a".to_owned()),
            resource: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                ..Default::default()
            }),
            ..Default::default()
        },
    )
    .await;
    let token = amrm_token(&cluster, id).await;
    let leader = register_am(&cluster, &token).await;

    // Blacklisting the only node keeps the ask waiting; lifting it lets the container come.
    let mut client = cluster.scheduler(leader, USER).await;
    let mut response_id = 0;
    let blacklist = |additions: Vec<String>, removals: Vec<String>| {
        Some(pb::ResourceBlacklistRequestProto {
            blacklist_additions: additions,
            blacklist_removals: removals,
        })
    };
    let mut request = pb::AllocateRequestProto {
        ask: vec![ask(1)],
        blacklist_request: blacklist(vec![NM_HOST.to_owned()], Vec::new()),
        ..Default::default()
    };
    for _ in 0..30 {
        request.response_id = response_id;
        let response = client
            .allocate(with_token(request.clone(), &token))
            .await
            .expect("allocate")
            .into_inner();
        assert!(
            response.allocated_containers.is_empty(),
            "a container on the blacklisted {NM_HOST}"
        );
        response_id = response.response_id;
        request = pb::AllocateRequestProto::default();
        // Several passes of the scheduling loop between heartbeats.
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let lift = pb::AllocateRequestProto {
        response_id,
        blacklist_request: blacklist(Vec::new(), vec![NM_HOST.to_owned()]),
        ..Default::default()
    };
    let response = client
        .allocate(with_token(lift, &token))
        .await
        .expect("allocate")
        .into_inner();
    let (got, _, _) =
        allocate_until(&cluster, leader, &token, response.response_id, vec![], 1).await;
    assert_eq!(got.len(), 1);
    assert_eq!(queue_used_mb(&cluster, "a").await, 2048);

    move_to(&cluster, id, "b").await.expect("moved");
    assert_eq!(report(&cluster, id).await.queue, "root.b");
    assert_eq!(queue_used_mb(&cluster, "a").await, 0);
    assert_eq!(
        queue_used_mb(&cluster, "b").await,
        2048,
        "the AM and its container moved with the application"
    );
    move_to(&cluster, id, "b")
        .await
        .expect("a repeated move succeeds");

    let stopped = move_to(&cluster, id, "c").await.unwrap_err();
    assert_eq!(stopped.code(), tonic::Code::FailedPrecondition, "{stopped}");
    assert!(stopped.message().contains("STOPPED"), "{stopped}");
    let unknown = move_to(&cluster, id, "nowhere").await.unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::InvalidArgument, "{unknown}");

    assert_eq!(
        update_priority(&cluster, id, 50).await,
        10,
        "capped at yarn.cluster.max-application-priority"
    );
    assert_eq!(
        report(&cluster, id).await.priority,
        Some(pb::PriorityProto { priority: 10 })
    );

    let acls = queue_user_acls(&cluster).await;
    let submit = i32::from(pb::QueueAclProto::QaclSubmitApplications);
    assert_eq!(acls["a"], vec![submit]);
    assert_eq!(acls["b"], vec![submit]);
    assert!(acls["c"].is_empty(), "{acls:?}");

    // The move is replicated: a new leader rebuilds its scheduler with the application in b.
    let old = cluster.serving_leader(None).await;
    cluster.stop(old).await;
    register_node(&cluster, 8192, 8).await;
    let successor = cluster.serving_leader(Some(old)).await;
    assert_ne!(successor, old);
    assert_eq!(report(&cluster, id).await.queue, "root.b");
    eventually(
        "the new leader to charge b with the moved containers",
        || async { (queue_used_mb(&cluster, "b").await == 2048).then_some(()) },
    )
    .await;

    assert!(kill(&cluster, id).await);
    let finished = move_to(&cluster, id, "a").await.unwrap_err();
    assert_eq!(finished.code(), tonic::Code::FailedPrecondition);
    assert!(
        finished.message().contains("KILLED state cannot be moved"),
        "{finished}"
    );
    for index in 0..3 {
        if index != old {
            cluster.stop(index).await;
        }
    }
}

/// One heartbeat of the registered node on `leader` reporting an empty opportunistic queue of
/// `capacity`; returns the queue limit the leader answered with.
pub(crate) async fn report_queue(
    cluster: &RmCluster,
    leader: usize,
    capacity: i32,
) -> Option<pb::ContainerQueuingLimitProto> {
    let heartbeat = pb::NodeHeartbeatRequestProto {
        node_status: Some(pb::NodeStatusProto {
            node_id: Some(pb::NodeIdProto {
                host: NM_HOST.to_owned(),
                port: 45454,
            }),
            response_id: 0,
            opportunistic_containers_status: Some(pb::OpportunisticContainersStatusProto {
                opport_queue_capacity: capacity,
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
        .container_queuing_limit
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opportunistic_asks_are_placed_by_the_leader_outside_queue_capacity() {
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
    // A 2 GiB node: the AM takes 1 GiB, so three 1 GiB GUARANTEED tasks could never fit.
    register_node(&cluster, 2048, 8).await;
    let id = submit(&cluster, "opportunistic").await;
    let token = amrm_token(&cluster, id).await;
    let leader = register_am(&cluster, &token).await;
    let limit = report_queue(&cluster, leader, 10).await;
    assert_eq!(
        limit,
        Some(pb::ContainerQueuingLimitProto {
            max_queue_length: Some(5),
            max_queue_wait_time_in_ms: None,
        }),
        "min-queue-length while every queue is empty"
    );

    let opportunistic = pb::ResourceRequestProto {
        execution_type_request: Some(pb::ExecutionTypeRequestProto {
            execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
            enforce_execution_type: true,
        }),
        ..ask(3)
    };
    let (got, _, _) = allocate_until(&cluster, leader, &token, 0, vec![opportunistic], 3).await;
    assert_eq!(got.len(), 3);
    for container in &got {
        assert_eq!(
            container.execution_type(),
            pb::ExecutionTypeProto::Opportunistic,
            "{container:?}"
        );
        assert!(container.container_token.is_some());
    }
    let records = cluster.replica(leader).state().read(|state| {
        state
            .containers
            .of_application(id.id)
            .filter(|record| !record.is_am)
            .map(|record| record.execution_type)
            .collect::<Vec<_>>()
    });
    assert_eq!(
        records,
        vec![yarn_rm_ha::state_machine::ExecutionType::Opportunistic; 3],
        "committed as OPPORTUNISTIC"
    );
    assert_eq!(
        queue_used_mb(&cluster, "default").await,
        1024,
        "only the AM counts against the queue"
    );
    let ids = ids(&got);
    assert_eq!(ids.len(), 3, "distinct ids");
    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_opportunistic_allocation_opportunistic_asks_are_served_guaranteed_unless_enforced()
{
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;
    let id = submit(&cluster, "typed").await;
    let token = amrm_token(&cluster, id).await;
    let leader = register_am(&cluster, &token).await;
    let opportunistic = |enforce_execution_type| pb::ResourceRequestProto {
        execution_type_request: Some(pb::ExecutionTypeRequestProto {
            execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
            enforce_execution_type,
        }),
        ..ask(1)
    };

    // Enforced, it could never be served: the allocate is refused, naming the ask and the
    // setting, and nothing of it is taken.
    let refused = cluster
        .scheduler(leader, USER)
        .await
        .allocate(with_token(
            pb::AllocateRequestProto {
                ask: vec![opportunistic(true)],
                response_id: 0,
                ..Default::default()
            },
            &token,
        ))
        .await
        .expect_err("an enforced OPPORTUNISTIC ask");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused}");
    assert!(
        refused
            .message()
            .contains("ask[0] enforces execution type OPPORTUNISTIC")
            && refused
                .message()
                .contains("yarn.resourcemanager.opportunistic-container-allocation.enabled"),
        "{refused}"
    );

    // Not enforced, it gets a GUARANTEED container from the CapacityScheduler.
    let (got, _, _) =
        allocate_until(&cluster, leader, &token, 0, vec![opportunistic(false)], 1).await;
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].execution_type(),
        pb::ExecutionTypeProto::Guaranteed,
        "{:?}",
        got[0]
    );
    assert_eq!(
        queue_used_mb(&cluster, "default").await,
        2048,
        "the AM and the task count against the queue"
    );
    for index in 0..3 {
        cluster.stop(index).await;
    }
}
