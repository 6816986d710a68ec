//! Replication to every replica, and a new leader after the old one stops.

use yarn_rm_ha::state_machine::{CommandV1, RmCommand, RmResponse};

use crate::support::{Replica, make_pki, start_cluster};

fn begin_epoch(leader: &Replica, now_ms: i64) -> RmCommand {
    RmCommand::V1(CommandV1::BeginEpoch {
        leader_rm_id: leader.rm_id.to_owned(),
        now_ms,
    })
}

fn allocate(count: u32) -> RmCommand {
    RmCommand::V1(CommandV1::AllocateApplicationIds { count })
}

/// The replica with node id `id`.
fn by_id(replicas: &[Replica], id: u64) -> &Replica {
    replicas
        .iter()
        .find(|r| r.node_id == id)
        .unwrap_or_else(|| panic!("node {id} is not among the running replicas"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_reach_every_replica_and_survive_the_leaders_loss() {
    let pki = make_pki();
    let mut replicas = start_cluster(&pki).await;

    // Every replica agrees on one leader.
    let leader_id = replicas[0].wait_for_leader(None).await;
    for replica in &replicas[1..] {
        replica
            .raft
            .wait(Some(crate::support::DEADLINE))
            .current_leader(
                leader_id,
                format!("{} to follow {leader_id}", replica.rm_id),
            )
            .await
            .expect("all replicas follow the same leader");
    }

    let leader = by_id(&replicas, leader_id);
    let (begun, _) = leader.write(begin_epoch(leader, 1_000)).await;
    assert_eq!(
        begun,
        RmResponse::EpochBegun {
            epoch: 1,
            apply_rules: 0
        }
    );
    let (allocated, index) = leader.write(allocate(5)).await;
    assert_eq!(
        allocated,
        RmResponse::ApplicationIdsAllocated { first: 1, count: 5 }
    );

    // Every replica applied both commands and holds the same state.
    let first_state = leader.state_after(index).await;
    assert_eq!(first_state.epoch, 1);
    assert_eq!(first_state.cluster_timestamp_ms, 1_000);
    assert_eq!(first_state.next_application_seq, 6);
    for replica in &replicas {
        assert_eq!(
            replica.state_after(index).await,
            first_state,
            "state on {}",
            replica.rm_id
        );
    }

    // Stop the leader: the two others elect one of themselves and keep committing.
    let position = replicas
        .iter()
        .position(|r| r.node_id == leader_id)
        .expect("the leader is running");
    let mut old_leader = replicas.remove(position);
    old_leader.stop().await;

    let new_leader_id = replicas[0].wait_for_leader(Some(leader_id)).await;
    assert_ne!(new_leader_id, leader_id);
    replicas[1]
        .raft
        .wait(Some(crate::support::DEADLINE))
        .current_leader(
            new_leader_id,
            format!("{} to follow {new_leader_id}", replicas[1].rm_id),
        )
        .await
        .expect("both remaining replicas follow the new leader");

    let new_leader = by_id(&replicas, new_leader_id);
    let (begun, _) = new_leader.write(begin_epoch(new_leader, 2_000)).await;
    assert_eq!(
        begun,
        RmResponse::EpochBegun {
            epoch: 2,
            apply_rules: 0
        }
    );
    // Sequence numbers continue after the ones committed under the old leader.
    let (allocated, index) = new_leader.write(allocate(1)).await;
    assert_eq!(
        allocated,
        RmResponse::ApplicationIdsAllocated { first: 6, count: 1 }
    );

    let second_state = new_leader.state_after(index).await;
    assert_eq!(second_state.epoch, 2);
    assert_eq!(second_state.cluster_timestamp_ms, 1_000);
    assert_eq!(second_state.next_application_seq, 7);
    for replica in &replicas {
        assert_eq!(
            replica.state_after(index).await,
            second_state,
            "state on {}",
            replica.rm_id
        );
    }

    for replica in &mut replicas {
        replica.stop().await;
    }
}
