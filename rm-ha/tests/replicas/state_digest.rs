//! GetStateDigest: every replica, leader or follower, reports a digest of its replicated state
//! with the log index it reflects, and replicas at one index report one digest, whether they
//! applied the entries, restarted from their storage or installed a snapshot.

use tonic::Code;
use yarn_proto::pb;
use yarn_test_support::rm_cluster::RmCluster;

use crate::support::{USER, eventually, new_cluster, on_leader, submit};

/// The digest replica `index` reports, asked as [`USER`].
async fn digest_of(cluster: &RmCluster, index: usize) -> pb::GetStateDigestResponseProto {
    cluster
        .admin(index, USER)
        .await
        .get_state_digest(pb::GetStateDigestRequestProto {})
        .await
        .unwrap_or_else(|status| {
            panic!("GetStateDigest on {}: {status}", cluster.slot(index).rm_id)
        })
        .into_inner()
}

/// The digests of replicas `indexes`, asked until they all report the same applied index (the
/// test writes nothing meanwhile, so they catch up and stay there).
pub(crate) async fn at_one_index(
    cluster: &RmCluster,
    indexes: &[usize],
) -> Vec<pb::GetStateDigestResponseProto> {
    eventually("every replica to report the same applied index", || async {
        let mut digests = Vec::new();
        for &index in indexes {
            digests.push(digest_of(cluster, index).await);
        }
        let first = digests[0].applied_index;
        digests
            .iter()
            .all(|digest| digest.applied_index == first)
            .then_some(digests)
    })
    .await
}

/// Asserts that `digests` agree and are well formed, naming each replica's answer otherwise.
pub(crate) fn assert_one_digest(digests: &[pb::GetStateDigestResponseProto]) {
    let first = &digests[0];
    assert_eq!(first.digest.len(), 64, "{first:?}");
    assert!(
        first.digest.bytes().all(|b| b.is_ascii_hexdigit()),
        "{first:?}"
    );
    assert!(
        first.applied_index > 0 && first.applied_term > 0,
        "{first:?}"
    );
    for digest in digests {
        assert_eq!(
            (digest.applied_index, digest.applied_term, &digest.digest),
            (first.applied_index, first.applied_term, &first.digest),
            "{} and {} disagree at one index: {digests:?}",
            digest.rm_id,
            first.rm_id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_replica_reports_one_digest_at_one_index() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    for i in 0..4 {
        submit(&cluster, &format!("app-{i}")).await;
    }

    let digests = at_one_index(&cluster, &[0, 1, 2]).await;
    let ids: Vec<&str> = digests.iter().map(|d| d.rm_id.as_str()).collect();
    assert_eq!(
        ids,
        ["rm1", "rm2", "rm3"],
        "each replica answers for itself"
    );
    assert_one_digest(&digests);

    // The digest moves with the state: one more submission changes it on every replica.
    let before = digests[0].clone();
    submit(&cluster, "one-more").await;
    let after = at_one_index(&cluster, &[0, 1, 2]).await;
    assert_one_digest(&after);
    assert!(after[0].applied_index > before.applied_index, "{after:?}");
    assert_ne!(after[0].digest, before.digest);

    // The same authorization as GetServiceStatus.
    let denied = cluster
        .admin(0, "mallory")
        .await
        .get_state_digest(pb::GetStateDigestRequestProto {})
        .await
        .expect_err("mallory is not in yarn.admin.acl");
    assert_eq!(denied.code(), Code::PermissionDenied);
    assert!(denied.message().contains("mallory"), "{}", denied.message());

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_replica_and_one_built_from_a_snapshot_report_the_same_digest() {
    // Snapshots every few entries, and the log before them purged, so a new member can only
    // start from a snapshot.
    let mut cluster = new_cluster(
        3,
        1,
        &[("yarn.resourcemanager.ha.raft.snapshot-log-entries", "5")],
    )
    .await;
    cluster.start_members().await;
    for i in 0..8 {
        submit(&cluster, &format!("app-{i}")).await;
    }
    let purged = eventually("the leader to purge the log behind a snapshot", || async {
        let leader = cluster.serving_leader(None).await;
        let purged = cluster.replica(leader).raft().metrics().borrow().purged;
        purged.filter(|log_id| log_id.index > 0)
    })
    .await;

    tracing::info!("--- rm4 joins with empty storage: the log it lacks is gone");
    cluster.start(3).await;
    let member = pb::RaftMemberProto {
        rm_id: "rm4".to_owned(),
        raft_address: cluster.slot(3).raft.clone(),
        voter: true,
    };
    let cluster_ref = &cluster;
    on_leader(cluster_ref, "AddRaftMember", |leader| {
        let member = member.clone();
        async move {
            cluster_ref
                .admin(leader, USER)
                .await
                .add_raft_member(pb::AddRaftMemberRequestProto {
                    member: Some(member),
                })
                .await
        }
    })
    .await;
    // The leader counts rm4 caught up once rm4 answered the snapshot's installation; rm4's own
    // metrics are published a moment later, by its Raft core's next turn, which a loaded
    // machine may delay.
    eventually(
        "rm4 to report a snapshot covering the purged log",
        || async {
            let rm4 = cluster.replica(3).raft().metrics().borrow().clone();
            rm4.snapshot.filter(|log_id| log_id.index >= purged.index)
        },
    )
    .await;
    assert_one_digest(&at_one_index(&cluster, &[0, 1, 2, 3]).await);

    tracing::info!("--- a follower stops, the others go on, and it restarts from its storage");
    let leader = cluster.serving_leader(None).await;
    let follower = (0..3).find(|i| *i != leader).expect("a follower");
    cluster.stop(follower).await;
    for i in 0..3 {
        submit(&cluster, &format!("while-down-{i}")).await;
    }
    cluster.start(follower).await;
    assert_one_digest(&at_one_index(&cluster, &[0, 1, 2, 3]).await);

    for index in 0..4 {
        cluster.stop(index).await;
    }
}
