//! The checks an NM token must pass before its holder may act on an application's containers.

use prost::Message;
use yarn_proto::ProtoError;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};
use yarn_proto::pb;
use yarn_security::{Token, TokenKind};

use super::{NmTokenKeys, NmTokenRefusal, SIGNATURE_ONLY_NOW_MS};

/// An NM token that passed every check of [`check_nm_token`].
#[derive(Clone, Debug, PartialEq)]
pub struct VerifiedNmToken {
    /// The signed identifier, with the application submitter.
    pub identifier: pb::NmTokenIdentifierProto,
    /// The application attempt the token was issued to.
    pub attempt_id: ApplicationAttemptId,
}

/// Checks that `token`, the NM token an application master presents, lets it act on containers
/// of `application_id` on this NodeManager (`node_id`), and returns its verified identifier.
///
/// NM tokens do not expire: they are good while their key is the current or previous one. The
/// checks run in this order and the first failure is returned:
/// 1. a readable NM token: [`NmTokenRefusal::Unreadable`];
/// 2. signed under the current or previous key: [`NmTokenRefusal::NoMasterKey`],
///    [`NmTokenRefusal::UnknownMasterKey`], [`NmTokenRefusal::InvalidSignature`];
/// 3. it names a valid attempt and node: [`NmTokenRefusal::InvalidIdentifier`];
/// 4. issued for this node: [`NmTokenRefusal::OtherNode`];
/// 5. its attempt belongs to `application_id`: [`NmTokenRefusal::OtherApplication`]. Any
///    attempt of the application will do, since containers outlive attempts when the application
///    keeps them across attempts.
///
/// # Errors
/// The [`NmTokenRefusal`] of the first check that fails.
pub fn check_nm_token(
    token: &pb::TokenProto,
    application_id: &ApplicationId,
    node_id: &NodeId,
    keys: &NmTokenKeys,
) -> Result<VerifiedNmToken, NmTokenRefusal> {
    let token =
        Token::try_from(token.clone()).map_err(|source| NmTokenRefusal::Unreadable { source })?;
    let identifier = verify_signature(&token, keys)?;
    let attempt_id = identifier
        .app_attempt_id
        .ok_or(ProtoError::MissingField {
            message: "NMTokenIdentifierProto",
            field: "app_attempt_id",
        })
        .and_then(ApplicationAttemptId::try_from)
        .map_err(|source| NmTokenRefusal::InvalidIdentifier {
            field: "app_attempt_id",
            source,
        })?;
    let token_node = identifier
        .node_id
        .clone()
        .ok_or(ProtoError::MissingField {
            message: "NMTokenIdentifierProto",
            field: "node_id",
        })
        .and_then(NodeId::try_from)
        .map_err(|source| NmTokenRefusal::InvalidIdentifier {
            field: "node_id",
            source,
        })?;

    if token_node != *node_id {
        return Err(NmTokenRefusal::OtherNode {
            attempt_id,
            expected: node_id.clone(),
            found: token_node,
        });
    }
    if attempt_id.application_id != *application_id {
        return Err(NmTokenRefusal::OtherApplication {
            attempt_id,
            application_id: *application_id,
        });
    }
    Ok(VerifiedNmToken {
        identifier,
        attempt_id,
    })
}

/// Checks kind, identifier, key and signature, and returns the identifier they vouch for.
///
/// The kind and identifier are read here first, before `verify` reads them again, so that the
/// refusal of a token with an unknown key or a bad signature can name the attempt and key the
/// token claims.
fn verify_signature(
    token: &Token,
    keys: &NmTokenKeys,
) -> Result<pb::NmTokenIdentifierProto, NmTokenRefusal> {
    if token.kind != TokenKind::Nm {
        return Err(NmTokenRefusal::Unreadable {
            source: yarn_security::Error::TokenKindMismatch {
                expected: TokenKind::Nm,
                found: token.kind,
            },
        });
    }
    let claimed =
        pb::NmTokenIdentifierProto::decode(token.identifier.as_slice()).map_err(|source| {
            NmTokenRefusal::Unreadable {
                source: yarn_security::Error::MalformedTokenIdentifier {
                    kind: TokenKind::Nm,
                    source,
                },
            }
        })?;
    // Only for naming the attempt in a refusal: nothing here is trusted yet.
    let claimed_attempt = claimed
        .app_attempt_id
        .and_then(|id| ApplicationAttemptId::try_from(id).ok());
    let Some(manager) = keys.nm_tokens() else {
        return Err(NmTokenRefusal::NoMasterKey {
            attempt_id: claimed_attempt,
        });
    };
    manager
        .verify(token, SIGNATURE_ONLY_NOW_MS)
        .map_err(|source| match source {
            yarn_security::Error::UnknownMasterKey { key_id, known, .. } => {
                NmTokenRefusal::UnknownMasterKey {
                    attempt_id: claimed_attempt,
                    key_id,
                    known,
                }
            }
            yarn_security::Error::InvalidTokenSignature { .. } => {
                NmTokenRefusal::InvalidSignature {
                    attempt_id: claimed_attempt,
                    key_id: claimed.key_id,
                }
            }
            source => NmTokenRefusal::Unreadable { source },
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token_check::NmKeyKind;
    use crate::token_check::test_tokens::{
        application, attempt, container, container_identifier, key, keys_with, nm_identifier, sign,
        this_node,
    };

    fn check(
        token: &pb::TokenProto,
        application_id: &ApplicationId,
        keys: &NmTokenKeys,
    ) -> Result<VerifiedNmToken, NmTokenRefusal> {
        check_nm_token(token, application_id, &this_node(), keys)
    }

    #[test]
    fn a_token_for_the_application_is_accepted_under_current_and_previous_keys() {
        let old = key(1, 0x11);
        let mut keys = keys_with(&old);
        let token = sign(&old, nm_identifier());
        let verified = check(&token, &application(), &keys).unwrap();
        assert_eq!(verified.attempt_id, attempt());
        assert_eq!(verified.identifier.app_submitter, "alice");

        keys.install(NmKeyKind::NmToken, key(2, 0x22).into())
            .unwrap();
        assert!(check(&token, &application(), &keys).is_ok());
        let fresh = sign(&key(2, 0x22), nm_identifier());
        assert!(check(&fresh, &application(), &keys).is_ok());
    }

    #[test]
    fn a_token_for_another_application_is_refused_naming_both() {
        let current = key(1, 0x11);
        let other = ApplicationId::new(application().cluster_timestamp, 2);
        let refusal = check(
            &sign(&current, nm_identifier()),
            &other,
            &keys_with(&current),
        )
        .unwrap_err();
        assert!(
            matches!(
                refusal,
                NmTokenRefusal::OtherApplication { attempt_id, application_id }
                    if attempt_id == attempt() && application_id == other
            ),
            "{refusal:?}"
        );
        assert_eq!(
            refusal.to_string(),
            "Unauthorized request to start container. NMToken for application attempt \
             appattempt_1410901177871_0001_000001 was used for a container of application \
             application_1410901177871_0002"
        );
    }

    #[test]
    fn a_forged_token_is_refused_as_illegally_generated() {
        let token = sign(&key(1, 0x66), nm_identifier());
        let refusal = check(&token, &application(), &keys_with(&key(1, 0x11))).unwrap_err();
        assert!(
            matches!(
                refusal,
                NmTokenRefusal::InvalidSignature { attempt_id: Some(a), key_id: 1 } if a == attempt()
            ),
            "{refusal:?}"
        );
        assert!(
            refusal.to_string().contains(
                "Given NMToken for application attempt appattempt_1410901177871_0001_000001 \
                 seems to have an illegally generated token"
            ),
            "{refusal}"
        );
    }

    #[test]
    fn a_token_under_an_unknown_key_or_before_any_key_is_refused() {
        let token = sign(&key(7, 0x77), nm_identifier());
        let unknown = check(&token, &application(), &keys_with(&key(1, 0x11))).unwrap_err();
        assert!(
            matches!(&unknown, NmTokenRefusal::UnknownMasterKey { key_id: 7, known, .. } if *known == [1]),
            "{unknown:?}"
        );
        let none = check(&token, &application(), &NmTokenKeys::new()).unwrap_err();
        assert!(
            matches!(none, NmTokenRefusal::NoMasterKey { attempt_id: Some(a) } if a == attempt()),
            "{none:?}"
        );
    }

    #[test]
    fn a_token_for_another_node_is_refused_naming_both_nodes() {
        let current = key(1, 0x11);
        let identifier = pb::NmTokenIdentifierProto {
            node_id: Some(NodeId::new("h2", 8041).into()),
            ..nm_identifier()
        };
        let refusal = check(
            &sign(&current, identifier),
            &application(),
            &keys_with(&current),
        )
        .unwrap_err();
        let message = refusal.to_string();
        assert!(
            matches!(refusal, NmTokenRefusal::OtherNode { .. })
                && message.contains("Expected : h1:8041 Found : h2:8041"),
            "{message}"
        );
    }

    #[test]
    fn container_token_keys_do_not_verify_nm_tokens() {
        let container_key = key(1, 0x11);
        let mut keys = NmTokenKeys::new();
        keys.install(NmKeyKind::ContainerToken, container_key.clone().into())
            .unwrap();
        keys.install(NmKeyKind::NmToken, key(1, 0x22).into())
            .unwrap();
        let token = sign(&container_key, nm_identifier());
        let refusal = check(&token, &application(), &keys).unwrap_err();
        assert!(
            matches!(refusal, NmTokenRefusal::InvalidSignature { .. }),
            "{refusal:?}"
        );
    }

    #[test]
    fn a_container_token_is_not_an_nm_token() {
        let current = key(1, 0x11);
        let token = sign(&current, container_identifier(container(5)));
        let refusal = check(&token, &application(), &keys_with(&current)).unwrap_err();
        assert!(
            matches!(
                refusal,
                NmTokenRefusal::Unreadable {
                    source: yarn_security::Error::TokenKindMismatch { .. }
                }
            ),
            "{refusal:?}"
        );
    }

    #[test]
    fn a_signed_identifier_without_an_attempt_is_refused() {
        let current = key(1, 0x11);
        let identifier = pb::NmTokenIdentifierProto {
            app_attempt_id: None,
            ..nm_identifier()
        };
        let refusal = check(
            &sign(&current, identifier),
            &application(),
            &keys_with(&current),
        )
        .unwrap_err();
        assert!(
            matches!(
                refusal,
                NmTokenRefusal::InvalidIdentifier {
                    field: "app_attempt_id",
                    ..
                }
            ),
            "{refusal:?}"
        );
    }
}
