//! The protobuf messages of a version 1 credentials file, written here with prost's derive
//! rather than generated, from the facts of Hadoop's `Security.proto` (proto2, package
//! `hadoop.common`):
//!
//! ```text
//! message TokenProto {
//!   required bytes identifier = 1;
//!   required bytes password = 2;
//!   required string kind = 3;
//!   required string service = 4;
//! }
//! message CredentialsKVProto {
//!   required string alias = 1;
//!   optional TokenProto token = 2;
//!   optional bytes secret = 3;
//! }
//! message CredentialsProto {
//!   repeated CredentialsKVProto tokens = 1;
//!   repeated CredentialsKVProto secrets = 2;
//! }
//! ```
//!
//! Every field is an `Option` so that a reader can tell a missing `required` field (which
//! Hadoop's parser refuses) from an empty one, and a writer sets each one Hadoop sets, so the
//! bytes are those Hadoop's `writeProto` produces for the same credentials (fields in tag order).
//! The `string` fields are declared `bytes`, which has the same wire form, so that text that is
//! not UTF-8 is reported with the field it is in rather than as a bare decode error.

/// Hadoop's `hadoop.common.TokenProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct TokenProto {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub(super) identifier: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub(super) password: Option<Vec<u8>>,
    /// A `string` in `Security.proto`.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub(super) kind: Option<Vec<u8>>,
    /// A `string` in `Security.proto`.
    #[prost(bytes = "vec", optional, tag = "4")]
    pub(super) service: Option<Vec<u8>>,
}

/// Hadoop's `hadoop.common.CredentialsKVProto`: a token or a secret key under its alias.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct CredentialsKvProto {
    /// A `string` in `Security.proto`.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub(super) alias: Option<Vec<u8>>,
    #[prost(message, optional, tag = "2")]
    pub(super) token: Option<TokenProto>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub(super) secret: Option<Vec<u8>>,
}

/// Hadoop's `hadoop.common.CredentialsProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct CredentialsProto {
    #[prost(message, repeated, tag = "1")]
    pub(super) tokens: Vec<CredentialsKvProto>,
    #[prost(message, repeated, tag = "2")]
    pub(super) secrets: Vec<CredentialsKvProto>,
}
