//! Tests of [`Credentials`] against byte sequences derived by hand from Hadoop's formats, of
//! every refusal, and round trips of any credentials through both formats.

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;

use super::*;
use crate::{Error, Token, TokenKind};

/// The offset and problem of an [`Error::MalformedCredentials`].
fn malformed(result: Result<Credentials, Error>) -> (usize, CredentialsProblem) {
    match result {
        Err(Error::MalformedCredentials { offset, problem }) => (offset, problem),
        other => panic!("not a malformed-credentials error: {other:?}"),
    }
}

fn token(
    alias: &str,
    identifier: &[u8],
    password: &[u8],
    kind: &str,
    service: &str,
) -> CredentialsToken {
    CredentialsToken {
        alias: alias.to_owned(),
        identifier: identifier.to_vec(),
        password: password.to_vec(),
        kind: kind.to_owned(),
        service: service.to_owned(),
    }
}

/// One token (alias "a", identifier 01 02, password 03, kind "K", service "s") and one secret
/// key ("k" = 09).
fn sample() -> Credentials {
    let mut credentials = Credentials::new();
    credentials.add_token(token("a", &[1, 2], &[3], "K", "s"));
    credentials.add_secret_key("k", vec![9]);
    credentials
}

/// [`sample`] in version 0: every count and length below 128 is a one-byte VInt.
const SAMPLE_WRITABLE: &[u8] = &[
    b'H', b'D', b'T', b'S', 0x00, // magic, version 0
    0x01, // one token
    0x01, b'a', // Text alias
    0x02, 0x01, 0x02, // identifier
    0x01, 0x03, // password
    0x01, b'K', // Text kind
    0x01, b's', // Text service
    0x01, // one secret key
    0x01, b'k', // Text alias
    0x01, 0x09, // key bytes
];

/// [`sample`] in version 1: a varint length (28), then the CredentialsProto.
const SAMPLE_PROTOBUF: &[u8] = &[
    b'H', b'D', b'T', b'S', 0x01, // magic, version 1
    0x1C, // 28 bytes of message
    0x0A, 0x12, // tokens (field 1), a CredentialsKVProto of 18 bytes
    0x0A, 0x01, b'a', // alias (field 1)
    0x12, 0x0D, // token (field 2), a TokenProto of 13 bytes
    0x0A, 0x02, 0x01, 0x02, // identifier
    0x12, 0x01, 0x03, // password
    0x1A, 0x01, b'K', // kind
    0x22, 0x01, b's', // service
    0x12, 0x06, // secrets (field 2), a CredentialsKVProto of 6 bytes
    0x0A, 0x01, b'k', // alias
    0x1A, 0x01, 0x09, // secret (field 3)
];

#[test]
fn empty_credentials_are_what_spark_sends() {
    assert_eq!(Credentials::new().encode(), b"HDTS\0\0\0");
    let empty = Credentials::decode(b"HDTS\0\0\0").unwrap();
    assert!(empty.is_empty());
    assert_eq!(
        Credentials::new().encode_as(SerializedFormat::Protobuf),
        b"HDTS\x01\x00"
    );
    assert!(Credentials::decode(b"HDTS\x01\x00").unwrap().is_empty());
}

#[test]
fn the_writable_form_is_hadoops_byte_for_byte() {
    assert_eq!(sample().encode(), SAMPLE_WRITABLE);
    assert_eq!(Credentials::decode(SAMPLE_WRITABLE).unwrap(), sample());
}

#[test]
fn the_protobuf_form_is_hadoops_byte_for_byte() {
    assert_eq!(
        sample().encode_as(SerializedFormat::Protobuf),
        SAMPLE_PROTOBUF
    );
    assert_eq!(Credentials::decode(SAMPLE_PROTOBUF).unwrap(), sample());
}

#[test]
fn a_length_of_128_or_more_is_a_two_byte_vint() {
    let mut credentials = Credentials::new();
    credentials.add_token(token("", &[7; 200], &[], "", ""));
    let bytes = credentials.encode();
    // count 1, empty alias, then 200 as marker -113 (8F) and C8.
    assert_eq!(bytes[5..9], [0x01, 0x00, 0x8F, 0xC8]);
    assert_eq!(bytes.len(), 5 + 1 + 1 + 2 + 200 + 1 + 1 + 1 + 1);
    assert_eq!(Credentials::decode(&bytes).unwrap(), credentials);
}

#[test]
fn trailing_bytes_are_ignored_as_hadoop_ignores_them() {
    let mut bytes = SAMPLE_WRITABLE.to_vec();
    bytes.extend_from_slice(b"junk");
    assert_eq!(Credentials::decode(&bytes).unwrap(), sample());
}

#[test]
fn a_later_entry_under_the_same_alias_replaces_the_earlier_in_place() {
    let bytes = [
        b'H', b'D', b'T', b'S', 0x00, 0x02, // two tokens
        0x01, b'a', 0x01, 0x01, 0x00, 0x01, b'K', 0x00, // "a": identifier 01
        0x01, b'a', 0x01, 0x02, 0x00, 0x01, b'K', 0x00, // "a" again: identifier 02
        0x02, // two secret keys
        0x01, b'k', 0x01, 0x01, 0x01, b'k', 0x01, 0x02,
    ];
    let credentials = Credentials::decode(&bytes).unwrap();
    assert_eq!(credentials.tokens(), [token("a", &[2], &[], "K", "")]);
    assert_eq!(credentials.secret_key("k"), Some(&[2][..]));
    assert_eq!(credentials.secret_keys().len(), 1);

    let mut credentials = sample();
    credentials.add_token(token("b", &[], &[], "B", ""));
    let replaced = credentials.add_token(token("a", &[5], &[], "K2", ""));
    assert_eq!(replaced, Some(token("a", &[1, 2], &[3], "K", "s")));
    let aliases: Vec<&str> = credentials
        .tokens()
        .iter()
        .map(|t| t.alias.as_str())
        .collect();
    assert_eq!(aliases, ["a", "b"]);
    assert_eq!(credentials.add_secret_key("k", vec![1]), Some(vec![9]));
}

#[test]
fn tokens_are_found_by_alias_and_kind_and_removed() {
    let mut credentials = sample();
    credentials.add_token(token("b", &[], &[], "K", "t"));
    credentials.add_token(token("c", &[], &[], "OTHER", ""));
    assert_eq!(credentials.token("b").unwrap().service, "t");
    assert!(credentials.token("z").is_none());
    let of_kind: Vec<&str> = credentials
        .tokens_of_kind("K")
        .map(|t| t.alias.as_str())
        .collect();
    assert_eq!(of_kind, ["a", "b"]);
    assert_eq!(credentials.remove_token("a").unwrap().identifier, [1, 2]);
    assert!(credentials.remove_token("a").is_none());
    assert_eq!(credentials.tokens().len(), 2);
}

#[test]
fn yarn_tokens_convert_both_ways() {
    let amrm = Token {
        identifier: vec![8, 1],
        password: vec![7; 32],
        kind: TokenKind::AmRm,
        service: "rm1:8030".to_owned(),
    };
    let entry = CredentialsToken::from_token("rm1:8030", amrm.clone());
    assert_eq!(entry.kind, "YARN_AM_RM_TOKEN");
    assert_eq!(entry.alias, "rm1:8030");
    assert_eq!(Token::try_from(entry).unwrap(), amrm);

    let hdfs = token("nn", &[], &[], "HDFS_DELEGATION_TOKEN", "");
    assert!(matches!(
        Token::try_from(hdfs),
        Err(Error::UnknownTokenKind { kind }) if kind == "HDFS_DELEGATION_TOKEN"
    ));
}

#[test]
fn token_protos_of_any_kind_convert_both_ways() {
    let proto = yarn_proto::pb::TokenProto {
        identifier: vec![1, 2],
        password: vec![3; 20],
        kind: "HDFS_DELEGATION_TOKEN".to_owned(),
        service: "nn:8020".to_owned(),
    };
    let entry = CredentialsToken::from_proto("hdfs", proto.clone());
    assert_eq!(entry.alias, "hdfs");
    assert_eq!(entry.kind, "HDFS_DELEGATION_TOKEN");
    assert_eq!(yarn_proto::pb::TokenProto::from(entry), proto);
}

#[test]
fn debug_hides_passwords_and_secret_keys() {
    let mut credentials = Credentials::new();
    credentials.add_token(token("a", &[1], &[0xAB; 20], "K", "s"));
    credentials.add_secret_key("k", vec![0xCD; 16]);
    let debug = format!("{credentials:?}");
    assert!(debug.contains("<20 bytes redacted>"), "{debug}");
    assert!(debug.contains("<16 bytes redacted>"), "{debug}");
    assert!(!debug.contains("171") && !debug.contains("205"), "{debug}");
}

// --- refusals ---

#[test]
fn a_bad_or_missing_magic_is_refused() {
    assert_eq!(
        malformed(Credentials::decode(b"HDTX\0\0\0")),
        (
            0,
            CredentialsProblem::BadMagic {
                found: b"HDTX".to_vec()
            }
        )
    );
    assert_eq!(
        malformed(Credentials::decode(b"{}")),
        (
            0,
            CredentialsProblem::BadMagic {
                found: b"{}".to_vec()
            }
        )
    );
    // A yarn-ha CredentialsProto is no credentials file.
    assert!(matches!(
        malformed(Credentials::decode(&[0x0A, 0x02, 0x0A, 0x00])).1,
        CredentialsProblem::BadMagic { .. }
    ));
    for short in [&b""[..], b"HD"] {
        assert_eq!(
            malformed(Credentials::decode(short)),
            (
                0,
                CredentialsProblem::Truncated {
                    field: CredentialsField::Magic,
                    needed: 4,
                    available: short.len(),
                }
            )
        );
    }
}

#[test]
fn an_unknown_or_missing_version_is_refused() {
    assert_eq!(
        malformed(Credentials::decode(b"HDTS\x02\0\0")),
        (4, CredentialsProblem::UnknownVersion { version: 2 })
    );
    assert_eq!(
        malformed(Credentials::decode(b"HDTS")),
        (
            4,
            CredentialsProblem::Truncated {
                field: CredentialsField::Version,
                needed: 1,
                available: 0,
            }
        )
    );
}

#[test]
fn truncation_names_the_field_and_where_it_starts() {
    // The identifier claims 5 bytes at offset 8; its bytes start at 9, where 2 are left.
    let bytes = b"HDTS\x00\x01\x01a\x05\x01\x02";
    assert_eq!(
        malformed(Credentials::decode(bytes)),
        (
            9,
            CredentialsProblem::Truncated {
                field: CredentialsField::TokenIdentifier { index: 0 },
                needed: 5,
                available: 2,
            }
        )
    );
    // Every prefix of a good file is refused, none read as something else.
    for end in 0..SAMPLE_WRITABLE.len() {
        let (_, problem) = malformed(Credentials::decode(&SAMPLE_WRITABLE[..end]));
        assert!(
            matches!(problem, CredentialsProblem::Truncated { .. }),
            "prefix of {end} bytes: {problem:?}"
        );
    }
    for end in 0..SAMPLE_PROTOBUF.len() {
        let (_, problem) = malformed(Credentials::decode(&SAMPLE_PROTOBUF[..end]));
        assert!(
            matches!(problem, CredentialsProblem::Truncated { .. }),
            "prefix of {end} bytes: {problem:?}"
        );
    }
}

#[test]
fn the_error_message_names_field_and_offset() {
    let err = Credentials::decode(b"HDTS\x00\x01\x01a\x05\x01\x02").unwrap_err();
    assert_eq!(
        err.to_string(),
        "not a readable Hadoop credentials file: the file ends inside the identifier of token 0: \
         5 bytes needed, 2 left (at byte 9)"
    );
}

#[test]
fn lengths_and_counts_over_the_limits_are_refused_where_they_stand() {
    let limits = DecodeLimits {
        max_entries: 1,
        max_field_bytes: 1,
        max_text_bytes: 1,
        max_message_bytes: 4,
    };
    // The identifier's length (2) at offset 8.
    assert_eq!(
        malformed(Credentials::decode_with_limits(SAMPLE_WRITABLE, &limits)),
        (
            8,
            CredentialsProblem::OverLimit {
                field: CredentialsField::TokenIdentifier { index: 0 },
                length: 2,
                limit: 1,
            }
        )
    );
    let count = b"HDTS\x00\x02";
    assert_eq!(
        malformed(Credentials::decode_with_limits(count, &limits)),
        (
            5,
            CredentialsProblem::OverLimit {
                field: CredentialsField::TokenCount,
                length: 2,
                limit: 1,
            }
        )
    );
    let alias = b"HDTS\x00\x01\x02ab";
    assert!(matches!(
        malformed(Credentials::decode_with_limits(alias, &limits)),
        (
            6,
            CredentialsProblem::OverLimit {
                field: CredentialsField::TokenAlias { index: 0 },
                ..
            }
        )
    ));
    assert_eq!(
        malformed(Credentials::decode_with_limits(SAMPLE_PROTOBUF, &limits)),
        (
            5,
            CredentialsProblem::OverLimit {
                field: CredentialsField::ProtobufLength,
                length: 28,
                limit: 4,
            }
        )
    );
    // The default limits take a count of 2^16 but not 2^16 + 1.
    let mut over = b"HDTS\x00".to_vec();
    writable::write_length(&mut over, (1 << 16) + 1);
    assert!(matches!(
        malformed(Credentials::decode(&over)),
        (
            5,
            CredentialsProblem::OverLimit {
                length: 65_537,
                limit: 65_536,
                ..
            }
        )
    ));
}

#[test]
fn negative_and_oversized_vints_are_refused() {
    assert_eq!(
        malformed(Credentials::decode(b"HDTS\x00\xFF")),
        (
            5,
            CredentialsProblem::NegativeLength {
                field: CredentialsField::TokenCount,
                length: -1,
            }
        )
    );
    // An empty token list, then a secret key count of 2^31 (marker 8B, five bytes).
    let bytes = b"HDTS\x00\x00\x8B\x00\x80\x00\x00\x00";
    assert_eq!(
        malformed(Credentials::decode(bytes)),
        (
            6,
            CredentialsProblem::VIntOutOfRange {
                field: CredentialsField::SecretKeyCount,
                value: 1 << 31,
            }
        )
    );
}

#[test]
fn text_that_is_not_utf8_is_refused_with_its_field() {
    // Token 0's kind is FF at offset 11 (its length at 10).
    let bytes = b"HDTS\x00\x01\x01a\x00\x00\x01\xFF\x00\x00";
    assert_eq!(
        malformed(Credentials::decode(bytes)),
        (
            11,
            CredentialsProblem::InvalidUtf8 {
                field: CredentialsField::TokenKind { index: 0 },
                valid_up_to: 0,
            }
        )
    );
    // In version 1, at the offset of the message.
    let mut bytes = SAMPLE_PROTOBUF.to_vec();
    let alias = bytes.iter().position(|b| *b == b'a').unwrap();
    bytes[alias] = 0xC3;
    assert_eq!(
        malformed(Credentials::decode(&bytes)),
        (
            6,
            CredentialsProblem::InvalidUtf8 {
                field: CredentialsField::TokenAlias { index: 0 },
                valid_up_to: 0,
            }
        )
    );
}

#[test]
fn a_protobuf_message_that_does_not_decode_is_refused() {
    let (offset, problem) = malformed(Credentials::decode(b"HDTS\x01\x03\xFF\xFF\xFF"));
    assert_eq!(offset, 6);
    assert!(
        matches!(problem, CredentialsProblem::Protobuf { .. }),
        "{problem:?}"
    );
    let mut too_long = b"HDTS\x01".to_vec();
    too_long.extend([0xFF; 11]);
    assert_eq!(
        malformed(Credentials::decode(&too_long)),
        (
            5,
            CredentialsProblem::VarintTooLong {
                field: CredentialsField::ProtobufLength,
            }
        )
    );
}

#[test]
fn protobuf_entries_without_required_fields_are_refused_as_hadoop_refuses_them() {
    // A token entry without an alias: tokens { token { } }.
    let bytes = b"HDTS\x01\x04\x0A\x02\x12\x00";
    assert_eq!(
        malformed(Credentials::decode(bytes)),
        (
            6,
            CredentialsProblem::MissingRequiredField {
                field: CredentialsField::TokenAlias { index: 0 },
                name: "CredentialsKVProto.alias",
            }
        )
    );
    // A token without its kind: tokens { alias "a" token { identifier "" password "" } }.
    let bytes = b"HDTS\x01\x0B\x0A\x09\x0A\x01a\x12\x04\x0A\x00\x12\x00";
    assert_eq!(
        malformed(Credentials::decode(bytes)),
        (
            6,
            CredentialsProblem::MissingRequiredField {
                field: CredentialsField::TokenKind { index: 0 },
                name: "TokenProto.kind",
            }
        )
    );
    // A token entry without a token, and a secret entry without a secret, read as empty, as
    // Hadoop reads them.
    let bytes = b"HDTS\x01\x0A\x0A\x03\x0A\x01a\x12\x03\x0A\x01k";
    let credentials = Credentials::decode(bytes).unwrap();
    assert_eq!(credentials.tokens(), [token("a", &[], &[], "", "")]);
    assert_eq!(credentials.secret_key("k"), Some(&[][..]));
}

// --- round trips ---

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9:._-]{0,12}",
        any::<String>().prop_map(|s| s.chars().take(40).collect()),
    ]
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![vec(any::<u8>(), 0..8), vec(any::<u8>(), 120..300)]
}

fn credentials() -> impl Strategy<Value = Credentials> {
    let tokens = btree_map(text(), (bytes(), bytes(), text(), text()), 0..5);
    let keys = btree_map(text(), bytes(), 0..4);
    (tokens, keys).prop_map(|(tokens, keys)| {
        let mut credentials = Credentials::new();
        for (alias, (identifier, password, kind, service)) in tokens {
            credentials.add_token(CredentialsToken {
                alias,
                identifier,
                password,
                kind,
                service,
            });
        }
        for (alias, key) in keys {
            credentials.add_secret_key(alias, key);
        }
        credentials
    })
}

proptest! {
    #[test]
    fn any_credentials_round_trip_through_the_writable_form(credentials in credentials()) {
        let bytes = credentials.encode();
        prop_assert_eq!(&bytes[..5], b"HDTS\0");
        prop_assert_eq!(Credentials::decode(&bytes).unwrap(), credentials);
    }

    #[test]
    fn any_credentials_round_trip_through_the_protobuf_form(credentials in credentials()) {
        let bytes = credentials.encode_as(SerializedFormat::Protobuf);
        prop_assert_eq!(&bytes[..5], b"HDTS\x01");
        prop_assert_eq!(Credentials::decode(&bytes).unwrap(), credentials);
    }

    #[test]
    fn cutting_a_file_short_anywhere_is_refused(credentials in credentials(), cut in any::<prop::sample::Index>()) {
        for format in [SerializedFormat::Writable, SerializedFormat::Protobuf] {
            let bytes = credentials.encode_as(format);
            let end = cut.index(bytes.len());
            prop_assert!(Credentials::decode(&bytes[..end]).is_err(), "{format:?} cut at {end}");
        }
    }
}
