//! Which replica a call ends up on, and which failures are resent.

use tonic::Code;
use yarn_client::{Error, Idempotency, RmClient, RmService};
use yarn_conf::Configuration;
use yarn_proto::pb;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient as AdminClient;
use yarn_security::{CertificateRefusal, Role};

use crate::support::{
    Behaviour, ReplicaSpec, USER, client_conf, closed_address, first_then_leader, must_client,
    must_client_config, must_make_pki, start_dropping_replica,
};

/// RefreshAdminAcls through the failover client: a leader-only call every test double counts.
async fn refresh_admin_acls(client: &RmClient, idempotency: Idempotency) -> Result<(), Error> {
    client
        .call(idempotency, |channel| async move {
            AdminClient::new(channel)
                .refresh_admin_acls(pb::RefreshAdminAclsRequestProto {})
                .await
        })
        .await
        .map(drop)
}

#[tokio::test]
async fn a_not_leader_refusal_is_followed_straight_to_the_hinted_leader() {
    let pki = must_make_pki();
    let leader = ReplicaSpec::new(&pki, "rm3", Behaviour::Leader)
        .start()
        .await;
    let hint = Some(format!("rm3={}", leader.address));
    let rm1 = ReplicaSpec::new(&pki, "rm1", Behaviour::Follower { hint })
        .start()
        .await;
    let rm2 = ReplicaSpec::new(&pki, "rm2", Behaviour::Follower { hint: None })
        .start()
        .await;
    let replicas = [
        ("rm1", rm1.address.as_str()),
        ("rm2", rm2.address.as_str()),
        ("rm3", leader.address.as_str()),
    ];
    let client = must_client(&pki, &replicas, 5);

    refresh_admin_acls(&client, Idempotency::NotIdempotent)
        .await
        .expect("the hint leads to the leader");
    assert_eq!(rm1.seen.leader_calls(), 1);
    assert_eq!(rm2.seen.leader_calls(), 0, "the rotation order was skipped");
    assert_eq!(leader.seen.leader_calls(), 1);
    assert_eq!(
        client.current_target(),
        ("rm3".to_owned(), leader.address.clone())
    );

    // The next call starts at the leader.
    refresh_admin_acls(&client, Idempotency::NotIdempotent)
        .await
        .unwrap();
    assert_eq!(rm1.seen.leader_calls(), 1);
    assert_eq!(leader.seen.leader_calls(), 2);
}

#[tokio::test]
async fn a_replica_whose_port_is_closed_is_skipped_even_for_non_idempotent_calls() {
    let pki = must_make_pki();
    let down = closed_address().await;
    let leader = ReplicaSpec::new(&pki, "rm2", Behaviour::Leader)
        .start()
        .await;
    let client = must_client(
        &pki,
        &[("rm1", down.as_str()), ("rm2", leader.address.as_str())],
        3,
    );

    refresh_admin_acls(&client, Idempotency::NotIdempotent)
        .await
        .expect("a refused connection proves nothing was sent");
    assert_eq!(leader.seen.leader_calls(), 1);
}

#[tokio::test]
async fn a_non_idempotent_call_past_its_deadline_is_not_resent() {
    let pki = must_make_pki();
    let (hung, leader, client) = first_then_leader(&pki, Behaviour::Hang).await;

    let err = refresh_admin_acls(&client, Idempotency::NotIdempotent)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::OutcomeUnknown { rm_id, attempts: 1, .. } if rm_id == "rm1"),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("outcome is unknown"), "{message}");
    assert!(message.contains(&hung.address), "{message}");
    assert_eq!(hung.seen.leader_calls(), 1);
    assert_eq!(leader.seen.leader_calls(), 0, "the call was resent");
}

#[tokio::test]
async fn an_idempotent_call_past_its_deadline_fails_over() {
    let pki = must_make_pki();
    let (_hung, leader, client) = first_then_leader(&pki, Behaviour::Hang).await;

    refresh_admin_acls(&client, Idempotency::Idempotent)
        .await
        .expect("an idempotent call may be resent");
    assert_eq!(leader.seen.leader_calls(), 1);
}

#[tokio::test]
async fn a_non_idempotent_call_whose_connection_drops_mid_call_is_not_resent() {
    let pki = must_make_pki();
    let (dropping, dropped) = start_dropping_replica(&pki, "rm1").await;
    let leader = ReplicaSpec::new(&pki, "rm2", Behaviour::Leader)
        .start()
        .await;
    let replicas = [("rm1", dropping.as_str()), ("rm2", leader.address.as_str())];
    let client = must_client(&pki, &replicas, 3);

    let err = refresh_admin_acls(&client, Idempotency::NotIdempotent)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::OutcomeUnknown { rm_id, .. } if rm_id == "rm1"),
        "{err:?}"
    );
    assert!(err.to_string().contains("outcome is unknown"), "{err}");
    assert_eq!(dropped.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(leader.seen.leader_calls(), 0, "the call was resent");

    refresh_admin_acls(&client, Idempotency::Idempotent)
        .await
        .expect("the same failure is retried for an idempotent call");
    assert_eq!(leader.seen.leader_calls(), 1);
}

#[tokio::test]
async fn exhausted_attempts_are_reported_with_their_count() {
    let pki = must_make_pki();
    let rm1 = ReplicaSpec::new(&pki, "rm1", Behaviour::Follower { hint: None })
        .start()
        .await;
    let rm2 = ReplicaSpec::new(&pki, "rm2", Behaviour::Follower { hint: None })
        .start()
        .await;
    let replicas = [("rm1", rm1.address.as_str()), ("rm2", rm2.address.as_str())];
    let client = must_client(&pki, &replicas, 3);

    let err = refresh_admin_acls(&client, Idempotency::NotIdempotent)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::AttemptsExhausted { attempts: 4, .. }),
        "{err:?}"
    );
    assert_eq!(err.status().map(|s| s.code()), Some(Code::Unavailable));
    let message = err.to_string();
    assert!(message.contains("gave up after 4 attempts"), "{message}");
    assert!(
        message.contains("yarn.client.failover-max-attempts"),
        "{message}"
    );
    assert_eq!(rm1.seen.leader_calls() + rm2.seen.leader_calls(), 4);
    assert_eq!(rm1.seen.leader_calls(), 2, "rotation alternates replicas");
}

#[tokio::test]
async fn a_definitive_refusal_returns_at_once() {
    let pki = must_make_pki();
    let (_denying, leader, client) = first_then_leader(&pki, Behaviour::Deny).await;

    let err = refresh_admin_acls(&client, Idempotency::Idempotent)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::CallFailed { rm_id, attempts: 1, .. } if rm_id == "rm1"),
        "{err:?}"
    );
    assert_eq!(err.status().map(|s| s.code()), Some(Code::PermissionDenied));
    assert!(err.to_string().contains("yarn.admin.acl"), "{err}");
    assert_eq!(leader.seen.leader_calls(), 0);
}

/// The certificate refusal that a leader-only call through a client configured by `conf` ends
/// with, and its message; the replica tried must be rm1.
async fn refused_certificate(conf: &Configuration) -> (CertificateRefusal, String) {
    let client = RmClient::new(&must_client_config(conf), RmService::Admin);
    let err = refresh_admin_acls(&client, Idempotency::Idempotent)
        .await
        .unwrap_err();
    let message = err.to_string();
    match err {
        Error::CertificateRefused { rm_id, refusal, .. } if rm_id == "rm1" => (refusal, message),
        other => panic!("expected rm1's certificate refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_refused_certificate_ends_the_call_at_once_naming_whose_was_refused() {
    let pki = must_make_pki();
    let other_ca = must_make_pki();
    let rm1 = ReplicaSpec::new(&pki, "rm1", Behaviour::Leader)
        .start()
        .await;
    let rm2 = ReplicaSpec::new(&pki, "rm2", Behaviour::Leader)
        .start()
        .await;
    let replicas = [("rm1", rm1.address.as_str()), ("rm2", rm2.address.as_str())];
    let foreign = other_ca.files(Role::User, USER);
    let mut conf = client_conf(&pki, &replicas, 3);

    // This client presents a certificate from another CA (of the same name as the cluster's,
    // so rm1 finds its signature wrong): rm1 refuses it, and rm2 would too.
    conf.set("yarn.tls.cert", &foreign.cert.to_string_lossy());
    conf.set("yarn.tls.key", &foreign.key.to_string_lossy());
    let (refusal, message) = refused_certificate(&conf).await;
    assert_eq!(
        refusal,
        CertificateRefusal::RefusedByPeer {
            alert: rustls::AlertDescription::DecryptError
        }
    );
    let expected = format!(
        "the ResourceManager at {} does not trust this client's certificate (issued by another \
         CA?)",
        rm1.address
    );
    assert!(message.starts_with(&expected), "{message}");

    // This client trusts another CA: it refuses rm1's certificate.
    conf.set("yarn.tls.ca-cert", &foreign.ca_cert.to_string_lossy());
    let (refusal, message) = refused_certificate(&conf).await;
    assert_eq!(refusal, CertificateRefusal::PeerSignedByAnotherCa);
    let expected = format!(
        "the ResourceManager's certificate at {} is not signed by the CA in yarn.tls.ca-cert",
        rm1.address
    );
    assert!(message.starts_with(&expected), "{message}");

    assert_eq!(
        rm1.seen.leader_calls() + rm2.seen.leader_calls(),
        0,
        "no call got through"
    );
}

#[tokio::test]
async fn calls_aimed_at_one_replica_name_it_and_refuse_unknown_ids() {
    let pki = must_make_pki();
    let down = closed_address().await;
    let client = must_client(&pki, &[("rm1", down.as_str())], 3);

    let err = client
        .call_on("rm1", |channel| async move {
            AdminClient::new(channel)
                .get_service_status(pb::HaServiceStatusRequestProto {})
                .await
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::CallFailed { rm_id, attempts: 1, .. } if rm_id == "rm1"),
        "{err:?}"
    );
    assert!(err.to_string().contains(&down), "{err}");

    let err = client.channel_to("rm7").unwrap_err();
    assert_eq!(
        err.to_string(),
        "rm7 is not a valid serviceId. It should be one of rm1"
    );
}
