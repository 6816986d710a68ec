//! [`TokenIssuer`]: the leader's signing and checking of AMRM, container and NM tokens, with
//! the master keys of the replicated state.

use prost::Message;
use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_security::{ContainerTokenFields, Token, TokenIdentifier, TokenSecretManager};

use crate::state_machine::{ContainerRecord, ExecutionType, MasterKeyKind, RmState};

/// The service name AMRMTokens carry: the scheduler protocol of the whole replica group, since
/// any replica may be the one the AM reaches after a failover.
pub const AMRM_TOKEN_SERVICE: &str = "yarn-ha-scheduler";

/// Signs tokens with the current master keys of one state snapshot and verifies AMRMTokens
/// against the current and next AMRM keys.
///
/// Built per call from the replicated state, so every replica that becomes leader signs with
/// the same keys and accepts the tokens its predecessors issued.
pub struct TokenIssuer {
    amrm: TokenSecretManager<pb::AmrmTokenIdentifierProto>,
    container: TokenSecretManager<pb::ContainerTokenIdentifierProto>,
    nm: TokenSecretManager<pb::NmTokenIdentifierProto>,
    epoch: i64,
}

/// Why a presented AMRMToken was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmrmTokenRefusal {
    /// The state holds no AMRM key yet (a leader that just started).
    #[error("the ResourceManager has no AMRMToken master key yet; retry shortly")]
    NoKeys,
    /// The token did not verify.
    #[error("the AMRMToken is not valid: {reason}")]
    Invalid {
        /// The security crate's reason.
        reason: String,
    },
    /// The identifier names no application attempt.
    #[error("the AMRMToken names no application attempt: {reason}")]
    NoAttempt {
        /// What was wrong with the identifier's attempt id.
        reason: String,
    },
}

impl TokenIssuer {
    /// The issuer for `state`'s keys; `None` until every kind of key has been initialized.
    pub fn from_state(state: &RmState) -> Option<Self> {
        Some(Self {
            amrm: manager(state, MasterKeyKind::AmRm)?,
            container: manager(state, MasterKeyKind::Container)?,
            nm: manager(state, MasterKeyKind::Nm)?,
            epoch: i64::try_from(state.epoch).unwrap_or(i64::MAX),
        })
    }

    /// Verifies an AMRMToken and returns the attempt it authorizes.
    ///
    /// # Errors
    ///
    /// [`AmrmTokenRefusal`] saying what was wrong.
    pub fn verify_amrm(
        &self,
        token: pb::TokenProto,
    ) -> Result<(ApplicationAttemptId, i32), AmrmTokenRefusal> {
        let invalid = |reason: String| AmrmTokenRefusal::Invalid { reason };
        let token = Token::try_from(token).map_err(|err| invalid(err.to_string()))?;
        // AMRMTokens do not expire; the time is not consulted.
        let identifier = self
            .amrm
            .verify(&token, 0)
            .map_err(|err| invalid(err.to_string()))?;
        amrm_attempt(identifier)
    }

    /// The attempt and key id an encoded AMRMToken identifier names, read without any key: for
    /// a Hadoop IPC connection whose SASL exchange proved the token when it opened. Hadoop
    /// authenticates a connection once, and its AMRMClient keeps the connection across a key
    /// roll that retires the key its token was signed with.
    ///
    /// # Errors
    ///
    /// [`AmrmTokenRefusal`] when the bytes are not an identifier naming an attempt.
    pub fn amrm_identified(
        identifier: &[u8],
    ) -> Result<(ApplicationAttemptId, i32), AmrmTokenRefusal> {
        let identifier = pb::AmrmTokenIdentifierProto::decode(identifier).map_err(|err| {
            AmrmTokenRefusal::Invalid {
                reason: err.to_string(),
            }
        })?;
        amrm_attempt(identifier)
    }

    /// The attempt, key id and password of the AMRMToken whose encoded identifier is
    /// `identifier`, for a SASL DIGEST-MD5 exchange in which the AM proves it holds the
    /// password without sending it.
    ///
    /// # Errors
    ///
    /// [`AmrmTokenRefusal`] saying what was wrong with the identifier.
    pub fn amrm_password(
        &self,
        identifier: &[u8],
    ) -> Result<(ApplicationAttemptId, i32, Vec<u8>), AmrmTokenRefusal> {
        let (identifier, password) =
            self.amrm
                .password_of(identifier)
                .map_err(|err| AmrmTokenRefusal::Invalid {
                    reason: err.to_string(),
                })?;
        let (attempt, key_id) = amrm_attempt(identifier)?;
        Ok((attempt, key_id, password))
    }

    /// The id of the key AMRMTokens are signed with now; an AM whose token carries another id
    /// gets a fresh token in its next allocate response.
    pub fn current_amrm_key_id(&self) -> i32 {
        self.amrm.current().key_id()
    }

    /// A new AMRMToken for `attempt`, signed with the current key.
    pub fn amrm_token(&self, attempt: ApplicationAttemptId) -> pb::TokenProto {
        let identifier = pb::AmrmTokenIdentifierProto {
            app_attempt_id: Some(attempt.into()),
            key_id: 0,
        };
        self.amrm.sign(identifier, AMRM_TOKEN_SERVICE).into()
    }

    /// The container token for `record` at `version` (0 until its first update), valid until
    /// `expiry_ms` and issued under this leader's epoch. `user` is the application's submitter.
    /// After a promotion or demotion the token carries the new execution type and version,
    /// which the NodeManager's UpdateContainer applies.
    pub fn container_token(
        &self,
        container_id: ContainerId,
        record: &ContainerRecord,
        version: i32,
        user: &str,
        now_ms: i64,
        expiry_ms: i64,
    ) -> pb::TokenProto {
        self.container.sign_container_token(&ContainerTokenFields {
            container_id,
            node: &record.node,
            user,
            resource: resource(record),
            priority: record.priority,
            allocation_request_id: record.allocation_request_id,
            container_type: if record.is_am {
                pb::ContainerTypeProto::ApplicationMaster
            } else {
                pb::ContainerTypeProto::Task
            },
            execution_type: execution_type(record.execution_type),
            version,
            rm_identifier: self.epoch,
            now_ms,
            expiry_ms,
        })
    }

    /// The NM token that lets `attempt` of `user` talk to `node`.
    pub fn nm_token(
        &self,
        attempt: ApplicationAttemptId,
        node: &NodeId,
        user: &str,
    ) -> pb::NmTokenProto {
        self.nm.sign_nm_token(attempt, node, user)
    }
}

/// The secret manager over `kind`'s current and next keys in `state`.
fn manager<I: TokenIdentifier>(
    state: &RmState,
    kind: MasterKeyKind,
) -> Option<TokenSecretManager<I>> {
    state.master_keys.get(kind).map(|pair| {
        TokenSecretManager::with_next(
            pair.current.master_key(),
            pair.next.as_ref().map(|next| next.master_key()),
        )
    })
}

/// `record`'s allocation as a `ResourceProto`.
pub fn resource(record: &ContainerRecord) -> pb::ResourceProto {
    pb::ResourceProto {
        memory: i64::try_from(record.memory_mb).unwrap_or(i64::MAX),
        virtual_cores: i32::try_from(record.vcores).unwrap_or(i32::MAX),
        ..Default::default()
    }
}

/// The wire form of an execution type.
pub fn execution_type(execution_type: ExecutionType) -> pb::ExecutionTypeProto {
    match execution_type {
        ExecutionType::Guaranteed => pb::ExecutionTypeProto::Guaranteed,
        ExecutionType::Opportunistic => pb::ExecutionTypeProto::Opportunistic,
    }
}

/// The attempt an AMRMToken identifier authorizes, and the id of the key it was signed with.
fn amrm_attempt(
    identifier: pb::AmrmTokenIdentifierProto,
) -> Result<(ApplicationAttemptId, i32), AmrmTokenRefusal> {
    let attempt = identifier
        .app_attempt_id
        .ok_or_else(|| AmrmTokenRefusal::NoAttempt {
            reason: "app_attempt_id is missing".to_owned(),
        })
        .and_then(|proto| {
            ApplicationAttemptId::try_from(proto).map_err(|err| AmrmTokenRefusal::NoAttempt {
                reason: err.to_string(),
            })
        })?;
    Ok((attempt, identifier.key_id))
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;

    use yarn_security::MasterKey;

    use super::*;
    use crate::state_machine::test_fixtures::{self, TIMESTAMP};

    /// Signs with an explicit key, for tests that play an AM holding a token of another key.
    fn sign_amrm_with(key: &MasterKey, attempt: ApplicationAttemptId) -> pb::TokenProto {
        let identifier = pb::AmrmTokenIdentifierProto {
            app_attempt_id: Some(attempt.into()),
            key_id: 0,
        };
        TokenSecretManager::new(key.clone())
            .sign(identifier, AMRM_TOKEN_SERVICE)
            .into()
    }

    fn keyed_state() -> RmState {
        let mut state = test_fixtures::running_application(&[(7, "n1:8041")], &[]);
        test_fixtures::initialize_master_keys(&mut state);
        state
    }

    fn attempt(seq: i32) -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, seq), 1)
    }

    #[test]
    fn an_issued_amrm_token_verifies_to_its_attempt() {
        let issuer = TokenIssuer::from_state(&keyed_state()).unwrap();
        let token = issuer.amrm_token(attempt(3));
        assert_eq!(issuer.verify_amrm(token), Ok((attempt(3), 1)));
    }

    #[test]
    fn a_token_signed_with_another_key_or_tampered_is_refused() {
        let issuer = TokenIssuer::from_state(&keyed_state()).unwrap();
        let forged = sign_amrm_with(&MasterKey::new(1, [9; MasterKey::LEN]), attempt(3));
        assert!(matches!(
            issuer.verify_amrm(forged),
            Err(AmrmTokenRefusal::Invalid { .. })
        ));
        // Re-pointing a genuine token at another application breaks its signature.
        let mut token = issuer.amrm_token(attempt(3));
        let mut identifier =
            <pb::AmrmTokenIdentifierProto as prost::Message>::decode(token.identifier.as_slice())
                .unwrap();
        identifier.app_attempt_id = Some(attempt(4).into());
        token.identifier = prost::Message::encode_to_vec(&identifier);
        assert!(matches!(
            issuer.verify_amrm(token),
            Err(AmrmTokenRefusal::Invalid { .. })
        ));
    }

    #[test]
    fn a_password_proves_the_token_and_a_proven_identifier_needs_no_key_later() {
        let issuer = TokenIssuer::from_state(&keyed_state()).unwrap();
        let token = issuer.amrm_token(attempt(3));
        let (proven, key_id, password) = issuer.amrm_password(&token.identifier).unwrap();
        assert_eq!((proven, key_id), (attempt(3), 1));
        assert_eq!(
            password, token.password,
            "what the AM holds and proves over SASL"
        );

        // A token of a key this state does not hold: no password, but a connection that proved
        // it under that key before a roll still reads its attempt.
        let retired = sign_amrm_with(&MasterKey::new(9, [9; MasterKey::LEN]), attempt(4));
        assert!(issuer.amrm_password(&retired.identifier).is_err());
        assert_eq!(
            TokenIssuer::amrm_identified(&retired.identifier),
            Ok((attempt(4), 9))
        );
        assert!(matches!(
            TokenIssuer::amrm_identified(&[0xff]),
            Err(AmrmTokenRefusal::Invalid { .. })
        ));
    }

    #[test]
    fn no_issuer_before_every_key_exists() {
        let mut state = keyed_state();
        state.master_keys = Default::default();
        assert!(TokenIssuer::from_state(&state).is_none());
    }

    #[test]
    fn the_container_token_names_node_epoch_and_resource() {
        let state = keyed_state();
        let issuer = TokenIssuer::from_state(&state).unwrap();
        let record = state.containers.get(&test_fixtures::key(7)).unwrap();
        let id = test_fixtures::container(7);
        let token = issuer.container_token(id, record, 3, "alice", 100, 700);
        let identifier = <pb::ContainerTokenIdentifierProto as prost::Message>::decode(
            token.identifier.as_slice(),
        )
        .unwrap();
        assert_eq!(identifier.nm_host_addr, record.node);
        assert_eq!(identifier.rm_identifier, 1);
        assert_eq!(identifier.expiry_time_stamp, 700);
        assert_eq!(identifier.app_submitter, "alice");
        assert_eq!(identifier.version, 3);
        assert_eq!(
            identifier.resource.unwrap().memory,
            i64::try_from(record.memory_mb).unwrap()
        );
        assert_eq!(token.service, record.node);
    }
}
