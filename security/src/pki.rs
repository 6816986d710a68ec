//! The cluster PKI: one CA and leaf certificates that carry a role and a name.
//!
//! Everything here is a function over a directory, called by `yarn-ha pki init`,
//! `yarn-ha pki issue` and the minicluster. The layout of a PKI directory is:
//!
//! ```text
//! ca.pem                    the cluster CA certificate (every daemon trusts it)
//! ca-key.pem                the CA's private key (mode 0600; keep it off the cluster)
//! <role>-<name>.pem         a leaf certificate, e.g. nodemanager-h1.example.com.pem
//! <role>-<name>-key.pem     its private key (mode 0600)
//! ```
//!
//! [`issue_with_pkcs12`] also writes a leaf's PKCS#12 bundle ([`Pkcs12Output`]), wherever it
//! is asked for, for browsers and other clients that import one password-protected file.
//!
//! A leaf's subject is `CN=<name>, OU=<role>, O=yarn-ha` (read back by
//! [`PeerIdentity::from_der`](crate::PeerIdentity::from_der)). Its subject alternative names are
//! the name itself when it is a host name or an IP address (and the role is not
//! [`Role::User`]), any extra hosts asked for, and always `localhost`, `127.0.0.1` and `::1` so
//! that single-machine clusters and tests verify. Keys are ECDSA P-256, written PKCS#8 PEM.
//!
//! Files are created with `O_EXCL` and, for keys, mode 0600 from the start, so a key is never
//! readable by others even for an instant. Existing files are only replaced with `force`.
//! Validity is always passed in ([`Validity`]): these functions never read the clock.

use std::collections::BTreeSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use time::OffsetDateTime;

use crate::{Error, Role};

mod pkcs12;

pub use pkcs12::Pkcs12Output;

/// File name of the CA certificate inside a PKI directory.
pub const CA_CERT_FILE: &str = "ca.pem";
/// File name of the CA private key inside a PKI directory.
pub const CA_KEY_FILE: &str = "ca-key.pem";
/// The organization (O) every certificate of the cluster carries.
pub const ORGANIZATION: &str = "yarn-ha";
/// Host names every leaf certificate is valid for, so local clusters verify.
pub const LOCAL_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Longest accepted name: X.509 bounds a common name at 64 characters.
const MAX_NAME_LEN: usize = 64;
const CA_COMMON_NAME: &str = "yarn-ha cluster CA";
const DEFAULT_CA_DAYS: i64 = 3650;
const DEFAULT_LEAF_DAYS: i64 = 730;

/// The period a certificate is valid for; `not_before` is always before `not_after`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Validity {
    not_before: OffsetDateTime,
    not_after: OffsetDateTime,
}

impl Validity {
    /// A validity from `not_before` to `not_after`.
    ///
    /// Either bound may lie in the past, which is how tests make expired certificates.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidValidity`] when `not_after` is not after `not_before`.
    pub fn new(not_before: OffsetDateTime, not_after: OffsetDateTime) -> Result<Self, Error> {
        if not_after <= not_before {
            return Err(Error::InvalidValidity {
                not_before,
                not_after,
            });
        }
        Ok(Validity {
            not_before,
            not_after,
        })
    }

    /// A validity of `days` whole days (at least one) starting at `start`.
    pub fn days_from(start: OffsetDateTime, days: u16) -> Self {
        Validity {
            not_before: start,
            not_after: start + time::Duration::days(i64::from(days.max(1))),
        }
    }

    /// The first instant the certificate is valid.
    pub fn not_before(&self) -> OffsetDateTime {
        self.not_before
    }

    /// The last instant the certificate is valid.
    pub fn not_after(&self) -> OffsetDateTime {
        self.not_after
    }
}

/// How [`init`] and [`issue`] create certificates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PkiOptions {
    /// Validity of the CA certificate ([`init`] only).
    pub ca_validity: Validity,
    /// Validity of each leaf certificate.
    pub leaf_validity: Validity,
    /// Replace existing files instead of refusing.
    pub force: bool,
}

impl PkiOptions {
    /// The defaults: the CA is valid ten years and leaves two years from `now`; no `force`.
    pub fn starting_at(now: OffsetDateTime) -> Self {
        PkiOptions {
            ca_validity: Validity {
                not_before: now,
                not_after: now + time::Duration::days(DEFAULT_CA_DAYS),
            },
            leaf_validity: Validity {
                not_before: now,
                not_after: now + time::Duration::days(DEFAULT_LEAF_DAYS),
            },
            force: false,
        }
    }
}

/// One leaf certificate to create.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafSpec {
    /// The role written into the subject's OU.
    pub role: Role,
    /// The name written into the subject's CN, and into the file names.
    pub name: String,
    /// Extra host names or IP addresses the certificate is valid for as a server.
    pub hosts: Vec<String>,
}

impl LeafSpec {
    /// A leaf for `role` and `name` with no extra hosts.
    pub fn new(role: Role, name: impl Into<String>) -> Self {
        LeafSpec {
            role,
            name: name.into(),
            hosts: Vec::new(),
        }
    }

    /// The same leaf, also valid for `hosts`.
    pub fn with_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.hosts.extend(hosts.into_iter().map(Into::into));
        self
    }
}

/// Where a leaf's certificate and key live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafFiles {
    /// `<dir>/<role>-<name>.pem`.
    pub cert: PathBuf,
    /// `<dir>/<role>-<name>-key.pem`.
    pub key: PathBuf,
}

impl LeafFiles {
    /// The paths of the leaf for `role` and `name` in the PKI directory `dir`.
    pub fn new(dir: &Path, role: Role, name: &str) -> Self {
        LeafFiles {
            cert: dir.join(format!("{role}-{name}.pem")),
            key: dir.join(format!("{role}-{name}-key.pem")),
        }
    }

    /// The certificate's path, then the key's.
    fn paths(&self) -> impl Iterator<Item = &Path> {
        [self.cert.as_path(), self.key.as_path()].into_iter()
    }
}

/// Checks a certificate name: 1 to 64 characters from `[A-Za-z0-9._-]`.
///
/// # Errors
///
/// [`Error::InvalidName`] naming `what` (e.g. "user name") and the value.
pub fn validate_name(what: &'static str, value: &str) -> Result<(), Error> {
    let invalid = |reason| Error::InvalidName {
        what,
        value: value.to_owned(),
        reason,
    };
    if value.is_empty() {
        return Err(invalid("it is empty"));
    }
    if value.len() > MAX_NAME_LEN {
        return Err(invalid("it is longer than 64 characters"));
    }
    if !value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err(invalid(
            "only letters, digits, '.', '_' and '-' are allowed",
        ));
    }
    Ok(())
}

/// Creates a new CA in `dir` (created if absent) and one leaf per entry of `leaves`.
///
/// Every name, host and target file is checked before anything is written; if a later write
/// fails, the files already written stay. Returns the paths written, CA first.
///
/// # Errors
///
/// [`Error::InvalidName`] for a bad name or host, [`Error::DuplicateCertificate`] when two
/// leaves share a role and name, [`Error::AlreadyExists`] naming the first existing file when
/// `options.force` is off, [`Error::CertificateGeneration`] and [`Error::Io`].
pub fn init(dir: &Path, leaves: &[LeafSpec], options: &PkiOptions) -> Result<Vec<PathBuf>, Error> {
    let mut seen = BTreeSet::new();
    for leaf in leaves {
        validate_leaf(leaf)?;
        if !seen.insert((leaf.role, leaf.name.as_str())) {
            return Err(Error::DuplicateCertificate {
                role: leaf.role,
                name: leaf.name.clone(),
            });
        }
    }
    let ca_files = LeafFiles {
        cert: dir.join(CA_CERT_FILE),
        key: dir.join(CA_KEY_FILE),
    };
    let leaf_files: Vec<LeafFiles> = leaves
        .iter()
        .map(|leaf| LeafFiles::new(dir, leaf.role, &leaf.name))
        .collect();
    if !options.force {
        refuse_existing(
            std::iter::once(&ca_files)
                .chain(&leaf_files)
                .flat_map(LeafFiles::paths),
        )?;
    }
    create_dir(dir)?;

    let ca_key = generate_key(CA_COMMON_NAME)?;
    let ca_params = ca_params(&options.ca_validity);
    let ca_cert =
        ca_params
            .self_signed(&ca_key)
            .map_err(|source| Error::CertificateGeneration {
                name: CA_COMMON_NAME.to_owned(),
                source,
            })?;
    write_file(
        &ca_files.cert,
        ca_cert.pem().as_bytes(),
        CERT_MODE,
        options.force,
    )?;
    write_file(
        &ca_files.key,
        ca_key.serialize_pem().as_bytes(),
        KEY_MODE,
        options.force,
    )?;
    let issuer = Issuer::new(ca_params, ca_key);

    let mut written = vec![ca_files.cert, ca_files.key];
    for (leaf, files) in leaves.iter().zip(leaf_files) {
        write_leaf(leaf, &files, &issuer, options)?;
        written.extend([files.cert, files.key]);
    }
    Ok(written)
}

/// Adds one leaf certificate to the PKI in `dir`, signed by its existing CA.
///
/// # Errors
///
/// [`Error::InvalidName`] for a bad name or host, [`Error::MissingCa`] when `ca.pem` or
/// `ca-key.pem` is absent, [`Error::Pem`] when either does not parse, [`Error::AlreadyExists`]
/// when the leaf's files exist and `options.force` is off, [`Error::CertificateGeneration`] and
/// [`Error::Io`].
pub fn issue(dir: &Path, leaf: &LeafSpec, options: &PkiOptions) -> Result<LeafFiles, Error> {
    issue_leaf(dir, leaf, None, options)
}

/// Adds one leaf certificate as [`issue`] does, and writes its PKCS#12 bundle as `pkcs12`
/// says: the new certificate, its private key and the CA certificate as its chain, under the
/// friendly name `yarn-ha <role>/<name>`, protected by the password, in the scheme OpenSSL 3
/// writes by default (PBES2 with PBKDF2-HMAC-SHA256 and AES-256-CBC, an HMAC-SHA256 MAC), with
/// mode 0600.
///
/// Nothing is written when the bundle's file exists and `options.force` is off.
///
/// # Errors
///
/// As [`issue`], the bundle's file included; [`Error::Pkcs12`] when the bundle cannot be
/// encoded.
pub fn issue_with_pkcs12(
    dir: &Path,
    leaf: &LeafSpec,
    pkcs12: &Pkcs12Output,
    options: &PkiOptions,
) -> Result<LeafFiles, Error> {
    issue_leaf(dir, leaf, Some(pkcs12), options)
}

fn issue_leaf(
    dir: &Path,
    leaf: &LeafSpec,
    pkcs12: Option<&Pkcs12Output>,
    options: &PkiOptions,
) -> Result<LeafFiles, Error> {
    validate_leaf(leaf)?;
    let files = LeafFiles::new(dir, leaf.role, &leaf.name);
    if !options.force {
        refuse_existing(files.paths().chain(pkcs12.map(Pkcs12Output::path)))?;
    }
    let issuer = load_issuer(dir)?;
    write_leaf(leaf, &files, &issuer, options)?;
    if let Some(pkcs12) = pkcs12 {
        pkcs12::write(&files, &dir.join(CA_CERT_FILE), pkcs12, options.force)?;
    }
    Ok(files)
}

/// Unix permission bits of private keys and certificates (ignored on other systems).
const KEY_MODE: u32 = 0o600;
const CERT_MODE: u32 = 0o644;

fn validate_leaf(leaf: &LeafSpec) -> Result<(), Error> {
    let what = match leaf.role {
        Role::ResourceManager => "resourcemanager id",
        Role::NodeManager => "nodemanager host name",
        Role::User => "user name",
    };
    validate_name(what, &leaf.name)?;
    for host in &leaf.hosts {
        if host.parse::<IpAddr>().is_err() && !is_host_name(host) {
            return Err(Error::InvalidName {
                what: "host",
                value: host.clone(),
                reason: "expected a DNS host name or an IP address",
            });
        }
    }
    Ok(())
}

/// Whether `value` is a DNS host name: dot-separated labels of letters, digits and inner '-'.
fn is_host_name(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= 253
        && value.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// The subject alternative names of a leaf, without duplicates, in a stable order.
fn subject_alt_names(leaf: &LeafSpec) -> Vec<String> {
    let own_name = (leaf.role != Role::User
        && (is_host_name(&leaf.name) || leaf.name.parse::<IpAddr>().is_ok()))
    .then(|| leaf.name.clone());
    let mut names = Vec::new();
    let candidates = own_name
        .into_iter()
        .chain(leaf.hosts.iter().cloned())
        .chain(LOCAL_HOSTS.iter().map(|h| (*h).to_owned()));
    for name in candidates {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

fn ca_params(validity: &Validity) -> CertificateParams {
    let mut params = CertificateParams::default();
    params.distinguished_name = DistinguishedName::new();
    params
        .distinguished_name
        .push(DnType::CommonName, CA_COMMON_NAME);
    params
        .distinguished_name
        .push(DnType::OrganizationName, ORGANIZATION);
    // Path length 0: the CA signs leaves only, never another CA.
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    params.not_before = validity.not_before;
    params.not_after = validity.not_after;
    params
}

fn leaf_params(leaf: &LeafSpec, validity: &Validity) -> Result<CertificateParams, Error> {
    let label = format!("{}/{}", leaf.role, leaf.name);
    let mut params = CertificateParams::new(subject_alt_names(leaf)).map_err(|source| {
        Error::CertificateGeneration {
            name: label.clone(),
            source,
        }
    })?;
    params.distinguished_name = DistinguishedName::new();
    params
        .distinguished_name
        .push(DnType::CommonName, leaf.name.as_str());
    params
        .distinguished_name
        .push(DnType::OrganizationalUnitName, leaf.role.as_str());
    params
        .distinguished_name
        .push(DnType::OrganizationName, ORGANIZATION);
    params.is_ca = IsCa::ExplicitNoCa;
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    // Daemons are both servers and clients of each other; users only ever dial out.
    params.extended_key_usages = match leaf.role {
        Role::User => vec![ExtendedKeyUsagePurpose::ClientAuth],
        Role::ResourceManager | Role::NodeManager => vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ],
    };
    params.use_authority_key_identifier_extension = true;
    params.not_before = validity.not_before;
    params.not_after = validity.not_after;
    Ok(params)
}

fn write_leaf(
    leaf: &LeafSpec,
    files: &LeafFiles,
    issuer: &Issuer<'_, KeyPair>,
    options: &PkiOptions,
) -> Result<(), Error> {
    let label = format!("{}/{}", leaf.role, leaf.name);
    let key = generate_key(&label)?;
    let cert = leaf_params(leaf, &options.leaf_validity)?
        .signed_by(&key, issuer)
        .map_err(|source| Error::CertificateGeneration {
            name: label,
            source,
        })?;
    write_file(&files.cert, cert.pem().as_bytes(), CERT_MODE, options.force)?;
    write_file(
        &files.key,
        key.serialize_pem().as_bytes(),
        KEY_MODE,
        options.force,
    )
}

fn generate_key(label: &str) -> Result<KeyPair, Error> {
    KeyPair::generate().map_err(|source| Error::CertificateGeneration {
        name: label.to_owned(),
        source,
    })
}

fn load_issuer(dir: &Path) -> Result<Issuer<'static, KeyPair>, Error> {
    let cert_path = dir.join(CA_CERT_FILE);
    let key_path = dir.join(CA_KEY_FILE);
    let cert_pem = read_ca_file(&cert_path)?;
    let key_pem = read_ca_file(&key_path)?;
    let key = KeyPair::from_pem(&key_pem).map_err(|err| Error::Pem {
        path: key_path,
        reason: err.to_string(),
    })?;
    Issuer::from_ca_cert_pem(&cert_pem, key).map_err(|err| Error::Pem {
        path: cert_path,
        reason: err.to_string(),
    })
}

fn read_ca_file(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            Error::MissingCa {
                path: path.to_owned(),
            }
        } else {
            Error::Io {
                action: "reading",
                path: path.to_owned(),
                source,
            }
        }
    })
}

fn refuse_existing<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<(), Error> {
    for path in paths {
        // symlink_metadata: a dangling link is still something we would overwrite.
        if path.symlink_metadata().is_ok() {
            return Err(Error::AlreadyExists {
                path: path.to_owned(),
            });
        }
    }
    Ok(())
}

fn create_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        action: "creating directory",
        path: dir.to_owned(),
        source,
    })
}

/// Writes a new file with `mode` set at creation, so its contents are never exposed wider.
///
/// With `force` an existing file is removed first rather than truncated, because truncating
/// would keep the old file's (possibly wider) permissions.
fn write_file(path: &Path, contents: &[u8], mode: u32, force: bool) -> Result<(), Error> {
    let io_error = |action, source| Error::Io {
        action,
        path: path.to_owned(),
        source,
    };
    if force {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(io_error("removing", err)),
        }
    }
    let mut open = OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = open.open(path).map_err(|err| {
        if err.kind() == std::io::ErrorKind::AlreadyExists {
            Error::AlreadyExists {
                path: path.to_owned(),
            }
        } else {
            io_error("creating", err)
        }
    })?;
    file.write_all(contents)
        .and_then(|()| file.sync_all())
        .map_err(|err| io_error("writing", err))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_allow_only_the_safe_alphabet() {
        for good in ["alice", "yarn-admin", "h1.example.com", "rm_1", "A9"] {
            validate_name("user name", good).unwrap();
        }
        for bad in ["", "a b", "../etc", "bob/x", "é", &"x".repeat(65)] {
            let err = validate_name("user name", bad).unwrap_err();
            assert!(
                matches!(&err, Error::InvalidName { what: "user name", value, .. } if value == bad),
                "{err:?}"
            );
        }
    }

    #[test]
    fn host_names_follow_dns_label_rules() {
        assert!(is_host_name("h1.example.com"));
        assert!(is_host_name("localhost"));
        assert!(!is_host_name("rm_1"));
        assert!(!is_host_name("-h1"));
        assert!(!is_host_name("a..b"));
    }

    #[test]
    fn daemon_names_become_sans_but_user_names_do_not() {
        let nm = LeafSpec::new(Role::NodeManager, "h1.example.com").with_hosts(["10.0.0.5"]);
        assert_eq!(
            subject_alt_names(&nm),
            [
                "h1.example.com",
                "10.0.0.5",
                "localhost",
                "127.0.0.1",
                "::1"
            ]
        );
        let user = LeafSpec::new(Role::User, "alice");
        assert_eq!(subject_alt_names(&user), LOCAL_HOSTS);
        let rm = LeafSpec::new(Role::ResourceManager, "rm_1").with_hosts(["localhost"]);
        assert_eq!(subject_alt_names(&rm), LOCAL_HOSTS);
    }

    #[test]
    fn validity_must_not_be_empty() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let err = Validity::new(now, now).unwrap_err();
        assert!(matches!(err, Error::InvalidValidity { .. }));
        let one_day = Validity::days_from(now, 0);
        assert_eq!(
            one_day.not_after() - one_day.not_before(),
            time::Duration::days(1)
        );
    }

    #[test]
    fn bad_host_is_rejected_by_name() {
        let leaf = LeafSpec::new(Role::NodeManager, "h1").with_hosts(["bad host"]);
        let err = validate_leaf(&leaf).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidName { what: "host", value, .. } if value == "bad host")
        );
    }
}
