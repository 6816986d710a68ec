//! Token signing and verification through the public API: round trips for every kind, each
//! refusal `TokenSecretManager::verify` documents, and validity across master-key rolls on the
//! ResourceManager and NodeManager sides.

use yarn_proto::pb;
use yarn_security::{
    Error, KeyAction, KeyRollingSchedule, MasterKey, MasterKeyRoller, Token, TokenKind,
    TokenSecretManager,
};

const NOW: i64 = 1_700_000_000_000;
const NODE: &str = "nm1.example.com:8041";

fn key(key_id: i32) -> MasterKey {
    MasterKey::new(
        key_id,
        [key_id.to_le_bytes()[0].wrapping_mul(37); MasterKey::LEN],
    )
}

fn attempt() -> pb::ApplicationAttemptIdProto {
    pb::ApplicationAttemptIdProto {
        application_id: Some(pb::ApplicationIdProto {
            id: 12,
            cluster_timestamp: 1_699_999_000_000,
        }),
        attempt_id: 1,
    }
}

fn amrm_identifier() -> pb::AmrmTokenIdentifierProto {
    pb::AmrmTokenIdentifierProto {
        app_attempt_id: Some(attempt()),
        key_id: 0,
    }
}

fn nm_identifier() -> pb::NmTokenIdentifierProto {
    pb::NmTokenIdentifierProto {
        app_attempt_id: Some(attempt()),
        node_id: Some(pb::NodeIdProto {
            host: "nm1.example.com".to_owned(),
            port: 8041,
        }),
        app_submitter: "alice".to_owned(),
        key_id: 0,
    }
}

fn container_identifier(expiry_ms: i64) -> pb::ContainerTokenIdentifierProto {
    pb::ContainerTokenIdentifierProto {
        container_id: Some(pb::ContainerIdProto {
            app_id: attempt().application_id,
            app_attempt_id: Some(attempt()),
            id: 2,
        }),
        nm_host_addr: NODE.to_owned(),
        app_submitter: "alice".to_owned(),
        resource: Some(pb::ResourceProto {
            memory: 1024,
            virtual_cores: 1,
            ..Default::default()
        }),
        expiry_time_stamp: expiry_ms,
        rm_identifier: 5,
        creation_time: NOW,
        ..Default::default()
    }
}

fn must_sign_container(
    manager: &TokenSecretManager<pb::ContainerTokenIdentifierProto>,
    expiry_ms: i64,
) -> Token {
    manager.sign(container_identifier(expiry_ms), NODE)
}

/// Changes the first occurrence of `from` inside the identifier bytes to `to` (same length), so
/// the identifier still decodes but no longer matches its password.
fn must_replace_in_identifier(token: &mut Token, from: &[u8], to: &[u8]) {
    assert_eq!(from.len(), to.len());
    let at = token
        .identifier
        .windows(from.len())
        .position(|window| window == from)
        .expect("pattern present in identifier");
    token.identifier[at..at + to.len()].copy_from_slice(to);
}

// --- round trips ---

#[test]
fn amrm_token_round_trip() {
    let manager = TokenSecretManager::<pb::AmrmTokenIdentifierProto>::new(key(3));
    let token = manager.sign(amrm_identifier(), "rm1:8030,rm2:8030");
    assert_eq!(token.kind, TokenKind::AmRm);
    assert_eq!(token.service, "rm1:8030,rm2:8030");
    assert_eq!(token.password.len(), 32);

    let verified = manager.verify(&token, NOW).unwrap();
    assert_eq!(
        verified,
        pb::AmrmTokenIdentifierProto {
            key_id: 3,
            ..amrm_identifier()
        }
    );
}

#[test]
fn nm_token_round_trip() {
    let manager = TokenSecretManager::<pb::NmTokenIdentifierProto>::new(key(8));
    let token = manager.sign(nm_identifier(), NODE);
    assert_eq!(token.kind, TokenKind::Nm);
    let verified = manager.verify(&token, NOW).unwrap();
    assert_eq!(
        verified,
        pb::NmTokenIdentifierProto {
            key_id: 8,
            ..nm_identifier()
        }
    );
}

#[test]
fn container_token_round_trip_until_and_at_expiry() {
    let manager = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(key(21));
    let token = must_sign_container(&manager, NOW + 600_000);
    assert_eq!(token.kind, TokenKind::Container);
    assert_eq!(token.service, NODE);

    let verified = manager.verify(&token, NOW).unwrap();
    assert_eq!(verified.master_key_id, 21);
    assert_eq!(verified.nm_host_addr, NODE);
    assert_eq!(verified.expiry_time_stamp, NOW + 600_000);
    // The expiry instant itself is still valid; one millisecond later is not.
    assert!(manager.verify(&token, NOW + 600_000).is_ok());
    assert!(manager.verify(&token, NOW + 600_001).is_err());
}

#[test]
fn signing_overwrites_the_key_id_the_caller_put_in_the_identifier() {
    let manager = TokenSecretManager::<pb::AmrmTokenIdentifierProto>::new(key(3));
    let mut identifier = amrm_identifier();
    identifier.key_id = 99;
    let verified = manager.verify(&manager.sign(identifier, ""), NOW).unwrap();
    assert_eq!(verified.key_id, 3);
}

// --- refusals ---

#[test]
fn tampered_identifier_is_refused() {
    let manager = TokenSecretManager::<pb::NmTokenIdentifierProto>::new(key(3));
    let mut token = manager.sign(nm_identifier(), NODE);
    // An application submitter rewriting the submitter field: still a valid identifier.
    must_replace_in_identifier(&mut token, b"alice", b"mallo");

    let err = manager.verify(&token, NOW).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidTokenSignature {
                kind: TokenKind::Nm
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "token of kind NMToken: signature does not verify: tampered or forged"
    );
}

#[test]
fn tampered_container_expiry_is_refused_as_forged_not_as_expired() {
    let manager = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(key(3));
    let token = must_sign_container(&manager, NOW - 1);
    // Re-encode with a later expiry and keep the old password, as a forger would.
    let mut identifier = manager.verify(&token, NOW - 1).unwrap();
    identifier.expiry_time_stamp = NOW + 3_600_000;
    let forged = Token {
        identifier: prost::Message::encode_to_vec(&identifier),
        ..token
    };

    let err = manager.verify(&forged, NOW).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidTokenSignature {
                kind: TokenKind::Container
            }
        ),
        "{err:?}"
    );
}

#[test]
fn tampered_password_is_refused() {
    let manager = TokenSecretManager::<pb::AmrmTokenIdentifierProto>::new(key(3));
    let token = manager.sign(amrm_identifier(), "");
    for position in [0, 17, 31] {
        let mut tampered = token.clone();
        tampered.password[position] ^= 0x01;
        let err = manager.verify(&tampered, NOW).unwrap_err();
        assert!(
            matches!(
                err,
                Error::InvalidTokenSignature {
                    kind: TokenKind::AmRm
                }
            ),
            "byte {position}: {err:?}"
        );
    }
    // A truncated or missing password is no prefix of a valid one.
    for password in [token.password[..16].to_vec(), Vec::new()] {
        let truncated = Token {
            password,
            ..token.clone()
        };
        assert!(matches!(
            manager.verify(&truncated, NOW),
            Err(Error::InvalidTokenSignature { .. })
        ));
    }
}

#[test]
fn token_under_an_unknown_master_key_is_refused_naming_the_known_keys() {
    let issuer = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(key(17));
    let verifier = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::with_previous(
        key(4),
        Some(key(3)),
    );
    let token = must_sign_container(&issuer, NOW + 1_000);

    let err = verifier.verify(&token, NOW).unwrap_err();
    match &err {
        Error::UnknownMasterKey {
            kind,
            key_id,
            known,
        } => {
            assert_eq!(*kind, TokenKind::Container);
            assert_eq!(*key_id, 17);
            assert_eq!(known, &vec![3, 4]);
        }
        other => panic!("expected UnknownMasterKey, got {other:?}"),
    }
    assert!(
        err.to_string()
            .contains("signed under unknown master key 17 (known: 3, 4)"),
        "{err}"
    );
}

#[test]
fn same_key_id_with_other_secret_is_refused_as_forged() {
    let forger = TokenSecretManager::<pb::NmTokenIdentifierProto>::new(MasterKey::new(
        3,
        [0xEE; MasterKey::LEN],
    ));
    let verifier = TokenSecretManager::<pb::NmTokenIdentifierProto>::new(key(3));
    let err = verifier
        .verify(&forger.sign(nm_identifier(), NODE), NOW)
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidTokenSignature { .. }),
        "{err:?}"
    );
}

#[test]
fn expired_container_token_is_refused_showing_both_times() {
    let manager = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(key(3));
    let expiry = NOW - 5_000;
    let token = must_sign_container(&manager, expiry);

    let err = manager.verify(&token, NOW).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TokenExpired { kind: TokenKind::Container, expiry_ms, now_ms }
                if expiry_ms == expiry && now_ms == NOW
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("1699999995000 ms (2023-11-14T22:13:15.000Z)"),
        "{message}"
    );
    assert!(
        message.contains("1700000000000 ms (2023-11-14T22:13:20.000Z)"),
        "{message}"
    );
    assert!(message.contains("out of sync"), "{message}");
}

#[test]
fn token_of_another_kind_is_refused() {
    let nm_tokens = TokenSecretManager::<pb::NmTokenIdentifierProto>::new(key(3));
    let container_tokens = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(key(3));
    let nm_token = nm_tokens.sign(nm_identifier(), NODE);

    let err = container_tokens.verify(&nm_token, NOW).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TokenKindMismatch {
                expected: TokenKind::Container,
                found: TokenKind::Nm
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "token of kind NMToken presented where a token of kind ContainerToken is required"
    );
}

#[test]
fn malformed_identifier_is_refused() {
    let manager = TokenSecretManager::<pb::AmrmTokenIdentifierProto>::new(key(3));
    let mut token = manager.sign(amrm_identifier(), "");
    // Cut the identifier inside its embedded attempt id message.
    token.identifier.truncate(3);

    let err = manager.verify(&token, NOW).unwrap_err();
    assert!(
        matches!(
            err,
            Error::MalformedTokenIdentifier {
                kind: TokenKind::AmRm,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("token of kind YARN_AM_RM_TOKEN has a malformed identifier: "),
        "{err}"
    );
}

#[test]
fn sign_under_an_unknown_key_is_refused() {
    let manager =
        TokenSecretManager::<pb::AmrmTokenIdentifierProto>::with_next(key(3), Some(key(4)));
    let err = manager.sign_under(9, amrm_identifier(), "").unwrap_err();
    assert!(
        matches!(&err, Error::UnknownMasterKey { key_id: 9, known, .. } if known == &vec![3, 4]),
        "{err:?}"
    );
}

// --- validity across rolls ---

#[test]
fn resource_manager_validates_current_and_next_keys() {
    let schedule = KeyRollingSchedule::new(86_400_000, 900_000).unwrap();
    let mut roller = MasterKeyRoller::new(schedule, key(3), NOW);
    let before_roll = TokenSecretManager::<pb::AmrmTokenIdentifierProto>::from_roller(&roller);
    let under_current = before_roll.sign(amrm_identifier(), "");

    let created_at = NOW + 86_400_000;
    assert_eq!(
        roller.next_action(created_at),
        Some(KeyAction::CreateNext { key_id: 4 })
    );
    roller.create_next(key(4), created_at).unwrap();
    let rm = TokenSecretManager::<pb::AmrmTokenIdentifierProto>::from_roller(&roller);
    assert_eq!(rm.known_key_ids(), vec![3, 4]);
    // New tokens are still signed under the current key while the next one spreads...
    assert_eq!(
        rm.verify(&rm.sign(amrm_identifier(), ""), created_at)
            .unwrap()
            .key_id,
        3
    );
    // ...but a token rolled early onto the next key validates too, as does the old token.
    let under_next = rm.sign_under(4, amrm_identifier(), "").unwrap();
    assert_eq!(rm.verify(&under_next, created_at).unwrap().key_id, 4);
    assert_eq!(rm.verify(&under_current, created_at).unwrap().key_id, 3);

    roller
        .activate_next(4, created_at + schedule.activation_delay_ms())
        .unwrap();
    let rm = TokenSecretManager::<pb::AmrmTokenIdentifierProto>::from_roller(&roller);
    assert_eq!(rm.verify(&under_next, created_at).unwrap().key_id, 4);
    assert_eq!(rm.sign(amrm_identifier(), "").password.len(), 32);
    assert!(matches!(
        rm.verify(&under_current, created_at),
        Err(Error::UnknownMasterKey { key_id: 3, .. })
    ));
}

#[test]
fn node_manager_keeps_the_previous_key_and_drops_it_after_two_rolls() {
    // The RM ships each next key to the NM in a heartbeat; the NM installs it as current.
    let rm = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(key(1));
    let mut nm = TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(key(1));
    let under_first = must_sign_container(&rm, NOW + 60_000);
    assert!(nm.verify(&under_first, NOW).is_ok());

    assert!(nm.install_master_key(key(2)));
    assert_eq!(nm.current().key_id(), 2);
    assert_eq!(nm.previous().map(MasterKey::key_id), Some(1));
    assert_eq!(
        nm.verify(&under_first, NOW).unwrap().master_key_id,
        1,
        "previous key still validates after one roll"
    );
    // A re-sent key changes nothing.
    assert!(!nm.install_master_key(key(2)));
    assert_eq!(nm.known_key_ids(), vec![1, 2]);

    assert!(nm.install_master_key(key(3)));
    let err = nm.verify(&under_first, NOW).unwrap_err();
    assert!(
        matches!(&err, Error::UnknownMasterKey { key_id: 1, known, .. } if known == &vec![2, 3]),
        "{err:?}"
    );
}

#[test]
fn installing_the_pending_next_key_consumes_it() {
    let mut manager =
        TokenSecretManager::<pb::NmTokenIdentifierProto>::with_next(key(5), Some(key(6)));
    assert!(manager.install_master_key(key(6)));
    assert_eq!(manager.current().key_id(), 6);
    assert!(manager.next().is_none());
    assert_eq!(manager.known_key_ids(), vec![5, 6]);
}

#[test]
fn debug_output_never_contains_secrets() {
    let secret = [0xC3; MasterKey::LEN];
    let manager = TokenSecretManager::<pb::NmTokenIdentifierProto>::with_next(
        MasterKey::new(3, secret),
        None,
    );
    let token = manager.sign(nm_identifier(), NODE);
    let schedule = KeyRollingSchedule::new(10, 1).unwrap();
    let roller = MasterKeyRoller::new(schedule, MasterKey::new(3, secret), NOW);

    for debug in [
        format!("{:?}", MasterKey::new(3, secret)),
        format!("{manager:?}"),
        format!("{roller:?}"),
    ] {
        assert!(!debug.contains("195"), "secret byte printed: {debug}");
    }
    let debug = format!("{token:?}");
    assert!(!debug.contains(&format!("{:?}", token.password)), "{debug}");
    assert!(debug.contains("<32 bytes redacted>"), "{debug}");
}

#[test]
fn the_password_of_an_identifier_is_the_one_its_token_was_signed_with() {
    let manager = TokenSecretManager::with_previous(key(8), Some(key(7)));
    let old = TokenSecretManager::new(key(7)).sign(amrm_identifier(), "rm:8030");
    let current = manager.sign(amrm_identifier(), "rm:8030");
    for token in [old, current] {
        let (identifier, password) = manager.password_of(&token.identifier).unwrap();
        assert_eq!(
            password, token.password,
            "a SASL server computes what the AM holds"
        );
        assert_eq!(identifier.app_attempt_id, Some(attempt()));
    }

    let unknown = TokenSecretManager::new(key(9)).sign(amrm_identifier(), "rm:8030");
    assert!(matches!(
        TokenSecretManager::<pb::AmrmTokenIdentifierProto>::password_of(
            &manager,
            &unknown.identifier
        ),
        Err(Error::UnknownMasterKey { key_id: 9, .. })
    ));
    assert!(matches!(
        manager.password_of(&[0xff]),
        Err(Error::MalformedTokenIdentifier { .. })
    ));
}
