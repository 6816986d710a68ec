//! The PKCS#12 bundle (`.p12`) of a leaf: its certificate, its private key and the cluster CA in
//! one password-protected file, for clients that import one, such as browsers.

use std::fmt;
use std::path::{Path, PathBuf};

use p12_keystore::{Certificate, KeyStore, KeyStoreEntry, PrivateKey, PrivateKeyChain};
use rustls::pki_types::PrivateKeyDer;
use sha2::{Digest, Sha256};

use super::{KEY_MODE, LeafFiles, write_file};
use crate::{Error, PeerIdentity, tls};

/// PBKDF2-HMAC-SHA256 iterations deriving the encryption and integrity keys from the password.
/// Ten times OpenSSL 3's default (2048), still imported in well under a second.
const KDF_ITERATIONS: u32 = 20_000;

/// Where to write a leaf's PKCS#12 bundle, and the password protecting it.
#[derive(Clone, PartialEq, Eq)]
pub struct Pkcs12Output {
    path: PathBuf,
    password: String,
}

impl Pkcs12Output {
    /// A bundle to write at `path` under `password`.
    ///
    /// # Errors
    ///
    /// [`Error::EmptyPkcs12Password`] for an empty password: the bundle holds a private key,
    /// which an empty password would leave to anyone who gets the file.
    pub fn new(path: impl Into<PathBuf>, password: String) -> Result<Self, Error> {
        let path = path.into();
        if password.is_empty() {
            return Err(Error::EmptyPkcs12Password { path });
        }
        Ok(Self { path, password })
    }

    /// Where the bundle goes.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl fmt::Debug for Pkcs12Output {
    /// Shows the path only: the password must never reach a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pkcs12Output")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Writes `output` as [`issue_with_pkcs12`](super::issue_with_pkcs12) describes, from the
/// leaf's PEM files `leaf` and the CA certificate at `ca_cert`, replacing an existing file only
/// with `force`.
///
/// # Errors
///
/// [`Error::Io`], [`Error::Pem`] or [`Error::KeyPermissions`] reading the PEM files (the key
/// must be PKCS#8, as [`crate::pki`] writes it), [`Error::MissingIdentity`] or
/// [`Error::UnknownRole`] for a leaf without a yarn-ha identity, [`Error::Pkcs12`] when the
/// bundle cannot be encoded, [`Error::AlreadyExists`] and [`Error::Io`] writing it.
pub(super) fn write(
    leaf: &LeafFiles,
    ca_cert: &Path,
    output: &Pkcs12Output,
    force: bool,
) -> Result<(), Error> {
    let bundle_error = |source| Error::Pkcs12 {
        path: output.path.clone(),
        source,
    };
    let chain = tls::read_certificates(&leaf.cert)?;
    let ca = tls::read_certificates(ca_cert)?;
    let PrivateKeyDer::Pkcs8(key) = tls::read_private_key(&leaf.key)? else {
        return Err(Error::Pem {
            path: leaf.key.clone(),
            reason: "expected a PKCS#8 private key (BEGIN PRIVATE KEY)".to_owned(),
        });
    };
    let own = chain.first().ok_or_else(|| Error::Pem {
        path: leaf.cert.clone(),
        reason: "no CERTIFICATE block found".to_owned(),
    })?;
    let identity = PeerIdentity::from_der(own)?;
    let certificates = chain
        .iter()
        .chain(&ca)
        .map(|der| Certificate::from_der(der).map_err(bundle_error))
        .collect::<Result<Vec<_>, _>>()?;
    let key = PrivateKey::from_der(key.secret_pkcs8_der()).map_err(bundle_error)?;
    // The local key id ties the key to its certificate inside the bundle; the certificate's
    // digest is unique to it.
    let local_key_id = Sha256::digest(own.as_ref()).to_vec();
    let mut store = KeyStore::new();
    store.add_entry(
        &format!("yarn-ha {}/{}", identity.role, identity.name),
        KeyStoreEntry::PrivateKeyChain(PrivateKeyChain::new(local_key_id, key, certificates)),
    );
    let bundle = store
        .writer(&output.password)
        .encryption_iterations(KDF_ITERATIONS)
        .mac_iterations(KDF_ITERATIONS)
        .write()
        .map_err(bundle_error)?;
    write_file(&output.path, &bundle, KEY_MODE, force)
}
