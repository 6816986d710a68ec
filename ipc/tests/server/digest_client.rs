//! The DIGEST-MD5 side of Hadoop's client for TOKEN, written from RFC 2831 independently of
//! the crate's own digest: Java's DIGEST-MD5 client as Hadoop's `SaslRpcClient` drives it
//! (username and password base64 of the token's identifier and password, realm and nonce
//! from the challenge, `digest-uri` protocol `/` serverId).

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use md5::{Digest, Md5};

/// The values of one response; tests change them to make the responses a server must refuse.
#[derive(Debug, Clone)]
pub struct DigestResponse {
    pub username: String,
    pub realm: String,
    pub password: String,
    pub nonce: String,
    pub cnonce: String,
    pub nc: String,
    pub qop: String,
    pub digest_uri: String,
    pub authzid: Option<String>,
}

impl DigestResponse {
    /// What Hadoop's client answers `challenge` with for the token (`identifier`, `password`).
    pub fn to_challenge(challenge: &[u8], identifier: &[u8], password: &[u8]) -> Self {
        let challenge = std::str::from_utf8(challenge).expect("a UTF-8 challenge");
        assert!(
            challenge.contains("qop=\"auth\"") && challenge.contains("algorithm=md5-sess"),
            "{challenge}"
        );
        DigestResponse {
            username: BASE64.encode(identifier),
            realm: quoted(challenge, "realm"),
            password: BASE64.encode(password),
            nonce: quoted(challenge, "nonce"),
            cnonce: "c2VydmVyIG5vbmNlcyBhcmUgZnJlc2g".into(),
            nc: "00000001".into(),
            qop: "auth".into(),
            digest_uri: "/default".into(),
            authzid: None,
        }
    }

    /// The response token, directives in Java's order.
    pub fn token(&self) -> Vec<u8> {
        let mut token = format!(
            "charset=utf-8,username=\"{}\",realm=\"{}\",nonce=\"{}\",nc={},cnonce=\"{}\",\
             digest-uri=\"{}\",maxbuf=65536,response={},qop={}",
            self.username,
            self.realm,
            self.nonce,
            self.nc,
            self.cnonce,
            self.digest_uri,
            self.response(),
            self.qop
        );
        if let Some(authzid) = &self.authzid {
            token.push_str(&format!(",authzid=\"{authzid}\""));
        }
        token.into_bytes()
    }

    /// The `rspauth=...` token a server that knows the password answers with.
    pub fn success_token(&self) -> Vec<u8> {
        format!("rspauth={}", self.digest(":")).into_bytes()
    }

    pub fn response(&self) -> String {
        self.digest("AUTHENTICATE:")
    }

    fn digest(&self, a2_prefix: &str) -> String {
        let md5 = |bytes: &[u8]| Md5::digest(bytes).to_vec();
        let secret = md5(format!("{}:{}:{}", self.username, self.realm, self.password).as_bytes());
        let mut a1 = secret;
        a1.extend_from_slice(format!(":{}:{}", self.nonce, self.cnonce).as_bytes());
        if let Some(authzid) = &self.authzid {
            a1.extend_from_slice(format!(":{authzid}").as_bytes());
        }
        let a2 = format!("{a2_prefix}{}", self.digest_uri);
        let kd = format!(
            "{}:{}:{}:{}:{}:{}",
            hex::encode(md5(&a1)),
            self.nonce,
            self.nc,
            self.cnonce,
            self.qop,
            hex::encode(md5(a2.as_bytes()))
        );
        hex::encode(md5(kd.as_bytes()))
    }
}

/// The value of `name="..."` in a challenge whose values have no escapes.
fn quoted(challenge: &str, name: &str) -> String {
    let start = challenge
        .find(&format!("{name}=\""))
        .unwrap_or_else(|| panic!("no {name} in {challenge}"))
        + name.len()
        + 2;
    let end = challenge[start..].find('"').expect("a closing quote") + start;
    challenge[start..end].to_owned()
}
