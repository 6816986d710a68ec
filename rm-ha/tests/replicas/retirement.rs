//! Finished applications beyond `yarn.resourcemanager.max-completed-applications` are retired
//! from the replicated state on three replicas: the oldest to finish go, every query then
//! answers as for an unknown application, and the running ones are untouched.

use yarn_proto::pb;

use crate::applications::kill;
use crate::support::{USER, eventually, list, new_cluster, on_leader, submit};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_oldest_finished_applications_beyond_the_limit_are_forgotten() {
    let mut cluster = new_cluster(
        3,
        0,
        &[("yarn.resourcemanager.max-completed-applications", "1")],
    )
    .await;
    cluster.start_members().await;
    let [first, second, third, running] = [
        submit(&cluster, "first").await,
        submit(&cluster, "second").await,
        submit(&cluster, "third").await,
        submit(&cluster, "running").await,
    ];
    for id in [first, second, third] {
        assert!(kill(&cluster, id).await, "the kill of {id} is completed");
    }
    eventually("two finished applications to be retired", || async {
        (list(&cluster).await == vec![third, running]).then_some(())
    })
    .await;

    let shared = &cluster;
    let (_, refused) = on_leader(shared, "GetApplicationReport", |leader| async move {
        let answer = shared
            .client(leader, USER)
            .await
            .get_application_report(pb::GetApplicationReportRequestProto {
                application_id: Some(first.into()),
            })
            .await;
        // The refusal is the answer wanted; only not-leader refusals are retried.
        Ok::<_, tonic::Status>(answer.err())
    })
    .await;
    let refused = refused.expect("a retired application is unknown");
    assert!(
        refused.message().contains("doesn't exist in RM"),
        "{refused:?}"
    );

    // A late resubmission of a retired application is acknowledged as the duplicate it is.
    let (_, resubmitted) = on_leader(shared, "SubmitApplication", |leader| async move {
        shared
            .client(leader, USER)
            .await
            .submit_application(pb::SubmitApplicationRequestProto {
                application_submission_context: Some(pb::ApplicationSubmissionContextProto {
                    application_id: Some(first.into()),
                    application_name: Some("first".to_owned()),
                    ..Default::default()
                }),
            })
            .await
    })
    .await;
    drop(resubmitted);
    assert_eq!(
        list(shared).await,
        vec![third, running],
        "nothing came back"
    );
    for index in 0..3 {
        cluster.stop(index).await;
    }
}
