//! One connection's DIGEST-MD5 exchange for TOKEN, server side (RFC 2831 section 2.1).

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use bytes::Bytes;
use subtle::ConstantTimeEq;

use crate::digest_directives::Directives;
use crate::digest_md5::DigestInputs;
use crate::token_sasl::{TOKEN_PROTOCOL, TOKEN_SERVER_ID};
use crate::{ExceptionClass, SaslExchange, SaslRefusal, SaslStep, SaslUser, TokenSecrets};

/// The realm Hadoop's server names (`SaslRpcServer.SASL_DEFAULT_REALM`).
const REALM: &str = "default";

/// The only nonce count of an exchange: the server offers no subsequent authentication, so a
/// response counting more is a replay of some other exchange.
const FIRST_NONCE_COUNT: &str = "00000001";

/// RFC 2831's limit on a digest-response.
const MAX_RESPONSE_LEN: usize = 4096;

/// Random bytes in a nonce (base64 of them is sent): well over the RFC's 64 bits of entropy.
const NONCE_BYTES: usize = 24;

/// A DIGEST-MD5 exchange: one challenge, one response, one verdict.
///
/// Guarantees: the response is checked against this exchange's own nonce, and only once —
/// after a verdict (success or refusal) every further token is refused, so a client cannot
/// guess passwords against one nonce. The response digest is compared in constant time. Any
/// token, however malformed, yields a [`SaslRefusal`], never a panic.
pub(crate) struct TokenExchange {
    secrets: Arc<dyn TokenSecrets>,
    nonce: String,
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing sent yet.
    Started,
    /// The challenge went out; the response is awaited.
    Challenged,
    /// A response was judged.
    Finished,
}

impl TokenExchange {
    /// An exchange with a fresh random nonce.
    pub fn new(secrets: Arc<dyn TokenSecrets>) -> Self {
        TokenExchange {
            secrets,
            nonce: BASE64.encode(rand::random::<[u8; NONCE_BYTES]>()),
            state: State::Started,
        }
    }

    /// Java's DIGEST-MD5 server's challenge, with this exchange's nonce.
    fn challenge(&self) -> Bytes {
        Bytes::from(format!(
            "realm=\"{REALM}\",nonce=\"{}\",qop=\"auth\",charset=utf-8,algorithm=md5-sess",
            self.nonce
        ))
    }

    /// Checks the client's digest-response and names the user it proves.
    fn check(&self, token: &[u8]) -> Result<SaslStep, SaslRefusal> {
        if token.len() > MAX_RESPONSE_LEN {
            return Err(refusal(format!(
                "the response is {} bytes, more than the {MAX_RESPONSE_LEN} RFC 2831 allows",
                token.len()
            )));
        }
        let directives = Directives::parse(token)
            .map_err(|err| refusal(format!("the response is malformed: {err}")))?;
        let directive = |name| {
            directives
                .exactly_once(name)
                .map_err(|err| refusal(err.to_string()))
        };
        let optional = |name| {
            directives
                .at_most_once(name)
                .map_err(|err| refusal(err.to_string()))
        };
        let username = directive("username")?;
        let realm = optional("realm")?;
        let nonce = directive("nonce")?;
        let cnonce = directive("cnonce")?;
        let nc = directive("nc")?;
        let qop = optional("qop")?;
        let digest_uri = directive("digest-uri")?;
        let response = directive("response")?;
        let charset = optional("charset")?;
        let authzid = optional("authzid")?;
        // Only meaningful with a security layer, which qop=auth has none of; read so that a
        // repeated one is refused as RFC 2831 says.
        optional("maxbuf")?;
        optional("cipher")?;

        if let Some(charset) = charset.filter(|charset| !charset.eq_ignore_ascii_case("utf-8")) {
            return Err(refusal(format!(
                "charset={charset} is not the utf-8 offered"
            )));
        }
        // An absent qop means auth (RFC 2831 2.1.2); the digest then uses "auth".
        let qop = qop.unwrap_or("auth");
        if qop != "auth" {
            return Err(refusal(format!(
                "qop={qop} is not offered: this server authenticates only (qop=auth) and wraps nothing"
            )));
        }
        match realm {
            Some(REALM) => {}
            Some(other) => {
                return Err(refusal(format!(
                    "realm=\"{other}\" is not the realm \"{REALM}\" offered"
                )));
            }
            None => {
                return Err(refusal(format!(
                    "realm is missing (\"{REALM}\" was offered)"
                )));
            }
        }
        if nonce != self.nonce {
            return Err(refusal(
                "the nonce is not the one this server sent on this connection",
            ));
        }
        if nc != FIRST_NONCE_COUNT {
            return Err(refusal(format!(
                "nc={nc} is a replay: a connection authenticates once, with nc={FIRST_NONCE_COUNT}"
            )));
        }
        if cnonce.is_empty() {
            return Err(refusal("cnonce is empty"));
        }
        let expected_uri = format!("{TOKEN_PROTOCOL}/{TOKEN_SERVER_ID}");
        if !digest_uri.eq_ignore_ascii_case(&expected_uri) {
            return Err(refusal(format!(
                "digest-uri=\"{digest_uri}\" is not this server's \"{expected_uri}\""
            )));
        }

        // Hadoop's getIdentifier: the username is base64 of the token identifier.
        let identifier = BASE64.decode(username).map_err(|_| SaslRefusal {
            class: ExceptionClass::InvalidToken,
            message: "DIGEST-MD5: the username is not base64 of a token identifier".into(),
        })?;
        let secret = self.secrets.lookup(&identifier)?;
        let password = BASE64.encode(&secret.password);
        let inputs = DigestInputs {
            username,
            realm: REALM,
            password: &password,
            nonce,
            cnonce,
            nc,
            qop,
            digest_uri,
            authzid,
        };
        if !bool::from(inputs.response().as_bytes().ct_eq(response.as_bytes())) {
            return Err(refusal(
                "the response digest does not match the token: a wrong password, or a digest over other values",
            ));
        }
        // Hadoop authorizes an authzid equal to the authentication id (the username); naming
        // the token's user is the same identity. Anyone else is impersonation.
        if let Some(authzid) = authzid.filter(|id| *id != username && *id != secret.user) {
            return Err(refusal(format!(
                "{} is not authorized to act as {authzid}",
                secret.user
            )));
        }
        Ok(SaslStep::Complete {
            token: Some(Bytes::from(format!("rspauth={}", inputs.rspauth()))),
            user: SaslUser {
                name: secret.user,
                token_identifier: Some(Bytes::from(identifier)),
            },
        })
    }
}

impl SaslExchange for TokenExchange {
    fn initial_challenge(&mut self) -> Result<Option<Bytes>, SaslRefusal> {
        if self.state != State::Started {
            return Err(refusal("the challenge was already sent"));
        }
        self.state = State::Challenged;
        Ok(Some(self.challenge()))
    }

    fn evaluate(&mut self, token: &[u8]) -> Result<SaslStep, SaslRefusal> {
        match self.state {
            // A client that initiated without negotiating first gets the challenge for an
            // empty token, as from Java's DIGEST-MD5 server; the mechanism is server-first.
            State::Started if token.is_empty() => {
                self.state = State::Challenged;
                Ok(SaslStep::Challenge(self.challenge()))
            }
            State::Started => {
                self.state = State::Finished;
                Err(refusal("the client must not send an initial response"))
            }
            State::Challenged => {
                self.state = State::Finished;
                self.check(token)
            }
            State::Finished => Err(refusal("the authentication is already over")),
        }
    }
}

/// A refusal of the exchange itself (`SaslException`, as Java's DIGEST-MD5 server throws).
fn refusal(message: impl std::fmt::Display) -> SaslRefusal {
    SaslRefusal {
        class: ExceptionClass::SaslException,
        message: format!("DIGEST-MD5: {message}"),
    }
}
