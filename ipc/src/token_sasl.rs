//! SASL TOKEN: Hadoop's token authentication, DIGEST-MD5 with the token as credentials.

use std::sync::Arc;

use crate::token_exchange::TokenExchange;
use crate::{AuthMethod, SaslExchange, SaslMechanism, TokenSecrets};

/// `SaslAuth.protocol` Hadoop's server offers for TOKEN; the client puts it before the `/` of
/// its `digest-uri`.
pub(crate) const TOKEN_PROTOCOL: &str = "";

/// `SaslAuth.serverId` Hadoop's server offers for TOKEN; the client puts it after the `/`.
pub(crate) const TOKEN_SERVER_ID: &str = "default";

/// The TOKEN authentication method (SASL mechanism DIGEST-MD5, RFC 2831) as Hadoop's server
/// runs it, checking tokens against a daemon's [`TokenSecrets`].
///
/// The client proves it holds a token: its DIGEST-MD5 username is base64 of the token
/// identifier and its password base64 of the token password. Each connection gets a fresh
/// random nonce in the first challenge, which the server sends with its NEGOTIATE answer;
/// the client's one response must carry that nonce with `nc=00000001`, `qop=auth`, realm
/// `default` and `digest-uri="/default"`; the server answers `rspauth=...`, and calls run as
/// the token's user. Only authentication is offered (`qop=auth`): no integrity or privacy
/// layer, so nothing on the connection is SASL-wrapped afterwards.
pub struct TokenSasl<S> {
    secrets: Arc<S>,
}

impl<S: TokenSecrets + 'static> TokenSasl<S> {
    /// The mechanism, checking tokens against `secrets`.
    pub fn new(secrets: Arc<S>) -> Self {
        TokenSasl { secrets }
    }
}

impl<S: TokenSecrets + 'static> SaslMechanism for TokenSasl<S> {
    fn method(&self) -> AuthMethod {
        AuthMethod::Token
    }

    fn protocol(&self) -> &str {
        TOKEN_PROTOCOL
    }

    fn server_id(&self) -> &str {
        TOKEN_SERVER_ID
    }

    fn start(&self) -> Box<dyn SaslExchange> {
        Box::new(TokenExchange::new(
            Arc::clone(&self.secrets) as Arc<dyn TokenSecrets>
        ))
    }
}
