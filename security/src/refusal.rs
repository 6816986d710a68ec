//! Why a listener dropped a connection before serving it.

use std::io;
use std::time::Duration;

use crate::PeerIdentity;

/// Why [`Incoming`](crate::Incoming) dropped a connection instead of handing it to the server.
///
/// Refusals are logged, never returned: the stream of connections goes on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    /// The client did not complete the TLS handshake in time.
    #[error("TLS handshake timed out after {timeout:?}")]
    HandshakeTimeout { timeout: Duration },

    /// rustls refused the handshake: a certificate from another CA, an expired one, none at all.
    #[error("TLS handshake refused: {reason}")]
    HandshakeRefused { reason: rustls::Error },

    /// The handshake failed on I/O: a port scanner, a health check, a client that hung up.
    #[error("TLS handshake failed: {source}")]
    HandshakeFailed { source: io::Error },

    /// The handshake succeeded without a client certificate on a listener that does not admit
    /// anonymous clients, which only a misconfigured server configuration allows.
    #[error("TLS client presented no certificate")]
    NoCertificate,

    /// The client's certificate verified but its subject names no yarn-ha role and name.
    #[error("client certificate carries no yarn-ha identity: {source}")]
    NoIdentity { source: crate::Error },

    /// The identity already holds as many connections to the listener as it may.
    #[error(
        "{identity} already holds {limit} connections to this listener, the most \
         yarn.tls.max-connections-per-identity allows"
    )]
    TooManyConnections {
        identity: PeerIdentity,
        limit: usize,
    },

    /// The clients without a certificate already hold, together, as many connections to the
    /// listener as one identity may.
    #[error(
        "clients without a certificate already hold {limit} connections to this listener, the \
         most yarn.tls.max-connections-per-identity allows them together"
    )]
    TooManyAnonymousConnections { limit: usize },

    /// A Hadoop IPC connection the Hadoop IPC server had no room for.
    #[error("Hadoop IPC client dropped: the Hadoop IPC server takes no more connections")]
    HadoopIpcBusy,
}

impl Refusal {
    /// The refusal a failed server-side handshake stands for.
    pub(crate) fn of_handshake_error(err: io::Error) -> Self {
        let reason = err
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>())
            .cloned();
        match reason {
            Some(reason) => Refusal::HandshakeRefused { reason },
            None => Refusal::HandshakeFailed { source: err },
        }
    }

    /// Whether an operator should hear of it: certificate problems, stalled handshakes and
    /// limits are worth attention; bare I/O failures are the background noise of any open port.
    pub(crate) fn is_noteworthy(&self) -> bool {
        !matches!(self, Refusal::HandshakeFailed { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustls_errors_are_refusals_and_bare_io_errors_are_failures() {
        let refused = Refusal::of_handshake_error(io::Error::new(
            io::ErrorKind::InvalidData,
            rustls::Error::NoCertificatesPresented,
        ));
        assert!(
            matches!(
                refused,
                Refusal::HandshakeRefused {
                    reason: rustls::Error::NoCertificatesPresented
                }
            ),
            "{refused:?}"
        );
        assert!(refused.is_noteworthy());

        let failed = Refusal::of_handshake_error(io::ErrorKind::ConnectionReset.into());
        assert!(
            matches!(failed, Refusal::HandshakeFailed { .. }),
            "{failed:?}"
        );
        assert!(!failed.is_noteworthy());
    }

    #[test]
    fn too_many_connections_names_the_identity_the_limit_and_the_key() {
        let refusal = Refusal::TooManyConnections {
            identity: PeerIdentity {
                role: crate::Role::NodeManager,
                name: "h1".to_owned(),
            },
            limit: 3,
        };
        assert_eq!(
            refusal.to_string(),
            "nodemanager/h1 already holds 3 connections to this listener, the most \
             yarn.tls.max-connections-per-identity allows"
        );
    }
}
