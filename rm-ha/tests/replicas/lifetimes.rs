//! Application lifetimes on three replicas: the queue's maximum and default, the submission's
//! own LIFETIME, UpdateApplicationTimeouts capped at the maximum, and the kill at expiry by
//! whichever replica leads then.

use std::collections::BTreeMap;

use yarn_proto::expiry_time::{format_expiry_time, parse_expiry_time};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb::{self, YarnApplicationStateProto};
use yarn_rm_ha::state_machine::LIFETIME_EXCEEDED;
use yarn_security::now_ms;
use yarn_test_support::rm_cluster::RmCluster;

use crate::applications::report;
use crate::support::{USER, eventually, new_cluster, on_leader, set_queue_configuration};
use crate::support::{submit_with, try_submit_with};

/// `root.capped` lets applications live an hour at most, 30 minutes unless they ask;
/// `root.open` sets no lifetime.
fn lifetime_queues() -> BTreeMap<String, String> {
    [
        ("root.queues", "capped,open"),
        ("maximum-am-resource-percent", "1.0"),
        ("root.capped.capacity", "50"),
        ("root.capped.maximum-application-lifetime", "3600"),
        ("root.capped.default-application-lifetime", "1800"),
        ("root.open.capacity", "50"),
    ]
    .into_iter()
    .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), v.to_owned()))
    .collect()
}

fn context(queue: &str, lifetime_secs: Option<i64>) -> pb::ApplicationSubmissionContextProto {
    pb::ApplicationSubmissionContextProto {
        queue: Some(queue.to_owned()),
        resource: Some(pb::ResourceProto {
            memory: 1024,
            virtual_cores: 1,
            ..Default::default()
        }),
        application_timeouts: lifetime_secs
            .map(|timeout| pb::ApplicationTimeoutMapProto {
                application_timeout_type: pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime
                    .into(),
                timeout,
            })
            .into_iter()
            .collect(),
        ..Default::default()
    }
}

/// The expiry time of `report`'s LIFETIME timeout, in ms; `None` when it is UNLIMITED.
fn expiry_ms(report: &pb::ApplicationReportProto) -> Option<i64> {
    let [entry] = report.app_timeouts.as_slice() else {
        panic!("one timeout expected: {:?}", report.app_timeouts);
    };
    let timeout = entry.application_timeout.as_ref().expect("a timeout");
    assert_eq!(
        timeout.application_timeout_type(),
        pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime
    );
    if timeout.expire_time == "UNLIMITED" {
        assert_eq!(timeout.remaining_time, -1);
        return None;
    }
    Some(parse_expiry_time(&timeout.expire_time).expect("an ISO 8601 expiry"))
}

/// Asks the serving leader to end `id`'s lifetime at `expire_time`; its definitive answer.
async fn update_lifetime(
    cluster: &RmCluster,
    id: ApplicationId,
    expire_time: &str,
) -> Result<String, tonic::Status> {
    let (_, outcome) = on_leader(cluster, "UpdateApplicationTimeouts", |leader| async move {
        let reply = cluster
            .client(leader, USER)
            .await
            .update_application_timeouts(pb::UpdateApplicationTimeoutsRequestProto {
                application_id: Some(id.into()),
                application_timeouts: vec![pb::ApplicationUpdateTimeoutMapProto {
                    application_timeout_type: pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime
                        .into(),
                    expire_time: expire_time.to_owned(),
                }],
            })
            .await;
        match reply {
            Ok(reply) => Ok(Ok(reply.into_inner().application_timeouts[0]
                .expire_time
                .clone())),
            Err(status) if status.code() == tonic::Code::InvalidArgument => Ok(Err(status)),
            Err(status) => Err(status),
        }
    })
    .await;
    outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lifetimes_follow_the_queue_and_a_new_leader_kills_at_the_deadline() {
    let mut cluster = new_cluster(
        3,
        0,
        &[(
            "yarn.resourcemanager.application-timeouts.monitor.interval-ms",
            "200",
        )],
    )
    .await;
    cluster.start_members().await;
    set_queue_configuration(&cluster, lifetime_queues()).await;

    tracing::info!("--- a lifetime of 0 is refused with Hadoop's words");
    let (_, refused) = try_submit_with(&cluster, context("capped", Some(0))).await;
    let status = refused.expect_err("a lifetime of 0 is refused");
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(
        status
            .message()
            .contains("Invalid application timeout, value=0 for type=LIFETIME"),
        "{status}"
    );

    tracing::info!("--- the queue's default, its cap, and no lifetime in a queue without one");
    let defaulted = submit_with(&cluster, context("capped", None)).await;
    let capped = submit_with(&cluster, context("capped", Some(7200))).await;
    let open = submit_with(&cluster, context("open", None)).await;
    let long = submit_with(&cluster, context("open", Some(7200))).await;
    for (id, lifetime_ms) in [
        (defaulted, Some(1_800_000)),
        (capped, Some(3_600_000)),
        (open, None),
        (long, Some(7_200_000)),
    ] {
        let report = report(&cluster, id).await;
        let lifetime = expiry_ms(&report).map(|expiry| expiry - report.start_time);
        assert_eq!(lifetime, lifetime_ms, "{id}");
    }

    tracing::info!("--- an update is capped at submission plus the queue's maximum");
    let far = format_expiry_time(now_ms() + 10 * 3_600_000);
    let in_force = update_lifetime(&cluster, defaulted, &far).await.unwrap();
    let latest = report(&cluster, defaulted).await.start_time + 3_600_000;
    assert_eq!(in_force, format_expiry_time(latest));
    assert_eq!(expiry_ms(&report(&cluster, defaulted).await), Some(latest));
    let past = format_expiry_time(now_ms() - 60_000);
    let status = update_lifetime(&cluster, defaulted, &past)
        .await
        .expect_err("a time in the past is refused");
    assert!(
        status
            .message()
            .contains("Expire time is less than current time"),
        "{status}"
    );
    let status = update_lifetime(&cluster, defaulted, "tomorrow")
        .await
        .expect_err("a time not in ISO 8601 is refused");
    assert!(
        status.message().contains("yyyy-MM-dd'T'HH:mm:ss.SSSZ"),
        "{status}"
    );

    tracing::info!("--- a short lifetime set, then the leader stops before it ends");
    let soon = now_ms() + 3_000;
    let expiring = submit_with(&cluster, context("open", None)).await;
    update_lifetime(&cluster, expiring, &format_expiry_time(soon))
        .await
        .unwrap();
    let old_leader = cluster.serving_leader(None).await;
    cluster.stop(old_leader).await;

    let killed = eventually("the application to be killed at its deadline", || async {
        let report = report(&cluster, expiring).await;
        (report.yarn_application_state() == YarnApplicationStateProto::Killed).then_some(report)
    })
    .await;
    assert_eq!(killed.diagnostics, LIFETIME_EXCEEDED);
    assert!(
        killed.finish_time >= soon,
        "killed at {} before its deadline {soon}",
        killed.finish_time
    );
    let timeout = &killed.app_timeouts[0].application_timeout.as_ref().unwrap();
    assert_eq!(timeout.remaining_time, 0, "an ended application has 0 left");
    assert_ne!(cluster.serving_leader(None).await, old_leader);

    tracing::info!("--- the others live on, and an ended application keeps its lifetime");
    for id in [defaulted, capped, open, long] {
        let state = report(&cluster, id).await.yarn_application_state();
        assert_eq!(state, YarnApplicationStateProto::Accepted, "{id}");
    }
    let answered = update_lifetime(&cluster, expiring, &far).await.unwrap();
    assert_eq!(
        answered, far,
        "an ended application answers as asked, as in Hadoop"
    );
    assert_eq!(
        expiry_ms(&report(&cluster, expiring).await),
        Some(parse_expiry_time(&format_expiry_time(soon)).unwrap())
    );
}
