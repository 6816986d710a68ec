//! What one caller may send: a submission cannot make every replica store megabytes per
//! application, submit an AM no node could hold or credentials no AM could read, or have a
//! megabyte echoed back, and the largest legal submissions replicate to every replica; an
//! allocate carries a bounded number of asks.

use tokio::task::JoinSet;
use tonic::Code;
use yarn_proto::pb;
use yarn_test_support::rm_cluster::RmCluster;

use crate::applications::{allocate_until, ask, finish_am, register_am, report, with_token};
use crate::state_digest::{assert_one_digest, at_one_index};
use crate::support::{USER, list, new_cluster, on_leader, register_node, try_submit_with};
use crate::unmanaged_am::{submit_unmanaged, token_from_report};

/// A submission whose launch command is `bytes` long.
fn with_command(bytes: usize) -> pb::ApplicationSubmissionContextProto {
    pb::ApplicationSubmissionContextProto {
        application_name: Some("large".to_owned()),
        am_container_spec: Some(pb::ContainerLaunchContextProto {
            commands: vec!["x".repeat(bytes)],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Submits `context`, which must be refused with INVALID_ARGUMENT; returns the message.
async fn refused(cluster: &RmCluster, context: pb::ApplicationSubmissionContextProto) -> String {
    let (id, outcome) = try_submit_with(cluster, context).await;
    let status = outcome.expect_err("the submission is refused");
    assert_eq!(status.code(), Code::InvalidArgument, "{id}: {status:?}");
    assert!(
        status.message().len() < 512,
        "the refusal of {id} does not echo the input: {} bytes",
        status.message().len()
    );
    status.message().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submissions_past_the_limits_are_refused_naming_them() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;

    let message = refused(&cluster, with_command(2 * 1024 * 1024)).await;
    assert!(
        message.contains("yarn.resourcemanager.zk-max-znode-size.bytes"),
        "{message}"
    );
    let message = refused(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            queue: Some("q".repeat(1024 * 1024 - 1024)),
            ..Default::default()
        },
    )
    .await;
    assert!(
        message.contains("queue") && message.contains("1024"),
        "{message}"
    );
    let message = refused(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            application_tags: (0..11).map(|i| format!("tag-{i}")).collect(),
            ..Default::default()
        },
    )
    .await;
    assert!(message.contains("yarn.application.max-tags"), "{message}");
    // An AM of -1024 MB once sat ACCEPTED forever.
    let message = refused(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            resource: Some(pb::ResourceProto {
                memory: -1024,
                virtual_cores: 1,
                ..Default::default()
            }),
            ..Default::default()
        },
    )
    .await;
    assert!(message.contains("-1024 MB"), "{message}");
    let message = refused(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            priority: Some(pb::PriorityProto { priority: -5 }),
            ..Default::default()
        },
    )
    .await;
    assert!(message.contains("priority -5"), "{message}");
    // The AM's credentials must be a Hadoop credentials file (or nothing), or every attempt
    // would start with a token file no AM could read.
    let message = refused(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            am_container_spec: Some(pb::ContainerLaunchContextProto {
                tokens: vec![0x0A, 0x02, 0x01, 0x02],
                ..Default::default()
            }),
            ..Default::default()
        },
    )
    .await;
    assert!(
        message.contains("am_container_spec.tokens")
            && message.contains("not a readable Hadoop credentials file"),
        "{message}"
    );
    assert!(
        list(&cluster).await.is_empty(),
        "nothing refused was recorded"
    );

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submissions_near_the_limit_replicate_to_every_replica() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;

    // Sent together so that the leader batches them: twenty entries of most of a mebibyte,
    // far more than one AppendEntries may carry.
    let leader = cluster.serving_leader(None).await;
    let client = cluster.client(leader, USER).await;
    let mut submissions = JoinSet::new();
    for _ in 0..20 {
        let mut client = client.clone();
        let id = client
            .get_new_application(pb::GetNewApplicationRequestProto {})
            .await
            .expect("GetNewApplication on the leader")
            .into_inner()
            .application_id;
        let context = pb::ApplicationSubmissionContextProto {
            application_id: id,
            ..with_command(1000 * 1000)
        };
        submissions.spawn(async move {
            let request = pb::SubmitApplicationRequestProto {
                application_submission_context: Some(context.clone()),
            };
            (context, client.submit_application(request).await)
        });
    }
    while let Some(joined) = submissions.join_next().await {
        let (context, outcome) = joined.expect("the submission task");
        if let Err(status) = outcome {
            // Leadership may have moved meanwhile; a submission is idempotent by its id.
            assert_ne!(status.code(), Code::InvalidArgument, "{status}");
            let cluster = &cluster;
            on_leader(cluster, "SubmitApplication", |leader| {
                let context = context.clone();
                async move {
                    let request = pb::SubmitApplicationRequestProto {
                        application_submission_context: Some(context),
                    };
                    cluster
                        .client(leader, USER)
                        .await
                        .submit_application(request)
                        .await
                }
            })
            .await;
        }
    }
    assert_eq!(list(&cluster).await.len(), 20);
    assert_one_digest(&at_one_index(&cluster, &[0, 1, 2]).await);

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allocate_with_more_asks_than_the_limit_is_refused_naming_it() {
    let mut cluster = new_cluster(
        3,
        0,
        &[(
            "yarn.resourcemanager.scheduler.max-asks-per-allocate",
            "100",
        )],
    )
    .await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;
    let app = submit_unmanaged(&cluster, 1).await;
    let (token, _) = token_from_report(&cluster, app).await;
    let leader = register_am(&cluster, &token).await;

    let too_many: Vec<pb::ResourceRequestProto> = (0..101)
        .map(|i| pb::ResourceRequestProto {
            allocation_request_id: i,
            ..ask(1)
        })
        .collect();
    let status = cluster
        .scheduler(leader, USER)
        .await
        .allocate(with_token(
            pb::AllocateRequestProto {
                ask: too_many.clone(),
                response_id: 0,
                ..Default::default()
            },
            &token,
        ))
        .await
        .expect_err("101 asks are refused");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(
        status.message().contains("101 asks")
            && status
                .message()
                .contains("yarn.resourcemanager.scheduler.max-asks-per-allocate"),
        "{}",
        status.message()
    );
    // The same asks over two heartbeats are served.
    let (first, _, next) =
        allocate_until(&cluster, leader, &token, 0, too_many[..100].to_vec(), 1).await;
    assert!(!first.is_empty());
    allocate_until(&cluster, leader, &token, next, too_many[100..].to_vec(), 0).await;

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ams_diagnostics_are_kept_to_the_limit_with_their_end() {
    let mut cluster = new_cluster(3, 0, &[("yarn.app.attempt.diagnostics.limit.kc", "1")]).await;
    cluster.start_members().await;
    let app = submit_unmanaged(&cluster, 1).await;
    let (token, _) = token_from_report(&cluster, app).await;
    let leader = register_am(&cluster, &token).await;
    let diagnostics = format!("{}the cause", "x".repeat(500_000));
    let failed = pb::FinalApplicationStatusProto::AppFailed;
    finish_am(&cluster, leader, &token, failed, diagnostics).await;
    let kept = report(&cluster, app).await.diagnostics;
    assert!(
        kept.starts_with("[498985 earlier characters of diagnostics left out] ")
            && kept.ends_with("the cause"),
        "{}...",
        &kept[..kept.len().min(100)]
    );
    assert!(kept.len() < 2048, "{} bytes kept", kept.len());

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_never_echoes_a_megabyte_back() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    let leader = cluster.serving_leader(None).await;
    // The leader's scheduler may still be starting: ask until the answer is about the queue.
    let status = crate::support::eventually("GetQueueInfo to refuse the queue", || async {
        let refusal = cluster
            .client(leader, USER)
            .await
            .get_queue_info(pb::GetQueueInfoRequestProto {
                queue_name: "q".repeat(1024 * 1024),
                ..Default::default()
            })
            .await
            .expect_err("no such queue");
        (refusal.code() == Code::NotFound).then_some(refusal)
    })
    .await;
    assert!(
        status.message().len() <= yarn_security::MAX_STATUS_MESSAGE_BYTES,
        "{} bytes came back",
        status.message().len()
    );
    assert!(
        status.message().ends_with(" ... (cut)"),
        "{}",
        &status.message()[..64]
    );

    for index in 0..3 {
        cluster.stop(index).await;
    }
}
