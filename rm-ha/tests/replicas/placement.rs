//! Hadoop's legacy placement rules on three replicas: a submission to `default` lands in the
//! queue a `queue-mappings` rule names, one naming another queue stays there, and the queue
//! is decided once, on the leader, and stored with the submission.

use crate::applications::report;
use crate::support::{USER, eventually, new_cluster, set_queue_configuration, submit, submit_with};
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
    let placed = eventually("the mapping to place a submission", || async {
        let id = submit(&cluster, "mapped").await;
        let queue = report(&cluster, id).await.queue;
        (queue == format!("root.users.{USER}")).then_some(queue)
    })
    .await;
    assert_eq!(placed, format!("root.users.{USER}"));

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
