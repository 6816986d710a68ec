//! Hadoop's placement rules on three replicas: a submission to `default` lands in the queue a
//! `queue-mappings` rule names, one naming another queue stays there, and the queue is decided
//! once, on the leader, and stored with the submission; JSON rules place and reject.

use crate::applications::report;
use crate::support::{
    USER, eventually, new_cluster, set_queue_configuration, submit, submit_with, try_submit_with,
};
use yarn_proto::pb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submission_to_default_lands_where_the_users_mapping_says() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    let key = |suffix: &str| format!("yarn.scheduler.capacity.{suffix}");
    set_queue_configuration(
        &cluster,
        [
            (key("root.queues"), "default,users".to_owned()),
            (key("root.default.capacity"), "50".to_owned()),
            (key("root.users.capacity"), "50".to_owned()),
            (key("root.users.queues"), format!("{USER},bob")),
            (key(&format!("root.users.{USER}.capacity")), "50".to_owned()),
            (key("root.users.bob.capacity"), "50".to_owned()),
            (key("queue-mappings"), "u:%user:users.%user".to_owned()),
        ]
        .into_iter()
        .collect(),
    )
    .await;
    // The committed configuration reaches the leader's scheduler at its next reconcile.
    let (placed, diagnostics) = eventually("the mapping to place a submission", || async {
        let id = submit(&cluster, "mapped").await;
        let report = report(&cluster, id).await;
        (report.queue == format!("root.users.{USER}")).then_some((report.queue, report.diagnostics))
    })
    .await;
    assert_eq!(placed, format!("root.users.{USER}"));
    assert_eq!(
        diagnostics,
        format!("Placed in queue {placed} (placement rule: u:%user:users.%user)")
    );
    // A submission naming another queue keeps it: override is off.
    let named = submit_with(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            application_name: Some("named".to_owned()),
            queue: Some("bob".to_owned()),
            ..Default::default()
        },
    )
    .await;
    eventually("the named queue to be admitted", || async {
        (report(&cluster, named).await.queue == "root.users.bob").then_some(())
    })
    .await;
    // Every replica stores the placed queue.
    for index in 0..3 {
        let replica = cluster.replica(index);
        eventually("every replica to store the placed queue", || async {
            let stored = replica.state().read(|state| {
                state
                    .applications
                    .values()
                    .find(|app| app.name == "mapped")
                    .map(|app| app.queue.clone())
            });
            (stored.as_deref() == Some(placed.as_str())).then_some(())
        })
        .await;
    }
    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_rules_place_by_application_name_and_reject_the_rest() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    let key = |suffix: &str| format!("yarn.scheduler.capacity.{suffix}");
    let rules = r#"{"rules": [
        {"type": "application", "matches": "etl", "policy": "custom",
         "customPlacement": "root.batch", "fallbackResult": "skip"},
        {"type": "user", "matches": "*", "policy": "reject"}
    ]}"#;
    set_queue_configuration(
        &cluster,
        [
            (key("root.queues"), "default,batch".to_owned()),
            (key("root.default.capacity"), "50".to_owned()),
            (key("root.batch.capacity"), "50".to_owned()),
            (key("mapping-rule-format"), "json".to_owned()),
            (key("mapping-rule-json"), rules.to_owned()),
        ]
        .into_iter()
        .collect(),
    )
    .await;
    let context = |name: &str| pb::ApplicationSubmissionContextProto {
        application_name: Some(name.to_owned()),
        ..Default::default()
    };
    // The committed rules reach the leader's scheduler at its next reconcile.
    let refusal = eventually("the reject rule to refuse a submission", || async {
        try_submit_with(&cluster, context("adhoc")).await.1.err()
    })
    .await;
    assert_eq!(refusal.code(), tonic::Code::InvalidArgument, "{refusal}");
    assert!(
        refusal.message().contains("rejected by a mapping rule")
            && refusal
                .message()
                .contains("rule 2 (user:* reject): rejects"),
        "{refusal}"
    );
    let etl = submit_with(&cluster, context("etl")).await;
    let placed = eventually("the etl rule to place its application", || async {
        let report = report(&cluster, etl).await;
        (report.queue == "root.batch").then_some(report)
    })
    .await;
    // The report names the rule until later diagnostics replace it.
    assert_eq!(
        placed.diagnostics,
        "Placed in queue root.batch (placement rule: rule 1 (application:etl custom \
         customPlacement=root.batch))"
    );
    for index in 0..3 {
        cluster.stop(index).await;
    }
}
