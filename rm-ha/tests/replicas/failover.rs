//! One serving leader, followers that point to it, and no loss when it goes.

use tonic::Code;
use yarn_proto::pb;
use yarn_proto::{LEADER_HINT_HEADER, NOT_LEADER_HEADER};
use yarn_rm_ha::Serving;
use yarn_test_support::rm_cluster::RmCluster;

use crate::support::{USER, eventually, list, new_cluster, on_leader, submit};

fn header<'a>(status: &'a tonic::Status, key: &str) -> Option<&'a str> {
    status.metadata().get(key).and_then(|v| v.to_str().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_leader_serves_and_followers_refuse_with_a_hint_to_it() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    submit(&cluster, "first").await;
    let leader = cluster.serving_leader(None).await;
    let leader_id = cluster.slot(leader).rm_id.clone();
    for follower in (0..3).filter(|i| *i != leader) {
        // The follower learns the leader from heartbeats; until then it refuses without a hint.
        let status = eventually("a refusal with a leader hint", || async {
            let mut client = cluster.client(follower, USER).await;
            let status = client
                .get_new_application(pb::GetNewApplicationRequestProto {})
                .await
                .expect_err("a follower must not allocate ids");
            header(&status, LEADER_HINT_HEADER)
                .is_some()
                .then_some(status)
        })
        .await;
        assert_eq!(status.code(), Code::Unavailable);
        assert_eq!(
            header(&status, NOT_LEADER_HEADER),
            Some(cluster.slot(follower).rm_id.as_str())
        );
        let expected = format!("{leader_id}={}", cluster.slot(leader).client);
        assert_eq!(header(&status, LEADER_HINT_HEADER), Some(expected.as_str()));

        let mut admin = cluster.admin(follower, crate::support::USER).await;
        let status = admin
            .get_service_status(pb::HaServiceStatusRequestProto {})
            .await
            .expect("any replica reports its state")
            .into_inner();
        assert_eq!(status.state(), pb::HaServiceStateProto::Standby);
        assert_eq!(status.leader_rm_id, leader_id);
    }
    // The serving leader reports ACTIVE (polled: an election may move leadership meanwhile).
    eventually("a replica reporting ACTIVE", || async {
        let leader = cluster.serving_leader(None).await;
        let mut admin = cluster.admin(leader, crate::support::USER).await;
        let status = admin
            .get_service_status(pb::HaServiceStatusRequestProto {})
            .await
            .expect("the leader reports its state")
            .into_inner();
        (status.state() == pb::HaServiceStateProto::Active).then_some(())
    })
    .await;

    let mut intruder = cluster.admin(leader, "mallory").await;
    let denied = intruder
        .get_service_status(pb::HaServiceStatusRequestProto {})
        .await
        .expect_err("mallory is not in yarn.admin.acl");
    assert_eq!(denied.code(), Code::PermissionDenied);
    assert!(
        denied.message().contains("mallory") && denied.message().contains("yarn.admin.acl"),
        "{}",
        denied.message()
    );

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_submissions_survive_the_leaders_loss_and_it_rejoins_as_follower() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    let mut acknowledged = Vec::new();
    for i in 0..5 {
        acknowledged.push(submit(&cluster, &format!("app-{i}")).await);
    }
    let old = cluster.serving_leader(None).await;
    let old_epoch = cluster.replica(old).state().read(|s| s.epoch);

    cluster.stop(old).await;
    let new = cluster.serving_leader(Some(old)).await;
    let listed = list(&cluster).await;
    for id in &acknowledged {
        assert!(listed.contains(id), "{id} was acknowledged but is missing");
    }
    let later = submit(&cluster, "after-failover").await;
    assert!(
        acknowledged.iter().all(|id| id.id < later.id),
        "the new leader reissued an application id: {later}"
    );
    let new_epoch = cluster.replica(new).state().read(|s| s.epoch);
    assert!(new_epoch > old_epoch, "epoch {new_epoch} after {old_epoch}");
    // Every leader initializes or keeps the token master keys; they are replicated.
    assert!(cluster.replica(new).state().read(|s| {
        yarn_rm_ha::state_machine::MasterKeyKind::ALL
            .iter()
            .all(|kind| s.master_keys.get(*kind).is_some())
    }));

    cluster.start(old).await;
    let new_id = cluster.slot(new).rm_id.clone();
    eventually("the old leader to follow the new one", || async {
        let serving = cluster.replica(old).serving();
        (serving
            == Serving::NotLeader {
                leader: Some(new_id.clone()),
            })
        .then_some(())
    })
    .await;
    eventually("the old leader to catch up", || async {
        let theirs = cluster
            .replica(new)
            .state()
            .read(|s| s.digest().expect("the state encodes"));
        let ours = cluster
            .replica(old)
            .state()
            .read(|s| s.digest().expect("the state encodes"));
        (theirs == ours).then_some(())
    })
    .await;

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deposed_leaders_proposal_never_commits() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    let cluster_ref = &cluster;
    let (old, id) = on_leader(cluster_ref, "GetNewApplication", |leader| async move {
        let mut client = cluster_ref.client(leader, USER).await;
        let reply = client
            .get_new_application(pb::GetNewApplicationRequestProto {})
            .await?;
        Ok(reply.into_inner().application_id)
    })
    .await;
    let mut client = cluster.client(old, USER).await;

    cluster.isolate(old, true);
    // The isolated leader still believes it leads: it accepts the submission into its log but
    // can never replicate it.
    let deposed_submission = tokio::spawn(async move {
        let context = pb::ApplicationSubmissionContextProto {
            application_id: id,
            application_name: Some("lost".to_owned()),
            ..Default::default()
        };
        client
            .submit_application(pb::SubmitApplicationRequestProto {
                application_submission_context: Some(context),
            })
            .await
    });
    let new = cluster.serving_leader(Some(old)).await;
    let committed = eventually("a submission through the new leader", || async {
        let id = submit_to(&cluster, new).await?;
        Some(id)
    })
    .await;

    cluster.isolate(old, false);
    let outcome = deposed_submission.await.expect("the submission task");
    assert!(
        outcome.is_err(),
        "a deposed leader acknowledged a submission: {outcome:?}"
    );
    let listed = list(&cluster).await;
    assert_eq!(
        listed,
        vec![committed],
        "only the new leader's submission exists"
    );
    eventually(
        "the deposed leader to converge on the new leader's state",
        || async {
            let theirs = cluster
                .replica(new)
                .state()
                .read(|s| s.digest().expect("the state encodes"));
            let ours = cluster
                .replica(old)
                .state()
                .read(|s| s.digest().expect("the state encodes"));
            (theirs == ours).then_some(())
        },
    )
    .await;
    assert!(matches!(
        cluster.replica(old).serving(),
        Serving::NotLeader { .. }
    ));

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

/// Creates and submits an application on replica `index` only; `None` if it refused either call
/// as not leader, so that the caller can wait for it to lead while the old leader is cut off.
async fn submit_to(cluster: &RmCluster, index: usize) -> Option<yarn_proto::ids::ApplicationId> {
    let mut client = cluster.client(index, USER).await;
    let id = match client
        .get_new_application(pb::GetNewApplicationRequestProto {})
        .await
    {
        Ok(reply) => reply.into_inner().application_id,
        Err(status) if crate::support::not_leader(&status) => return None,
        Err(status) => panic!("GetNewApplication: {status}"),
    };
    let context = pb::ApplicationSubmissionContextProto {
        application_id: id,
        ..Default::default()
    };
    match client
        .submit_application(pb::SubmitApplicationRequestProto {
            application_submission_context: Some(context),
        })
        .await
    {
        Ok(_) => yarn_proto::ids::ApplicationId::try_from(id?).ok(),
        // Leadership moved between the two calls: the id stays unused, the caller retries.
        Err(status) if crate::support::not_leader(&status) => None,
        Err(status) => panic!("SubmitApplication right after GetNewApplication: {status}"),
    }
}
