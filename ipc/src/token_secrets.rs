//! What the TOKEN mechanism asks a daemon about a token.

use bytes::Bytes;

use crate::SaslRefusal;

/// A token's secret and whom it authenticates, as the daemon that issued it knows them.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenSecret {
    /// The token's password (for Hadoop's tokens, a MAC of the identifier under a master key).
    /// The client proves it knows base64 of these bytes.
    pub password: Bytes,
    /// The user name calls run as (for an AMRMToken, the application attempt).
    pub user: String,
}

/// Kept out of logs: the password is the token's whole secret.
impl std::fmt::Debug for TokenSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSecret")
            .field("password", &"<redacted>")
            .field("user", &self.user)
            .finish()
    }
}

/// The daemon's tokens, as the TOKEN mechanism ([`TokenSasl`](crate::TokenSasl)) needs them:
/// Hadoop's `SecretManager.retrievePassword` and `TokenIdentifier.getUser`.
///
/// Called once per authentication, synchronously, on the connection's task: it must not block
/// (the master keys are in memory).
pub trait TokenSecrets: Send + Sync {
    /// The secret of the token whose identifier is `identifier` (the bytes the client's
    /// DIGEST-MD5 username is base64 of).
    ///
    /// # Errors
    ///
    /// A [`SaslRefusal`] the client gets as a FATAL answer: `InvalidToken` for an identifier
    /// that does not parse, a token of another kind, an unknown master key or an expired
    /// token; `StandbyException` or `RetriableException` when this server cannot judge the
    /// token now (a standby ResourceManager, keys not loaded yet), so the client tries another
    /// server or again.
    fn lookup(&self, identifier: &[u8]) -> Result<TokenSecret, SaslRefusal>;
}
