//! Unmanaged ApplicationMasters on three replicas over mutual TLS: the RM allocates and launches
//! nothing for them, hands the attempt's AMRMToken to the owner through the application report,
//! serves the AM like any other, and expires it when it falls silent.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use yarn_proto::pb::{self, YarnApplicationAttemptStateProto, YarnApplicationStateProto};
use yarn_test_support::rm_cluster::RmCluster;

use crate::applications::{allocate_until, ask, finish_am, register_am, with_token};
use crate::support::{
    NM_HOST, USER, eventually, new_cluster, on_leader, register_node, submit_with,
};

/// A user with no right on the tests' applications: not their owner, not an administrator.
const STRANGER: &str = "mallory";

/// Submits an application whose AM the test runs itself, outside the cluster.
pub(crate) async fn submit_unmanaged(cluster: &RmCluster, max_attempts: i32) -> ApplicationId {
    submit_with(
        cluster,
        pb::ApplicationSubmissionContextProto {
            application_name: Some("unmanaged".to_owned()),
            unmanaged_am: true,
            max_app_attempts: max_attempts,
            ..Default::default()
        },
    )
    .await
}

/// `id`'s report as `user` sees it, from the serving leader.
async fn report_as(
    cluster: &RmCluster,
    id: ApplicationId,
    user: &str,
) -> pb::ApplicationReportProto {
    let (_, report) = on_leader(cluster, "GetApplicationReport", |leader| async move {
        let reply = cluster
            .client(leader, user)
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

/// Polls the owner's report of `id` until it carries an AMRMToken; returns it with the report.
pub(crate) async fn token_from_report(
    cluster: &RmCluster,
    id: ApplicationId,
) -> (pb::TokenProto, pb::ApplicationReportProto) {
    eventually(&format!("{id}'s report to carry an AMRMToken"), || async {
        let mut report = report_as(cluster, id, USER).await;
        report.am_rm_token.take().map(|token| (token, report))
    })
    .await
}

/// The attempt the AMRMToken `token` authorizes, read from its identifier.
fn attempt_of(token: &pb::TokenProto) -> ApplicationAttemptId {
    let identifier =
        <pb::AmrmTokenIdentifierProto as prost::Message>::decode(token.identifier.as_slice())
            .expect("an AMRMToken identifier");
    ApplicationAttemptId::try_from(identifier.app_attempt_id.expect("an attempt"))
        .expect("a valid attempt id")
}

/// `id`'s attempt reports, from the serving leader.
async fn attempts(
    cluster: &RmCluster,
    id: ApplicationId,
) -> Vec<pb::ApplicationAttemptReportProto> {
    let (_, reply) = on_leader(cluster, "GetApplicationAttempts", |leader| async move {
        cluster
            .client(leader, USER)
            .await
            .get_application_attempts(pb::GetApplicationAttemptsRequestProto {
                application_id: Some(id.into()),
            })
            .await
    })
    .await;
    reply.into_inner().application_attempts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unmanaged_am_takes_its_token_from_the_report_and_finishes_without_an_am_container() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;

    tracing::info!("--- submit an unmanaged application; its owner reads the AMRMToken");
    let app = submit_unmanaged(&cluster, 1).await;
    let (token, accepted) = token_from_report(&cluster, app).await;
    assert_eq!(attempt_of(&token), ApplicationAttemptId::new(app, 1));
    assert!(accepted.unmanaged_application);
    assert_eq!(
        accepted.yarn_application_state(),
        YarnApplicationStateProto::Accepted
    );
    let stranger = report_as(&cluster, app, STRANGER).await;
    assert_eq!(stranger.am_rm_token, None, "{STRANGER} is not the owner");
    let waiting = attempts(&cluster, app).await;
    assert_eq!(
        waiting[0].yarn_application_attempt_state(),
        YarnApplicationAttemptStateProto::AppAttemptLaunched
    );

    tracing::info!("--- the AM registers, allocates and finishes with the report's token");
    let leader = register_am(&cluster, &token).await;
    let running = report_as(&cluster, app, USER).await;
    assert_eq!(
        running.yarn_application_state(),
        YarnApplicationStateProto::Running
    );
    assert_eq!(
        running.am_rm_token, None,
        "the token is handed out only until the AM registers"
    );
    let (containers, _, _) = allocate_until(&cluster, leader, &token, 0, vec![ask(2)], 2).await;
    for container in &containers {
        let id = ContainerId::try_from(container.id.expect("an id")).expect("a valid id");
        assert_eq!(
            id.application_attempt_id(),
            ApplicationAttemptId::new(app, 1)
        );
        assert_eq!(container.node_id.as_ref().expect("a node").host, NM_HOST);
    }
    let succeeded = pb::FinalApplicationStatusProto::AppSucceeded;
    let diagnostics = "done outside the cluster".to_owned();
    let finished = finish_am(&cluster, leader, &token, succeeded, diagnostics).await;
    assert!(finished.is_unregistered);

    tracing::info!("--- FINISHED with the AM's status; no AM container ever existed");
    let done = report_as(&cluster, app, USER).await;
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
    assert_eq!(done.am_rm_token, None);
    let ended = attempts(&cluster, app).await;
    assert_eq!(ended.len(), 1, "the attempt never failed: {ended:?}");
    assert_eq!(
        ended[0].yarn_application_attempt_state(),
        YarnApplicationAttemptStateProto::AppAttemptFinished
    );
    assert_eq!(ended[0].am_container_id, None);
    for index in 0..3 {
        // A follower may not have applied the last allocations yet: wait, with a deadline.
        eventually(
            &format!("replica {index} to hold the two task containers and no AM container"),
            || async {
                let recorded: Vec<bool> = cluster.replica(index).state().read(|state| {
                    state
                        .containers
                        .of_application(app.id)
                        .map(|record| record.is_am)
                        .collect()
                });
                (recorded == [false, false]).then_some(())
            },
        )
        .await;
    }

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_unmanaged_am_expires_and_its_next_attempt_gets_a_new_token() {
    let mut cluster = new_cluster(
        3,
        0,
        &[("yarn.am.liveness-monitor.expiry-interval-ms", "1000")],
    )
    .await;
    cluster.start_members().await;

    let app = submit_unmanaged(&cluster, 2).await;
    let (first, _) = token_from_report(&cluster, app).await;
    register_am(&cluster, &first).await;

    tracing::info!("--- the AM never heartbeats: attempt 1 expires like a managed AM's");
    let (second, retried) = eventually("attempt 1 to expire", || async {
        let (token, report) = token_from_report(&cluster, app).await;
        (attempt_of(&token).attempt_id == 2).then_some((token, report))
    })
    .await;
    assert_eq!(
        retried.yarn_application_state(),
        YarnApplicationStateProto::Accepted
    );
    assert_ne!(first, second);
    let history = attempts(&cluster, app).await;
    assert_eq!(history.len(), 2);
    assert_eq!(
        history[0].yarn_application_attempt_state(),
        YarnApplicationAttemptStateProto::AppAttemptFailed
    );
    assert!(
        history[0].diagnostics.contains("timed out"),
        "{}",
        history[0].diagnostics
    );
    assert!(history.iter().all(|a| a.am_container_id.is_none()));

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_registration_after_the_exchange_began_is_refused() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;
    let app = submit_unmanaged(&cluster, 1).await;
    let (token, _) = token_from_report(&cluster, app).await;
    // A registration retried before any allocate is answered again.
    register_am(&cluster, &token).await;
    let leader = register_am(&cluster, &token).await;
    let (_, _, response_id) = allocate_until(&cluster, leader, &token, 0, vec![ask(1)], 1).await;

    // Another process holding the AM's token registers: refused, as Hadoop refuses it.
    let status = cluster
        .scheduler(leader, USER)
        .await
        .register_application_master(with_token(
            pb::RegisterApplicationMasterRequestProto {
                host: "impostor".to_owned(),
                ..Default::default()
            },
            &token,
        ))
        .await
        .expect_err("the second registration is refused");
    assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{status:?}");
    assert!(
        status
            .message()
            .contains(&format!("Application Master is already registered : {app}")),
        "{}",
        status.message()
    );
    // The real AM's exchange goes on where it was.
    allocate_until(&cluster, leader, &token, response_id, vec![ask(1)], 1).await;

    for index in 0..3 {
        cluster.stop(index).await;
    }
}
