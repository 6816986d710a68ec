//! Who is calling, as connection set-up established it.

use std::net::SocketAddr;

use bytes::Bytes;

use crate::AuthMethod;

/// The caller of every call on one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The user calls run as: under SIMPLE the connection context's `effectiveUser` (absent
    /// if the client sent none), under SASL the authenticated user.
    pub user: Option<String>,
    /// How that user was established.
    pub authentication: Authentication,
    /// The protocol the client opened the connection for (the context's `protocol`).
    pub connection_protocol: Option<String>,
    /// The peer's address, when the server knows it.
    pub peer: Option<SocketAddr>,
}

/// How a connection's user was established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Authentication {
    /// SIMPLE: a name the client claims, with no proof at all.
    Simple,
    /// Proven over SASL.
    Sasl {
        /// The method used.
        method: AuthMethod,
        /// The identifier of the token that proved it, for TOKEN.
        token_identifier: Option<Bytes>,
    },
}

impl Caller {
    /// The identifier of the token the connection proved over SASL TOKEN, if it did: what a
    /// token-authenticated protocol (ApplicationMaster, NodeManager) runs its calls as.
    pub fn proven_token(&self) -> Option<&Bytes> {
        match &self.authentication {
            Authentication::Sasl {
                method: AuthMethod::Token,
                token_identifier: Some(identifier),
            } => Some(identifier),
            _ => None,
        }
    }
}
