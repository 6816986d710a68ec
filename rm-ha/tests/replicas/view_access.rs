//! YARN's VIEW_APP access over the client protocol, with ACLs on: an application's owner, a
//! cluster administrator and the users its VIEW_APP list names see its details; anyone else
//! gets its report with the details hidden as YARN hides them, and is refused its attempts and
//! containers.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};
use yarn_proto::pb;
use yarn_test_support::rm_cluster::RmCluster;

use crate::support::{
    USER, eventually, new_cluster, on_leader, set_queue_configuration, submit, submit_with,
};

/// The owner of the tests' applications, not an administrator here.
const OWNER: &str = USER;
/// The cluster administrator (`yarn.admin.acl`).
const ADMIN: &str = "bob";
/// Neither owner nor administrator.
const STRANGER: &str = "mallory";

/// A refusal of the caller's rights is the leader's answer; anything else is left to
/// [`on_leader`], which retries what was not executed.
fn definitive<T>(
    reply: Result<T, tonic::Status>,
) -> Result<Result<T, tonic::Status>, tonic::Status> {
    match reply {
        Err(status) if status.code() == tonic::Code::PermissionDenied => Ok(Err(status)),
        other => other.map(Ok),
    }
}

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

/// Every application's report as `user` sees it, by id.
async fn list_as(
    cluster: &RmCluster,
    user: &str,
) -> std::collections::BTreeMap<ApplicationId, pb::ApplicationReportProto> {
    let (_, reports) = on_leader(cluster, "GetApplications", |leader| async move {
        let reply = cluster
            .client(leader, user)
            .await
            .get_applications(pb::GetApplicationsRequestProto::default())
            .await?;
        Ok(reply.into_inner().applications)
    })
    .await;
    reports
        .into_iter()
        .map(|report| {
            let id = report.application_id.expect("an id");
            (ApplicationId::try_from(id).expect("a valid id"), report)
        })
        .collect()
}

async fn attempts_as(
    cluster: &RmCluster,
    id: ApplicationId,
    user: &str,
) -> Result<Vec<pb::ApplicationAttemptReportProto>, tonic::Status> {
    let (_, outcome) = on_leader(cluster, "GetApplicationAttempts", |leader| async move {
        let reply = cluster
            .client(leader, user)
            .await
            .get_application_attempts(pb::GetApplicationAttemptsRequestProto {
                application_id: Some(id.into()),
            })
            .await;
        definitive(reply.map(|reply| reply.into_inner().application_attempts))
    })
    .await;
    outcome
}

async fn containers_as(
    cluster: &RmCluster,
    attempt: ApplicationAttemptId,
    user: &str,
) -> Result<Vec<pb::ContainerReportProto>, tonic::Status> {
    let (_, outcome) = on_leader(cluster, "GetContainers", |leader| async move {
        let reply = cluster
            .client(leader, user)
            .await
            .get_containers(pb::GetContainersRequestProto {
                application_attempt_id: Some(attempt.into()),
            })
            .await;
        definitive(reply.map(|reply| reply.into_inner().containers))
    })
    .await;
    outcome
}

async fn kill_as(cluster: &RmCluster, id: ApplicationId, user: &str) -> Result<(), tonic::Status> {
    let (_, outcome) = on_leader(cluster, "ForceKillApplication", |leader| async move {
        let reply = cluster
            .client(leader, user)
            .await
            .force_kill_application(pb::KillApplicationRequestProto {
                application_id: Some(id.into()),
                diagnostics: "no longer needed".to_owned(),
            })
            .await;
        definitive(reply.map(|_| ()))
    })
    .await;
    outcome
}

/// The refusal a user without VIEW_APP access gets for `id`'s attempts or containers.
fn assert_view_refused(refusal: Result<impl std::fmt::Debug, tonic::Status>, id: ApplicationId) {
    let status = refusal.expect_err("refused");
    assert_eq!(status.code(), tonic::Code::PermissionDenied, "{status}");
    assert_eq!(
        status.message(),
        format!("User {STRANGER} does not have privilege to see this application {id}")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_owner_administrators_and_the_view_list_see_an_applications_details() {
    let mut cluster = new_cluster(
        1,
        0,
        &[("yarn.acl.enable", "true"), ("yarn.admin.acl", ADMIN)],
    )
    .await;
    cluster.start_members().await;
    // Hadoop's root queue lets everyone administer every queue unless told otherwise, and a
    // queue administrator may view every application of the queue.
    let queues = [
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("root.acl_administer_queue", " "),
    ]
    .into_iter()
    .map(|(key, value)| (format!("yarn.scheduler.capacity.{key}"), value.to_owned()))
    .collect();
    set_queue_configuration(&cluster, queues).await;

    tracing::info!(
        "--- {OWNER} submits one application for herself and one shared with {STRANGER}"
    );
    let private = submit(&cluster, "private").await;
    let shared = submit_with(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            application_name: Some("shared".to_owned()),
            am_container_spec: Some(pb::ContainerLaunchContextProto {
                application_acls: vec![pb::ApplicationAclMapProto {
                    access_type: pb::ApplicationAccessTypeProto::AppaccessViewApp.into(),
                    acl: Some(STRANGER.to_owned()),
                }],
                ..Default::default()
            }),
            ..Default::default()
        },
    )
    .await;
    for id in [private, shared] {
        eventually(&format!("{id} to have its first attempt"), || async {
            report_as(&cluster, id, OWNER)
                .await
                .current_application_attempt_id
                .map(|_| ())
        })
        .await;
    }
    kill_as(&cluster, private, OWNER)
        .await
        .expect("the owner may kill");
    let attempt = ApplicationAttemptId::new(private, 1);

    tracing::info!("--- the owner and the administrator see every detail");
    let owners = report_as(&cluster, private, OWNER).await;
    assert!(
        owners.diagnostics.contains("killed by user alice"),
        "{owners:?}"
    );
    assert_eq!(
        owners.current_application_attempt_id,
        Some(attempt.into()),
        "{owners:?}"
    );
    assert_ne!(owners.rpc_port, -1, "{owners:?}");
    assert_eq!(report_as(&cluster, private, ADMIN).await, owners);
    for user in [OWNER, ADMIN] {
        let attempts = attempts_as(&cluster, private, user).await.expect(user);
        assert_eq!(attempts.len(), 1, "{user}: {attempts:?}");
        containers_as(&cluster, attempt, user).await.expect(user);
    }

    tracing::info!("--- a stranger sees where the application stands, not its details");
    let strangers = report_as(&cluster, private, STRANGER).await;
    assert_eq!(
        (
            strangers.user.as_str(),
            strangers.name.as_str(),
            strangers.yarn_application_state()
        ),
        ("alice", "private", pb::YarnApplicationStateProto::Killed),
    );
    assert_eq!(
        (strangers.host.as_str(), strangers.rpc_port),
        ("N/A", -1),
        "{strangers:?}"
    );
    assert_eq!(strangers.tracking_url, "N/A", "{strangers:?}");
    assert_eq!(strangers.original_tracking_url, "N/A", "{strangers:?}");
    assert_eq!(strangers.diagnostics, "N/A", "{strangers:?}");
    assert_eq!(strangers.current_application_attempt_id, None);
    let usage = strangers.app_resource_usage.expect("a usage report");
    assert_eq!(usage.num_used_containers, -1, "{usage:?}");
    assert_view_refused(attempts_as(&cluster, private, STRANGER).await, private);
    assert_view_refused(containers_as(&cluster, attempt, STRANGER).await, private);

    tracing::info!("--- the VIEW_APP list lets the stranger see, not modify");
    let listed = report_as(&cluster, shared, STRANGER).await;
    assert_eq!(listed, report_as(&cluster, shared, OWNER).await);
    assert_ne!(listed.diagnostics, "N/A", "{listed:?}");
    assert_eq!(
        attempts_as(&cluster, shared, STRANGER)
            .await
            .expect("listed")
            .len(),
        1
    );
    let refusal = kill_as(&cluster, shared, STRANGER).await.unwrap_err();
    assert!(refusal.message().contains("MODIFY_APP"), "{refusal}");

    tracing::info!("--- listing applications hides the same details as one report");
    let listing = list_as(&cluster, STRANGER).await;
    assert_eq!(listing[&private].diagnostics, "N/A", "{listing:?}");
    assert_ne!(listing[&shared].diagnostics, "N/A", "{listing:?}");
    let owners_listing = list_as(&cluster, OWNER).await;
    assert_eq!(owners_listing[&private].diagnostics, owners.diagnostics);

    cluster.stop(0).await;
}
