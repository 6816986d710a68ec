//! The one error type of the security crate.

use std::path::PathBuf;

/// Everything that can go wrong in PKI, TLS set-up, peer authentication and token handling.
///
/// Every variant says what was wrong and where: the file, the key, the peer or the token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    // --- Tokens and master keys (token_*.rs, master_key*.rs, key_rolling_schedule.rs) ---
    /// A token's kind string is none of the kinds yarn-ha issues.
    #[error(
        "unknown token kind {kind:?}: expected one of YARN_AM_RM_TOKEN, ContainerToken, NMToken"
    )]
    UnknownTokenKind { kind: String },

    /// Bytes that are not a readable Hadoop credentials file (`HDTS`); `offset` is where the
    /// offending bytes start in the file.
    #[error("not a readable Hadoop credentials file: {problem} (at byte {offset})")]
    MalformedCredentials {
        offset: usize,
        problem: crate::hadoop_credentials::CredentialsProblem,
    },

    /// A token of one kind was presented where another kind is required.
    #[error("token of kind {found} presented where a token of kind {expected} is required")]
    TokenKindMismatch {
        expected: crate::TokenKind,
        found: crate::TokenKind,
    },

    /// A token's identifier bytes do not decode as its kind's protobuf identifier.
    #[error("token of kind {kind} has a malformed identifier: {source}")]
    MalformedTokenIdentifier {
        kind: crate::TokenKind,
        #[source]
        source: prost::DecodeError,
    },

    /// A token names a master key this verifier does not hold (too old, or never issued).
    #[error(
        "token of kind {kind} signed under unknown master key {key_id} (known: {})",
        crate::token_secret_manager::KeyIds(known)
    )]
    UnknownMasterKey {
        kind: crate::TokenKind,
        key_id: i32,
        known: Vec<i32>,
    },

    /// A token's password is not the HMAC of its identifier under the named master key.
    #[error("token of kind {kind}: signature does not verify: tampered or forged")]
    InvalidTokenSignature { kind: crate::TokenKind },

    /// A token's expiry time (milliseconds since the Unix epoch) is before `now_ms`.
    #[error(
        "token of kind {kind} expired at {} but it is now {}; if the token is fresh, the clocks \
         of the ResourceManager and this host may be out of sync",
        crate::epoch_millis::EpochMillis(*expiry_ms),
        crate::epoch_millis::EpochMillis(*now_ms)
    )]
    TokenExpired {
        kind: crate::TokenKind,
        expiry_ms: i64,
        now_ms: i64,
    },

    /// A master key's secret has the wrong length.
    #[error("master key {key_id} has {length} bytes of secret, expected exactly {expected}")]
    InvalidMasterKey {
        key_id: i32,
        length: usize,
        expected: usize,
    },

    /// A master-key rolling schedule whose interval is not more than twice its activation delay.
    #[error(
        "master-key rolling interval {rolling_interval_ms} ms must be more than twice the \
         activation delay {activation_delay_ms} ms (which must not be negative), so that every \
         NodeManager learns a next key before it signs"
    )]
    InvalidKeyRollingSchedule {
        rolling_interval_ms: i64,
        activation_delay_ms: i64,
    },

    /// A master key was proposed with an id other than the one the roll expects.
    #[error("master key id {found} is out of sequence: expected {expected}")]
    UnexpectedMasterKeyId { expected: i32, found: i32 },

    /// A next master key was proposed while another next key is still pending.
    #[error(
        "cannot create next master key {proposed}: next key {existing} exists and is not yet active"
    )]
    NextMasterKeyExists { existing: i32, proposed: i32 },

    /// Activation of a next master key was requested but none is pending.
    #[error("cannot activate a next master key: none is pending (current key is {current})")]
    NoNextMasterKey { current: i32 },

    // --- PKI, peer identity and mutual TLS (pki.rs, identity.rs, role.rs, tls*.rs,
    //     incoming.rs, connector.rs) ---
    /// A certificate name or host is malformed.
    #[error("invalid {what} {value:?}: {reason}")]
    InvalidName {
        what: &'static str,
        value: String,
        reason: &'static str,
    },

    /// The same role and name were asked for twice in one `pki init`.
    #[error("certificate {role}/{name} is listed twice")]
    DuplicateCertificate { role: crate::Role, name: String },

    /// A certificate validity period that ends before it starts.
    #[error("certificate validity ends at {not_after}, which is not after its start {not_before}")]
    InvalidValidity {
        not_before: time::OffsetDateTime,
        not_after: time::OffsetDateTime,
    },

    /// rcgen failed to generate a key or certificate for `name` (`role/name` or the CA).
    #[error("generating the certificate of {name}: {source}")]
    CertificateGeneration {
        name: String,
        #[source]
        source: rcgen::Error,
    },

    /// A PKI file exists and `force` was not given.
    #[error("{} already exists; pass --force to replace it", path.display())]
    AlreadyExists { path: PathBuf },

    /// `pki issue` found no CA in the PKI directory.
    #[error("no cluster CA at {}; create one with `yarn-ha pki init`", path.display())]
    MissingCa { path: PathBuf },

    /// A PKCS#12 bundle was asked for with an empty password.
    #[error(
        "the PKCS#12 bundle {} needs a password that is not empty: it holds a private key",
        path.display()
    )]
    EmptyPkcs12Password { path: PathBuf },

    /// A PKCS#12 bundle could not be encoded.
    #[error("encoding the PKCS#12 bundle {}: {source}", path.display())]
    Pkcs12 {
        path: PathBuf,
        #[source]
        source: p12_keystore::error::Error,
    },

    /// A file that should hold PEM certificates or a PEM key does not.
    #[error("{}: not a usable PEM file: {reason}", path.display())]
    Pem { path: PathBuf, reason: String },

    /// A private key file is accessible to group or others.
    #[error(
        "private key {} has mode {mode:03o}; it must not be accessible to group or others \
         (chmod 600 it)",
        path.display()
    )]
    KeyPermissions { path: PathBuf, mode: u32 },

    /// Bytes presented as a certificate are not X.509 DER.
    #[error("not an X.509 certificate: {reason}")]
    CertificateParse { reason: String },

    /// A certificate subject lacks the single CN or OU that carries a yarn-ha identity.
    #[error("certificate subject \"{subject}\" has no single {field}")]
    MissingIdentity {
        subject: String,
        field: &'static str,
    },

    /// A role name that is not one of resourcemanager, nodemanager or user.
    #[error("unknown role {value:?}: expected resourcemanager, nodemanager or user")]
    UnknownRole { value: String },

    /// rustls refused part of a configuration.
    #[error("{context}: {source}")]
    Rustls {
        context: &'static str,
        #[source]
        source: rustls::Error,
    },

    /// The client-certificate verifier could not be built (e.g. no CA certificate).
    #[error("building the client certificate verifier: {source}")]
    ClientVerifier {
        #[source]
        source: rustls::server::VerifierBuilderError,
    },

    /// A `yarn.tls.*` path is unset while TLS is enabled.
    #[error("{key} is not set; it is required while yarn.tls.enabled is true")]
    TlsSettingMissing { key: String },

    /// The file named by a `yarn.tls.*` key is unusable; `source` says why.
    #[error("{key}: {source}")]
    TlsSetting {
        key: String,
        #[source]
        source: Box<Error>,
    },

    /// A peer address that is not `host:port` (optionally with a scheme).
    #[error("invalid peer address {address:?}: {reason}")]
    InvalidAddress {
        address: String,
        reason: &'static str,
    },

    /// The TCP connection to a peer failed.
    #[error("dialing {address}: {source}")]
    Dial {
        address: String,
        #[source]
        source: std::io::Error,
    },

    /// The client TLS handshake with a peer failed: its certificate did not verify, it refused
    /// ours (see [`CertificateRefusal`](crate::CertificateRefusal)), or the connection broke.
    #[error("TLS handshake with {address}: {source}")]
    TlsHandshake {
        address: String,
        #[source]
        source: std::io::Error,
    },

    /// A gRPC channel to a peer could not be set up; the message includes tonic's causes.
    #[error("connecting to {address}: {}", source_chain(source))]
    Connect {
        address: String,
        #[source]
        source: tonic::transport::Error,
    },

    /// The open-files limit (`RLIMIT_NOFILE`) could not be read or raised.
    #[error("{action} the open-files limit (RLIMIT_NOFILE): {source}")]
    OpenFilesLimit {
        action: &'static str,
        #[source]
        source: std::io::Error,
    },

    /// The configuration could not be read as the TLS setting needs.
    #[error(transparent)]
    Conf(#[from] yarn_conf::ConfError),
    // Variants are added by the modules that need them; keep them structured (no catch-all
    // string variant).
}

/// `err` and its causes joined with ": ", for errors (like tonic's) whose own message is terse.
fn source_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}
