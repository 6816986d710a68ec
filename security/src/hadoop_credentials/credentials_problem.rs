//! What is wrong with bytes that are not a readable Hadoop credentials file, and in which field.

use std::fmt;

/// Why bytes are not a readable Hadoop credentials file; carried by
/// [`Error::MalformedCredentials`](crate::Error::MalformedCredentials) with the offset of the
/// offending bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialsProblem {
    /// The file does not start with `HDTS`.
    #[error("it starts with {found:02X?}, not the magic \"HDTS\" (48 44 54 53)")]
    BadMagic {
        /// The first bytes (at most four).
        found: Vec<u8>,
    },

    /// The version byte after the magic is neither 0 (Writable) nor 1 (protobuf).
    #[error(
        "unknown version {version}: Hadoop writes 0 (Writable, its default) and 1 (protobuf \
         CredentialsProto)"
    )]
    UnknownVersion {
        /// The version byte.
        version: u8,
    },

    /// The file ends inside a field.
    #[error("the file ends inside {field}: {needed} bytes needed, {available} left")]
    Truncated {
        /// What was being read.
        field: CredentialsField,
        /// How many bytes the field needs from the offset on.
        needed: usize,
        /// How many bytes are left from the offset on.
        available: usize,
    },

    /// A length or count is larger than the reader accepts (see
    /// [`DecodeLimits`](super::DecodeLimits)).
    #[error("{field} has length {length}, more than the limit of {limit}")]
    OverLimit {
        /// The field whose length or count it is.
        field: CredentialsField,
        /// The length or count the file gives.
        length: usize,
        /// The largest the reader accepts.
        limit: usize,
    },

    /// A length or count is negative.
    #[error("{field} has negative length {length}")]
    NegativeLength {
        /// The field whose length or count it is.
        field: CredentialsField,
        /// The value the file gives.
        length: i32,
    },

    /// A VInt does not fit in an `i32` (Hadoop: "value too long to fit in integer").
    #[error("{field} is {value}, which does not fit in a 32-bit VInt")]
    VIntOutOfRange {
        /// What was being read.
        field: CredentialsField,
        /// The VLong the bytes hold.
        value: i64,
    },

    /// A protobuf varint runs past ten bytes without ending.
    #[error("{field} is a varint longer than ten bytes")]
    VarintTooLong {
        /// What was being read.
        field: CredentialsField,
    },

    /// A text field (alias, kind, service) is not UTF-8.
    #[error("{field} is not UTF-8 (valid up to byte {valid_up_to} of the text)")]
    InvalidUtf8 {
        /// The text field.
        field: CredentialsField,
        /// How many leading bytes of the text are valid UTF-8.
        valid_up_to: usize,
    },

    /// A version 1 file's `CredentialsProto` does not decode.
    #[error("the CredentialsProto does not decode: {source}")]
    Protobuf {
        /// prost's reason.
        #[source]
        source: prost::DecodeError,
    },

    /// A version 1 file's message lacks a field Hadoop's `Security.proto` marks `required`.
    #[error("{field} lacks its required field {name}")]
    MissingRequiredField {
        /// The entry lacking it.
        field: CredentialsField,
        /// The missing field, as `Message.field`.
        name: &'static str,
    },
}

/// A field of a credentials file, for error messages. Indexes count from 0 in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CredentialsField {
    /// The magic `HDTS`.
    Magic,
    /// The version byte.
    Version,
    /// The number of tokens (version 0).
    TokenCount,
    /// A token's alias.
    TokenAlias {
        /// Which token.
        index: usize,
    },
    /// A token's identifier bytes.
    TokenIdentifier {
        /// Which token.
        index: usize,
    },
    /// A token's password bytes.
    TokenPassword {
        /// Which token.
        index: usize,
    },
    /// A token's kind.
    TokenKind {
        /// Which token.
        index: usize,
    },
    /// A token's service.
    TokenService {
        /// Which token.
        index: usize,
    },
    /// The number of secret keys (version 0).
    SecretKeyCount,
    /// A secret key's alias.
    SecretKeyAlias {
        /// Which secret key.
        index: usize,
    },
    /// A secret key's bytes.
    SecretKeyBytes {
        /// Which secret key.
        index: usize,
    },
    /// The length prefix of a version 1 file's `CredentialsProto` (a protobuf varint).
    ProtobufLength,
    /// A version 1 file's `CredentialsProto`.
    ProtobufMessage,
}

impl fmt::Display for CredentialsField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Magic => f.write_str("the magic"),
            Self::Version => f.write_str("the version byte"),
            Self::TokenCount => f.write_str("the token count"),
            Self::TokenAlias { index } => write!(f, "the alias of token {index}"),
            Self::TokenIdentifier { index } => write!(f, "the identifier of token {index}"),
            Self::TokenPassword { index } => write!(f, "the password of token {index}"),
            Self::TokenKind { index } => write!(f, "the kind of token {index}"),
            Self::TokenService { index } => write!(f, "the service of token {index}"),
            Self::SecretKeyCount => f.write_str("the secret key count"),
            Self::SecretKeyAlias { index } => write!(f, "the alias of secret key {index}"),
            Self::SecretKeyBytes { index } => write!(f, "the bytes of secret key {index}"),
            Self::ProtobufLength => f.write_str("the length of the CredentialsProto"),
            Self::ProtobufMessage => f.write_str("the CredentialsProto"),
        }
    }
}
