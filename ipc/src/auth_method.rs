//! Hadoop's authentication methods.

use std::fmt;

/// How a connection proves who is calling, in Hadoop's names (`SaslRpcServer.AuthMethod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthMethod {
    /// No proof: the connection context names a user and the server believes it.
    Simple,
    /// A delegation-style token (AMRMToken, NMToken) over SASL DIGEST-MD5.
    Token,
    /// Kerberos over SASL GSSAPI. Not implemented; named so the place for it is clear.
    Kerberos,
}

impl AuthMethod {
    /// The name in `SaslAuth.method` and in refusal messages: `SIMPLE`, `TOKEN`, `KERBEROS`.
    pub const fn name(self) -> &'static str {
        match self {
            AuthMethod::Simple => "SIMPLE",
            AuthMethod::Token => "TOKEN",
            AuthMethod::Kerberos => "KERBEROS",
        }
    }

    /// The SASL mechanism in `SaslAuth.mechanism`: empty for SIMPLE.
    pub const fn mechanism(self) -> &'static str {
        match self {
            AuthMethod::Simple => "",
            AuthMethod::Token => "DIGEST-MD5",
            AuthMethod::Kerberos => "GSSAPI",
        }
    }

    /// Reads a `SaslAuth.method` name.
    pub fn from_name(name: &str) -> Option<Self> {
        [AuthMethod::Simple, AuthMethod::Token, AuthMethod::Kerberos]
            .into_iter()
            .find(|method| method.name() == name)
    }
}

impl fmt::Display for AuthMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
