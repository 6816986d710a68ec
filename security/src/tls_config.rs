//! The typed TLS setting of a process, built once at start-up from `yarn.tls.*`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::{ClientConfig, ServerConfig};
use yarn_conf::Configuration;
use yarn_conf::keys::{TLS_CA_CERT, TLS_CERT, TLS_ENABLED, TLS_KEY};

use crate::pki::{CA_CERT_FILE, LeafFiles};
use crate::tls::{self, ClientAuth, Credentials};
use crate::{ConnectionLimits, Error, PeerIdentity, Role};

/// The three PEM files of a TLS-enabled process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The cluster CA certificate (`yarn.tls.ca-cert`).
    pub ca_cert: PathBuf,
    /// This process's certificate (`yarn.tls.cert`).
    pub cert: PathBuf,
    /// This process's private key (`yarn.tls.key`).
    pub key: PathBuf,
}

impl TlsFiles {
    /// The files of the leaf `role`/`name` in a PKI directory written by [`crate::pki`].
    pub fn in_pki_dir(dir: &Path, role: Role, name: &str) -> Self {
        let leaf = LeafFiles::new(dir, role, name);
        TlsFiles {
            ca_cert: dir.join(CA_CERT_FILE),
            cert: leaf.cert,
            key: leaf.key,
        }
    }
}

/// Whether a process speaks mutual TLS, and if so the rustls configurations it uses; and the
/// limits its listeners enforce, TLS or not.
///
/// Built once and validated at start-up; cheap to clone (configurations are shared). Servers
/// take [`server_config`](Self::server_config) (or pass the whole value to
/// [`Incoming::new`](crate::Incoming::new), which applies the limits too); clients take
/// [`client_config`](Self::client_config) for [`connect`](crate::connect).
#[derive(Clone, Debug)]
pub struct TlsConfig {
    enabled: Option<Arc<Enabled>>,
    limits: ConnectionLimits,
}

#[derive(Debug)]
struct Enabled {
    server: Arc<ServerConfig>,
    /// As `server`, but admitting clients without a certificate: for web endpoints only.
    anonymous_server: Arc<ServerConfig>,
    client: Arc<ClientConfig>,
    identity: PeerIdentity,
}

impl TlsConfig {
    /// Builds the setting from `yarn.tls.enabled` (default true), `yarn.tls.ca-cert`,
    /// `yarn.tls.cert` and `yarn.tls.key`, with the limits of [`ConnectionLimits::from_conf`].
    ///
    /// # Errors
    ///
    /// [`Error::Conf`] when `yarn.tls.enabled` is not a boolean, a limit is not a positive
    /// integer, or a `${...}` reference does not resolve;
    /// [`Error::TlsSettingMissing`] naming the first of the three paths that is unset or empty
    /// while TLS is enabled; and everything [`from_files`](Self::from_files) returns.
    pub fn from_conf(conf: &Configuration) -> Result<Self, Error> {
        let limits = ConnectionLimits::from_conf(conf)?;
        if !conf.get_bool(&TLS_ENABLED)? {
            return Ok(TlsConfig {
                limits,
                ..TlsConfig::disabled()
            });
        }
        let path = |key: &yarn_conf::Key| -> Result<PathBuf, Error> {
            let value = conf.get_string(key)?;
            if value.is_empty() {
                return Err(Error::TlsSettingMissing {
                    key: key.name.to_string(),
                });
            }
            Ok(PathBuf::from(value))
        };
        let files = TlsFiles {
            ca_cert: path(&TLS_CA_CERT)?,
            cert: path(&TLS_CERT)?,
            key: path(&TLS_KEY)?,
        };
        Ok(TlsConfig {
            limits,
            ..TlsConfig::from_files(&files)?
        })
    }

    /// Reads and checks the three files and builds both rustls configurations; the limits are
    /// [`ConnectionLimits::default`].
    ///
    /// # Errors
    ///
    /// [`Error::TlsSetting`] naming the configuration key of the offending file, wrapping:
    /// [`Error::Io`] for an unreadable file, [`Error::Pem`] for a file that holds no PEM
    /// certificate or key, [`Error::KeyPermissions`] for a key readable by group or others
    /// (unix), [`Error::MissingIdentity`] / [`Error::UnknownRole`] for a certificate without
    /// a yarn-ha identity, and [`Error::Rustls`] when the key does not match the certificate.
    pub fn from_files(files: &TlsFiles) -> Result<Self, Error> {
        let setting = |key: &yarn_conf::Key| {
            let key = key.name.to_string();
            move |source| Error::TlsSetting {
                key,
                source: Box::new(source),
            }
        };
        let ca = tls::read_certificates(&files.ca_cert).map_err(setting(&TLS_CA_CERT))?;
        let chain = tls::read_certificates(&files.cert).map_err(setting(&TLS_CERT))?;
        let key = tls::read_private_key(&files.key).map_err(setting(&TLS_KEY))?;
        let identity = chain
            .first()
            .map(|leaf| PeerIdentity::from_der(leaf))
            .transpose()
            .map_err(setting(&TLS_CERT))?
            .ok_or_else(|| {
                setting(&TLS_CERT)(Error::Pem {
                    path: files.cert.clone(),
                    reason: "no CERTIFICATE block found".to_owned(),
                })
            })?;
        let own = Credentials { chain, key };
        let server = tls::server_config(&ca, own.clone(), ClientAuth::Required)
            .map_err(setting(&TLS_CERT))?;
        let anonymous_server = tls::server_config(&ca, own.clone(), ClientAuth::Optional)
            .map_err(setting(&TLS_CERT))?;
        let client = tls::client_config(&ca, Some(own)).map_err(setting(&TLS_CERT))?;
        Ok(TlsConfig {
            enabled: Some(Arc::new(Enabled {
                server,
                anonymous_server,
                client,
                identity,
            })),
            limits: ConnectionLimits::default(),
        })
    }

    /// The plaintext setting (`yarn.tls.enabled=false`). Logs a warning, since every endpoint
    /// then accepts anyone and [`Authorizer`](crate::Authorizer) lets anonymous calls through.
    pub fn disabled() -> Self {
        tracing::warn!(
            "TLS IS DISABLED (yarn.tls.enabled=false): every endpoint accepts unauthenticated \
             plaintext connections and role checks are skipped; never run a shared cluster so"
        );
        TlsConfig {
            enabled: None,
            limits: ConnectionLimits::default(),
        }
    }

    /// Whether mutual TLS is on.
    pub fn is_enabled(&self) -> bool {
        self.enabled.is_some()
    }

    /// The server configuration, `None` when TLS is disabled.
    pub fn server_config(&self) -> Option<Arc<ServerConfig>> {
        self.enabled.as_ref().map(|enabled| enabled.server.clone())
    }

    /// The server configuration of a web endpoint that lets clients without a certificate
    /// connect, as anonymous callers ([`ClientAuth::Optional`]: a certificate that is presented
    /// is verified as strictly as by [`server_config`](Self::server_config)); `None` when TLS
    /// is disabled. Only for web endpoints whose operator allowed anonymous reads
    /// (`hadoop.http.authentication.simple.anonymous.allowed`), never for RPC endpoints.
    pub fn anonymous_server_config(&self) -> Option<Arc<ServerConfig>> {
        self.enabled
            .as_ref()
            .map(|enabled| enabled.anonymous_server.clone())
    }

    /// The client configuration (presenting this process's certificate), `None` when TLS is
    /// disabled.
    pub fn client_config(&self) -> Option<Arc<ClientConfig>> {
        self.enabled.as_ref().map(|enabled| enabled.client.clone())
    }

    /// The limits this process's listeners enforce.
    pub fn connection_limits(&self) -> ConnectionLimits {
        self.limits
    }

    /// The role and name of this process's own certificate, `None` when TLS is disabled.
    pub fn identity(&self) -> Option<&PeerIdentity> {
        self.enabled.as_ref().map(|enabled| &enabled.identity)
    }
}
