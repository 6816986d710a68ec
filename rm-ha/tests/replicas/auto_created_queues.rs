//! Flexible auto-creation of queues on three replicas: a submission creates its queue from
//! its parent's templates, in the entry that records it; a second one reuses it; across a
//! leader's loss nothing is created twice; and once unused for the expiry time the queue is
//! removed everywhere.

use crate::applications::{kill, report};
use crate::support::{
    USER, auto_created_everywhere, eventually, new_cluster, set_queue_configuration, submit,
    try_submit_with,
};
use yarn_proto::pb;
use yarn_test_support::rm_cluster::RmCluster;

/// Waits until every replica of `alive` holds exactly the auto-created queues `wanted`.
async fn created_everywhere(cluster: &RmCluster, alive: &[usize], wanted: &[String]) {
    let wanted = wanted.to_vec();
    auto_created_everywhere(cluster, alive, &wanted, |queues| {
        queues.keys().cloned().collect::<Vec<_>>()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submission_creates_its_queue_once_and_an_unused_one_goes_after_its_expiry() {
    let policy = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueDeletionPolicy";
    let mut cluster = new_cluster(
        3,
        0,
        &[
            ("yarn.resourcemanager.scheduler.monitor.enable", "true"),
            ("yarn.resourcemanager.scheduler.monitor.policies", policy),
        ],
    )
    .await;
    cluster.start_members().await;
    let key = |suffix: &str| format!("yarn.scheduler.capacity.{suffix}");
    set_queue_configuration(
        &cluster,
        [
            (key("root.queues"), "default,users".to_owned()),
            (key("root.default.capacity"), "50".to_owned()),
            (key("root.users.capacity"), "50".to_owned()),
            (
                key("root.users.auto-queue-creation-v2.enabled"),
                "true".to_owned(),
            ),
            (
                key("root.users.auto-queue-creation-v2.template.maximum-capacity"),
                "80".to_owned(),
            ),
            (key("queue-mappings"), "u:%user:root.users.%user".to_owned()),
            (
                key("auto-queue-creation-v2.queue-expiration-time"),
                "1".to_owned(),
            ),
        ]
        .into_iter()
        .collect(),
    )
    .await;
    let leaf = format!("root.users.{USER}");
    // The committed configuration reaches the leader's scheduler at its next reconcile.
    let first = eventually("the mapping to create the user's queue", || async {
        let id = submit(&cluster, "first").await;
        (report(&cluster, id).await.queue == leaf).then_some(id)
    })
    .await;
    let accepted = eventually("the first application to be admitted", || async {
        let report = report(&cluster, first).await;
        (report.yarn_application_state() != pb::YarnApplicationStateProto::Submitted)
            .then_some(report)
    })
    .await;
    assert_eq!(
        accepted.yarn_application_state(),
        pb::YarnApplicationStateProto::Accepted,
        "{}",
        accepted.diagnostics
    );
    created_everywhere(&cluster, &[0, 1, 2], std::slice::from_ref(&leaf)).await;

    // The leader goes; its successor reuses the queue for a second submission.
    let old = cluster.serving_leader(None).await;
    cluster.stop(old).await;
    let alive: Vec<usize> = (0..3).filter(|&index| index != old).collect();
    let second = submit(&cluster, "second").await;
    let admitted = eventually("the second application to be admitted", || async {
        let report = report(&cluster, second).await;
        (report.yarn_application_state() == pb::YarnApplicationStateProto::Accepted)
            .then_some(report)
    })
    .await;
    assert_eq!(admitted.queue, leaf);
    created_everywhere(&cluster, &alive, std::slice::from_ref(&leaf)).await;

    // A submission the parent's limits refuse names the reason.
    let (_, refused) = try_submit_with(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            application_name: Some("deep".to_owned()),
            queue: Some("root.users.a.b.c".to_owned()),
            ..Default::default()
        },
    )
    .await;
    let refused = refused.expect_err("three levels below root.users");
    assert!(
        refused.message().contains("maximum-queue-depth is 2"),
        "{refused}"
    );

    // Unused, the queue goes within two expiry times; nothing is left of it anywhere.
    for id in [first, second] {
        kill(&cluster, id).await;
    }
    created_everywhere(&cluster, &alive, &[]).await;
    for index in alive {
        cluster.stop(index).await;
    }
}
