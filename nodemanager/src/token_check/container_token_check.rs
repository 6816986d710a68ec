//! The checks a container token must pass before its container may start.

use prost::Message;
use yarn_proto::ProtoError;
use yarn_proto::ids::{ContainerId, NodeId};
use yarn_proto::pb;
use yarn_security::{Token, TokenKind};

use super::{ContainerStartRefusal, NmTokenKeys, SIGNATURE_ONLY_NOW_MS};

/// A container token that passed every check of [`check_container_start`].
#[derive(Clone, Debug, PartialEq)]
pub struct VerifiedContainer {
    /// The signed identifier: resource, execution type, version, submitter and the rest.
    pub identifier: pb::ContainerTokenIdentifierProto,
    /// The container the token authorises.
    pub container_id: ContainerId,
    /// When the token expires, milliseconds since the Unix epoch: the caller keeps its replay
    /// record for the container until then.
    pub expiry_ms: i64,
}

/// Checks that `token`, a container token as it travels in a start request, authorises the start
/// of its container on this NodeManager, and returns its verified identifier.
///
/// `node_id` is this NodeManager's id, `rm_epoch` the ResourceManager epoch it follows (from its
/// last registration), `now_ms` its clock in milliseconds since the Unix epoch, and `replayed`
/// says whether a container id has a replay record (it was started with a token that has not yet
/// expired). Pure: no clock, no I/O.
///
/// The checks run in YARN's order and the first failure is returned, so a token failing several
/// checks gets the refusal YARN would give:
/// 1. a readable container token: [`ContainerStartRefusal::Unreadable`];
/// 2. signed under the current or previous key: [`ContainerStartRefusal::NoMasterKey`],
///    [`ContainerStartRefusal::UnknownMasterKey`], [`ContainerStartRefusal::InvalidSignature`]
///    (the signature comes first, so no later message repeats fields a forger chose);
/// 3. it names a valid container: [`ContainerStartRefusal::InvalidContainerId`];
/// 4. issued for this node: [`ContainerStartRefusal::OtherNode`];
/// 5. not used before: [`ContainerStartRefusal::Replayed`];
/// 6. not expired (`now_ms` after the expiry time): [`ContainerStartRefusal::Expired`];
/// 7. issued under `rm_epoch` or an earlier epoch: [`ContainerStartRefusal::LaterEpoch`].
///
/// A token of an earlier epoch than `rm_epoch` passes (unlike in YARN, which refuses tokens of
/// a previous RM): yarn-ha replicates every allocation through Raft before any application
/// master sees it, so the current leader knows the containers its predecessors allocated, and
/// refusing them would lose those containers across a failover. A token of a later epoch names
/// a leader this node has not registered with yet, so it is refused until the node has.
///
/// # Errors
/// The [`ContainerStartRefusal`] of the first check that fails.
pub fn check_container_start(
    token: &pb::TokenProto,
    node_id: &NodeId,
    rm_epoch: i64,
    now_ms: i64,
    replayed: impl Fn(&ContainerId) -> bool,
    keys: &NmTokenKeys,
) -> Result<VerifiedContainer, ContainerStartRefusal> {
    let token = Token::try_from(token.clone())
        .map_err(|source| ContainerStartRefusal::Unreadable { source })?;
    let identifier = verify_signature(&token, keys)?;
    let container_id = identifier
        .container_id
        .ok_or(ProtoError::MissingField {
            message: "ContainerTokenIdentifierProto",
            field: "container_id",
        })
        .and_then(ContainerId::try_from)
        .map_err(|source| ContainerStartRefusal::InvalidContainerId { source })?;

    if identifier.nm_host_addr != node_id.to_string() {
        return Err(ContainerStartRefusal::OtherNode {
            container_id,
            expected: node_id.clone(),
            found: identifier.nm_host_addr,
        });
    }
    if replayed(&container_id) {
        return Err(ContainerStartRefusal::Replayed { container_id });
    }
    let expiry_ms = identifier.expiry_time_stamp;
    if expiry_ms < now_ms {
        return Err(ContainerStartRefusal::Expired {
            container_id,
            now_ms,
            expiry_ms,
        });
    }
    if identifier.rm_identifier > rm_epoch {
        return Err(ContainerStartRefusal::LaterEpoch {
            container_id,
            token_epoch: identifier.rm_identifier,
            rm_epoch,
        });
    }
    Ok(VerifiedContainer {
        identifier,
        container_id,
        expiry_ms,
    })
}

/// Checks kind, identifier, key and signature, and returns the identifier they vouch for.
///
/// The kind and identifier are read here first, before `verify` reads them again, so that the
/// refusal of a token with an unknown key or a bad signature can name the container and key the
/// token claims.
fn verify_signature(
    token: &Token,
    keys: &NmTokenKeys,
) -> Result<pb::ContainerTokenIdentifierProto, ContainerStartRefusal> {
    if token.kind != TokenKind::Container {
        return Err(ContainerStartRefusal::Unreadable {
            source: yarn_security::Error::TokenKindMismatch {
                expected: TokenKind::Container,
                found: token.kind,
            },
        });
    }
    let claimed = pb::ContainerTokenIdentifierProto::decode(token.identifier.as_slice()).map_err(
        |source| ContainerStartRefusal::Unreadable {
            source: yarn_security::Error::MalformedTokenIdentifier {
                kind: TokenKind::Container,
                source,
            },
        },
    )?;
    // Only for naming the container in a refusal: nothing here is trusted yet.
    let claimed_container = claimed
        .container_id
        .and_then(|id| ContainerId::try_from(id).ok());
    let Some(manager) = keys.container_tokens() else {
        return Err(ContainerStartRefusal::NoMasterKey {
            container_id: claimed_container,
        });
    };
    manager
        .verify(token, SIGNATURE_ONLY_NOW_MS)
        .map_err(|source| match source {
            yarn_security::Error::UnknownMasterKey { key_id, known, .. } => {
                ContainerStartRefusal::UnknownMasterKey {
                    container_id: claimed_container,
                    key_id,
                    known,
                }
            }
            yarn_security::Error::InvalidTokenSignature { .. } => {
                ContainerStartRefusal::InvalidSignature {
                    container_id: claimed_container,
                    key_id: claimed.master_key_id,
                }
            }
            source => ContainerStartRefusal::Unreadable { source },
        })
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use yarn_security::MasterKey;

    use super::*;
    use crate::token_check::NmKeyKind;
    use crate::token_check::test_tokens::{
        EPOCH, NOW_MS, container, container_identifier, key, keys_with, sign, this_node,
    };

    fn never_started(_: &ContainerId) -> bool {
        false
    }

    fn check(
        token: &pb::TokenProto,
        keys: &NmTokenKeys,
    ) -> Result<VerifiedContainer, ContainerStartRefusal> {
        check_container_start(token, &this_node(), EPOCH, NOW_MS, never_started, keys)
    }

    fn refusal(token: &pb::TokenProto, keys: &NmTokenKeys) -> ContainerStartRefusal {
        match check(token, keys) {
            Ok(verified) => panic!("token accepted: {verified:?}"),
            Err(refusal) => refusal,
        }
    }

    #[test]
    fn a_token_signed_under_the_current_key_is_accepted() {
        let current = key(1, 0x11);
        let identifier = container_identifier(container(5));
        let verified = check(&sign(&current, identifier.clone()), &keys_with(&current)).unwrap();
        assert_eq!(verified.container_id, container(5));
        assert_eq!(verified.expiry_ms, NOW_MS + 600_000);
        assert_eq!(
            verified.identifier,
            pb::ContainerTokenIdentifierProto {
                master_key_id: 1,
                ..identifier
            }
        );
    }

    #[test]
    fn a_token_signed_under_the_previous_key_is_accepted_after_a_roll() {
        let old = key(1, 0x11);
        let mut keys = keys_with(&old);
        let token = sign(&old, container_identifier(container(5)));
        keys.install(NmKeyKind::ContainerToken, key(2, 0x22).into())
            .unwrap();
        assert_eq!(check(&token, &keys).unwrap().container_id, container(5));

        // A second roll drops key 1: its tokens are now refused.
        keys.install(NmKeyKind::ContainerToken, key(3, 0x33).into())
            .unwrap();
        match refusal(&token, &keys) {
            ContainerStartRefusal::UnknownMasterKey {
                container_id,
                key_id: 1,
                known,
            } => {
                assert_eq!(container_id, Some(container(5)));
                assert_eq!(known, vec![2, 3]);
            }
            other => panic!("unexpected refusal {other:?}"),
        }
    }

    #[test]
    fn a_token_forged_with_wrong_key_bytes_is_refused_as_illegally_generated() {
        let real = key(1, 0x11);
        let forger = key(1, 0x66);
        let token = sign(&forger, container_identifier(container(5)));
        let refusal = refusal(&token, &keys_with(&real));
        assert!(
            matches!(
                refusal,
                ContainerStartRefusal::InvalidSignature { container_id: Some(id), key_id: 1 }
                    if id == container(5)
            ),
            "{refusal:?}"
        );
        let message = refusal.to_string();
        assert!(
            message.contains(
                "Given Container container_e03_1410901177871_0001_01_000005 seems to have an \
                 illegally generated token"
            ),
            "{message}"
        );
        assert!(message.contains("master key 1"), "{message}");
    }

    #[test]
    fn a_tampered_identifier_is_refused() {
        let current = key(1, 0x11);
        let mut token = sign(&current, container_identifier(container(5)));
        // Push the expiry a day later without re-signing.
        let mut identifier =
            pb::ContainerTokenIdentifierProto::decode(token.identifier.as_slice()).unwrap();
        identifier.expiry_time_stamp += 86_400_000;
        token.identifier = identifier.encode_to_vec();
        let refusal = refusal(&token, &keys_with(&current));
        assert!(
            matches!(refusal, ContainerStartRefusal::InvalidSignature { .. }),
            "{refusal:?}"
        );
    }

    #[test]
    fn a_token_under_a_key_never_shipped_names_the_keys_held() {
        let keys = keys_with(&key(1, 0x11));
        let token = sign(&key(7, 0x77), container_identifier(container(5)));
        let refusal = refusal(&token, &keys);
        let message = refusal.to_string();
        assert!(
            message.contains("illegally generated token")
                && message.contains("master key 7")
                && message.contains("[1]"),
            "{message}"
        );
    }

    #[test]
    fn every_token_is_refused_before_the_first_key_arrives() {
        let token = sign(&key(1, 0x11), container_identifier(container(5)));
        let refusal = refusal(&token, &NmTokenKeys::new());
        assert!(
            matches!(
                refusal,
                ContainerStartRefusal::NoMasterKey { container_id: Some(id) } if id == container(5)
            ),
            "{refusal:?}"
        );
        assert!(
            refusal
                .to_string()
                .contains("has no container-token master key yet"),
            "{refusal}"
        );
    }

    #[test]
    fn an_nm_token_is_not_a_container_token() {
        let current = key(1, 0x11);
        let token = sign(&current, crate::token_check::test_tokens::nm_identifier());
        let refusal = refusal(&token, &keys_with(&current));
        assert!(
            matches!(
                refusal,
                ContainerStartRefusal::Unreadable {
                    source: yarn_security::Error::TokenKindMismatch {
                        expected: TokenKind::Container,
                        found: TokenKind::Nm,
                    },
                }
            ),
            "{refusal:?}"
        );
    }

    #[test]
    fn garbage_identifier_bytes_are_refused_as_unreadable() {
        let current = key(1, 0x11);
        let mut token = sign(&current, container_identifier(container(5)));
        token.identifier = vec![0xFF, 0xFF, 0xFF];
        let refusal = refusal(&token, &keys_with(&current));
        assert!(
            matches!(
                refusal,
                ContainerStartRefusal::Unreadable {
                    source: yarn_security::Error::MalformedTokenIdentifier { .. }
                }
            ),
            "{refusal:?}"
        );
    }

    #[test]
    fn a_token_for_another_node_is_refused_naming_both_nodes() {
        let current = key(1, 0x11);
        let identifier = pb::ContainerTokenIdentifierProto {
            nm_host_addr: "h2:8041".to_owned(),
            ..container_identifier(container(5))
        };
        let refusal = refusal(&sign(&current, identifier), &keys_with(&current));
        assert!(
            matches!(&refusal, ContainerStartRefusal::OtherNode { found, .. } if found == "h2:8041"),
            "{refusal:?}"
        );
        assert_eq!(
            refusal.to_string(),
            "Given Container container_e03_1410901177871_0001_01_000005 identifier is not valid \
             for current Node manager. Expected : h1:8041 Found : h2:8041"
        );
    }

    #[test]
    fn an_expired_token_is_refused_showing_both_times() {
        let current = key(1, 0x11);
        let expiry_ms = NOW_MS - 1;
        let identifier = pb::ContainerTokenIdentifierProto {
            expiry_time_stamp: expiry_ms,
            ..container_identifier(container(5))
        };
        let refusal = refusal(&sign(&current, identifier), &keys_with(&current));
        assert!(
            matches!(
                refusal,
                ContainerStartRefusal::Expired { now_ms: NOW_MS, expiry_ms: e, .. } if e == expiry_ms
            ),
            "{refusal:?}"
        );
        let message = refusal.to_string();
        assert!(
            message.contains(
                "This token is expired. current time is 1700000000000 \
                 (2023-11-14T22:13:20.000Z) found 1699999999999 (2023-11-14T22:13:19.999Z)"
            ),
            "{message}"
        );
        assert!(
            message.contains("container_e03_1410901177871_0001_01_000005"),
            "{message}"
        );
    }

    #[test]
    fn a_token_is_still_good_at_its_expiry_time() {
        let current = key(1, 0x11);
        let identifier = pb::ContainerTokenIdentifierProto {
            expiry_time_stamp: NOW_MS,
            ..container_identifier(container(5))
        };
        assert!(check(&sign(&current, identifier), &keys_with(&current)).is_ok());
    }

    #[test]
    fn a_token_from_an_earlier_epoch_is_accepted() {
        let current = key(1, 0x11);
        for earlier in [EPOCH - 1, 0] {
            let identifier = pb::ContainerTokenIdentifierProto {
                rm_identifier: earlier,
                ..container_identifier(container(5))
            };
            let verified = check(&sign(&current, identifier), &keys_with(&current)).unwrap();
            assert_eq!(verified.container_id, container(5));
            assert_eq!(verified.identifier.rm_identifier, earlier);
        }
    }

    #[test]
    fn a_token_from_a_later_epoch_is_refused_naming_both_epochs() {
        let current = key(1, 0x11);
        let identifier = pb::ContainerTokenIdentifierProto {
            rm_identifier: EPOCH + 1,
            ..container_identifier(container(5))
        };
        let refusal = refusal(&sign(&current, identifier), &keys_with(&current));
        assert!(
            matches!(
                refusal,
                ContainerStartRefusal::LaterEpoch {
                    container_id,
                    token_epoch: 4,
                    rm_epoch: 3,
                } if container_id == container(5)
            ),
            "{refusal:?}"
        );
        let message = refusal.to_string();
        assert!(
            message.contains(
                "Container container_e03_1410901177871_0001_01_000005 rejected as it is \
                 allocated by a newer RM"
            ) && message.contains("carries RM epoch 4")
                && message.contains("follows RM epoch 3"),
            "{message}"
        );
    }

    #[test]
    fn a_replayed_token_is_refused_and_the_replay_check_sees_its_container() {
        let current = key(1, 0x11);
        let token = sign(&current, container_identifier(container(5)));
        let asked = RefCell::new(Vec::new());
        let started_before = |id: &ContainerId| {
            asked.borrow_mut().push(*id);
            *id == container(5)
        };
        let refusal = check_container_start(
            &token,
            &this_node(),
            EPOCH,
            NOW_MS,
            started_before,
            &keys_with(&current),
        )
        .unwrap_err();
        assert_eq!(asked.into_inner(), vec![container(5)]);
        assert!(
            matches!(refusal, ContainerStartRefusal::Replayed { container_id } if container_id == container(5)),
            "{refusal:?}"
        );
        assert!(
            refusal.to_string().contains(
                "Attempt to relaunch the same container with id \
                 container_e03_1410901177871_0001_01_000005"
            ),
            "{refusal}"
        );
    }

    #[test]
    fn a_signed_identifier_without_a_container_is_refused() {
        let current = key(1, 0x11);
        let identifier = pb::ContainerTokenIdentifierProto {
            container_id: None,
            ..container_identifier(container(5))
        };
        let refusal = refusal(&sign(&current, identifier), &keys_with(&current));
        assert!(
            matches!(
                refusal,
                ContainerStartRefusal::InvalidContainerId {
                    source: ProtoError::MissingField {
                        field: "container_id",
                        ..
                    }
                }
            ),
            "{refusal:?}"
        );
    }

    /// A token failing several checks gets the refusal of the earliest one, in YARN's order:
    /// signature, node, replay, expiry, epoch.
    #[test]
    fn checks_run_in_yarn_order() {
        let current = key(1, 0x11);
        let keys = keys_with(&current);
        let every_fault = pb::ContainerTokenIdentifierProto {
            nm_host_addr: "h2:8041".to_owned(),
            expiry_time_stamp: NOW_MS - 1,
            rm_identifier: EPOCH + 1,
            ..container_identifier(container(5))
        };
        let always_replayed = |_: &ContainerId| true;
        let run = |signer: &MasterKey, identifier: pb::ContainerTokenIdentifierProto| {
            check_container_start(
                &sign(signer, identifier),
                &this_node(),
                EPOCH,
                NOW_MS,
                always_replayed,
                &keys,
            )
            .unwrap_err()
        };

        let forged = run(&key(1, 0x66), every_fault.clone());
        assert!(
            matches!(forged, ContainerStartRefusal::InvalidSignature { .. }),
            "{forged:?}"
        );
        let other_node = run(&current, every_fault.clone());
        assert!(
            matches!(other_node, ContainerStartRefusal::OtherNode { .. }),
            "{other_node:?}"
        );
        let on_this_node = pb::ContainerTokenIdentifierProto {
            nm_host_addr: this_node().to_string(),
            ..every_fault
        };
        let replayed = run(&current, on_this_node.clone());
        assert!(
            matches!(replayed, ContainerStartRefusal::Replayed { .. }),
            "{replayed:?}"
        );
        let expired = check_container_start(
            &sign(&current, on_this_node),
            &this_node(),
            EPOCH,
            NOW_MS,
            never_started,
            &keys,
        )
        .unwrap_err();
        assert!(
            matches!(expired, ContainerStartRefusal::Expired { .. }),
            "{expired:?}"
        );
    }
}
