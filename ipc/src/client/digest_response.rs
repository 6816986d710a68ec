//! The client's side of DIGEST-MD5 for TOKEN (RFC 2831 section 2.1.2), as Java's DIGEST-MD5
//! client answers when Hadoop's `SaslRpcClient` drives it with a token.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use subtle::ConstantTimeEq;

use crate::ClientError;
use crate::digest_directives::Directives;
use crate::digest_md5::DigestInputs;

/// The only nonce count a client sends: a connection authenticates once.
const FIRST_NONCE_COUNT: &str = "00000001";

/// Random bytes in a client nonce (base64 of them is sent).
const CNONCE_BYTES: usize = 24;

/// The one response a client gives to a server's DIGEST-MD5 challenge for a token.
///
/// Built by [`DigestResponse::to_challenge`] exactly as Hadoop's client builds it: `username`
/// base64 of the token identifier, `password` base64 of the token password, realm and nonce
/// from the challenge, a fresh random `cnonce`, `nc=00000001`, `qop=auth` and
/// `digest-uri="<protocol>/<serverId>"` of the server's offer (`/default` for TOKEN). The
/// digest itself is the crate's one RFC 2831 computation, which the server checks with too.
///
/// The fields are public so that tests of a server can answer with values it must refuse.
#[derive(Clone, PartialEq, Eq)]
pub struct DigestResponse {
    /// `username`: base64 of the token identifier.
    pub username: String,
    /// `realm`, as the challenge named it.
    pub realm: String,
    /// The shared secret: base64 of the token password. Never sent.
    pub password: String,
    /// `nonce`, as the challenge named it.
    pub nonce: String,
    /// `cnonce`: the client's own nonce.
    pub cnonce: String,
    /// `nc`: the nonce count.
    pub nc: String,
    /// `qop`: the quality of protection, `auth`.
    pub qop: String,
    /// `digest-uri`: `<protocol>/<serverId>` of the server's offer.
    pub digest_uri: String,
    /// `authzid`: whom the client asks to act as; Hadoop's client sends none.
    pub authzid: Option<String>,
}

/// Kept out of logs: the password is the token's whole secret.
impl std::fmt::Debug for DigestResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DigestResponse")
            .field("username", &self.username)
            .field("realm", &self.realm)
            .field("password", &"<redacted>")
            .field("nonce", &self.nonce)
            .field("cnonce", &self.cnonce)
            .field("nc", &self.nc)
            .field("qop", &self.qop)
            .field("digest_uri", &self.digest_uri)
            .field("authzid", &self.authzid)
            .finish()
    }
}

impl DigestResponse {
    /// The response to `challenge` for the token (`identifier`, `password`), on a server whose
    /// offer names `digest_uri` (`protocol/serverId`).
    ///
    /// # Errors
    ///
    /// [`ClientError::Sasl`] when the challenge is not a list of directives, lacks a nonce or
    /// repeats one, does not offer `qop=auth`, or names an algorithm other than `md5-sess`.
    pub fn to_challenge(
        challenge: &[u8],
        identifier: &[u8],
        password: &[u8],
        digest_uri: &str,
    ) -> Result<Self, ClientError> {
        let directives = Directives::parse(challenge)
            .map_err(|err| sasl(format!("the challenge is malformed: {err}")))?;
        let named = |name| directives.exactly_once(name).map_err(sasl);
        let optional = |name| directives.at_most_once(name).map_err(sasl);
        let nonce = named("nonce")?;
        let algorithm = named("algorithm")?;
        if algorithm != "md5-sess" {
            return Err(sasl(format!("algorithm={algorithm} is not md5-sess")));
        }
        // An absent qop offers auth (RFC 2831 2.1.1); otherwise it is a list of options.
        let qop = optional("qop")?.unwrap_or("auth");
        if !qop.split(',').any(|offered| offered.trim() == "auth") {
            return Err(sasl(format!(
                "qop=\"{qop}\" does not offer auth, the only protection this client has"
            )));
        }
        Ok(DigestResponse {
            username: BASE64.encode(identifier),
            // Hadoop's server names one realm; a challenge without one leaves it empty.
            realm: optional("realm")?.unwrap_or_default().to_owned(),
            password: BASE64.encode(password),
            nonce: nonce.to_owned(),
            cnonce: BASE64.encode(rand::random::<[u8; CNONCE_BYTES]>()),
            nc: FIRST_NONCE_COUNT.to_owned(),
            qop: "auth".to_owned(),
            digest_uri: digest_uri.to_owned(),
            authzid: None,
        })
    }

    /// The response token, its directives in Java's order.
    pub fn token(&self) -> Vec<u8> {
        let mut token = format!(
            "charset=utf-8,username={},realm={},nonce={},nc={},cnonce={},digest-uri={},\
             maxbuf=65536,response={},qop={}",
            quoted(&self.username),
            quoted(&self.realm),
            quoted(&self.nonce),
            self.nc,
            quoted(&self.cnonce),
            quoted(&self.digest_uri),
            self.response(),
            self.qop
        );
        if let Some(authzid) = &self.authzid {
            token.push_str(&format!(",authzid={}", quoted(authzid)));
        }
        token.into_bytes()
    }

    /// The `response` directive: the digest that proves the client knows the password.
    pub fn response(&self) -> String {
        self.inputs().response()
    }

    /// The `rspauth=...` token a server that knows the password answers with.
    pub fn success_token(&self) -> Vec<u8> {
        format!("rspauth={}", self.inputs().rspauth()).into_bytes()
    }

    /// Checks the server's final token: its `rspauth` proves the server knows the password
    /// too, so a client does not talk to a server that merely accepted anything.
    ///
    /// # Errors
    ///
    /// [`ClientError::Sasl`] when the token is missing, malformed or has another `rspauth`.
    pub fn verify_success(&self, token: Option<&[u8]>) -> Result<(), ClientError> {
        let token = token.ok_or_else(|| sasl("the server's SUCCESS carries no rspauth"))?;
        let directives = Directives::parse(token)
            .map_err(|err| sasl(format!("the server's final token is malformed: {err}")))?;
        let rspauth = directives.exactly_once("rspauth").map_err(sasl)?;
        if bool::from(rspauth.as_bytes().ct_eq(self.inputs().rspauth().as_bytes())) {
            Ok(())
        } else {
            Err(sasl(
                "the server's rspauth does not match: it does not know the token's password",
            ))
        }
    }

    fn inputs(&self) -> DigestInputs<'_> {
        DigestInputs {
            username: &self.username,
            realm: &self.realm,
            password: &self.password,
            nonce: &self.nonce,
            cnonce: &self.cnonce,
            nc: &self.nc,
            qop: &self.qop,
            digest_uri: &self.digest_uri,
            authzid: self.authzid.as_deref(),
        }
    }
}

/// `value` as an RFC 2831 quoted string.
fn quoted(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}

fn sasl(message: impl std::fmt::Display) -> ClientError {
    ClientError::Sasl(format!("DIGEST-MD5: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHALLENGE: &[u8] =
        b"realm=\"default\",nonce=\"bm9uY2U=\",qop=\"auth\",charset=utf-8,algorithm=md5-sess";

    fn response() -> DigestResponse {
        DigestResponse::to_challenge(CHALLENGE, b"id", b"pw", "/default").unwrap()
    }

    #[test]
    fn the_response_takes_realm_and_nonce_and_encodes_the_token() {
        let response = response();
        assert_eq!(response.username, "aWQ=");
        assert_eq!(response.password, "cHc=");
        assert_eq!(
            (response.realm.as_str(), response.nonce.as_str()),
            ("default", "bm9uY2U=")
        );
        assert_eq!(response.cnonce.len(), 32);
        assert_ne!(response.cnonce, self::response().cnonce, "a fresh cnonce");
        let token = String::from_utf8(response.token()).unwrap();
        let directives = Directives::parse(token.as_bytes()).unwrap();
        assert_eq!(directives.exactly_once("digest-uri").unwrap(), "/default");
        assert_eq!(directives.exactly_once("nc").unwrap(), "00000001");
        assert_eq!(
            directives.exactly_once("response").unwrap(),
            response.response()
        );
        assert!(
            !token.contains("cHc="),
            "the password is never sent: {token}"
        );
    }

    #[test]
    fn the_servers_rspauth_is_checked() {
        let response = response();
        response
            .verify_success(Some(&response.success_token()))
            .unwrap();
        let forged = DigestResponse {
            password: "b3RoZXI=".into(),
            ..response.clone()
        };
        let err = response
            .verify_success(Some(&forged.success_token()))
            .unwrap_err();
        assert!(err.to_string().contains("rspauth does not match"), "{err}");
        assert!(response.verify_success(None).is_err());
    }

    #[test]
    fn challenges_it_cannot_answer_are_refused() {
        for (challenge, detail) in [
            (
                &b"realm=\"default\",qop=\"auth\",algorithm=md5-sess"[..],
                "nonce is missing",
            ),
            (
                b"nonce=\"n\",qop=\"auth-conf\",algorithm=md5-sess",
                "does not offer auth",
            ),
            (b"nonce=\"n\",qop=\"auth\",algorithm=md5", "not md5-sess"),
            (b"nonce=\"n", "malformed"),
        ] {
            let err = DigestResponse::to_challenge(challenge, b"id", b"pw", "/default")
                .unwrap_err()
                .to_string();
            assert!(err.contains(detail), "{err}");
        }
    }

    #[test]
    fn quoted_values_escape_quotes_and_backslashes() {
        assert_eq!(quoted(r#"a"b\c"#), r#""a\"b\\c""#);
    }
}
