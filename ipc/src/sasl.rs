//! The pluggable SASL step of connection set-up.
//!
//! A [`SaslMechanism`] is one authentication method a server offers over SASL (TOKEN with
//! DIGEST-MD5; KERBEROS with GSSAPI later). For each connection that negotiates it, the
//! mechanism starts a [`SaslExchange`], which the connection feeds the client's tokens until it
//! completes with an authenticated user or refuses.
//!
//! Both are synchronous: checking a DIGEST-MD5 response needs the token master keys, which
//! the daemons hold in memory, and no I/O. The connection state machine stays pure.

use bytes::Bytes;

use crate::{AuthMethod, CallError, ExceptionClass};

/// One SASL authentication method a server offers.
pub trait SaslMechanism: Send + Sync {
    /// The method, which also names the SASL mechanism.
    fn method(&self) -> AuthMethod;

    /// `SaslAuth.protocol` in the server's offer (Hadoop: empty for TOKEN).
    fn protocol(&self) -> &str;

    /// `SaslAuth.serverId` in the server's offer (Hadoop: `default` for TOKEN).
    fn server_id(&self) -> &str;

    /// Starts the exchange for one connection.
    fn start(&self) -> Box<dyn SaslExchange>;
}

/// One connection's SASL exchange, server side.
pub trait SaslExchange: Send {
    /// The first challenge, which the server sends inside its NEGOTIATE answer so that a client
    /// picking this method saves a round trip (Hadoop does so for TOKEN). `None` when the
    /// mechanism has no server-first challenge.
    ///
    /// # Errors
    ///
    /// A [`SaslRefusal`] closes the connection with a FATAL answer.
    fn initial_challenge(&mut self) -> Result<Option<Bytes>, SaslRefusal>;

    /// Evaluates the client's next token.
    ///
    /// # Errors
    ///
    /// A [`SaslRefusal`] (a bad digest, an unknown or expired key, a replay, a standby server)
    /// closes the connection with a FATAL answer naming its exception class.
    fn evaluate(&mut self, token: &[u8]) -> Result<SaslStep, SaslRefusal>;
}

/// What an exchange answers a client token with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaslStep {
    /// More to do: send this challenge.
    Challenge(Bytes),
    /// Authenticated: send `token` (if any) with the SUCCESS answer.
    Complete {
        /// The final server token, such as DIGEST-MD5's `rspauth=...`.
        token: Option<Bytes>,
        /// Who the client proved to be.
        user: SaslUser,
    },
}

/// Who a SASL exchange authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaslUser {
    /// The user name calls run as (for an AMRMToken, the application attempt).
    pub name: String,
    /// The identifier of the token that proved it, for TOKEN: the dispatcher reads the
    /// application attempt or node from it.
    pub token_identifier: Option<Bytes>,
}

/// Why an exchange refused a client: the exception the FATAL answer names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SaslRefusal {
    /// Typically `InvalidToken`, `AccessControlException`, `SaslException`, or
    /// `StandbyException` / `RetriableException` when this server cannot judge the token now.
    pub class: ExceptionClass,
    /// The message.
    pub message: String,
}

impl From<CallError> for SaslRefusal {
    /// The refusal of a SASL exchange that a daemon's error ends: the exception a call failing
    /// the same way would get, so a client sees one class for one cause.
    fn from(err: CallError) -> Self {
        let failure = err.to_failure();
        SaslRefusal {
            class: failure.class,
            message: failure.message,
        }
    }
}
