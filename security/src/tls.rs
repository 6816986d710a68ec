//! rustls server and client configurations for the cluster's mutual TLS.
//!
//! Both sides trust exactly the cluster CA, speak TLS 1.3 only (every peer is a yarn-ha
//! process, so there is no legacy client to accommodate) and negotiate ALPN `h2` for gRPC.
//! The server refuses any client that does not present a certificate signed by the CA, except
//! that a web endpoint may admit clients without one ([`ClientAuth::Optional`]) for Hadoop's
//! anonymous reads; a certificate that is presented is verified all the same.
//! Cryptography always comes from rustls' `ring` provider.

use std::fmt;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::sync::{Arc, Once};

use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig};

use crate::Error;

/// The ALPN protocol id of HTTP/2, which gRPC runs on.
pub const ALPN_H2: &[u8] = b"h2";

/// Installs rustls' `ring` provider as the process-wide default, once.
///
/// Idempotent and cheap after the first call. If another provider was installed first, that one
/// stays the process default; this crate's own configurations use `ring` explicitly either way.
pub fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Err means a provider is already installed, which is all we need.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

fn ring_provider() -> Arc<CryptoProvider> {
    install_crypto_provider();
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A certificate chain (leaf first) and its private key: what a peer presents.
pub struct Credentials {
    /// The leaf certificate followed by any intermediates.
    pub chain: Vec<CertificateDer<'static>>,
    /// The leaf's private key.
    pub key: PrivateKeyDer<'static>,
}

impl Credentials {
    /// Reads a certificate chain and its key from PEM files (see [`read_certificates`] and
    /// [`read_private_key`] for the checks and errors).
    pub fn read(cert_path: &Path, key_path: &Path) -> Result<Self, Error> {
        Ok(Credentials {
            chain: read_certificates(cert_path)?,
            key: read_private_key(key_path)?,
        })
    }
}

impl Clone for Credentials {
    fn clone(&self) -> Self {
        Credentials {
            chain: self.chain.clone(),
            key: self.key.clone_key(),
        }
    }
}

impl fmt::Debug for Credentials {
    /// Shows the chain length only: the key must never reach a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("chain_len", &self.chain.len())
            .finish_non_exhaustive()
    }
}

/// Reads every `CERTIFICATE` block of a PEM file, in file order.
///
/// # Errors
///
/// [`Error::Io`] when the file cannot be read, [`Error::Pem`] when it is not PEM or holds no
/// certificate.
pub fn read_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, Error> {
    let mut reader = open(path)?;
    let certificates = rustls_pemfile::certs(&mut reader)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| Error::Pem {
            path: path.to_owned(),
            reason: err.to_string(),
        })?;
    if certificates.is_empty() {
        return Err(Error::Pem {
            path: path.to_owned(),
            reason: "no CERTIFICATE block found".to_owned(),
        });
    }
    Ok(certificates)
}

/// Reads the first private key (PKCS#8, PKCS#1 or SEC1) of a PEM file.
///
/// On unix the file must not be readable, writable or executable by group or others: a key
/// others can read is not secret, so it is refused rather than used.
///
/// # Errors
///
/// [`Error::Io`] when the file cannot be read, [`Error::KeyPermissions`] for a too-open mode,
/// [`Error::Pem`] when it is not PEM or holds no private key.
pub fn read_private_key(path: &Path) -> Result<PrivateKeyDer<'static>, Error> {
    let mut reader = open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = reader
            .get_ref()
            .metadata()
            .map_err(|source| Error::Io {
                action: "inspecting",
                path: path.to_owned(),
                source,
            })?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(Error::KeyPermissions {
                path: path.to_owned(),
                mode: mode & 0o777,
            });
        }
    }
    rustls_pemfile::private_key(&mut reader)
        .map_err(|err| Error::Pem {
            path: path.to_owned(),
            reason: err.to_string(),
        })?
        .ok_or_else(|| Error::Pem {
            path: path.to_owned(),
            reason: "no PRIVATE KEY block found".to_owned(),
        })
}

fn open(path: &Path) -> Result<BufReader<File>, Error> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|source| Error::Io {
            action: "reading",
            path: path.to_owned(),
            source,
        })
}

fn root_store(ca: &[CertificateDer<'static>]) -> Result<Arc<RootCertStore>, Error> {
    let mut roots = RootCertStore::empty();
    for certificate in ca {
        roots
            .add(certificate.clone())
            .map_err(|source| Error::Rustls {
                context: "adding the cluster CA to the trust store",
                source,
            })?;
    }
    Ok(Arc::new(roots))
}

/// Whether a server requires its clients to present a certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientAuth {
    /// Every client presents a certificate that chains to the cluster CA: every RPC endpoint,
    /// and the web endpoints by default.
    Required,
    /// A client may present no certificate and is then anonymous; a certificate it does
    /// present is verified exactly as under [`ClientAuth::Required`], so one from another CA,
    /// or an expired one, still fails the handshake. Only the web endpoints use it, when
    /// `hadoop.http.authentication.simple.anonymous.allowed` lets anonymous callers read.
    Optional,
}

/// A server configuration that presents `own` and verifies client certificates against `ca`,
/// requiring one or not as `client_auth` says. ALPN is `h2`.
///
/// # Errors
///
/// [`Error::Rustls`] when a CA certificate is malformed or `own`'s key does not suit its
/// certificate, [`Error::ClientVerifier`] when `ca` is empty.
pub fn server_config(
    ca: &[CertificateDer<'static>],
    own: Credentials,
    client_auth: ClientAuth,
) -> Result<Arc<ServerConfig>, Error> {
    let provider = ring_provider();
    let verifier = WebPkiClientVerifier::builder_with_provider(root_store(ca)?, provider.clone());
    let verifier = match client_auth {
        ClientAuth::Required => verifier,
        ClientAuth::Optional => verifier.allow_unauthenticated(),
    }
    .build()
    .map_err(|source| Error::ClientVerifier { source })?;
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|source| Error::Rustls {
            context: "choosing TLS protocol versions",
            source,
        })?
        .with_client_cert_verifier(verifier)
        .with_single_cert(own.chain, own.key)
        .map_err(|source| Error::Rustls {
            context: "loading the server certificate and key",
            source,
        })?;
    config.alpn_protocols = vec![ALPN_H2.to_vec()];
    Ok(Arc::new(config))
}

/// A client configuration that verifies servers against `ca` (host name included) and, when
/// `own` is given, presents it as the client certificate. ALPN is `h2`.
///
/// Without `own` the cluster's servers refuse the handshake; that form exists for tools that
/// only need to check a server's certificate, and for tests.
///
/// # Errors
///
/// [`Error::Rustls`] when a CA certificate is malformed or `own`'s key does not suit its
/// certificate.
pub fn client_config(
    ca: &[CertificateDer<'static>],
    own: Option<Credentials>,
) -> Result<Arc<ClientConfig>, Error> {
    let builder = ClientConfig::builder_with_provider(ring_provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|source| Error::Rustls {
            context: "choosing TLS protocol versions",
            source,
        })?
        .with_root_certificates(root_store(ca)?);
    let mut config = match own {
        Some(own) => builder
            .with_client_auth_cert(own.chain, own.key)
            .map_err(|source| Error::Rustls {
                context: "loading the client certificate and key",
                source,
            })?,
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![ALPN_H2.to_vec()];
    Ok(Arc::new(config))
}
