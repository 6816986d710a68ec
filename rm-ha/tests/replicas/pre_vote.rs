//! Elections go through pre-vote: a replica cut off from the group keeps its term, so it rejoins
//! as a follower instead of deposing the leader; and a leadership transfer lands on its target.

use std::time::Duration;

use yarn_rm_ha::Serving;
use yarn_test_support::rm_cluster::RmCluster;

use crate::support::{eventually, new_cluster, submit, transfer_leadership};

/// The replica's current term.
fn term(cluster: &RmCluster, index: usize) -> u64 {
    cluster
        .replica(index)
        .raft()
        .metrics()
        .borrow()
        .current_term
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_cut_off_keeps_its_term_and_rejoins_under_the_same_leader() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    submit(&cluster, "before-partition").await;
    let leader = cluster.serving_leader(None).await;
    let follower = (leader + 1) % 3;
    let leader_term = term(&cluster, leader);
    let config = cluster.replica(follower).raft().config().clone();
    // Without pre-vote the follower would start an election after each lease plus timeout of
    // silence; four of them is ample evidence.
    let elections = Duration::from_millis(4 * 2 * config.election_timeout_max);

    cluster.isolate(follower, true);
    // Watch the follower for the whole window rather than only at its end, so the failure names
    // the moment its term moved.
    let cut_at = tokio::time::Instant::now();
    while cut_at.elapsed() < elections {
        assert_eq!(
            term(&cluster, follower),
            leader_term,
            "a cut-off follower raised its term {:?} after the cut, without a majority of \
             pre-votes",
            cut_at.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    cluster.isolate(follower, false);
    submit(&cluster, "after-partition").await;
    let leader_applied = cluster
        .replica(leader)
        .raft()
        .metrics()
        .borrow()
        .last_applied;
    eventually("the follower to catch up", || async {
        let applied = cluster
            .replica(follower)
            .raft()
            .metrics()
            .borrow()
            .last_applied;
        (applied >= leader_applied).then_some(())
    })
    .await;
    assert!(
        matches!(cluster.replica(leader).serving(), Serving::Leader(_)),
        "the leader was deposed by the returning follower"
    );
    for index in 0..3 {
        assert_eq!(term(&cluster, index), leader_term, "replica {index}'s term");
    }

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_leadership_transfer_lands_on_its_target() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    submit(&cluster, "before-transfers").await;
    for round in 0..4 {
        let leader = cluster.serving_leader(None).await;
        let target = (leader + 1 + round % 2) % 3;
        let target_id = cluster.slot(target).rm_id.clone();
        assert_eq!(
            transfer_leadership(&cluster, &target_id).await,
            target_id,
            "transfer {round} from replica {leader}"
        );
        assert_eq!(cluster.serving_leader(None).await, target);
    }

    for index in 0..3 {
        cluster.stop(index).await;
    }
}
