//! Every replica stopped and started again recovers the state from its snapshot and log.

use crate::support::{list, new_cluster, submit};
use yarn_rm_ha::Serving;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restarting_every_replica_recovers_the_state() {
    // Snapshots every few entries, so recovery goes through a snapshot plus the log after it.
    let mut cluster = new_cluster(
        3,
        0,
        &[("yarn.resourcemanager.ha.raft.snapshot-log-entries", "5")],
    )
    .await;
    cluster.start_members().await;
    let mut acknowledged = Vec::new();
    for i in 0..12 {
        acknowledged.push(submit(&cluster, &format!("app-{i}")).await);
    }
    acknowledged.sort();
    let leader = cluster.serving_leader(None).await;
    let epoch = cluster.replica(leader).state().read(|s| s.epoch);
    let snapshotted = (0..3).any(|index| {
        cluster
            .replica(index)
            .raft()
            .metrics()
            .borrow()
            .snapshot
            .is_some()
    });
    assert!(snapshotted, "no replica wrote a snapshot");

    for index in 0..3 {
        cluster.stop(index).await;
    }
    cluster.start_members().await;
    let leader = cluster.serving_leader(None).await;
    assert_eq!(list(&cluster).await, acknowledged);
    let new_epoch = cluster.replica(leader).state().read(|s| s.epoch);
    assert!(
        new_epoch > epoch,
        "epoch {new_epoch} after restart from {epoch}"
    );

    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_replica_without_ha_runs_the_same_code_and_recovers() {
    let mut cluster = new_cluster(1, 0, &[("yarn.resourcemanager.ha.enabled", "false")]).await;
    cluster.start(0).await;
    let first = submit(&cluster, "alone").await;
    assert!(matches!(cluster.replica(0).serving(), Serving::Leader(_)));

    cluster.stop(0).await;
    cluster.start(0).await;
    let second = submit(&cluster, "after-restart").await;
    assert_eq!(list(&cluster).await, vec![first, second]);
    assert!(cluster.replica(0).state().read(|s| s.epoch) >= 2);
    cluster.stop(0).await;
}
