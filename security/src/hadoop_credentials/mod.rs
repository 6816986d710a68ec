//! Hadoop credentials files: what `HADOOP_TOKEN_FILE_LOCATION` names in a container, and what
//! a Hadoop client puts in a launch context's `tokens`.
//!
//! ```text
//! "HDTS"  version  payload
//!  4 B     1 B     0: Writable (VInt counts and lengths, Text)   <- Hadoop 3.x writes this
//!                  1: varint-delimited protobuf CredentialsProto <- Hadoop reads it too
//! ```
//!
//! [`Credentials`] holds tokens ([`CredentialsToken`]: alias, identifier, password, kind,
//! service) and secret keys ([`SecretKey`]: alias, bytes). [`Credentials::encode`] writes
//! version 0, as Hadoop 3.5.0's `writeTokenStorageToStream` does by default;
//! [`Credentials::decode`] reads both versions and refuses anything else with
//! [`Error::MalformedCredentials`](crate::Error::MalformedCredentials), which names the
//! [`CredentialsProblem`], the [`CredentialsField`] and the byte offset. Everything here is
//! pure: bytes in, bytes out.

mod credentials;
mod credentials_problem;
mod credentials_proto;
mod writable;

pub use credentials::{Credentials, CredentialsToken, MAGIC, SecretKey, SerializedFormat};
pub use credentials_problem::{CredentialsField, CredentialsProblem};

/// How much a credentials file may claim before [`Credentials::decode_with_limits`] refuses it,
/// so that a damaged length is reported as such rather than trusted.
///
/// The bytes are in memory already, so a length beyond them is reported as truncation anyway;
/// the limits catch lengths that fit a large buffer but no credentials file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeLimits {
    /// The most tokens, and the most secret keys, a file may hold.
    pub max_entries: usize,
    /// The longest identifier, password or secret key, in bytes.
    pub max_field_bytes: usize,
    /// The longest alias, kind or service, in bytes.
    pub max_text_bytes: usize,
    /// The longest version 1 `CredentialsProto`, in bytes.
    pub max_message_bytes: usize,
}

impl Default for DecodeLimits {
    /// 65,536 entries of each kind, 16 MiB per identifier, password or key (a keystore that an
    /// RM files as a secret key is a few KiB), 1 MiB per text, 64 MiB per message.
    fn default() -> Self {
        Self {
            max_entries: 1 << 16,
            max_field_bytes: 16 << 20,
            max_text_bytes: 1 << 20,
            max_message_bytes: 64 << 20,
        }
    }
}

#[cfg(test)]
mod credentials_test;
