//! [`ProxyTokenSecretManager`]: the AMRMProxy's own AMRMTokens (Hadoop's
//! `AMRMProxyTokenSecretManager`).

use std::collections::BTreeSet;

use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;
use yarn_security::{
    KeyAction, KeyRollingSchedule, MasterKey, MasterKeyRoller, Token, TokenKind, TokenSecretManager,
};

use crate::{Error, ProxyMasterKeys};

/// Issues and validates the local AMRMTokens ApplicationMasters on this node present to the
/// AMRMProxy, in place of the tokens the ResourceManager issued (which the AM never sees).
///
/// - A token is an `AMRMTokenIdentifierProto` of the attempt, signed with HMAC-SHA256 under
///   the proxy's own master key, with the proxy's address as its service.
/// - Validation accepts a token only if it is an AMRMToken with this proxy's service, its
///   signature verifies under the current or the next key, and its attempt is one the proxy
///   started and has not finished.
/// - Keys roll like the RM's ([`MasterKeyRoller`]): one rolling interval after the current key
///   became active a next key is created, which validates at once and signs new tokens (so AMs
///   switch early, as in Hadoop); one activation delay later it becomes current and the old key
///   stops validating. AMs receive the new token in an allocate response meanwhile.
///
/// Pure: times come from the caller, and the only randomness is the secret of a new key.
#[derive(Debug, Clone)]
pub struct ProxyTokenSecretManager {
    roller: MasterKeyRoller,
    service: String,
    attempts: BTreeSet<ApplicationAttemptId>,
}

impl ProxyTokenSecretManager {
    /// A manager with a fresh key, active from `now_ms`, issuing tokens for `service` (the
    /// proxy's `host:port`).
    ///
    /// The first key id is the current second modulo `i32::MAX`, so a proxy that restarts
    /// without its stored keys starts a different id sequence and older tokens are refused as
    /// signed under an unknown key rather than as forged.
    pub fn new(schedule: KeyRollingSchedule, service: impl Into<String>, now_ms: i64) -> Self {
        let key_id = i32::try_from((now_ms / 1000).rem_euclid(i64::from(i32::MAX))).unwrap_or(1);
        Self {
            roller: MasterKeyRoller::new(schedule, MasterKey::generate(key_id), now_ms),
            service: service.into(),
            attempts: BTreeSet::new(),
        }
    }

    /// A manager holding `keys` as exported before a restart. It knows no attempt until each is
    /// restored with [`ProxyTokenSecretManager::issue`].
    ///
    /// # Errors
    ///
    /// [`Error::MasterKeys`] when the next key's id does not follow the current one's.
    pub fn restore(
        schedule: KeyRollingSchedule,
        service: impl Into<String>,
        keys: ProxyMasterKeys,
    ) -> Result<Self, Error> {
        let roller = MasterKeyRoller::restore(
            schedule,
            keys.current,
            keys.current_activated_at_ms,
            keys.next,
        )
        .map_err(|source| Error::MasterKeys {
            source: Box::new(source),
        })?;
        Ok(Self {
            roller,
            service: service.into(),
            attempts: BTreeSet::new(),
        })
    }

    /// The keys and their times, for the NodeManager state store.
    pub fn export(&self) -> ProxyMasterKeys {
        ProxyMasterKeys {
            current: self.roller.current().clone(),
            current_activated_at_ms: self.roller.current_activated_at_ms(),
            next: self.roller.next().cloned(),
        }
    }

    /// The service local tokens carry: the proxy's address.
    pub fn service(&self) -> &str {
        &self.service
    }

    /// The id of the key new tokens are signed with: the next key while one exists, else the
    /// current one. An AM presenting a token of another key gets a new one.
    pub fn signing_key_id(&self) -> i32 {
        self.roller
            .next()
            .map_or(self.roller.current().key_id(), |next| next.key.key_id())
    }

    /// A new local AMRMToken for `attempt`, which from now on counts as known.
    pub fn issue(&mut self, attempt: ApplicationAttemptId) -> pb::TokenProto {
        self.attempts.insert(attempt);
        let identifier = pb::AmrmTokenIdentifierProto {
            app_attempt_id: Some(attempt.into()),
            key_id: 0,
        };
        let signing = self
            .roller
            .next()
            .map_or(self.roller.current(), |next| &next.key);
        TokenSecretManager::<pb::AmrmTokenIdentifierProto>::new(signing.clone())
            .sign(identifier, &self.service)
            .into()
    }

    /// Counts `attempt` as known again without issuing a token, for an attempt recovered after
    /// a restart whose AM still holds the token issued before.
    pub fn attempt_recovered(&mut self, attempt: ApplicationAttemptId) {
        self.attempts.insert(attempt);
    }

    /// Whether `attempt` holds a valid local token (started and not finished).
    pub fn knows(&self, attempt: ApplicationAttemptId) -> bool {
        self.attempts.contains(&attempt)
    }

    /// Forgets `attempt`: its tokens stop validating (Hadoop's `applicationMasterFinished`).
    pub fn attempt_finished(&mut self, attempt: ApplicationAttemptId) {
        self.attempts.remove(&attempt);
    }

    /// Checks a presented token and returns its attempt and the id of the key that signed it.
    ///
    /// # Errors
    ///
    /// In the order checked: [`Error::NotALocalAmrmToken`] for a token of another kind or
    /// service (an RM-issued AMRMToken, for one); [`Error::InvalidAmrmToken`] for a malformed
    /// identifier, a key that is neither current nor next, or a signature that does not verify;
    /// [`Error::AmrmTokenWithoutAttempt`]; [`Error::UnknownApplicationAttempt`] for an attempt
    /// the proxy does not serve.
    pub fn validate(&self, token: pb::TokenProto) -> Result<(ApplicationAttemptId, i32), Error> {
        let not_local = |token: &pb::TokenProto| Error::NotALocalAmrmToken {
            kind: token.kind.clone(),
            service: token.service.clone(),
            expected_service: self.service.clone(),
        };
        if token.kind != TokenKind::AmRm.name() || token.service != self.service {
            return Err(not_local(&token));
        }
        let token = Token::try_from(token).map_err(|source| Error::InvalidAmrmToken {
            source: Box::new(source),
        })?;
        // AMRMTokens do not expire, so the time is not consulted.
        let identifier =
            self.manager()
                .verify(&token, 0)
                .map_err(|source| Error::InvalidAmrmToken {
                    source: Box::new(source),
                })?;
        let attempt = self.served_attempt(&identifier)?;
        Ok((attempt, identifier.key_id))
    }

    /// The attempt, signing key id and password of the local AMRMToken whose encoded
    /// identifier is `identifier`, for Hadoop IPC's SASL DIGEST-MD5 exchange, in which the AM
    /// proves it holds the password without sending it. An RM-issued token's identifier names
    /// a key the proxy does not hold, or yields a password the AM cannot prove.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate), but for the kind and service, which SASL does not send.
    pub fn password_of(
        &self,
        identifier: &[u8],
    ) -> Result<(ApplicationAttemptId, i32, Vec<u8>), Error> {
        let (identifier, password) =
            self.manager()
                .password_of(identifier)
                .map_err(|source| Error::InvalidAmrmToken {
                    source: Box::new(source),
                })?;
        let attempt = self.served_attempt(&identifier)?;
        Ok((attempt, identifier.key_id, password))
    }

    /// The attempt and key id an encoded local AMRMToken identifier names, read without any
    /// key: for a Hadoop IPC connection whose SASL exchange proved the token when it opened,
    /// and which Hadoop's AMRMClient keeps across the roll that retires the token's key.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidAmrmToken`] for bytes that are no identifier, then as
    /// [`validate`](Self::validate) for the attempt.
    pub fn identified(&self, identifier: &[u8]) -> Result<(ApplicationAttemptId, i32), Error> {
        let identifier = <pb::AmrmTokenIdentifierProto as prost::Message>::decode(identifier)
            .map_err(|source| Error::InvalidAmrmToken {
                source: Box::new(yarn_security::Error::MalformedTokenIdentifier {
                    kind: TokenKind::AmRm,
                    source,
                }),
            })?;
        let attempt = self.served_attempt(&identifier)?;
        Ok((attempt, identifier.key_id))
    }

    /// The attempt a verified identifier names, if the proxy serves it.
    fn served_attempt(
        &self,
        identifier: &pb::AmrmTokenIdentifierProto,
    ) -> Result<ApplicationAttemptId, Error> {
        let attempt = identifier
            .app_attempt_id
            .ok_or_else(|| Error::AmrmTokenWithoutAttempt {
                reason: "app_attempt_id is missing".to_owned(),
            })
            .and_then(|proto| {
                ApplicationAttemptId::try_from(proto).map_err(|err| {
                    Error::AmrmTokenWithoutAttempt {
                        reason: err.to_string(),
                    }
                })
            })?;
        if !self.knows(attempt) {
            return Err(Error::UnknownApplicationAttempt {
                attempt: attempt.to_string(),
            });
        }
        Ok(attempt)
    }

    /// Takes the key-rolling step due at `now_ms`, if any: creating a next key (with a fresh
    /// secret) or activating it. Returns what was done, so the caller persists the keys.
    ///
    /// # Errors
    ///
    /// [`Error::MasterKeys`] if the roller refuses its own action, which would be a bug.
    pub fn roll(&mut self, now_ms: i64) -> Result<Option<KeyAction>, Error> {
        let action = self.roller.next_action(now_ms);
        let outcome = match action {
            Some(KeyAction::CreateNext { key_id }) => {
                self.roller.create_next(MasterKey::generate(key_id), now_ms)
            }
            Some(KeyAction::ActivateNext { key_id }) => self.roller.activate_next(key_id, now_ms),
            None => Ok(()),
        };
        outcome.map_err(|source| Error::MasterKeys {
            source: Box::new(source),
        })?;
        Ok(action)
    }

    fn manager(&self) -> TokenSecretManager<pb::AmrmTokenIdentifierProto> {
        TokenSecretManager::from_roller(&self.roller)
    }
}
