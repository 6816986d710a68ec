//! Signing and verification of one kind of token under a small set of master keys.
//!
//! Guarantees: a password is the HMAC-SHA256 of the encoded identifier under the key the
//! identifier names; verification compares passwords in constant time (through the MAC's own
//! `verify_slice`, never `==`); checks run in a fixed, documented order; nothing here reads a
//! clock, draws randomness or does I/O.

use std::fmt;
use std::marker::PhantomData;

use crate::{Error, MasterKey, MasterKeyRoller, Token, TokenIdentifier};

/// Signs and verifies tokens whose identifier is `I`, under a current master key and at most one
/// neighbouring key on each side.
///
/// - On the ResourceManager the neighbour is the **next** key: created by a roll, shipped to every
///   NodeManager, and activated (made current) only after the activation delay. Build it with
///   [`TokenSecretManager::with_next`] or [`TokenSecretManager::from_roller`].
/// - On a NodeManager the neighbour is the **previous** key, as in Hadoop's NM: each key the RM
///   ships becomes current and the old current stays valid as previous, so tokens signed just
///   before a roll still start containers. Build it with [`TokenSecretManager::new`] or
///   [`TokenSecretManager::with_previous`] and feed it [`TokenSecretManager::install_master_key`].
///
/// Every held key validates tokens. The manager is pure: it reads no clock (the caller passes
/// `now`), draws no randomness (keys come from the caller) and does no I/O, so the same inputs
/// always give the same answer on every replica.
pub struct TokenSecretManager<I> {
    current: MasterKey,
    next: Option<MasterKey>,
    previous: Option<MasterKey>,
    identifier: PhantomData<fn() -> I>,
}

impl<I: TokenIdentifier> TokenSecretManager<I> {
    /// A manager holding only `current`.
    pub fn new(current: MasterKey) -> Self {
        TokenSecretManager {
            current,
            next: None,
            previous: None,
            identifier: PhantomData,
        }
    }

    /// The ResourceManager's view: `current` signs, and `next` (when a roll has created it) also
    /// validates.
    pub fn with_next(current: MasterKey, next: Option<MasterKey>) -> Self {
        TokenSecretManager {
            next,
            ..TokenSecretManager::new(current)
        }
    }

    /// The ResourceManager's view of the keys `roller` holds: its current key signs and its next
    /// key, if any, also validates.
    pub fn from_roller(roller: &MasterKeyRoller) -> Self {
        TokenSecretManager::with_next(
            roller.current().clone(),
            roller.next().map(|next| next.key.clone()),
        )
    }

    /// A NodeManager's view, as restored from its state store: `current` and, if it still has
    /// one, `previous` both validate.
    pub fn with_previous(current: MasterKey, previous: Option<MasterKey>) -> Self {
        TokenSecretManager {
            previous,
            ..TokenSecretManager::new(current)
        }
    }

    /// Installs a key the ResourceManager shipped (NodeManager side), as Hadoop's NM does: when
    /// its id differs from the current key's, the current key becomes the previous one (dropping
    /// the older previous key) and `key` becomes current; a next key with the same id is consumed.
    /// A key with the current id changes nothing, so re-sent keys are harmless.
    ///
    /// Returns whether the keys changed, so the caller knows when to persist them.
    pub fn install_master_key(&mut self, key: MasterKey) -> bool {
        if key.key_id() == self.current.key_id() {
            return false;
        }
        if self.next.as_ref().map(MasterKey::key_id) == Some(key.key_id()) {
            self.next = None;
        }
        self.previous = Some(std::mem::replace(&mut self.current, key));
        true
    }

    /// The key new tokens are signed under.
    pub fn current(&self) -> &MasterKey {
        &self.current
    }

    /// The next key, which validates but does not yet sign (ResourceManager side).
    pub fn next(&self) -> Option<&MasterKey> {
        self.next.as_ref()
    }

    /// The previous key, which still validates (NodeManager side).
    pub fn previous(&self) -> Option<&MasterKey> {
        self.previous.as_ref()
    }

    /// Ids of every key that validates tokens: previous, current, next (those present).
    pub fn known_key_ids(&self) -> Vec<i32> {
        self.keys().map(MasterKey::key_id).collect()
    }

    /// Signs `identifier` under the current key: sets the identifier's key id to the current key's,
    /// encodes it, and makes the password the HMAC-SHA256 of the encoded bytes.
    pub fn sign(&self, identifier: I, service: impl Into<String>) -> Token {
        sign_with(&self.current, identifier, service.into())
    }

    /// Signs `identifier` under the held key with id `key_id` (current, next or previous). The
    /// ResourceManager uses it with the next key to hand an application master its rolled
    /// AMRMToken before the next key becomes current.
    ///
    /// # Errors
    /// [`Error::UnknownMasterKey`] when no held key has that id.
    pub fn sign_under(
        &self,
        key_id: i32,
        identifier: I,
        service: impl Into<String>,
    ) -> Result<Token, Error> {
        let key = self.key(key_id).ok_or_else(|| self.unknown_key(key_id))?;
        Ok(sign_with(key, identifier, service.into()))
    }

    /// Verifies `token` and returns its decoded identifier.
    ///
    /// The checks run in this order, and the first failure is returned:
    /// 1. the token's kind is `I::KIND`, else [`Error::TokenKindMismatch`];
    /// 2. the identifier decodes as `I`, else [`Error::MalformedTokenIdentifier`];
    /// 3. the identifier's key id names a held key, else [`Error::UnknownMasterKey`] with the ids
    ///    that are known;
    /// 4. the password is the HMAC-SHA256 of the identifier bytes under that key, compared in
    ///    constant time, else [`Error::InvalidTokenSignature`];
    /// 5. for kinds that expire (container tokens), `now_ms` is not after the expiry, else
    ///    [`Error::TokenExpired`]. `now_ms` is milliseconds since the Unix epoch and is ignored
    ///    for kinds that do not expire.
    ///
    /// Expiry is checked only after the signature, so an expiry error never reports times taken
    /// from a forged identifier. Replay protection and checks of identifier fields against the caller's
    /// context (node address, RM epoch, application attempt) belong to the caller.
    pub fn verify(&self, token: &Token, now_ms: i64) -> Result<I, Error> {
        if token.kind != I::KIND {
            return Err(Error::TokenKindMismatch {
                expected: I::KIND,
                found: token.kind,
            });
        }
        let (identifier, key) = self.identify(&token.identifier)?;
        if !key.verifies(&token.identifier, &token.password) {
            return Err(Error::InvalidTokenSignature { kind: I::KIND });
        }
        if let Some(expiry_ms) = identifier.expiry_ms()
            && expiry_ms < now_ms
        {
            return Err(Error::TokenExpired {
                kind: I::KIND,
                expiry_ms,
                now_ms,
            });
        }
        Ok(identifier)
    }

    /// The decoded identifier and the password of the token whose encoded identifier is
    /// `identifier`: what a SASL DIGEST-MD5 server needs, since the client proves it holds the
    /// password without sending it. Checks 2 and 3 of [`verify`](Self::verify); the caller's
    /// exchange stands for check 4, and the caller checks expiry and context.
    ///
    /// # Errors
    ///
    /// [`Error::MalformedTokenIdentifier`] and [`Error::UnknownMasterKey`], as `verify`.
    pub fn password_of(&self, identifier: &[u8]) -> Result<(I, Vec<u8>), Error> {
        let (decoded, key) = self.identify(identifier)?;
        Ok((decoded, key.sign(identifier)))
    }

    /// The identifier `bytes` decode to and the held key it names.
    fn identify(&self, bytes: &[u8]) -> Result<(I, &MasterKey), Error> {
        let identifier = I::decode(bytes).map_err(|source| Error::MalformedTokenIdentifier {
            kind: I::KIND,
            source,
        })?;
        let key_id = identifier.key_id();
        let key = self.key(key_id).ok_or_else(|| self.unknown_key(key_id))?;
        Ok((identifier, key))
    }

    fn keys(&self) -> impl Iterator<Item = &MasterKey> {
        self.previous
            .iter()
            .chain(std::iter::once(&self.current))
            .chain(self.next.iter())
    }

    fn key(&self, key_id: i32) -> Option<&MasterKey> {
        self.keys().find(|key| key.key_id() == key_id)
    }

    fn unknown_key(&self, key_id: i32) -> Error {
        Error::UnknownMasterKey {
            kind: I::KIND,
            key_id,
            known: self.known_key_ids(),
        }
    }
}

fn sign_with<I: TokenIdentifier>(key: &MasterKey, mut identifier: I, service: String) -> Token {
    identifier.set_key_id(key.key_id());
    let bytes = identifier.encode_to_vec();
    Token {
        password: key.sign(&bytes),
        identifier: bytes,
        kind: I::KIND,
        service,
    }
}

/// Formats key ids as `3, 4` for error messages.
pub(crate) struct KeyIds<'a>(pub(crate) &'a [i32]);

impl fmt::Display for KeyIds<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut ids = self.0.iter();
        match ids.next() {
            None => f.write_str("none"),
            Some(first) => {
                write!(f, "{first}")?;
                ids.try_for_each(|id| write!(f, ", {id}"))
            }
        }
    }
}

// Written by hand because a derive would demand `I: Clone`/`I: Debug`, which the manager never
// needs: it holds no identifier.
impl<I> Clone for TokenSecretManager<I> {
    fn clone(&self) -> Self {
        TokenSecretManager {
            current: self.current.clone(),
            next: self.next.clone(),
            previous: self.previous.clone(),
            identifier: PhantomData,
        }
    }
}

impl<I: TokenIdentifier> fmt::Debug for TokenSecretManager<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSecretManager")
            .field("kind", &I::KIND)
            .field("current", &self.current)
            .field("next", &self.next)
            .field("previous", &self.previous)
            .finish()
    }
}
