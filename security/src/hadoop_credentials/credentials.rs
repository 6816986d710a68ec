//! [`Credentials`]: the tokens and secret keys of a Hadoop credentials file, and its two
//! serialized forms.

use std::fmt;

use prost::Message;
use yarn_proto::pb;

use super::credentials_proto::{CredentialsKvProto, CredentialsProto, TokenProto};
use super::writable::{self, Reader};
use super::{CredentialsField, CredentialsProblem, DecodeLimits};
use crate::{Error, Token};

/// The four bytes every credentials file starts with.
pub const MAGIC: &[u8; 4] = b"HDTS";

/// The two forms of a credentials file, by the version byte after the magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SerializedFormat {
    /// Version 0: Hadoop's `Writable` form, which Hadoop 3.x writes by default "for
    /// compatibility" and every Hadoop version reads.
    Writable,
    /// Version 1: a varint-delimited protobuf `CredentialsProto`, which Hadoop 3.x reads and
    /// writes only when asked to.
    Protobuf,
}

impl SerializedFormat {
    /// The version byte of this form.
    pub const fn version(self) -> u8 {
        match self {
            Self::Writable => 0,
            Self::Protobuf => 1,
        }
    }
}

/// A token as a credentials file holds it: any kind, not only those yarn-ha issues (a client
/// may pass HDFS delegation tokens, for example), so the kind stays a string.
///
/// `Debug` prints the password's length only.
#[derive(Clone, PartialEq, Eq)]
pub struct CredentialsToken {
    /// The name the token is filed under, unique among the file's tokens. Hadoop's RM files an
    /// AMRMToken under its service; clients usually use the service too.
    pub alias: String,
    /// The token identifier's bytes.
    pub identifier: Vec<u8>,
    /// The password: the secret that proves possession.
    pub password: Vec<u8>,
    /// The kind name, such as `YARN_AM_RM_TOKEN` or `HDFS_DELEGATION_TOKEN`.
    pub kind: String,
    /// The service the token is for (`host:port`), possibly empty.
    pub service: String,
}

impl CredentialsToken {
    /// `token` filed under `alias`.
    pub fn from_token(alias: impl Into<String>, token: Token) -> Self {
        Self {
            alias: alias.into(),
            identifier: token.identifier,
            password: token.password,
            kind: token.kind.name().to_owned(),
            service: token.service,
        }
    }
}

impl CredentialsToken {
    /// `token`, of any kind, filed under `alias`: how a launch context's credentials take a
    /// token yarn-ha carries as a `TokenProto`, such as an AMRMToken.
    pub fn from_proto(alias: impl Into<String>, token: pb::TokenProto) -> Self {
        Self {
            alias: alias.into(),
            identifier: token.identifier,
            password: token.password,
            kind: token.kind,
            service: token.service,
        }
    }
}

impl From<CredentialsToken> for pb::TokenProto {
    /// The token without its alias, whatever its kind.
    fn from(token: CredentialsToken) -> Self {
        pb::TokenProto {
            identifier: token.identifier,
            password: token.password,
            kind: token.kind,
            service: token.service,
        }
    }
}

impl TryFrom<CredentialsToken> for Token {
    type Error = Error;

    /// The token as yarn-ha's [`Token`], which holds only the kinds yarn-ha issues.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownTokenKind`] for any other kind.
    fn try_from(token: CredentialsToken) -> Result<Self, Self::Error> {
        Ok(Token {
            kind: token.kind.parse()?,
            identifier: token.identifier,
            password: token.password,
            service: token.service,
        })
    }
}

impl fmt::Debug for CredentialsToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CredentialsToken")
            .field("alias", &self.alias)
            .field("kind", &self.kind)
            .field("service", &self.service)
            .field("identifier", &self.identifier)
            .field(
                "password",
                &format_args!("<{} bytes redacted>", self.password.len()),
            )
            .finish()
    }
}

/// A secret key: bytes under an alias, such as the secret Spark shares between its driver and
/// executors. `Debug` prints the key's length only.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretKey {
    /// The name the key is filed under, unique among the file's secret keys.
    pub alias: String,
    /// The secret.
    pub key: Vec<u8>,
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey")
            .field("alias", &self.alias)
            .field("key", &format_args!("<{} bytes redacted>", self.key.len()))
            .finish()
    }
}

/// The contents of a Hadoop credentials file (`HADOOP_TOKEN_FILE_LOCATION`), as Hadoop's
/// `org.apache.hadoop.security.Credentials` holds them: tokens and secret keys, each unique by
/// alias within its kind (a token and a secret key may share an alias).
///
/// [`encode`](Self::encode) writes the form Hadoop 3.x writes by default (version 0,
/// `Writable`); [`decode`](Self::decode) reads both versions 0 and 1. Entries keep the order
/// they were added or read in; adding an entry under an alias already present replaces it in
/// place, as a later entry replaces an earlier one when a file is read (Hadoop's map `put`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    tokens: Vec<CredentialsToken>,
    secret_keys: Vec<SecretKey>,
}

impl Credentials {
    /// Credentials with no token and no secret key; they encode as `HDTS\0\0\0`, what Spark
    /// sends as an AM's tokens.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether there is neither a token nor a secret key.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty() && self.secret_keys.is_empty()
    }

    /// The tokens, in order.
    pub fn tokens(&self) -> &[CredentialsToken] {
        &self.tokens
    }

    /// The secret keys, in order.
    pub fn secret_keys(&self) -> &[SecretKey] {
        &self.secret_keys
    }

    /// The token filed under `alias`.
    pub fn token(&self, alias: &str) -> Option<&CredentialsToken> {
        self.tokens.iter().find(|token| token.alias == alias)
    }

    /// The tokens of kind `kind`, in order.
    pub fn tokens_of_kind<'a>(
        &'a self,
        kind: &'a str,
    ) -> impl Iterator<Item = &'a CredentialsToken> + 'a {
        self.tokens.iter().filter(move |token| token.kind == kind)
    }

    /// The secret key filed under `alias`.
    pub fn secret_key(&self, alias: &str) -> Option<&[u8]> {
        self.secret_keys
            .iter()
            .find(|key| key.alias == alias)
            .map(|key| key.key.as_slice())
    }

    /// Adds `token`, replacing (in place) and returning the token filed under the same alias.
    pub fn add_token(&mut self, token: CredentialsToken) -> Option<CredentialsToken> {
        match self
            .tokens
            .iter_mut()
            .find(|held| held.alias == token.alias)
        {
            Some(held) => Some(std::mem::replace(held, token)),
            None => {
                self.tokens.push(token);
                None
            }
        }
    }

    /// Removes and returns the token filed under `alias`.
    pub fn remove_token(&mut self, alias: &str) -> Option<CredentialsToken> {
        let position = self.tokens.iter().position(|token| token.alias == alias)?;
        Some(self.tokens.remove(position))
    }

    /// Adds the secret `key` under `alias`, replacing (in place) and returning the key filed
    /// under the same alias.
    pub fn add_secret_key(&mut self, alias: impl Into<String>, key: Vec<u8>) -> Option<Vec<u8>> {
        let alias = alias.into();
        match self.secret_keys.iter_mut().find(|held| held.alias == alias) {
            Some(held) => Some(std::mem::replace(&mut held.key, key)),
            None => {
                self.secret_keys.push(SecretKey { alias, key });
                None
            }
        }
    }

    /// The credentials file in the form Hadoop 3.x writes by default: `HDTS`, version 0, then
    /// the `Writable` form (see [`encode_as`](Self::encode_as)).
    pub fn encode(&self) -> Vec<u8> {
        self.encode_as(SerializedFormat::Writable)
    }

    /// The credentials file in `format`.
    ///
    /// Version 0 (`Writable`), after `HDTS` and the version byte:
    ///
    /// ```text
    /// VInt token count
    ///   per token:  Text alias, VInt length + identifier, VInt length + password,
    ///               Text kind, Text service
    /// VInt secret key count
    ///   per key:    Text alias, VInt length + key bytes
    /// ```
    ///
    /// where a `Text` is a VInt byte length and UTF-8 (see the `writable` module). Version 1
    /// is a varint-delimited protobuf `CredentialsProto`.
    ///
    /// Both formats limit a field to `i32::MAX` bytes; a longer one is written with a length
    /// that Hadoop's reader, like [`decode`](Self::decode), refuses.
    pub fn encode_as(&self, format: SerializedFormat) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(MAGIC);
        out.push(format.version());
        match format {
            SerializedFormat::Writable => self.write_fields(&mut out),
            SerializedFormat::Protobuf => {
                // Writing to a Vec cannot run out of room.
                let _ = self.to_proto().encode_length_delimited(&mut out);
            }
        }
        out
    }

    /// Reads a credentials file of either version with the [`DecodeLimits::default`] limits.
    ///
    /// Bytes after the credentials are ignored, as Hadoop's reader ignores them.
    ///
    /// # Errors
    ///
    /// [`Error::MalformedCredentials`] with the offset of the offending bytes and the
    /// [`CredentialsProblem`]: a bad magic, an unknown version, a truncated field, a length or
    /// count over a limit or negative, a VInt beyond 32 bits, text that is not UTF-8, or (in
    /// version 1) a message that does not decode or lacks a required field. For version 1,
    /// problems inside the message are reported at the offset where the message starts.
    pub fn decode(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_with_limits(bytes, &DecodeLimits::default())
    }

    /// As [`decode`](Self::decode), with the given limits.
    ///
    /// # Errors
    ///
    /// As [`decode`](Self::decode).
    pub fn decode_with_limits(bytes: &[u8], limits: &DecodeLimits) -> Result<Self, Error> {
        let mut reader = Reader::new(bytes, 0);
        if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) {
            // An empty or cut-short file, rather than another kind of file.
            reader.take(CredentialsField::Magic, MAGIC.len())?;
        }
        let magic = &bytes[..bytes.len().min(MAGIC.len())];
        if magic != MAGIC {
            return Err(Error::MalformedCredentials {
                offset: 0,
                problem: CredentialsProblem::BadMagic {
                    found: magic.to_vec(),
                },
            });
        }
        reader.take(CredentialsField::Magic, MAGIC.len())?;
        let version = reader.take(CredentialsField::Version, 1)?[0];
        match version {
            0 => Self::read_fields(&mut reader, limits),
            1 => Self::read_proto(&mut reader, limits),
            _ => Err(Error::MalformedCredentials {
                offset: MAGIC.len(),
                problem: CredentialsProblem::UnknownVersion { version },
            }),
        }
    }

    /// Hadoop's `Credentials.write`.
    fn write_fields(&self, out: &mut Vec<u8>) {
        writable::write_length(out, self.tokens.len());
        for token in &self.tokens {
            writable::write_text(out, &token.alias);
            writable::write_bytes(out, &token.identifier);
            writable::write_bytes(out, &token.password);
            writable::write_text(out, &token.kind);
            writable::write_text(out, &token.service);
        }
        writable::write_length(out, self.secret_keys.len());
        for key in &self.secret_keys {
            writable::write_text(out, &key.alias);
            writable::write_bytes(out, &key.key);
        }
    }

    /// Hadoop's `Credentials.readFields`.
    fn read_fields(reader: &mut Reader<'_>, limits: &DecodeLimits) -> Result<Self, Error> {
        let mut credentials = Self::new();
        let count = reader.length(CredentialsField::TokenCount, limits.max_entries)?;
        for index in 0..count {
            let alias = reader.text(
                CredentialsField::TokenAlias { index },
                limits.max_text_bytes,
            )?;
            let identifier = reader.bytes(
                CredentialsField::TokenIdentifier { index },
                limits.max_field_bytes,
            )?;
            let password = reader.bytes(
                CredentialsField::TokenPassword { index },
                limits.max_field_bytes,
            )?;
            let kind = reader.text(CredentialsField::TokenKind { index }, limits.max_text_bytes)?;
            let service = reader.text(
                CredentialsField::TokenService { index },
                limits.max_text_bytes,
            )?;
            credentials.add_token(CredentialsToken {
                alias,
                identifier,
                password,
                kind,
                service,
            });
        }
        let count = reader.length(CredentialsField::SecretKeyCount, limits.max_entries)?;
        for index in 0..count {
            let alias = reader.text(
                CredentialsField::SecretKeyAlias { index },
                limits.max_text_bytes,
            )?;
            let key = reader.bytes(
                CredentialsField::SecretKeyBytes { index },
                limits.max_field_bytes,
            )?;
            credentials.add_secret_key(alias, key);
        }
        Ok(credentials)
    }

    fn to_proto(&self) -> CredentialsProto {
        CredentialsProto {
            tokens: self
                .tokens
                .iter()
                .map(|token| CredentialsKvProto {
                    alias: Some(token.alias.clone().into_bytes()),
                    token: Some(TokenProto {
                        identifier: Some(token.identifier.clone()),
                        password: Some(token.password.clone()),
                        kind: Some(token.kind.clone().into_bytes()),
                        service: Some(token.service.clone().into_bytes()),
                    }),
                    secret: None,
                })
                .collect(),
            secrets: self
                .secret_keys
                .iter()
                .map(|key| CredentialsKvProto {
                    alias: Some(key.alias.clone().into_bytes()),
                    token: None,
                    secret: Some(key.key.clone()),
                })
                .collect(),
        }
    }

    /// Hadoop's `Credentials.readProto`: `CredentialsProto.parseDelimitedFrom`.
    fn read_proto(reader: &mut Reader<'_>, limits: &DecodeLimits) -> Result<Self, Error> {
        let length_at = reader.offset();
        let length = read_varint(reader)?;
        let limit = limits.max_message_bytes;
        let length = usize::try_from(length)
            .ok()
            .filter(|length| *length <= limit)
            .ok_or_else(|| Error::MalformedCredentials {
                offset: length_at,
                problem: CredentialsProblem::OverLimit {
                    field: CredentialsField::ProtobufLength,
                    length: usize::try_from(length).unwrap_or(usize::MAX),
                    limit,
                },
            })?;
        let at = reader.offset();
        let message = reader.take(CredentialsField::ProtobufMessage, length)?;
        let malformed = |problem| Error::MalformedCredentials {
            offset: at,
            problem,
        };
        let proto = CredentialsProto::decode(message)
            .map_err(|source| malformed(CredentialsProblem::Protobuf { source }))?;
        for (count, field) in [
            (proto.tokens.len(), CredentialsField::TokenCount),
            (proto.secrets.len(), CredentialsField::SecretKeyCount),
        ] {
            if count > limits.max_entries {
                return Err(malformed(CredentialsProblem::OverLimit {
                    field,
                    length: count,
                    limit: limits.max_entries,
                }));
            }
        }
        let required = |value: Option<Vec<u8>>, field, name| {
            value.ok_or_else(|| malformed(CredentialsProblem::MissingRequiredField { field, name }))
        };
        let text = |value: Option<Vec<u8>>, field, name| -> Result<String, Error> {
            writable::utf8(&required(value, field, name)?, field, at)
        };
        let mut credentials = Self::new();
        for (index, entry) in proto.tokens.into_iter().enumerate() {
            let alias = text(
                entry.alias,
                CredentialsField::TokenAlias { index },
                "CredentialsKVProto.alias",
            )?;
            // Hadoop reads a missing token as an empty one (`getToken()` of the default
            // instance); the required fields are checked only in a token that is there.
            let Some(token) = entry.token else {
                credentials.add_token(CredentialsToken {
                    alias,
                    identifier: Vec::new(),
                    password: Vec::new(),
                    kind: String::new(),
                    service: String::new(),
                });
                continue;
            };
            let entry = CredentialsToken {
                identifier: required(
                    token.identifier,
                    CredentialsField::TokenIdentifier { index },
                    "TokenProto.identifier",
                )?,
                password: required(
                    token.password,
                    CredentialsField::TokenPassword { index },
                    "TokenProto.password",
                )?,
                kind: text(
                    token.kind,
                    CredentialsField::TokenKind { index },
                    "TokenProto.kind",
                )?,
                service: text(
                    token.service,
                    CredentialsField::TokenService { index },
                    "TokenProto.service",
                )?,
                alias,
            };
            credentials.add_token(entry);
        }
        for (index, entry) in proto.secrets.into_iter().enumerate() {
            let alias = text(
                entry.alias,
                CredentialsField::SecretKeyAlias { index },
                "CredentialsKVProto.alias",
            )?;
            // Hadoop reads a missing secret as empty bytes.
            credentials.add_secret_key(alias, entry.secret.unwrap_or_default());
        }
        Ok(credentials)
    }
}

/// Reads the protobuf varint that delimits a version 1 message (at most ten bytes).
fn read_varint(reader: &mut Reader<'_>) -> Result<u64, Error> {
    let start = reader.offset();
    let rest = reader.rest();
    let mut value = 0_u64;
    for (position, byte) in rest.iter().take(10).enumerate() {
        value |= u64::from(byte & 0x7F) << (7 * position);
        if byte & 0x80 == 0 {
            reader.take(CredentialsField::ProtobufLength, position + 1)?;
            return Ok(value);
        }
    }
    let problem = if rest.len() < 10 {
        CredentialsProblem::Truncated {
            field: CredentialsField::ProtobufLength,
            needed: rest.len() + 1,
            available: rest.len(),
        }
    } else {
        CredentialsProblem::VarintTooLong {
            field: CredentialsField::ProtobufLength,
        }
    };
    Err(Error::MalformedCredentials {
        offset: start,
        problem,
    })
}
