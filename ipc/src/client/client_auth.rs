//! How a client proves who it is.

use bytes::Bytes;

/// The authentication a [`IpcClient`](crate::IpcClient) opens its connection with.
#[derive(Clone, PartialEq, Eq)]
pub enum ClientAuth {
    /// Hadoop's SIMPLE: no SASL; the connection context names the user, unproven.
    Simple {
        /// The `effectiveUser` of the connection context.
        user: String,
    },
    /// SASL TOKEN with DIGEST-MD5: the client proves it holds a token (an AMRMToken, an NM
    /// token) issued by the server's daemon; calls run as the token's user.
    Token {
        /// The token's identifier bytes.
        identifier: Bytes,
        /// The token's password bytes.
        password: Bytes,
    },
}

/// Kept out of logs: a token's password is its whole secret.
impl std::fmt::Debug for ClientAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientAuth::Simple { user } => f.debug_struct("Simple").field("user", user).finish(),
            ClientAuth::Token { identifier, .. } => f
                .debug_struct("Token")
                .field("identifier", identifier)
                .field("password", &"<redacted>")
                .finish(),
        }
    }
}
