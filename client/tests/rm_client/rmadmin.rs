//! rmadmin operations against test-double replicas.

use yarn_client::Error;
use yarn_client::rmadmin::{RmAdmin, RmAdminCommand, output};
use yarn_proto::pb;
use yarn_test_support::pki::Pki;

use crate::support::{
    Behaviour, ReplicaSpec, STATE_DIGEST, client_conf, closed_address, must_client_config,
    must_make_pki,
};

fn admin(pki: &Pki, replicas: &[(&str, &str)]) -> RmAdmin {
    RmAdmin::new(&must_client_config(&client_conf(pki, replicas, 3)), true)
}

/// The output of `command`, which must succeed without failures.
async fn output_of(admin: &RmAdmin, command: &RmAdminCommand) -> String {
    let outcome = admin.run(command).await.unwrap();
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    outcome.output
}

/// The words of each line of a `-getAllServiceState` report.
fn rows(report: &str) -> Vec<Vec<&str>> {
    report
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect()
}

fn membership(leader: &str) -> pb::GetClusterMembershipResponseProto {
    pb::GetClusterMembershipResponseProto {
        members: ["rm1", "rm2", "rm3"]
            .iter()
            .map(|id| pb::RaftMemberProto {
                rm_id: (*id).to_owned(),
                raft_address: format!("127.0.0.1:{}", 18035 + id.len()),
                voter: true,
            })
            .collect(),
        leader_rm_id: leader.to_owned(),
        current_term: 5,
    }
}

#[tokio::test]
async fn get_all_service_state_reports_active_standby_and_unreachable_in_order() {
    let pki = must_make_pki();
    let rm1 = ReplicaSpec::new(&pki, "rm1", Behaviour::Follower { hint: None })
        .start()
        .await;
    let rm2 = ReplicaSpec::new(&pki, "rm2", Behaviour::Leader)
        .start()
        .await;
    let down = closed_address().await;
    let replicas = [
        ("rm1", rm1.address.as_str()),
        ("rm2", rm2.address.as_str()),
        ("rm3", down.as_str()),
    ];
    let admin = admin(&pki, &replicas);

    let printed = output_of(&admin, &RmAdminCommand::GetAllServiceState).await;
    assert_eq!(
        rows(&printed),
        [
            [rm1.address.as_str(), "standby"],
            [rm2.address.as_str(), "active"],
            [down.as_str(), "unreachable"],
        ]
    );

    let printed = output_of(
        &admin,
        &RmAdminCommand::GetServiceState {
            rm_id: "rm2".into(),
        },
    )
    .await;
    assert_eq!(printed, "active\n");

    let err = admin
        .run(&RmAdminCommand::GetServiceState {
            rm_id: "rm3".into(),
        })
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(message.starts_with("getServiceState: "), "{message}");
    assert!(
        message.contains("rm3") && message.contains(&down),
        "{message}"
    );
}

#[tokio::test]
async fn get_all_service_state_reports_a_refusal_as_such_and_fails_naming_it() {
    let pki = must_make_pki();
    let denying = ReplicaSpec::new(&pki, "rm1", Behaviour::Deny).start().await;
    let leader = ReplicaSpec::new(&pki, "rm2", Behaviour::Leader)
        .start()
        .await;
    let down = closed_address().await;
    let admin = admin(
        &pki,
        &[
            ("rm1", denying.address.as_str()),
            ("rm2", leader.address.as_str()),
            ("rm3", down.as_str()),
        ],
    );

    let outcome = admin
        .run(&RmAdminCommand::GetAllServiceState)
        .await
        .unwrap();
    assert_eq!(
        rows(&outcome.output),
        [
            [denying.address.as_str(), "refused"],
            [leader.address.as_str(), "active"],
            [down.as_str(), "unreachable"],
        ]
    );
    let failures: Vec<String> = outcome.failures.iter().map(Error::to_string).collect();
    assert_eq!(
        failures.len(),
        1,
        "only the refusal fails the command: {failures:?}"
    );
    assert!(
        failures[0].starts_with("getAllServiceState: call to rm1 at "),
        "{failures:?}"
    );
    assert!(
        failures[0].contains("PermissionDenied: user alice is not allowed by yarn.admin.acl"),
        "{failures:?}"
    );
}

#[tokio::test]
async fn get_state_digest_asks_the_named_replica_even_a_follower() {
    let pki = must_make_pki();
    let leader = ReplicaSpec::new(&pki, "rm1", Behaviour::Leader)
        .start()
        .await;
    let follower = ReplicaSpec::new(&pki, "rm2", Behaviour::Follower { hint: None })
        .start()
        .await;
    let admin = admin(
        &pki,
        &[
            ("rm1", leader.address.as_str()),
            ("rm2", follower.address.as_str()),
        ],
    );

    let printed = output_of(
        &admin,
        &RmAdminCommand::GetStateDigest {
            rm_id: "rm2".into(),
        },
    )
    .await;
    assert_eq!(
        printed,
        format!("rm2 applied 123 (term 4) digest {STATE_DIGEST}\n")
    );
    assert_eq!(
        follower.seen.leader_calls() + leader.seen.leader_calls(),
        0,
        "the digest is not a leader-only call"
    );

    let err = admin
        .run(&RmAdminCommand::GetStateDigest {
            rm_id: "rm7".into(),
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::UnknownRmId { .. }), "{err:?}");
}

#[tokio::test]
async fn check_health_is_silent_when_healthy_and_names_the_failed_check_otherwise() {
    let pki = must_make_pki();
    let healthy = ReplicaSpec::new(&pki, "rm1", Behaviour::Leader)
        .start()
        .await;
    let mut sick = ReplicaSpec::new(&pki, "rm2", Behaviour::Follower { hint: None });
    sick.unhealthy = Some("raft log store: disk full".to_owned());
    let sick = sick.start().await;
    let admin = admin(
        &pki,
        &[
            ("rm1", healthy.address.as_str()),
            ("rm2", sick.address.as_str()),
        ],
    );

    let printed = output_of(
        &admin,
        &RmAdminCommand::CheckHealth {
            rm_id: "rm1".into(),
        },
    )
    .await;
    assert_eq!(printed, "");

    let err = admin
        .run(&RmAdminCommand::CheckHealth {
            rm_id: "rm2".into(),
        })
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(message.starts_with("checkHealth: "), "{message}");
    assert!(message.contains("disk full"), "{message}");
    assert!(message.contains(&sick.address), "{message}");
}

#[tokio::test]
async fn transition_to_active_transfers_leadership_through_the_leader() {
    let pki = must_make_pki();
    let leader = ReplicaSpec::new(&pki, "rm2", Behaviour::Leader)
        .start()
        .await;
    let hint = Some(format!("rm2={}", leader.address));
    let rm1 = ReplicaSpec::new(&pki, "rm1", Behaviour::Follower { hint })
        .start()
        .await;
    let admin = admin(
        &pki,
        &[
            ("rm1", rm1.address.as_str()),
            ("rm2", leader.address.as_str()),
        ],
    );

    let refused = admin
        .run(&RmAdminCommand::TransitionToActive {
            rm_id: "rm1".into(),
            force_manual: false,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(refused, Error::ManualTransitionRefused { .. }),
        "{refused:?}"
    );
    assert_eq!(rm1.seen.leader_calls() + leader.seen.leader_calls(), 0);

    output_of(
        &admin,
        &RmAdminCommand::TransitionToActive {
            rm_id: "rm1".into(),
            force_manual: true,
        },
    )
    .await;
    assert_eq!(leader.seen.transfers(), ["rm1"]);
}

#[tokio::test]
async fn transition_to_standby_hands_a_leaders_role_to_the_first_other_voter() {
    let pki = must_make_pki();
    let mut spec = ReplicaSpec::new(&pki, "rm1", Behaviour::Leader);
    spec.membership = membership("rm1");
    let leader = spec.start().await;
    let mut spec = ReplicaSpec::new(&pki, "rm2", Behaviour::Follower { hint: None });
    spec.membership = membership("rm1");
    let follower = spec.start().await;
    let admin = admin(
        &pki,
        &[
            ("rm1", leader.address.as_str()),
            ("rm2", follower.address.as_str()),
        ],
    );

    let standby = |rm_id: &str| RmAdminCommand::TransitionToStandby {
        rm_id: rm_id.into(),
        force_manual: true,
    };
    output_of(&admin, &standby("rm2")).await;
    assert!(
        leader.seen.transfers().is_empty(),
        "a follower is standby already"
    );

    output_of(&admin, &standby("rm1")).await;
    assert_eq!(leader.seen.transfers(), ["rm2"]);
}

#[tokio::test]
async fn membership_changes_go_to_the_leader_and_print_the_new_membership() {
    let pki = must_make_pki();
    let mut spec = ReplicaSpec::new(&pki, "rm1", Behaviour::Leader);
    spec.membership = membership("rm1");
    let leader = spec.start().await;
    let admin = admin(&pki, &[("rm1", leader.address.as_str())]);

    let printed = output_of(&admin, &RmAdminCommand::GetClusterMembership).await;
    assert_eq!(printed, output::cluster_membership(&membership("rm1")));
    assert!(printed.starts_with("term 5, leader rm1\n"), "{printed}");

    let printed = output_of(
        &admin,
        &RmAdminCommand::AddToCluster {
            rm_id: "rm4".into(),
            raft_address: "127.0.0.1:18099".into(),
        },
    )
    .await;
    assert!(
        printed
            .lines()
            .any(|l| l.starts_with("rm4") && l.contains("127.0.0.1:18099")),
        "{printed}"
    );

    admin
        .run(&RmAdminCommand::RefreshQueues)
        .await
        .expect("refreshQueues on the leader");
    assert_eq!(leader.seen.leader_calls(), 2);
}
