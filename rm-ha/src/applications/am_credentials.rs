//! The AM's credentials: what a submission's `am_container_spec.tokens` may hold, and the
//! credentials file the leader hands the AM in its launch context.
//!
//! Both are Hadoop credentials files (`HDTS`), so that an unmodified Hadoop AM (AMRMClient,
//! Spark) finds its AMRMToken in `HADOOP_TOKEN_FILE_LOCATION`:
//!
//! ```text
//! submission tokens: empty | HDTS v0 | HDTS v1     (checked at SubmitApplication)
//!        │  stored as the client sent them
//!        ▼  at each attempt's launch
//! AM's tokens: HDTS v0 = client's tokens and secret keys
//!                        − any YARN_AM_RM_TOKEN
//!                        + the attempt's AMRMToken, filed under its service
//! ```
//!
//! The stored submission keeps the client's bytes unchanged: reports and the REST view show
//! what was submitted, as Hadoop's state store does, and each attempt's file is rebuilt from
//! them with that attempt's AMRMToken, as Hadoop's `AMLauncher.setupTokens` rebuilds it.

use yarn_proto::pb;
use yarn_security::TokenKind;
use yarn_security::hadoop_credentials::{Credentials, CredentialsToken};

/// The submission field holding the AM's credentials, as refusals name it.
pub const AM_TOKENS_FIELD: &str = "application_submission_context.am_container_spec.tokens";

/// The credentials a submission's `tokens` carry for its AM: none when the field is empty (a
/// client that passes no tokens at all), else a Hadoop credentials file of version 0 or 1.
///
/// # Errors
///
/// [`yarn_security::Error::MalformedCredentials`] for bytes that are neither, naming what is
/// wrong and where.
pub fn submitted_credentials(tokens: &[u8]) -> Result<Credentials, yarn_security::Error> {
    if tokens.is_empty() {
        return Ok(Credentials::new());
    }
    Credentials::decode(tokens)
}

/// The AM's credentials file (`HDTS` version 0, what Hadoop 3.5 writes): the tokens and secret
/// keys the submission carried, without any AMRMToken the client put there, plus
/// `amrm_token` filed under its service, the alias Hadoop's `AMLauncher` uses
/// (`credentials.addToken(amrmToken.getService(), amrmToken)`).
///
/// Submitted tokens that do not read (only a submission accepted before
/// [`submitted_credentials`] was checked at submission, from an older replica's log) count as
/// none: the AM still gets a file it can read, with its AMRMToken.
pub fn am_credentials(submitted_tokens: &[u8], amrm_token: pb::TokenProto) -> Vec<u8> {
    let mut credentials = submitted_credentials(submitted_tokens).unwrap_or_default();
    let amrm_kind = TokenKind::AmRm.name();
    // Whatever alias a client filed an AMRMToken under, AMs pick theirs by kind: a stale one
    // left beside the attempt's token could be the one they pick.
    let stale: Vec<String> = credentials
        .tokens_of_kind(amrm_kind)
        .map(|token| token.alias.clone())
        .collect();
    for alias in stale {
        credentials.remove_token(&alias);
    }
    let alias = amrm_token.service.clone();
    credentials.add_token(CredentialsToken::from_proto(alias, amrm_token));
    credentials.encode()
}

#[cfg(test)]
mod tests {
    use yarn_security::hadoop_credentials::SerializedFormat;

    use super::*;

    fn token(kind: &str, service: &str, password: u8) -> pb::TokenProto {
        pb::TokenProto {
            identifier: vec![1, 2, 3],
            password: vec![password; 4],
            kind: kind.to_owned(),
            service: service.to_owned(),
        }
    }

    fn amrm() -> pb::TokenProto {
        token("YARN_AM_RM_TOKEN", "yarn-ha-scheduler", 9)
    }

    /// What a Hadoop client submits: an HDFS delegation token and a secret key.
    fn client_credentials() -> Credentials {
        let mut credentials = Credentials::new();
        credentials.add_token(CredentialsToken::from_proto(
            "nn:8020",
            token("HDFS_DELEGATION_TOKEN", "nn:8020", 5),
        ));
        credentials.add_secret_key("sparkCookie", vec![4, 2]);
        credentials
    }

    /// The file as version 0, read back.
    fn read_version_0(file: &[u8]) -> Credentials {
        assert_eq!(&file[..5], b"HDTS\0", "the AM's file is HDTS version 0");
        Credentials::decode(file).unwrap()
    }

    #[test]
    fn a_version_0_submission_gets_the_amrm_token_beside_its_own() {
        let submitted = client_credentials().encode_as(SerializedFormat::Writable);
        let file = read_version_0(&am_credentials(&submitted, amrm()));
        let mut expected = client_credentials();
        expected.add_token(CredentialsToken::from_proto("yarn-ha-scheduler", amrm()));
        assert_eq!(file, expected);
    }

    #[test]
    fn a_version_1_submission_is_rewritten_as_version_0() {
        let submitted = client_credentials().encode_as(SerializedFormat::Protobuf);
        let file = read_version_0(&am_credentials(&submitted, amrm()));
        assert_eq!(file.secret_key("sparkCookie"), Some(&[4, 2][..]));
        assert!(file.token("nn:8020").is_some());
        assert_eq!(
            file.token("yarn-ha-scheduler").map(|t| t.password.clone()),
            Some(vec![9; 4])
        );
    }

    #[test]
    fn empty_and_spark_style_submissions_get_the_amrm_token_alone() {
        let spark = Credentials::new().encode();
        assert_eq!(spark, b"HDTS\0\0\0");
        for submitted in [&[][..], &spark] {
            let file = read_version_0(&am_credentials(submitted, amrm()));
            assert_eq!(file.tokens().len(), 1);
            assert_eq!(pb::TokenProto::from(file.tokens()[0].clone()), amrm());
            assert!(file.secret_keys().is_empty());
        }
    }

    #[test]
    fn an_amrm_token_the_client_put_there_is_replaced_whatever_its_alias() {
        let mut submitted = client_credentials();
        submitted.add_token(CredentialsToken::from_proto(
            "forged",
            token("YARN_AM_RM_TOKEN", "rm:8030", 1),
        ));
        let once = am_credentials(&submitted.encode(), amrm());
        let twice = read_version_0(&am_credentials(&once, amrm()));
        let amrm_tokens: Vec<_> = twice.tokens_of_kind("YARN_AM_RM_TOKEN").collect();
        assert_eq!(amrm_tokens.len(), 1);
        assert_eq!(amrm_tokens[0].alias, "yarn-ha-scheduler");
        assert_eq!(amrm_tokens[0].password, vec![9; 4]);
        assert!(twice.token("nn:8020").is_some());
    }

    #[test]
    fn submitted_bytes_that_are_no_credentials_file_are_refused() {
        assert_eq!(submitted_credentials(&[]).unwrap(), Credentials::new());
        // A bare protobuf message: yarn-ha's launch contexts before they held Hadoop's files.
        let err = submitted_credentials(&[0x0A, 0x02, 0x01, 0x02]).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("not a readable Hadoop credentials file")
                && message.contains("HDTS"),
            "{message}"
        );
        assert!(submitted_credentials(b"HDTS\x07").is_err());
        assert!(submitted_credentials(b"HDTS\0\x05").is_err());
    }

    #[test]
    fn unreadable_stored_tokens_leave_the_amrm_token_alone() {
        let file = read_version_0(&am_credentials(&[0xFF, 0x00], amrm()));
        assert_eq!(file.tokens().len(), 1);
    }
}
