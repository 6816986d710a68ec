//! Property tests of what callers hand the security crate: token bytes, identifiers with any field
//! values, master keys, peer certificates and Hadoop credentials files are read into a value or
//! refused with an error, never a panic; and a token whose identifier or password was altered in
//! any way never verifies.

use std::fmt::Debug;
use std::sync::LazyLock;

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use prost::Message;
use rcgen::{CertificateParams, DnType, KeyPair};
use yarn_proto::pb;
use yarn_security::hadoop_credentials::{Credentials, CredentialsToken, SerializedFormat};
use yarn_security::{
    Error, MasterKey, PeerIdentity, Token, TokenIdentifier, TokenKind, TokenSecretManager,
};
use yarn_test_support::byte_mutation::{Mutation, mutations};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    }
}

fn key(key_id: i32) -> MasterKey {
    MasterKey::new(key_id, [key_id.to_le_bytes()[0] ^ 0x5C; MasterKey::LEN])
}

/// A NodeManager's view: current key 1 and previous key 0. Key 0 is what an identifier without a
/// key id field names, so arbitrary bytes that decode often reach the signature check.
fn manager<I: TokenIdentifier>() -> TokenSecretManager<I> {
    TokenSecretManager::with_previous(key(1), Some(key(0)))
}

// --- strategies ---

fn any_i32() -> impl Strategy<Value = i32> {
    prop_oneof![any::<i32>(), -2..=2_i32, Just(i32::MIN), Just(i32::MAX)]
}

fn any_i64() -> impl Strategy<Value = i64> {
    prop_oneof![any::<i64>(), -2..=2_i64, Just(i64::MIN), Just(i64::MAX)]
}

fn attempt_proto() -> impl Strategy<Value = Option<pb::ApplicationAttemptIdProto>> {
    let app = (any_i64(), any_i32()).prop_map(|(cluster_timestamp, id)| pb::ApplicationIdProto {
        id,
        cluster_timestamp,
    });
    proptest::option::of((proptest::option::of(app), any_i32()).prop_map(
        |(application_id, attempt_id)| pb::ApplicationAttemptIdProto {
            application_id,
            attempt_id,
        },
    ))
}

fn amrm_identifier() -> impl Strategy<Value = pb::AmrmTokenIdentifierProto> {
    (attempt_proto(), any_i32()).prop_map(|(app_attempt_id, key_id)| pb::AmrmTokenIdentifierProto {
        app_attempt_id,
        key_id,
    })
}

fn nm_identifier() -> impl Strategy<Value = pb::NmTokenIdentifierProto> {
    let node = (any::<String>(), any_i32()).prop_map(|(host, port)| pb::NodeIdProto { host, port });
    (
        attempt_proto(),
        proptest::option::of(node),
        any::<String>(),
        any_i32(),
    )
        .prop_map(|(app_attempt_id, node_id, app_submitter, key_id)| {
            pb::NmTokenIdentifierProto {
                app_attempt_id,
                node_id,
                app_submitter,
                key_id,
            }
        })
}

fn container_identifier() -> impl Strategy<Value = pb::ContainerTokenIdentifierProto> {
    let container_id =
        (attempt_proto(), any_i64()).prop_map(|(app_attempt_id, id)| pb::ContainerIdProto {
            app_id: app_attempt_id.and_then(|attempt| attempt.application_id),
            app_attempt_id,
            id,
        });
    let resource = (
        any_i64(),
        any_i32(),
        btree_map("[a-z./]{0,8}", any_i64(), 0..3),
    )
        .prop_map(
            |(memory, virtual_cores, resource_value_map)| pb::ResourceProto {
                memory,
                virtual_cores,
                resource_value_map,
            },
        );
    let names = (
        proptest::option::of(container_id),
        any::<String>(),
        any::<String>(),
        proptest::option::of(resource),
    );
    // Enum fields take any i32: an unknown value decodes as itself, as protobuf requires.
    let numbers = (
        (any_i64(), any_i32(), any_i64(), any_i32()),
        (any_i64(), any_i32(), any_i32(), any_i32(), any_i64()),
    );
    (names, numbers).prop_map(
        |(
            (container_id, nm_host_addr, app_submitter, resource),
            (
                (expiry_time_stamp, master_key_id, rm_identifier, priority),
                (creation_time, container_type, execution_type, version, allocation_request_id),
            ),
        )| pb::ContainerTokenIdentifierProto {
            container_id,
            nm_host_addr,
            app_submitter,
            resource,
            expiry_time_stamp,
            master_key_id,
            rm_identifier,
            priority: Some(pb::PriorityProto { priority }),
            creation_time,
            container_type,
            execution_type,
            version,
            allocation_request_id,
        },
    )
}

fn kind_name() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        proptest::sample::select(&TokenKind::ALL).prop_map(|kind| kind.name().to_owned()),
    ]
}

fn mutated(bytes: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    mutations
        .iter()
        .for_each(|mutation| mutation.apply(&mut bytes));
    bytes
}

// --- checks shared by the properties ---

/// `token` is refused by the secret manager of `I`, with an error that prints.
fn check_refused<I: TokenIdentifier + Debug>(
    token: &Token,
    now_ms: i64,
) -> Result<Error, TestCaseError> {
    match manager::<I>().verify(token, now_ms) {
        Ok(identifier) => Err(TestCaseError::fail(format!(
            "{token:?} verified as {identifier:?}"
        ))),
        Err(err) => {
            prop_assert!(!err.to_string().is_empty());
            Ok(err)
        }
    }
}

/// No secret manager accepts `token`, whatever kind it claims.
fn check_never_verifies(token: &Token, now_ms: i64) -> Result<(), TestCaseError> {
    for kind in TokenKind::ALL {
        let token = Token {
            kind,
            ..token.clone()
        };
        check_refused::<pb::AmrmTokenIdentifierProto>(&token, now_ms)?;
        check_refused::<pb::NmTokenIdentifierProto>(&token, now_ms)?;
        check_refused::<pb::ContainerTokenIdentifierProto>(&token, now_ms)?;
    }
    Ok(())
}

/// `identifier`, signed under the current key and under the previous one, verifies back to
/// itself with that key's id, unless it is a container token past its expiry at `now_ms`, which is
/// refused naming both times.
fn check_signed_verifies<I>(identifier: I, now_ms: i64) -> Result<(), TestCaseError>
where
    I: TokenIdentifier + Clone + PartialEq + Debug,
{
    let manager = manager::<I>();
    let under_previous = manager
        .sign_under(0, identifier.clone(), "nm1:8041")
        .map_err(|err| TestCaseError::fail(format!("previous key refused to sign: {err}")))?;
    for (key_id, token) in [
        (1, manager.sign(identifier.clone(), "nm1:8041")),
        (0, under_previous),
    ] {
        let mut expected = identifier.clone();
        expected.set_key_id(key_id);
        let verified = manager.verify(&token, now_ms);
        match expected.expiry_ms() {
            Some(expiry) if expiry < now_ms => {
                let err = verified.err();
                prop_assert!(
                    matches!(err, Some(Error::TokenExpired { expiry_ms, now_ms: at, .. })
                        if expiry_ms == expiry && at == now_ms),
                    "{:?}",
                    err
                );
                let message = err.map(|err| err.to_string()).unwrap_or_default();
                prop_assert!(message.contains(&format!("{expiry} ms")), "{}", message);
                prop_assert!(message.contains(&format!("{now_ms} ms")), "{}", message);
            }
            _ => prop_assert_eq!(verified.ok(), Some(expected)),
        }
    }
    Ok(())
}

/// The identifier of a token signed from `identifier`, altered by `mutations`, is refused by its
/// kind's secret manager before any check of the identifier's own fields (such as expiry).
fn check_altered_identifier_refused<I: TokenIdentifier + Debug>(
    identifier: I,
    mutations: &[Mutation],
) -> Result<(), TestCaseError> {
    let token = manager::<I>().sign(identifier, "nm1:8041");
    let altered = Token {
        identifier: mutated(&token.identifier, mutations),
        ..token.clone()
    };
    if altered.identifier == token.identifier {
        return Ok(());
    }
    let err = check_refused::<I>(&altered, i64::MIN)?;
    prop_assert!(
        matches!(
            err,
            Error::MalformedTokenIdentifier { .. }
                | Error::UnknownMasterKey { .. }
                | Error::InvalidTokenSignature { .. }
        ),
        "{:?}",
        err
    );
    Ok(())
}

/// A token signed from `identifier` whose password was altered by `mutations` is refused as
/// forged.
fn check_altered_password_refused<I: TokenIdentifier + Debug>(
    identifier: I,
    mutations: &[Mutation],
) -> Result<(), TestCaseError> {
    let token = manager::<I>().sign(identifier, "nm1:8041");
    let altered = Token {
        password: mutated(&token.password, mutations),
        ..token.clone()
    };
    if altered.password == token.password {
        return Ok(());
    }
    let err = check_refused::<I>(&altered, i64::MIN)?;
    prop_assert!(
        matches!(err, Error::InvalidTokenSignature { kind } if kind == I::KIND),
        "{:?}",
        err
    );
    Ok(())
}

/// A certificate as `pki` issues them, to alter.
static NODE_CERTIFICATE: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let mut params = CertificateParams::default();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(DnType::CommonName, "nm1.example.com");
    params
        .distinguished_name
        .push(DnType::OrganizationalUnitName, "nodemanager");
    params
        .distinguished_name
        .push(DnType::OrganizationName, "yarn-ha");
    let key = KeyPair::generate().expect("key generation");
    let certificate = params.self_signed(&key).expect("self-signed certificate");
    certificate.der().to_vec()
});

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_identifier_and_password_bytes_never_verify(
        identifier in vec(any::<u8>(), 0..160),
        password in prop_oneof![vec(any::<u8>(), 0..64), vec(any::<u8>(), 32)],
        service in any::<String>(),
        now_ms in any_i64(),
    ) {
        let token = Token { identifier, password, kind: TokenKind::AmRm, service };
        check_never_verifies(&token, now_ms)?;
    }

    #[test]
    fn token_messages_from_a_caller_convert_only_with_a_known_kind_and_never_verify(
        bytes in vec(any::<u8>(), 0..160),
        identifier in vec(any::<u8>(), 0..64),
        password in vec(any::<u8>(), 0..40),
        kind in kind_name(),
        service in any::<String>(),
        now_ms in any_i64(),
    ) {
        let known = kind.parse::<TokenKind>().is_ok();
        let proto = pb::TokenProto { identifier, password, kind, service };
        match Token::try_from(proto.clone()) {
            Ok(token) => {
                prop_assert!(known, "{:?} accepted", proto);
                prop_assert_eq!(pb::TokenProto::from(token.clone()), proto);
                check_never_verifies(&token, now_ms)?;
            }
            Err(err) => prop_assert!(
                !known && matches!(&err, Error::UnknownTokenKind { kind } if *kind == proto.kind),
                "{:?}: {:?}", proto, err
            ),
        }

        if let Ok(Ok(token)) = pb::TokenProto::decode(bytes.as_slice()).map(Token::try_from) {
            check_never_verifies(&token, now_ms)?;
        }
    }

    #[test]
    fn identifiers_with_any_field_values_verify_to_themselves_once_signed(
        amrm in amrm_identifier(),
        nm in nm_identifier(),
        container in container_identifier(),
        now_ms in any_i64(),
    ) {
        check_signed_verifies(amrm, now_ms)?;
        check_signed_verifies(nm, now_ms)?;
        check_signed_verifies(container.clone(), now_ms)?;
        // The expiry instant itself is still valid.
        check_signed_verifies(container.clone(), container.expiry_time_stamp)?;
    }

    #[test]
    fn a_signed_token_with_altered_identifier_bytes_never_verifies(
        amrm in amrm_identifier(),
        nm in nm_identifier(),
        container in container_identifier(),
        mutations in mutations(),
    ) {
        check_altered_identifier_refused(amrm, &mutations)?;
        check_altered_identifier_refused(nm, &mutations)?;
        check_altered_identifier_refused(container, &mutations)?;
    }

    #[test]
    fn a_signed_token_with_an_altered_password_never_verifies(
        amrm in amrm_identifier(),
        nm in nm_identifier(),
        container in container_identifier(),
        mutations in mutations(),
    ) {
        check_altered_password_refused(amrm, &mutations)?;
        check_altered_password_refused(nm, &mutations)?;
        check_altered_password_refused(container, &mutations)?;
    }

    #[test]
    fn master_key_messages_convert_only_with_a_full_length_secret(
        key_id in any_i32(),
        secret in prop_oneof![vec(any::<u8>(), 0..70), vec(any::<u8>(), 31..=33)],
        bytes in vec(any::<u8>(), 0..80),
    ) {
        let proto = pb::MasterKeyProto { key_id, bytes: secret };
        match MasterKey::try_from(proto.clone()) {
            Ok(key) => {
                prop_assert_eq!(proto.bytes.len(), MasterKey::LEN);
                prop_assert_eq!(pb::MasterKeyProto::from(key), proto);
            }
            Err(err) => prop_assert!(
                matches!(err, Error::InvalidMasterKey { length, .. } if length != MasterKey::LEN),
                "{:?}", err
            ),
        }

        if let Ok(proto) = pb::MasterKeyProto::decode(bytes.as_slice()) {
            let full_length = proto.bytes.len() == MasterKey::LEN;
            prop_assert_eq!(MasterKey::try_from(proto).is_ok(), full_length);
        }
    }

    #[test]
    fn peer_certificates_of_any_bytes_read_as_an_identity_or_are_refused(
        bytes in vec(any::<u8>(), 0..256),
        mutations in mutations(),
    ) {
        prop_assert!(PeerIdentity::from_der(&bytes).is_err(), "{:?}", bytes);
        match PeerIdentity::from_der(&mutated(&NODE_CERTIFICATE, &mutations)) {
            Ok(identity) => prop_assert!(!identity.to_string().is_empty()),
            Err(err) => prop_assert!(!err.to_string().is_empty()),
        }
    }

    #[test]
    fn credentials_files_of_any_bytes_are_read_or_refused(
        bytes in vec(any::<u8>(), 0..96),
        mutations in mutations(),
    ) {
        let mut credentials = Credentials::new();
        credentials.add_token(CredentialsToken {
            alias: "rm1:8030".to_owned(),
            identifier: vec![8, 1, 16, 2],
            password: vec![0x5C; 32],
            kind: "YARN_AM_RM_TOKEN".to_owned(),
            service: "rm1:8030".to_owned(),
        });
        credentials.add_secret_key("sparkCookie", vec![1; 20]);
        let mut prefixed = b"HDTS".to_vec();
        prefixed.extend_from_slice(&bytes);
        for input in [
            bytes,
            prefixed,
            mutated(&credentials.encode(), &mutations),
            mutated(&credentials.encode_as(SerializedFormat::Protobuf), &mutations),
        ] {
            match Credentials::decode(&input) {
                Ok(read) => prop_assert!(read.tokens().len() <= input.len()),
                Err(err) => prop_assert!(
                    matches!(err, Error::MalformedCredentials { offset, .. } if offset <= input.len()),
                    "{err:?}"
                ),
            }
        }
    }
}
