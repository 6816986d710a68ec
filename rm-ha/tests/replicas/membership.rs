//! Membership changes and leadership transfer through the admin protocol.

use yarn_proto::pb;

use crate::support::{USER, eventually, new_cluster, on_leader, submit, transfer_leadership};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_joins_as_learner_then_voter_and_leaves() {
    let mut cluster = new_cluster(3, 1, &[]).await;
    cluster.start_members().await;
    cluster.start(3).await;
    let member = pb::RaftMemberProto {
        rm_id: "rm4".to_owned(),
        raft_address: cluster.slot(3).raft.clone(),
        voter: true,
    };
    let cluster_ref = &cluster;
    let (leader, reply) = on_leader(cluster_ref, "AddRaftMember", |leader| {
        let member = member.clone();
        async move {
            let mut admin = cluster_ref.admin(leader, USER).await;
            admin
                .add_raft_member(pb::AddRaftMemberRequestProto {
                    member: Some(member),
                })
                .await
        }
    })
    .await;
    let membership = reply
        .into_inner()
        .membership
        .expect("the membership after the change");
    let mut admin = cluster.admin(leader, USER).await;
    let rm4 = membership.members.iter().find(|m| m.rm_id == "rm4");
    assert!(rm4.is_some_and(|m| m.voter), "{membership:?}");
    assert_eq!(membership.members.len(), 4);

    // Adding it again is a no-op, as the protocol promises.
    admin
        .add_raft_member(pb::AddRaftMemberRequestProto {
            member: Some(member),
        })
        .await
        .expect("re-adding a voter succeeds");

    let id = submit(&cluster, "replicated-to-rm4").await;
    eventually("rm4 to apply the submission", || async {
        cluster
            .replica(3)
            .state()
            .read(|s| s.applications.contains_key(&id.id))
            .then_some(())
    })
    .await;

    let cluster_ref = &cluster;
    let (leader, reply) = on_leader(cluster_ref, "RemoveRaftMember", |leader| async move {
        let mut admin = cluster_ref.admin(leader, USER).await;
        admin
            .remove_raft_member(pb::RemoveRaftMemberRequestProto {
                rm_id: "rm4".to_owned(),
            })
            .await
    })
    .await;
    let membership = reply
        .into_inner()
        .membership
        .expect("the membership after the change");
    let mut admin = cluster.admin(leader, USER).await;
    let ids: Vec<&str> = membership
        .members
        .iter()
        .map(|m| m.rm_id.as_str())
        .collect();
    assert_eq!(ids, ["rm1", "rm2", "rm3"]);

    let bad = admin
        .remove_raft_member(pb::RemoveRaftMemberRequestProto {
            rm_id: "rm 9".to_owned(),
        })
        .await
        .expect_err("a malformed rm-id is refused");
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);

    // The leader does not remove itself: a leader outside its own group would lead on and
    // refuse further changes (the simulation found openraft's core stopping on one).
    let leader_id = cluster.slot(leader).rm_id.clone();
    let itself = admin
        .remove_raft_member(pb::RemoveRaftMemberRequestProto {
            rm_id: leader_id.clone(),
        })
        .await
        .expect_err("the leader removing itself is refused");
    assert_eq!(itself.code(), tonic::Code::FailedPrecondition, "{itself:?}");
    assert!(
        itself
            .message()
            .contains(&format!("{leader_id} leads the group"))
            && itself
                .message()
                .contains("-transitionToActive --forcemanual"),
        "{itself:?}"
    );

    for index in 0..4 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leadership_moves_to_the_chosen_voter() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    submit(&cluster, "before-transfer").await;
    let leader = cluster.serving_leader(None).await;
    // rm1 bootstraps the group, so it usually leads; choose a target that is not the leader.
    let target = (leader + 1) % 3;
    let target_id = cluster.slot(target).rm_id.clone();

    assert_eq!(transfer_leadership(&cluster, &target_id).await, target_id);
    eventually("the target to serve as leader", || async {
        let serving = cluster.replica(target).serving();
        matches!(serving, yarn_rm_ha::Serving::Leader(_)).then_some(())
    })
    .await;
    submit(&cluster, "after-transfer").await;

    for index in 0..3 {
        cluster.stop(index).await;
    }
}
