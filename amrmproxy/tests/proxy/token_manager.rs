//! ProxyTokenSecretManager: local AMRMTokens issued, validated, rolled, exported and restored.

use yarn_amrmproxy::{Error, ProxyTokenSecretManager};
use yarn_proto::pb;
use yarn_security::{KeyAction, KeyRollingSchedule, MasterKey, TokenSecretManager};

use crate::support::{T0, attempt, rm_token};

const INTERVAL: i64 = 10_000;
const DELAY: i64 = 1_500;
const SERVICE: &str = "nm0:8049";

fn manager() -> ProxyTokenSecretManager {
    let schedule = KeyRollingSchedule::new(INTERVAL, DELAY).unwrap();
    ProxyTokenSecretManager::new(schedule, SERVICE, T0)
}

fn key_id(token: &pb::TokenProto) -> i32 {
    <pb::AmrmTokenIdentifierProto as prost::Message>::decode(token.identifier.as_slice())
        .unwrap()
        .key_id
}

#[test]
fn an_issued_token_names_the_proxy_and_validates_to_its_attempt() {
    let mut manager = manager();
    let token = manager.issue(attempt(1));
    assert_eq!(token.kind, "YARN_AM_RM_TOKEN");
    assert_eq!(token.service, SERVICE);
    assert_eq!(
        manager.validate(token.clone()).unwrap(),
        (attempt(1), key_id(&token))
    );
    assert_eq!(manager.signing_key_id(), key_id(&token));
}

#[test]
fn during_a_roll_current_and_next_keys_both_validate_and_then_only_the_new_one() {
    let mut manager = manager();
    let old = manager.issue(attempt(1));
    assert_eq!(manager.roll(T0 + INTERVAL - 1).unwrap(), None);
    let next_id = key_id(&old) + 1;
    assert_eq!(
        manager.roll(T0 + INTERVAL).unwrap(),
        Some(KeyAction::CreateNext { key_id: next_id })
    );
    // New tokens use the next key at once; both keys validate in the window.
    let new = manager.issue(attempt(1));
    assert_eq!(key_id(&new), next_id);
    assert_eq!(manager.signing_key_id(), next_id);
    assert_eq!(manager.validate(old.clone()).unwrap().1, key_id(&old));
    assert_eq!(manager.validate(new.clone()).unwrap().1, next_id);

    assert_eq!(manager.roll(T0 + INTERVAL + DELAY - 1).unwrap(), None);
    assert_eq!(
        manager.roll(T0 + INTERVAL + DELAY).unwrap(),
        Some(KeyAction::ActivateNext { key_id: next_id })
    );
    assert_eq!(manager.validate(new).unwrap().1, next_id);
    let err = manager.validate(old).unwrap_err();
    assert!(matches!(err, Error::InvalidAmrmToken { .. }), "{err:?}");
    assert!(err.to_string().contains("unknown master key"), "{err}");
}

#[test]
fn forged_and_tampered_tokens_are_refused() {
    let mut manager = manager();
    let genuine = manager.issue(attempt(1));

    let mut tampered = genuine.clone();
    tampered.password[0] ^= 0xFF;
    let err = manager.validate(tampered).unwrap_err();
    assert!(matches!(err, Error::InvalidAmrmToken { .. }), "{err:?}");
    assert!(err.to_string().contains("forged"), "{err}");

    // Signed by someone else under the right key id, for another attempt.
    let identifier = pb::AmrmTokenIdentifierProto {
        app_attempt_id: Some(attempt(2).into()),
        key_id: 0,
    };
    let forger = MasterKey::new(key_id(&genuine), [7; MasterKey::LEN]);
    let forged: pb::TokenProto = TokenSecretManager::new(forger)
        .sign(identifier, SERVICE)
        .into();
    assert!(matches!(
        manager.validate(forged),
        Err(Error::InvalidAmrmToken { .. })
    ));
}

#[test]
fn rm_tokens_and_other_kinds_are_not_local_tokens() {
    let manager = manager();
    let err = manager.validate(rm_token(attempt(1), 1)).unwrap_err();
    assert!(matches!(err, Error::NotALocalAmrmToken { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("yarn-ha-scheduler"), "{message}");
    assert!(message.contains(SERVICE), "{message}");

    let mut container_token = rm_token(attempt(1), 1);
    container_token.kind = "ContainerToken".to_owned();
    container_token.service = SERVICE.to_owned();
    assert!(matches!(
        manager.validate(container_token),
        Err(Error::NotALocalAmrmToken { .. })
    ));
}

#[test]
fn finished_and_unknown_attempts_are_refused() {
    let mut manager = manager();
    let token = manager.issue(attempt(1));
    manager.attempt_finished(attempt(1));
    let err = manager.validate(token).unwrap_err();
    let expected = attempt(1).to_string();
    assert!(
        matches!(&err, Error::UnknownApplicationAttempt { attempt } if *attempt == expected),
        "{err:?}"
    );
}

#[test]
fn exported_keys_restore_a_manager_that_validates_earlier_tokens_mid_roll() {
    let mut manager = manager();
    let old = manager.issue(attempt(1));
    manager.roll(T0 + INTERVAL).unwrap();
    let new = manager.issue(attempt(2));
    let exported = manager.export();
    assert!(exported.next.is_some());

    let schedule = KeyRollingSchedule::new(INTERVAL, DELAY).unwrap();
    let mut restored = ProxyTokenSecretManager::restore(schedule, SERVICE, exported).unwrap();
    // A restored manager knows no attempt until each is recovered.
    assert!(matches!(
        restored.validate(old.clone()),
        Err(Error::UnknownApplicationAttempt { .. })
    ));
    restored.attempt_recovered(attempt(1));
    restored.attempt_recovered(attempt(2));
    assert_eq!(restored.validate(old).unwrap().0, attempt(1));
    assert_eq!(restored.validate(new).unwrap().0, attempt(2));
    // The roll carries on where it was.
    assert!(matches!(
        restored.roll(T0 + INTERVAL + DELAY).unwrap(),
        Some(KeyAction::ActivateNext { .. })
    ));
}

#[test]
fn a_proven_connection_keeps_its_attempt_after_the_roll_that_retires_its_key() {
    let mut manager = manager();
    let old = manager.issue(attempt(1));
    let (_, _, password) = manager.password_of(&old.identifier).unwrap();
    assert_eq!(
        password, old.password,
        "SASL checks the AM against the token's password"
    );

    manager.roll(T0 + INTERVAL).unwrap();
    manager.roll(T0 + INTERVAL + DELAY).unwrap();
    // A new connection cannot prove the old token any more...
    assert!(manager.password_of(&old.identifier).is_err());
    // ...but a connection that proved it before the roll still runs as its attempt, and
    // learns its new token from the answer.
    assert_eq!(
        manager.identified(&old.identifier).unwrap(),
        (attempt(1), key_id(&old))
    );

    manager.attempt_finished(attempt(1));
    let err = manager.identified(&old.identifier).unwrap_err();
    assert!(
        matches!(err, Error::UnknownApplicationAttempt { .. }),
        "{err:?}"
    );
    assert!(matches!(
        manager.identified(&[0xff]).unwrap_err(),
        Error::InvalidAmrmToken { .. }
    ));
}
